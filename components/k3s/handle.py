"""The ClusterHandle every k3s backend (ssh, aws, gcp) hands GpuCluster: the same storage, the API
reached through a kubeconfig built from the Pulumi-made PKI."""

import pulumi

from gpukit.components.handle import ClusterHandle
from gpukit.components.k3s.software import LOCAL_PATH_STORAGE


def k3s_cluster_handle(
    cluster_name: str,
    kubeconfig: pulumi.Output[str],
    kubernetes: pulumi.ProviderResource,
    ready: list[pulumi.Resource],
) -> ClusterHandle:
    return ClusterHandle(
        name=pulumi.Output.from_input(cluster_name),
        kubeconfig=kubeconfig,
        kubernetes=kubernetes,
        system_ready=ready,
        storage_summary=LOCAL_PATH_STORAGE,
    )
