"""A cluster's batch settings, resolved once from its config, its pools and its substrate's variant:
what the report, the objects and the build all read."""

from dataclasses import dataclass

from gpukit.components.addons.base import addon_variant
from gpukit.components.addons.batch.queues import Queue, batch_spec, planned_queues
from gpukit.components.addons.batch.runtimes import runtime_name, runtime_pools
from gpukit.components.addons.batch.variant import BATCH, BatchVariant, GangCapacity
from gpukit.components.config.schema import GANG_TIMEOUT_DEFAULT
from gpukit.components.spec import PriorityClassSpec
from gpukit.components.substrate import ResolvedCluster


@dataclass(frozen=True)
class BatchSettings:
    queues: tuple[Queue, ...]
    priority_classes: tuple[PriorityClassSpec, ...]
    gang_timeout_minutes: int
    block_admission: bool
    trainer: bool
    capacity: GangCapacity
    runtimes: tuple[str, ...]
    """The ClusterTrainingRuntimes gpukit creates (runtimes.py)."""
    configured_queues: bool
    """Whether the stack lists its queues (else the one default queue)."""
    topology_levels: tuple[str, ...] = ()
    """The Kueue Topology's node labels, coarse to fine, with `topologyAware` (empty: no TAS)."""


def batch_settings(cluster: ResolvedCluster) -> BatchSettings:
    spec = batch_spec(cluster.args)
    gang = spec.get("gang_scheduling", {})
    variant = addon_variant(cluster.substrate, BATCH, BatchVariant, BatchVariant())
    return BatchSettings(
        queues=planned_queues(cluster.args, cluster.pools),
        priority_classes=tuple(spec.get("priority_classes", [])),
        gang_timeout_minutes=gang.get("timeout_minutes", GANG_TIMEOUT_DEFAULT),
        block_admission=gang.get("block_admission", True),
        trainer=spec.get("training_operator", {}).get("enabled", True),
        capacity=variant.capacity(cluster),
        runtimes=tuple(runtime_name(p) for p in runtime_pools(cluster.pools)),
        configured_queues="queues" in spec,
        topology_levels=variant.topology_levels if spec.get("topology_aware", False) else (),
    )
