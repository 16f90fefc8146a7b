"""What every substrate hands back to GpuCluster, so the in-cluster GPU stack is built the same way
on EKS, GKE or k3s."""

from dataclasses import dataclass, field
from typing import Any, Protocol

import pulumi

from gpukit.components.gpu_operator.values import GpuNodeSoftware


@dataclass
class ClusterHandle:
    name: pulumi.Output[str]
    kubeconfig: pulumi.Output[str]
    """Secret."""
    kubernetes: pulumi.ProviderResource
    """A Kubernetes provider built from `kubeconfig` explicitly (never the ambient KUBECONFIG)."""
    gpu_node_software: GpuNodeSoftware
    system_ready: list[pulumi.Resource] = field(default_factory=list)
    """What in-cluster releases wait for: the pools that host system pods."""
    storage_summary: str = ""
    """The default StorageClass, in words, for plans and outputs."""


class ClusterBackend(Protocol):
    """Builds network, control plane and node pools for validated GpuClusterArgs."""

    def __call__(self, name: str, args: Any, parent: pulumi.Resource) -> ClusterHandle: ...
