"""How a gang gets its nodes on each substrate: the fact each substrate declares for the batch add-on
(Substrate.addon_variants["batch"]), as the sources say (shared/reference/scheduling-health-conformance.md
sections 1.1 and 1.6, vendored as facts below).

- Kueue admits a workload by quota, then its pods are created. With a ProvisioningRequest admission
  check it first asks the autoscaler for all the gang's nodes at once and admits only once they are
  provisioned: GKE's queued provisioning (`queued-provisioning.gke.io`, GKE docs "Run a large-scale
  workload with flex-start with queued provisioning") does that for the pools marked for it.
- Karpenter implements no ProvisioningRequest (kubernetes-sigs/kueue#5133, open): a gang's pods go
  pending and Karpenter starts nodes for them; waitForPodsReady evicts and requeues a gang whose pods
  are not all running in time, and the nodes started for it idle until consolidation removes them.
- Machines you own do not scale: quotas only; a gang waits in its queue, holding nothing, until the
  GPUs it needs are free.
"""

from dataclasses import dataclass

from gpukit.components.substrate import ResolvedCluster

BATCH = "batch"


@dataclass(frozen=True)
class GangCapacity:
    """What the plan says, and what Kueue is given, about where a cluster's gangs get nodes."""

    how: str
    """What happens while a gang waits, for the plan report and docs/batch.md."""
    provisioning_class: str | None = None
    """The ProvisioningRequest class Kueue's admission check asks for, for `queued_pools`."""
    queued_pools: tuple[str, ...] = ()
    """GPU pools whose nodes Kueue requests before it admits a gang (all at once or none)."""


FIXED_CAPACITY = GangCapacity(
    "fixed capacity (the hosts are all there is): a gang waits in its queue, holding no GPUs, until "
    "enough are free; quotas only"
)
PENDING_PODS = (
    "{scaler} scales on pending pods ({why}): Kueue admits a gang by "
    "quota, its pods go pending and {scaler} starts nodes for them; pods not all running within "
    "gangScheduling.timeoutMinutes get the gang evicted and requeued, and nodes started for it stay until "
    "they have been idle for the scale-down delay (you pay for them meanwhile)"
)


class BatchVariant:
    """A substrate's batch fact; this default is machines that do not scale."""

    def capacity(self, cluster: ResolvedCluster) -> GangCapacity:
        return FIXED_CAPACITY


class PendingPodScaling(BatchVariant):
    """An autoscaler that starts nodes for pending pods, with no ProvisioningRequest."""

    def __init__(self, scaler: str, why: str) -> None:
        self.scaler = scaler
        self.why = why
        """Why no ProvisioningRequest gets a gang its nodes at once."""

    def capacity(self, cluster: ResolvedCluster) -> GangCapacity:
        return GangCapacity(PENDING_PODS.format(scaler=self.scaler, why=self.why))


CA_WHY = "gpukit does not enable its ProvisioningRequest support yet"
CLUSTER_AUTOSCALER_BATCH = PendingPodScaling("the Cluster Autoscaler", CA_WHY)
"""k3s on EC2 and Compute Engine. The autoscaler has ProvisioningRequest support since 1.30.1
(`--enable-provisioning-requests`; kubernetes/autoscaler#6826), which gpukit does not enable yet (it
needs the ProvisioningRequest CRD installed and the flag set): gangs scale on pending pods meanwhile."""
GKE_BATCH = PendingPodScaling(
    "GKE's cluster autoscaler", "gpukit does not build GKE's queued provisioning (flex-start) yet"
)
"""GKE. Queued provisioning (flex-start node pools and Kueue's `queued-provisioning.gke.io` admission
check, which would get a gang all its nodes at once) is not built yet: gangs scale on pending pods."""
