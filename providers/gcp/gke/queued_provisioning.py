"""GKE pools with `provisioning: queued`: flex-start node pools with queued provisioning, whose nodes
GKE starts only for a ProvisioningRequest (Kueue's admission check makes one per gang), all at once.

Sources:
- GKE docs, "Run a large-scale workload with flex-start with queued provisioning": the node pool takes
  `--flex-start --enable-queued-provisioning`, with autoscaling from 0 nodes, location policy ANY,
  reservation affinity none and auto-repair off; GKE 1.32.2-gke.1652000 or later.
- The container API's NodePool.QueuedProvisioning.enabled: "nodes can be only obtained through queuing
  via the Cluster Autoscaler ProvisioningRequest API": a plain pending pod never starts one, so the
  per-pool verification runs as the batch gang check there (PoolFacts.pending_pods_scale).
- Google's cluster-toolkit gke-node-pool (modules/compute/gke-node-pool/main.tf @01a7a3ed, its
  preconditions): queued provisioning needs total min nodes 0, reservation affinity NO_RESERVATION and no
  COMPACT placement; flex-start needs auto_repair false and cannot be spot.
- The nodes carry `cloud.google.com/gke-queued=true:NoSchedule` (cluster-toolkit's DWS workload docs ask
  for that toleration; a node pool create request in the GKE REST API sets the same taint itself).
  gpukit declares it on the pool, as it does GKE's nvidia.com/gpu taint, so it is no drift, and every
  toleration gpukit derives from the pool's taints (the flavor's, the GPU Operator's) carries it.
"""

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from gpukit.components.errors import Problem
from gpukit.components.findings import Finding, Severity
from gpukit.components.pools import PoolFacts, Taint
from gpukit.components.spec import Capacity, NodePoolSpec, Provisioning

if TYPE_CHECKING:  # the SDK's argument types only; this module stays importable without pulumi_gcp
    from pulumi_gcp.container import NodePoolManagementArgsDict, NodePoolQueuedProvisioningArgsDict

QUEUED_TAINT = Taint("cloud.google.com/gke-queued", "true", "NoSchedule")


def queued_pool_facts(pool: PoolFacts) -> PoolFacts:
    """A queued GPU pool's facts: its nodes' taint, and that pending pods do not start them."""
    if not pool.queued:
        return pool
    return replace(pool, taints=(*pool.taints, QUEUED_TAINT), pending_pods_scale=False)


def management(pool: PoolFacts) -> "NodePoolManagementArgsDict":
    """Auto-repair off on queued pools (flex-start requires it); auto-upgrade stays on (a release-channel
    cluster's pools cannot turn it off)."""
    return {"auto_repair": not pool.queued, "auto_upgrade": True}


def queued_provisioning(pool: PoolFacts) -> "NodePoolQueuedProvisioningArgsDict | None":
    return {"enabled": True} if pool.queued else None


def queued_node_config(pool: PoolFacts) -> dict[str, Any]:
    """The node_config fields a queued pool adds: flex-start VMs, never from a reservation."""
    if not pool.queued:
        return {}
    return {"flex_start": True, "reservation_affinity": {"consume_reservation_type": "NO_RESERVATION"}}


def validate_queued_pool(key: str, pool: NodePoolSpec, problems: list[Problem]) -> None:
    """What GKE refuses on a queued pool; that the substrate takes `queued` at all, and that batch is on,
    is the batch add-on's check (components/addons/batch/validate.py)."""
    if pool.get("provisioning") is not Provisioning.QUEUED:
        return
    if pool.get("capacity") is Capacity.SPOT:
        problems.append(
            Problem(
                f"{key}.capacity",
                "a pool with `provisioning: queued` gets flex-start VMs, which cannot be spot; "
                "use `on-demand`, or `provisioning: standard`; got 'spot'",
            )
        )
    if pool.get("min_nodes", 0) != 0:
        problems.append(
            Problem(
                f"{key}.minNodes",
                "must be 0 with `provisioning: queued` (its nodes exist only for the gangs GKE provisions); "
                f"got {pool['min_nodes']}",
            )
        )
    if pool.get("compact_placement"):
        problems.append(
            Problem(
                f"{key}.compactPlacement",
                "GKE places a queued pool's nodes itself; compact placement cannot be combined with "
                "`provisioning: queued`; remove it, or use `provisioning: standard`",
            )
        )


def queued_pool_findings(pools: tuple[PoolFacts, ...]) -> list[Finding]:
    """What the plan's prices mean for a queued pool: flex-start VMs are billed at flex-start rates,
    which gpukit has no sourced table of; its figures for the pool are on-demand list prices."""
    return [
        Finding(
            Severity.INFO,
            f"gpukit:nodePools[{i}].provisioning",
            f"pool {pool.name!r} runs flex-start VMs, billed at flex-start rates gpukit has no sourced "
            "prices for: the plan prices its nodes at on-demand list prices",
            fix="nothing to do; check flex-start pricing for the machine in your region",
        )
        for i, pool in enumerate(pools)
        if pool.queued
    ]
