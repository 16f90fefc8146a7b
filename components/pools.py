"""Node pools as facts: what each pool is, and the scheduling facts derived from it.

Pure, and computed once per run (components/substrate.py): the substrates turn them into node groups,
the GPU Operator takes its tolerations from them, and `gpukit plan` prints them. Labels and taints are
decided here once, so a GPU pod's toleration, the node's taint and the autoscaler's scale-from-zero
template can never disagree.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from gpukit.components.catalog.fabrics import FabricKind, MachineFabric, machine_fabric
from gpukit.components.catalog.gpus import GpuModel
from gpukit.components.catalog.instances import InstanceType
from gpukit.components.sharing import (
    GPU_RESOURCE,
    NO_SHARING,
    OPERATOR_SHARING_LABELS,
    PoolSharing,
    mig_memory_gb,
    pool_sharing,
    sharing_labels,
)
from gpukit.components.spec import (
    Capacity,
    HostSpec,
    Interconnect,
    MigStrategy,
    NodeImage,
    NodePoolSpec,
    NodeRole,
    Provisioning,
    SharingMode,
)

__all__ = ["GPU_RESOURCE"]
GPU_TAINT_KEY = "nvidia.com/gpu"
GPU_TAINT_VALUE = "true"
POOL_LABEL = "gpukit.dev/pool"
GPU_MODEL_LABEL = "gpukit.dev/gpu-model"
GPU_PRESENT_LABEL = "nvidia.com/gpu.present"
FABRIC_LABEL = "gpukit.dev/fabric"
"""On the nodes of a pool gpukit sets a fabric up for, its kind (`efa`): what the fabric's device plugin
selects nodes by (the instance-type label would not do on k3s, which rewrites it to `k3s`)."""

DEFAULT_GPU_DISK_GB = 100  # CUDA images are large: 20 GiB fills with one PyTorch image
DEFAULT_CPU_DISK_GB = 50


@dataclass(frozen=True)
class Taint:
    key: str
    value: str
    effect: str
    """Kubernetes spelling: NoSchedule, PreferNoSchedule, NoExecute."""

    def spec(self) -> str:
        """`key=value:Effect`: how k3s's `node-taint`, the `pools` output and the plan write a taint."""
        return f"{self.key}={self.value}:{self.effect}"

    def toleration(self) -> dict[str, str]:
        """The toleration that admits pods onto nodes with this taint (any value)."""
        return {"key": self.key, "operator": "Exists", "effect": self.effect}


GPU_TAINT = Taint(GPU_TAINT_KEY, GPU_TAINT_VALUE, "NoSchedule")
# k3s servers of a cluster with agents: only pods that tolerate it (k3s's packaged add-ons do, and
# gpukit's GPU Operator values add it) run there; NoExecute also evicts any that got there first.
SERVER_TAINT = Taint("CriticalAddonsOnly", "true", "NoExecute")


@dataclass(frozen=True)
class PoolFacts:
    name: str
    instance: InstanceType
    min_nodes: int
    max_nodes: int
    capacity: Capacity
    node_image: NodeImage
    disk_size_gb: int
    labels: dict[str, str] = field(default_factory=dict)
    taints: tuple[Taint, ...] = ()
    zones: tuple[str, ...] = ()
    """Zones the pool was pinned to in config (empty: the provider decides)."""
    role: NodeRole = NodeRole.AGENT
    """k3s: servers run the control plane (and workloads); other platforms have agents only."""
    alternative_instances: tuple[InstanceType, ...] = ()
    """k3s on aws: more instance types the pool's group may launch (same GPUs per node)."""
    hosts: tuple[HostSpec, ...] = ()
    """k3s over SSH: the existing machines of the pool."""
    sharing: PoolSharing = NO_SHARING
    """How pods share the pool's GPUs (`sharing` in config); whole GPUs by default."""
    provisioning: Provisioning = Provisioning.STANDARD
    """`queued`: Kueue asks for a gang's nodes all at once (a ProvisioningRequest) before admitting it."""
    pending_pods_scale: bool = True
    """Whether a pending pod makes the autoscaler start a node of the pool; False where the nodes come
    only through ProvisioningRequests (GKE's queued provisioning), so a plain pod there never runs."""
    fabric: MachineFabric | None = None
    """The fast fabric gpukit sets up for the pool's nodes (`interconnect: auto` on a machine that has
    one, on a substrate that builds it); None: the ordinary network."""
    fabric_skipped: str | None = None
    """Why a pool whose `interconnect` is left out runs on the ordinary network although its machine
    has a fabric gpukit sets up, and what would give it the fabric (settle_fabric); None otherwise."""

    @property
    def is_gpu(self) -> bool:
        return self.instance.has_gpu

    @property
    def queued(self) -> bool:
        """A GPU pool whose gangs get their nodes through a ProvisioningRequest (`provisioning: queued`)."""
        return self.is_gpu and self.provisioning is Provisioning.QUEUED

    @property
    def gpu(self) -> GpuModel | None:
        return self.instance.gpu

    @property
    def instance_type_names(self) -> tuple[str, ...]:
        """The pool's instance type, then its alternatives: every type its groups may launch."""
        return (self.instance.name, *(t.name for t in self.alternative_instances))

    @property
    def gpus_per_node(self) -> int:
        return self.instance.gpu_count

    @property
    def gpus_at_max(self) -> int:
        return self.gpus_per_node * self.max_nodes

    @property
    def advertised_resources(self) -> dict[str, int]:
        """What one node of the pool offers pods once its GPUs are shared as configured: what
        scale-from-zero templates advertise and the plan's units per node."""
        return advertised_resources(self.sharing, self.gpus_per_node) if self.is_gpu else {}

    @property
    def units_per_node(self) -> int:
        """Schedulable GPU units one node offers: GPUs, shares of them, or MIG instances."""
        return sum(self.advertised_resources.values())

    @property
    def memory_gb_per_unit(self) -> dict[str, float]:
        """GPU memory each unit gets to itself, per resource a pod requests; empty where units share
        memory unisolated (time-slicing). MPS limits each of N clients to 1/N of the GPU's memory
        (device plugin README, "With CUDA MPS"); a MIG instance has the memory its profile names."""
        gpu, sharing = self.gpu, self.sharing
        if gpu is None or not self.is_gpu or sharing.mode is SharingMode.TIME_SLICING:
            return {}
        if sharing.mode is SharingMode.MPS:
            return {GPU_RESOURCE: gpu.memory_gb / sharing.replicas}
        if sharing.mode is SharingMode.MIG:
            if sharing.mig_strategy is MigStrategy.MIXED:
                return {f"nvidia.com/mig-{p}": float(mig_memory_gb(gpu, p)) for p, _ in sharing.mig_devices}
            return {GPU_RESOURCE: float(min(mig_memory_gb(gpu, p) for p, _ in sharing.mig_devices))}
        return {GPU_RESOURCE: float(gpu.memory_gb)}

    @property
    def gpu_memory_gb_per_node(self) -> int:
        gpu = self.gpu
        return gpu.memory_gb * self.gpus_per_node if gpu else 0


def advertised_resources(sharing: PoolSharing, gpus_per_node: int) -> dict[str, int]:
    """What a node of `gpus_per_node` GPUs shared as `sharing` offers pods, per resource name: what
    pools advertise, queues' quotas count and `gpukit size`'s quota snippet proposes."""
    if sharing.mode in (SharingMode.TIME_SLICING, SharingMode.MPS):
        return {GPU_RESOURCE: gpus_per_node * sharing.replicas}
    if sharing.mode is SharingMode.MIG:
        # single: the instances as nvidia.com/gpu; mixed: as nvidia.com/mig-<profile>.
        return sharing.mig_resources(gpus_per_node)
    return {GPU_RESOURCE: gpus_per_node}


def make_pool_facts(
    pool: NodePoolSpec,
    instance: InstanceType,
    min_nodes: int,
    max_nodes: int,
    gpu_taint_value: str,
    *,
    fabrics: frozenset[FabricKind] = frozenset(),
) -> PoolFacts:
    """Facts for one validated pool spec that runs `instance` machines (each substrate picks those).
    A shared pool's labels select the GPU Operator's sharing setting (components/resolve/config.py drops
    them where the platform shares GPUs itself). `fabrics`: the fabric kinds the substrate sets up."""
    labels = {POOL_LABEL: pool["name"]}
    taints: tuple[Taint, ...] = ()
    gpu = instance.gpu
    if gpu is not None and instance.has_gpu:
        labels[GPU_MODEL_LABEL] = gpu.name
        labels[GPU_PRESENT_LABEL] = "true"
        taints = (Taint(GPU_TAINT_KEY, gpu_taint_value, "NoSchedule"),)
    sharing = pool_sharing(pool.get("sharing"), gpu if instance.has_gpu else None)
    if sharing.shares:
        labels.update(sharing_labels(sharing))
    fabric = pool_fabric(pool, instance, fabrics)
    if fabric is not None:
        labels[FABRIC_LABEL] = fabric.kind.value
    default_disk = DEFAULT_GPU_DISK_GB if instance.has_gpu else DEFAULT_CPU_DISK_GB
    return PoolFacts(
        name=pool["name"],
        instance=instance,
        min_nodes=min_nodes,
        max_nodes=max_nodes,
        capacity=pool.get("capacity", Capacity.ON_DEMAND),
        node_image=pool.get("node_image", NodeImage.AL2023),
        disk_size_gb=pool.get("disk_size_gb", default_disk),
        labels=labels,
        taints=taints,
        zones=tuple(pool.get("zones", ())),
        role=pool.get("role", NodeRole.AGENT),
        sharing=sharing,
        provisioning=pool.get("provisioning", Provisioning.STANDARD),
        fabric=fabric,
    )


def pool_fabric(
    pool: NodePoolSpec, instance: InstanceType, fabrics: frozenset[FabricKind]
) -> MachineFabric | None:
    """The fabric a pool gets: its machine's, unless `interconnect: none` or the substrate does not set
    that kind up (then the pool runs on the ordinary network, and the plan says why)."""
    if pool.get("interconnect", Interconnect.AUTO) is Interconnect.NONE or not instance.has_gpu:
        return None
    fabric = machine_fabric(instance)
    return fabric if fabric is not None and fabric.kind in fabrics else None


@dataclass(frozen=True)
class FabricConflict:
    """Why a pool cannot have its machine's fabric as configured."""

    key: str
    """The pool's key at fault, below `nodePools[i]`: `zones`, `alternativeInstanceTypes[1]`."""
    why: str


def fabric_conflicts(pool: PoolFacts) -> list[FabricConflict]:
    """What keeps a fabric pool from its fabric: more than one zone (a fabric's nodes sit close together,
    in one placement, which lives in one zone), or an alternative machine with another fabric (the
    pool's nodes launch with one interface layout, its machine's). What decides both a left-out
    `interconnect` (the ordinary network, with why) and an explicit `auto` (refused, naming the key)."""
    if pool.fabric is None:
        return []
    found: list[FabricConflict] = []
    if len(pool.zones) > 1:
        found.append(
            FabricConflict(
                "zones",
                f"the pool is spread over {len(pool.zones)} zones ({', '.join(pool.zones)}), and its "
                f"{pool.fabric.kind.display} nodes sit in one placement, in one zone",
            )
        )
    mine = (pool.fabric.kind, pool.fabric.interfaces)
    for j, other in enumerate(pool.alternative_instances):
        theirs = machine_fabric(other)
        if theirs is None or (theirs.kind, theirs.interfaces) != mine:
            has = theirs.describe() if theirs is not None else "no fast fabric"
            found.append(
                FabricConflict(
                    f"alternativeInstanceTypes[{j}]",
                    f"alternative {other.name} has {has}, and the pool's nodes launch with one interface "
                    f"layout, {pool.instance.name}'s ({pool.fabric.describe()})",
                )
            )
    return found


def settle_fabric(facts: PoolFacts, pool: NodePoolSpec) -> PoolFacts:
    """The pool's facts once every machine it may launch is known (alternatives included): where
    `interconnect` is left out and a fabric conflict stands, or the pool pins no zone, the ordinary
    network, with why (a stack that planned before interconnect existed still plans, and keeps its
    zones and nodes); an explicit `auto` keeps the fabric, so the interconnect add-on refuses a conflict
    naming its key, and an unpinned pool gets one zone (EKS: picked at `pulumi up`; GKE: the first that
    offers its GPU)."""
    if facts.fabric is None or "interconnect" in pool:
        return facts
    reasons = [c.why for c in fabric_conflicts(facts)]
    if reasons:
        why = "; ".join(reasons) + "; to get it: pin one zone, with alternatives of the same fabric"
    elif not facts.zones:
        # Unpinned, the pool may spread over every zone that offers its machine (one node group per
        # zone, or Karpenter's pick): a fabric would hold it to one, and on a pool that exists that
        # deletes the other zones' nodes. Only a pinned zone, or an explicit `auto`, asks for that.
        why = (
            f"its zones are not pinned, and {facts.fabric.kind.display} nodes sit in one zone; to get it: "
            "pin one zone, or set `interconnect: auto` (gpukit then picks one zone that offers the "
            "machine, and the plan says how)"
        )
    else:
        return facts
    labels = {k: v for k, v in facts.labels.items() if k != FABRIC_LABEL}
    return replace(facts, fabric=None, labels=labels, fabric_skipped=why)


def without_operator_sharing_labels(pool: PoolFacts) -> PoolFacts:
    """The pool without the GPU Operator's sharing labels, where the platform shares GPUs itself."""
    labels = {k: v for k, v in pool.labels.items() if k not in OPERATOR_SHARING_LABELS}
    return replace(pool, labels=labels)


def tolerations_for(pools: Sequence[PoolFacts]) -> list[dict[str, str]]:
    """Tolerations for the pools' taints, once each, in pool order: what GPU daemonsets need."""
    seen: dict[tuple[str, str], dict[str, str]] = {}
    for pool in pools:
        for taint in pool.taints:
            seen.setdefault((taint.key, taint.effect), taint.toleration())
    return list(seen.values())
