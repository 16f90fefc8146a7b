"""What a Google Cloud cluster costs beyond its machines, per hour, at list price (providers/gcp/catalog.py
names the prices' region and sources)."""

from gpukit.components.api_access import needs_public_endpoint
from gpukit.components.pools import PoolFacts
from gpukit.components.pricing import Charge
from gpukit.components.spec import NetworkSpec, NodeRole
from gpukit.components.substrate import ResolvedCluster
from gpukit.providers.gcp.catalog import (
    CLOUD_NAT_MAX_BILLED_VMS,
    CLOUD_NAT_PER_VM_HOUR,
    EXTERNAL_IP_PER_HOUR,
    GKE_MANAGEMENT_PER_HOUR,
)


def _cloud_nat(network: NetworkSpec, pools: tuple[PoolFacts, ...]) -> list[Charge]:
    """A new network's Cloud NAT, billed per VM using it, for the first 32 VMs of a gateway."""
    if "network_id" in network:
        return []
    idle = min(sum(p.min_nodes for p in pools), CLOUD_NAT_MAX_BILLED_VMS)
    peak = min(sum(p.max_nodes for p in pools), CLOUD_NAT_MAX_BILLED_VMS)
    return [Charge("Cloud NAT (per VM)", idle * CLOUD_NAT_PER_VM_HOUR, peak * CLOUD_NAT_PER_VM_HOUR)]


def gke_charges(cluster: ResolvedCluster) -> list[Charge]:
    management = Charge("GKE cluster management", GKE_MANAGEMENT_PER_HOUR, GKE_MANAGEMENT_PER_HOUR)
    return [management, *_cloud_nat(cluster.spec.get("network", {}), cluster.pools)]


def k3s_gce_charges(cluster: ResolvedCluster) -> list[Charge]:
    """k3s: the control plane runs on the server pool's machines, priced with the pools."""
    charges = _cloud_nat(cluster.spec.get("network", {}), cluster.pools)
    if needs_public_endpoint(cluster.spec.get("api_access_cidrs", [])):
        servers = sum(p.min_nodes for p in cluster.pools if p.role == NodeRole.SERVER)
        ips = servers * EXTERNAL_IP_PER_HOUR
        charges.append(Charge(f"external IPv4 x{servers} (k3s API)", ips, ips))
    return charges
