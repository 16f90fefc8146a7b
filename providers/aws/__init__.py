"""Amazon Web Services: EKS with managed node groups (eks/), and k3s on EC2 instances (k3s/)."""
