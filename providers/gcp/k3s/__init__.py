"""k3s on Compute Engine: the adapter to the shared k3s-on-cloud flow, and the servers, instance
groups, firewall rules, join secrets and images it builds with."""
