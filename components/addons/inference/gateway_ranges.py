"""Who the inference Gateway admits, where gpukit enforces it itself (the NLB's source ranges on EKS,
Envoy's client-address policy and the cloud firewall on k3s): `allowedCidrs`, or with none the
cluster's network (a new VPC's range; all private space in a network gpukit did not make, whose
range the config does not hold); and the nodes its proxies can run on. Pure."""

from gpukit.components.api_access import INTERNAL_RANGES
from gpukit.components.substrate import ResolvedCluster


def admitted_ranges(cluster: ResolvedCluster, cidrs: list[str]) -> list[str]:
    """Never empty: an empty list means "anyone" to the NLB controller and to a firewall rule alike."""
    if cidrs:
        return list(cidrs)
    own = cluster.spec.get("network", {}).get("cidr")
    return [own] if own else [str(r) for r in INTERNAL_RANGES]


def network_scope(cluster: ResolvedCluster, cidrs: list[str]) -> str:
    """The admitted ranges in words (the report's)."""
    ranges = ", ".join(admitted_ranges(cluster, cidrs))
    if cidrs:
        return f"admitting {ranges}"
    if cluster.spec.get("network", {}).get("cidr"):
        return f"the VPC only ({ranges})"
    return f"private address space only ({ranges})"


def system_nodes(cluster: ResolvedCluster) -> str:
    """Where gpukit's system pods (the store, KEDA, the Gateway's proxies) can run, in words: the pools
    without GPUs (they tolerate no GPU taint), with their hosts' addresses where they are machines you
    own."""
    pools = [p for p in cluster.pools if not p.is_gpu]
    if not pools:
        return "no pool without GPUs"
    return ", ".join(
        f"pool {p.name} ({', '.join(h['address'] for h in p.hosts)})" if p.hosts else f"pool {p.name}"
        for p in pools
    )
