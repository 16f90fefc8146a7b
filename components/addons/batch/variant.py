"""How a gang gets its nodes on each substrate: the fact each substrate declares for the batch add-on
(Substrate.addon_variants["batch"]), as the sources say (shared/reference/scheduling-health-conformance.md
sections 1.1 and 1.6, vendored as facts below).

- Kueue admits a workload by quota, then its pods are created. With a ProvisioningRequest admission
  check it first asks the autoscaler for all the gang's nodes at once and admits only once they are
  provisioned. That is what pools marked `provisioning: queued` get:
  - GKE: queued provisioning (`queued-provisioning.gke.io`, GKE docs "Run a large-scale workload with
    flex-start with queued provisioning"): GKE starts every node of the request at once, or none;
  - the Cluster Autoscaler (1.30.2+; gpukit pins 1.34 to 1.36): `best-effort-atomic-scale-up.
    autoscaling.x-k8s.io` (kubernetes/autoscaler cluster-autoscaler/FAQ.md @ cluster-autoscaler-1.35.0,
    "Supported ProvisioningClasses"): one scale-up for the whole gang, atomic only where the cloud
    provider implements AtomicIncreaseSize, which neither its AWS nor its GCE provider does
    (cloudprovider/aws/aws_cloud_provider.go, cloudprovider/gce/gce_cloud_provider.go @ 1.35.0:
    "AtomicIncreaseSize is not implemented").
- Other pools scale on pending pods: Kueue admits by quota, the gang's pods go pending, the autoscaler
  starts nodes for them; waitForPodsReady evicts and requeues a gang whose pods are not all running in
  time, and the nodes started for it idle until scale-down removes them. Karpenter implements no
  ProvisioningRequest at all (kubernetes-sigs/kueue#5133, open).
- Machines you own do not scale: quotas only; a gang waits in its queue, holding nothing, until the
  GPUs it needs are free.
"""

from dataclasses import dataclass

from gpukit.components.spec import ClusterConfig
from gpukit.components.substrate import ResolvedCluster

BATCH = "batch"
ZONE_LABEL = "topology.kubernetes.io/zone"
HOSTNAME_LABEL = "kubernetes.io/hostname"
HOST_LEVELS = (HOSTNAME_LABEL,)
"""Topology levels every node has: its own hostname label (kubelet sets it). With the node as the lowest
level Kueue pins each pod to the node it chose (pkg/cache/scheduler/tas_flavor_snapshot.go @v0.19.2 sets
node selectors at the hostname level only)."""
ZONE_HOST_LEVELS = (ZONE_LABEL, HOSTNAME_LABEL)
"""Where the cloud's node controller labels each node with its zone (EKS, GKE: the well-known label)."""
GKE_QUEUED_CLASS = "queued-provisioning.gke.io"
BEST_EFFORT_ATOMIC_CLASS = "best-effort-atomic-scale-up.autoscaling.x-k8s.io"


@dataclass(frozen=True)
class QueuedProvisioning:
    """What a substrate does for pools marked `provisioning: queued`."""

    provisioning_class: str
    """The ProvisioningRequest class Kueue's admission check asks for."""
    how: str
    """What happens while a gang for such a pool waits, for the plan report and docs/batch.md."""


@dataclass(frozen=True)
class GangCapacity:
    """What the plan says, and what Kueue is given, about where a cluster's gangs get nodes."""

    how: str
    """What happens while a gang waits on the other pools, for the plan report and docs/batch.md."""
    provisioning_class: str | None = None
    """The ProvisioningRequest class Kueue's admission check asks for, for `queued_pools`."""
    queued_pools: tuple[str, ...] = ()
    """GPU pools whose nodes Kueue requests before it admits a gang (all at once or none)."""
    queued_how: str = ""
    """What happens while a gang for a queued pool waits (empty: no queued pools)."""


FIXED_CAPACITY = (
    "fixed capacity (the hosts are all there is): a gang waits in its queue, holding no GPUs, until "
    "enough are free; quotas only"
)
PENDING_PODS = (
    "{scaler} scales on pending pods{why}: Kueue admits a gang by quota, its pods go pending and {scaler} "
    "starts nodes for them; pods not all running within gangScheduling.timeoutMinutes get the gang "
    "evicted and requeued, and nodes started for it stay until they have been idle for the scale-down "
    "delay (you pay for them meanwhile)"
)


class BatchVariant:
    """A substrate's batch fact; this default is machines that do not scale."""

    topology_levels: tuple[str, ...] = HOST_LEVELS
    """The node labels, coarse to fine, a Kueue Topology over this substrate's nodes uses: only labels
    every node carries (TAS counts a node only if it has every level's label)."""

    def pending_how(self, args: ClusterConfig) -> str:
        """What happens while a gang waits on a pool without queued provisioning."""
        return FIXED_CAPACITY

    def queued(self, args: ClusterConfig) -> QueuedProvisioning | str:
        """What `provisioning: queued` gets here, or why it cannot be had."""
        return "these hosts are all the capacity there is: nothing can be provisioned for a gang"

    def capacity(self, cluster: ResolvedCluster) -> GangCapacity:
        queued = self.queued(cluster.args)
        pools = tuple(p.name for p in cluster.gpu_pools if p.queued)
        how = self.pending_how(cluster.args)
        if not pools or isinstance(queued, str):
            return GangCapacity(how)
        return GangCapacity(how, queued.provisioning_class, pools, queued.how)


class PendingPodScaling(BatchVariant):
    """An autoscaler that starts nodes for pending pods, and what it does for queued pools (None: it
    implements no ProvisioningRequest, for the reason given)."""

    def __init__(
        self,
        scaler: str,
        queued: QueuedProvisioning | None,
        why_not: str = "",
        levels: tuple[str, ...] = HOST_LEVELS,
    ) -> None:
        self.scaler = scaler
        self.queued_provisioning = queued
        self.why_not = why_not
        self.topology_levels = levels

    def pending_how(self, args: ClusterConfig) -> str:
        why = f" ({self.why_not})" if self.queued_provisioning is None else ""
        return PENDING_PODS.format(scaler=self.scaler, why=why)

    def queued(self, args: ClusterConfig) -> QueuedProvisioning | str:
        return self.queued_provisioning or self.why_not


CLUSTER_AUTOSCALER_QUEUED = QueuedProvisioning(
    BEST_EFFORT_ATOMIC_CLASS,
    "Kueue asks the Cluster Autoscaler for the whole gang in one ProvisioningRequest and admits it once "
    "the scale-up succeeded (its capacity is then held for the gang for 10 minutes); the scale-up is "
    "not atomic on Auto Scaling groups or instance groups, so a gang that gets fewer nodes is evicted "
    "and requeued by gang admission",
)
CLUSTER_AUTOSCALER_BATCH = PendingPodScaling("the Cluster Autoscaler", CLUSTER_AUTOSCALER_QUEUED)
"""k3s on EC2 and on Compute Engine (EKS without Karpenter: providers/aws/eks/batch_variant.py): gpukit's
Cluster Autoscaler runs with `--enable-provisioning-requests` and the ProvisioningRequest CRD where a
pool is queued (components/autoscaler/provisioning.py). k3s runs no cloud node controller, so its nodes
carry no zone label: topology by node only."""
GKE_BATCH = PendingPodScaling(
    "GKE's cluster autoscaler",
    QueuedProvisioning(
        GKE_QUEUED_CLASS,
        "Kueue asks GKE for the whole gang in one ProvisioningRequest; GKE starts all its nodes at once "
        "or none (flex-start, nodes kept up to 7 days) and Kueue admits the gang once they are there: "
        "no node runs, and none is paid for, while the gang waits",
    ),
    levels=ZONE_HOST_LEVELS,
)
"""GKE: pools marked `provisioning: queued` are flex-start node pools with queued provisioning
(providers/gcp/gke/node_pool.py); the others scale on pending pods."""
