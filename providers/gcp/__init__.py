"""Google Cloud: GKE Standard with GPU node pools (gke/), and k3s on Compute Engine VMs (k3s/)."""
