"""k3s over SSH: the hosts of the pools, joined by K3sCluster."""
