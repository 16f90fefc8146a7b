"""What an AWS cluster costs beyond its machines, per hour, at list price (providers/aws/catalog.py
names the prices' region, date and sources)."""

from gpukit.components.pricing import Charge
from gpukit.components.spec import DEFAULT_ZONE_COUNT, NatGateways, NetworkSpec, SupportType
from gpukit.components.substrate import ResolvedCluster
from gpukit.providers.aws.catalog import (
    EKS_CONTROL_PLANE_PER_HOUR,
    EKS_EXTENDED_SUPPORT_PER_HOUR,
    KMS_KEY_PER_HOUR,
    NAT_GATEWAY_PER_HOUR,
    NETWORK_LOAD_BALANCER_PER_HOUR,
    SECRET_PER_HOUR,
)


def _nat_gateways(network: NetworkSpec) -> list[Charge]:
    """A new VPC's NAT gateways (a reused VPC's are already paid for)."""
    if "vpc_id" in network:
        return []
    layout = network.get("nat_gateways", NatGateways.SINGLE)
    # Per zone: one per configured zone; a region with fewer zones than zoneCount gets fewer
    # (the plan cannot know the region's zones offline, so this is the upper bound).
    count = 1 if layout == NatGateways.SINGLE else network.get("zone_count", DEFAULT_ZONE_COUNT)
    nat = NAT_GATEWAY_PER_HOUR * count
    return [Charge(f"NAT gateway x{count}", nat, nat)]


def eks_charges(cluster: ResolvedCluster) -> list[Charge]:
    if cluster.spec.get("support_type", SupportType.STANDARD) == SupportType.EXTENDED:
        what, rate = "EKS control plane (extended support)", EKS_EXTENDED_SUPPORT_PER_HOUR
    else:
        what, rate = "EKS control plane (standard support)", EKS_CONTROL_PLANE_PER_HOUR
    control_plane = Charge(what, rate, rate)
    return [control_plane, *_nat_gateways(cluster.spec.get("network", {}))]


def k3s_ec2_charges(cluster: ResolvedCluster) -> list[Charge]:
    """k3s: the control plane runs on the server pool's machines, priced with the pools."""
    secrets = 2 * SECRET_PER_HOUR
    return [
        Charge(
            "Network Load Balancer (k3s API)",
            NETWORK_LOAD_BALANCER_PER_HOUR,
            NETWORK_LOAD_BALANCER_PER_HOUR,
        ),
        Charge("Secrets Manager x2 (join secrets)", secrets, secrets),
        Charge("KMS key (servers' join secret)", KMS_KEY_PER_HOUR, KMS_KEY_PER_HOUR),
        *_nat_gateways(cluster.spec.get("network", {})),
    ]
