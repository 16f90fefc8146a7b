"""What a substrate's `build` hands back to GpuCluster: enough to install the in-cluster GPU stack the
same way on EKS, GKE and k3s."""

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pulumi

if TYPE_CHECKING:
    from gpukit.components.storage.built import BuiltVolume


@dataclass
class ClusterHandle:
    name: pulumi.Output[str]
    kubeconfig: pulumi.Output[str]
    """Secret."""
    kubernetes: pulumi.ProviderResource
    """A Kubernetes provider built from `kubeconfig` explicitly (never the ambient KUBECONFIG)."""
    system_ready: list[pulumi.Resource] = field(default_factory=list)
    """What in-cluster releases wait for: the pools that host system pods."""
    storage_summary: str = ""
    """The default StorageClass, in words, for plans and outputs."""
    built_volumes: list["BuiltVolume"] = field(default_factory=list)
    """Shared volumes a substrate built with the cluster itself (GKE: they need its network and node
    service account); its `build_shared_storage` hands them back."""
