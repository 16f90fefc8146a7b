"""What EksCluster hands the shared-storage builder: the network, the nodes' security group, the AWS
provider and what the CSI add-ons wait for. Also the pure choice of a Lustre file system's zone."""

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pulumi

    from gpukit.components.pools import PoolFacts


@dataclass
class EksStorageContext:
    cluster_name: str
    region: str
    partition: str
    eks_cluster_name: "pulumi.Output[str]"
    """The cluster resource's name output: add-ons wait for the cluster through it."""
    vpc_id: "pulumi.Input[str]"
    subnet_by_zone: "dict[str, pulumi.Input[str]]"
    """The first private node subnet of each AZ ID (EFS: one mount target per zone)."""
    node_security_group_id: "pulumi.Input[str]"
    node_role_arns: "list[pulumi.Input[str]]"
    """Every node role (managed node groups', Karpenter's): EFS admits these only."""
    aws_provider: "pulumi.ProviderResource"
    wait_for: "list[pulumi.Resource]" = field(default_factory=list)
    """The Pod Identity agent add-on and the system pools: CSI controllers need both to run."""
    gpu_zones: tuple[str, ...] = ()
    """AZ IDs GPU pools pin, biggest pool first (gpu_zones): a single-zone file system goes next to the
    GPUs."""
    tags: dict[str, str] = field(default_factory=dict)
    """The cluster's tags (cluster_tags), for what the provider's default tags do not reach (FSx's
    final backups)."""
    ephemeral: bool = False
    """An ephemeral stack (it expires): nothing it stores outlives it, no final backup included."""


def gpu_zones(pools: "Sequence[PoolFacts]") -> tuple[str, ...]:
    """The AZ IDs the GPU pools pin, the pool with the most GPUs at max nodes first (then config order):
    where a single-zone file system serves the most GPUs without crossing zones."""
    ranked = sorted((p for p in pools if p.is_gpu), key=lambda p: -p.gpus_at_max)
    return tuple(dict.fromkeys(z for pool in ranked for z in pool.zones))


def lustre_zone(gpu_zones: Sequence[str], zones: Sequence[str]) -> str:
    """The AZ ID of a Lustre file system (one subnet, one zone): the first zone a GPU pool pins that has
    a node subnet (cross-zone reads cost transfer and latency), else the first zone in sorted order."""
    for zone in gpu_zones:
        if zone in zones:
            return zone
    return sorted(zones)[0]
