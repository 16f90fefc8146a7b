"""k3s on EC2: the adapter to the shared k3s-on-cloud flow, and the servers, agent pools, load balancer,
security groups, join secrets and images it builds with."""
