"""What a substrate's `build` hands back to GpuCluster: enough to install the in-cluster software (the
add-ons, components/addons/) the same way on EKS, GKE and k3s."""

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # light on purpose: add-ons and substrates name it with every `gpukit` command
    import pulumi


@dataclass
class ClusterHandle:
    name: "pulumi.Output[str]"
    kubeconfig: "pulumi.Output[str]"
    """Secret."""
    kubernetes: "pulumi.ProviderResource"
    """A Kubernetes provider built from `kubeconfig` explicitly (never the ambient KUBECONFIG)."""
    system_ready: "list[pulumi.Resource]" = field(default_factory=list)
    """What in-cluster releases wait for: the pools that host system pods."""
    api_extensions: "list[pulumi.Resource]" = field(default_factory=list)
    """What installs the APIs the substrate adds for add-ons (the ProvisioningRequest CRD, with the
    Cluster Autoscaler that serves it): a controller that looks for an API only when it starts (Kueue)
    waits for these."""
    storage_summary: str = ""
    """The default StorageClass, in words, for plans and outputs."""
    substrate_state: Any = None
    """What a substrate's `build` keeps for the add-on variants it declares (Substrate.addon_variants):
    the network, the nodes' security group, its cloud provider, the component their resources go under.
    Opaque to everything else; each variant checks it is the type its substrate keeps."""
