"""The GKE kubeconfig: it authenticates with gke-gcloud-auth-plugin, as `gcloud container clusters
get-credentials` sets up."""

from gpukit.components.kubeconfig import exec_kubeconfig


def gke_kubeconfig(context: str, endpoint: str, ca_data: str) -> str:
    """A kubeconfig that authenticates with gke-gcloud-auth-plugin (the caller's gcloud identity)."""
    return exec_kubeconfig(
        context,
        f"https://{endpoint}",
        ca_data,
        {
            "command": "gke-gcloud-auth-plugin",
            "installHint": "Install gke-gcloud-auth-plugin for kubectl: "
            "https://cloud.google.com/kubernetes-engine/docs/how-to/cluster-access-for-kubectl#install_plugin",
            "provideClusterInfo": True,
            "interactiveMode": "Never",
        },
    )
