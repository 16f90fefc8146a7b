"""Amazon Web Services: EKS with managed node groups (k3s on EC2 comes later)."""
