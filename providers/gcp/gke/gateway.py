"""What a GKE cluster needs for the inference Gateway (components/addons/inference; GKE's own Gateway
controller programs it): the cluster's Gateway API channel; in a network gpukit creates, a proxy-only
subnet for gke-l7-rilb's Envoy proxies and the firewall rule that lets them and Google's health checks
reach the nodes (providers/gcp/proxy_only.py). Pure: the cluster passes it on."""

from typing import Any

GATEWAY_API_CHANNEL = "CHANNEL_STANDARD"
"""GatewayAPIConfig.channel: GKE installs the standard-channel CRDs and runs its controller
(CHANNEL_EXPERIMENTAL is deprecated; "Deploying Gateways": only the standard channel is supported).
gpukit installs no Gateway API CRDs of its own on GKE."""


def gateway_api_config(gateway: bool) -> Any:
    """The cluster's `gateway_api_config`, or None (the provider keeps what GKE has) without a gateway."""
    return {"channel": GATEWAY_API_CHANNEL} if gateway else None
