"""Address plan of a new GKE subnet: nodes, pods and services ranges, pure so it is tested alone."""

import ipaddress
from dataclasses import dataclass

# GKE gives each node a /24 of the pod range for its 110 pods (max_pods_per_node 110, the default).
POD_RANGE_PER_NODE_PREFIX = 24
# The proxy-only subnet of the regional Envoy-based load balancers (the inference Gateway's
# gke-l7-rilb): Google recommends a /23 ("Proxy-only subnets for Envoy-based load balancers": "a
# subnet mask of /23", at least /26), so that the proxies can scale out.
PROXY_ONLY_PREFIX = 23


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


def proxy_only_range(cidr: str) -> str:
    """The proxy-only subnet in a new network: the last /23 of `cidr`'s second quarter, clear of the
    default ranges (services take that quarter's first sixteenth; the network is /16 to /20, so the
    quarter is /18 to /22)."""
    second_quarter = list(ipaddress.IPv4Network(cidr).subnets(prefixlen_diff=2))[1]
    return str(list(second_quarter.subnets(new_prefix=PROXY_ONLY_PREFIX))[-1])


def overlaps(ranges: SubnetRanges, proxy_only: str | None = None) -> list[tuple[str, str]]:
    """Pairs of ranges that overlap (each must be disjoint from the others); `proxy_only`: the
    proxy-only subnet's range, where the network gets one."""
    named = {"nodes": ranges.nodes, "pods": ranges.pods, "services": ranges.services}
    if proxy_only is not None:
        named["proxy-only"] = proxy_only
    nets = {k: ipaddress.IPv4Network(v) for k, v in named.items()}
    keys = list(nets)
    return [(a, b) for i, a in enumerate(keys) for b in keys[i + 1 :] if nets[a].overlaps(nets[b])]
