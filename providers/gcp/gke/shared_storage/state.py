"""What the GKE build keeps for its shared-storage variant (ClusterHandle.substrate_state): the network
and node identity Filestore, Managed Lustre and Cloud Storage FUSE volumes need, the stack's gcp
provider, and the GkeCluster component their resources go under (where they always were: their URNs
stay)."""

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pulumi


@dataclass(frozen=True)
class GkeStorageState:
    component: "pulumi.ComponentResource"
    cluster_name: str
    project: str
    region: str
    network_id: "pulumi.Input[str]"
    node_service_account: "pulumi.Input[str]"
    gcp_provider: "pulumi.ProviderResource"
    after: "list[pulumi.Resource]" = field(default_factory=list)
    """The cluster (its CSI add-ons) and the system node pools: what the volumes' objects wait for."""
