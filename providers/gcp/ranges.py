"""Address plan of a new GKE subnet: nodes, pods and services ranges, pure so it is tested alone."""

import ipaddress
from dataclasses import dataclass

# GKE gives each node a /24 of the pod range for its 110 pods (max_pods_per_node 110, the default).
POD_RANGE_PER_NODE_PREFIX = 24


@dataclass(frozen=True)
class SubnetRanges:
    nodes: str
    pods: str
    services: str

    @property
    def max_nodes(self) -> int:
        """Nodes the pod range can hold: one /24 each."""
        pods = ipaddress.IPv4Network(self.pods)
        return (
            2 ** (POD_RANGE_PER_NODE_PREFIX - pods.prefixlen)
            if pods.prefixlen <= POD_RANGE_PER_NODE_PREFIX
            else 0
        )


def subnet_ranges(cidr: str, pods: str | None = None, services: str | None = None) -> SubnetRanges:
    """Default layout inside `cidr`: nodes the first quarter, services the first sixteenth of the
    second quarter, pods the upper half (a /16 gives nodes /18, services /20, pods /17 = 128 nodes).
    Explicit `pods`/`services` replace the defaults."""
    network = ipaddress.IPv4Network(cidr)
    quarters = list(network.subnets(prefixlen_diff=2))
    halves = list(network.subnets(prefixlen_diff=1))
    default_services = next(quarters[1].subnets(prefixlen_diff=2))
    return SubnetRanges(
        nodes=str(quarters[0]),
        pods=pods or str(halves[1]),
        services=services or str(default_services),
    )


def overlaps(ranges: SubnetRanges) -> list[tuple[str, str]]:
    """Pairs of ranges that overlap (each must be disjoint from the others)."""
    named = {"nodes": ranges.nodes, "pods": ranges.pods, "services": ranges.services}
    nets = {k: ipaddress.IPv4Network(v) for k, v in named.items()}
    keys = list(nets)
    return [(a, b) for i, a in enumerate(keys) for b in keys[i + 1 :] if nets[a].overlaps(nets[b])]
