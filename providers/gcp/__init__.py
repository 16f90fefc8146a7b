"""Google Cloud: GKE Standard with GPU node pools (k3s on Compute Engine comes later)."""
