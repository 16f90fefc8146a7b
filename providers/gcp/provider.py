"""The explicit Google Cloud provider every gpukit cluster on GCP builds with (GKE and k3s on GCE)."""

import pulumi
import pulumi_gcp as gcp

from gpukit.components.spec import ClusterSpec


def cluster_provider(name: str, spec: ClusterSpec, parent: pulumi.Resource) -> gcp.Provider:
    """Project and region come from the stack, never from gcloud defaults; every resource is labelled
    with its cluster."""
    return gcp.Provider(
        f"{name}-gcp",
        project=spec.get("project", ""),
        region=spec["region"],
        default_labels={"gpukit-cluster": spec["name"], "managed-by": "gpukit"},
        opts=pulumi.ResourceOptions(parent=parent),
    )
