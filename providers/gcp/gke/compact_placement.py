"""Compact placement for GKE node pools: which machines support it, and the checks a pool that asks for
it (`nodePools[].compactPlacement: true`) must pass.

A compact placement policy puts a pool's nodes physically close within one zone (lower latency between
them, for tightly coupled training). Sources:
- Supported machines: GKE docs "Define compact placement for GKE nodes", limitations ("Available only
  on C2, C2D, C3, C3D, C4D, H3, H4D, N2, and N2D machine types"; "Available only with A100, L4, and
  H100 GPUs"). The Standard section of that page was not readable here; gpukit takes the same list
  for Standard node pools and refuses everything else (H200, B200, RTX PRO 6000, T4, E2, N1).
- One zone: "GKE provisions workloads within a compact placement in the same zone"; Google's
  cluster-toolkit gke-node-pool refuses COMPACT unless `zones` holds exactly one zone ("Compact
  placement is only available for node pools operating in a single zone", modules/compute/
  gke-node-pool/main.tf @01a7a3ed).
"""

from gpukit.components.catalog.instances import InstanceType
from gpukit.components.errors import Problem
from gpukit.components.spec import ClusterSpec, NodePoolSpec
from gpukit.providers.gcp.catalog import accelerator_zones, machine_series

COMPACT_CPU_SERIES = frozenset({"c2", "c2d", "c3", "c3d", "c4d", "h3", "h4d", "n2", "n2d"})
# A100 (40 GB and 80 GB), L4, H100 (A3 High and A3 Mega).
COMPACT_ACCELERATORS = frozenset(
    {"nvidia-tesla-a100", "nvidia-a100-80gb", "nvidia-l4", "nvidia-h100-80gb", "nvidia-h100-mega-80gb"}
)


def supports_compact_placement(machine: InstanceType, attached_accelerator: str | None = None) -> bool:
    """GPU machines by their accelerator (built in, or attached to N1), CPU machines by their series."""
    accelerator = machine.accelerator_type or attached_accelerator
    if accelerator:
        return accelerator in COMPACT_ACCELERATORS
    return machine_series(machine) in COMPACT_CPU_SERIES


def compact_pool_zones(cluster: ClusterSpec, pool: NodePoolSpec, accelerator: str | None) -> list[str]:
    """The zones the pool would use (placement.pool_zones on the config): pinned ones, or those of the
    cluster's zone or the region that offer its GPU; [] where GKE would pick (every cluster zone)."""
    if pool.get("zones"):
        return list(pool["zones"])
    zone = cluster.get("zone")
    if accelerator:
        offered = accelerator_zones(accelerator, cluster["region"]) or []
        return [z for z in offered if zone is None or z == zone]
    return [zone] if zone else []


def validate_compact_placement(  # noqa: PLR0917 (a private helper of validate_gke_pool)
    key: str,
    pool: NodePoolSpec,
    cluster: ClusterSpec,
    machine: InstanceType,
    attached_accelerator: str | None,
    problems: list[Problem],
) -> None:
    if not pool.get("compact_placement"):
        return
    where = f"{key}.compactPlacement"
    if not supports_compact_placement(machine, attached_accelerator):
        problems.append(
            Problem(
                where,
                f"GKE places only C2, C2D, C3, C3D, C4D, H3, H4D, N2, N2D machines and A100, L4, H100 GPU "
                f"machines compactly; {pool['instance_type']} is none of them: remove the key",
            )
        )
        return
    zones = compact_pool_zones(cluster, pool, machine.accelerator_type or attached_accelerator)
    if len(zones) != 1:
        spread = ", ".join(zones) if zones else f"every zone of the regional cluster in {cluster['region']}"
        problems.append(
            Problem(
                where,
                "compact placement keeps a pool in one zone: pin it with zones: [<one zone>] "
                f"(it would use {spread})",
            )
        )
