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
    default_storage: "list[pulumi.Resource]" = field(default_factory=list)
    """What a volume of the default StorageClass needs before it can be provisioned (EKS: the EBS CSI
    add-on and its class); empty where k3s's own local-path serves, and on GKE, where nothing of gpukit's
    claims one yet. A release whose pods claim a volume of the default class (the inference add-on's
    Prometheus) waits for it, so the claim finds a class and a driver that can provision it."""
    storage_summary: str = ""
    """The default StorageClass, in words, for plans and outputs."""
    substrate_state: Any = None
    """What a substrate's `build` keeps for the add-on variants it declares (Substrate.addon_variants):
    the network, the nodes' security group, its cloud provider, the component their resources go under.
    Opaque to everything else; each variant checks it is the type its substrate keeps."""
