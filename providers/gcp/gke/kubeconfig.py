"""The GKE kubeconfig: it authenticates with gke-gcloud-auth-plugin, as `gcloud container clusters
get-credentials` sets up."""

from typing import TYPE_CHECKING

from gpukit.components.kubeconfig import exec_kubeconfig

if TYPE_CHECKING:
    import pulumi_gcp as gcp


def gke_kubeconfig(context: str, endpoint: str, ca_data: str | None) -> str:
    """A kubeconfig that authenticates with gke-gcloud-auth-plugin (the caller's gcloud identity);
    `ca_data` None for the DNS-based endpoint, whose certificate is publicly trusted."""
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


def dns_endpoint_of(config: "gcp.container.outputs.ClusterControlPlaneEndpointsConfig | None") -> str:
    """The cluster's DNS-based control-plane endpoint (`gke-<id>.<location>.gke.goog`), which GKE
    assigns when the cluster is made."""
    endpoint = config.dns_endpoint_config.endpoint if config and config.dns_endpoint_config else None
    if not endpoint:
        raise ValueError("GKE returned no DNS endpoint for a cluster made with one")
    return endpoint
