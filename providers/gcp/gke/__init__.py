"""GKE: the cluster, its node pools, the GPU stack per driver mode, storage and the kubeconfig."""
