"""The proxy-only subnet of Google's regional Envoy-based load balancers (the GKE inference Gateway's
gke-l7-rilb runs its proxies there), and what the nodes must admit from it. Pure: GcpNetwork makes
them in a network gpukit creates."""

PROXY_ONLY_PURPOSE = "REGIONAL_MANAGED_PROXY"
PROXY_ONLY_ROLE = "ACTIVE"
HEALTH_CHECK_RANGES = ("35.191.0.0/16", "130.211.0.0/22")
"""Google's health-check probes ("Firewall rules", Cloud Load Balancing docs: the ranges for the
internal Application Load Balancer)."""


def proxy_firewall_sources(proxy_only: str) -> list[str]:
    """Who the nodes admit for the Gateway: its proxies (from the proxy-only subnet; the Envoy-based
    load balancers send from there, "Firewall rules") and the health checks. Every TCP port: the
    backends are pods behind network endpoint groups, on whatever port each Service targets."""
    return [proxy_only, *HEALTH_CHECK_RANGES]
