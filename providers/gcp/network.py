"""GcpNetwork: a custom-mode VPC with one subnet and Cloud NAT, for GKE and for k3s on Compute Engine.

GKE passes `ranges` (a VPC-native subnet with secondary ranges for pods and services); k3s passes only
`cidr`: its pods live on flannel's overlay (10.42.0.0/16), not on VPC ranges.
"""

from typing import NotRequired, Optional, TypedDict

import pulumi
import pulumi_gcp as gcp

from gpukit.components.names import fit_name
from gpukit.providers.gcp.proxy_only import PROXY_ONLY_PURPOSE, PROXY_ONLY_ROLE, proxy_firewall_sources
from gpukit.providers.gcp.ranges import SubnetRanges

TYPE_TOKEN = "gpukit:index:GcpNetwork"
PODS_RANGE = "pods"
# Compute Engine names: RFC 1035, at most 63 characters (providers/gcp/names.py).
GCE_NAME_MAX = 63
SERVICES_RANGE = "services"


class GcpNetworkArgs(TypedDict):
    cluster_name: str
    region: str
    ranges: NotRequired[SubnetRanges]
    """GKE: from providers/gcp/ranges.py subnet_ranges (Python-only: built by GkeCluster)."""
    cidr: NotRequired[str]
    """Without `ranges`: the subnet's only range (k3s)."""
    proxy_only: NotRequired[str]
    """GKE with the inference Gateway: the proxy-only subnet's range (ranges.py proxy_only_range)."""
    proxy_targets: NotRequired[list[pulumi.Input[str]]]
    """The service accounts of the machines the Gateway's proxies reach (GKE's nodes)."""


class GcpNetwork(pulumi.ComponentResource):
    """Machines without external IPs (GKE's private nodes, k3s agents) get egress through Cloud NAT:
    image pulls, and for k3s the k3s download at first boot.

    Fixed names, and no delete_before_replace: what replaces these (another region or CIDR) replaces
    every machine and the GKE cluster on them. Created first, the new network fails on its name before
    anything is deleted, rather than taking the cluster down on its way.
    """

    network_id: pulumi.Output[str]
    subnetwork_id: pulumi.Output[str]
    proxy_only_subnet: pulumi.Resource | None
    """The Gateway's proxy-only subnet, where asked: the cluster depends on it, so that it outlives the
    load balancer GKE puts on it (a subnet in use cannot be deleted)."""

    def __init__(self, name: str, args: GcpNetworkArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        child = pulumi.ResourceOptions(parent=self)
        cluster, region = args["cluster_name"], args["region"]
        ranges = args.get("ranges")

        network = gcp.compute.Network(
            f"{name}-vpc",
            name=f"{cluster}-vpc",
            auto_create_subnetworks=False,  # custom mode: only the subnet below exists
            routing_mode="REGIONAL",
            opts=child,
        )
        subnetwork = gcp.compute.Subnetwork(
            f"{name}-subnet",
            name=fit_name(cluster, f"-{region}", GCE_NAME_MAX),  # gcp:region's length has no cap
            network=network.id,
            region=region,
            ip_cidr_range=ranges.nodes if ranges else args["cidr"],
            secondary_ip_ranges=(
                [
                    {"range_name": PODS_RANGE, "ip_cidr_range": ranges.pods},
                    {"range_name": SERVICES_RANGE, "ip_cidr_range": ranges.services},
                ]
                if ranges
                else None
            ),
            private_ip_google_access=True,  # private nodes reach Google APIs (Artifact Registry, GCS)
            opts=child,
        )
        proxy_only = args.get("proxy_only")
        self.proxy_only_subnet = None
        if proxy_only is not None:
            # The Gateway's regional internal load balancer runs its Envoy proxies here: one active
            # proxy-only subnet per region and network (proxy_only.py).
            proxy_subnet = gcp.compute.Subnetwork(
                f"{name}-proxy-only",
                name=fit_name(cluster, f"-{region}-proxy", GCE_NAME_MAX),
                network=network.id,
                region=region,
                ip_cidr_range=proxy_only,
                purpose=PROXY_ONLY_PURPOSE,
                role=PROXY_ONLY_ROLE,
                opts=child,
            )
            gcp.compute.Firewall(
                f"{name}-gateway-proxies",
                name=fit_name(cluster, "-gateway-proxies", GCE_NAME_MAX),
                network=network.id,
                direction="INGRESS",
                source_ranges=proxy_firewall_sources(proxy_only),
                allows=[{"protocol": "tcp"}],
                target_service_accounts=args.get("proxy_targets"),
                description="gpukit: the inference Gateway's proxies and health checks to the nodes",
                # A fixed name: the old rule goes before its replacement takes the name.
                opts=pulumi.ResourceOptions(
                    parent=self, depends_on=[proxy_subnet], delete_before_replace=True
                ),
            )
            self.proxy_only_subnet = proxy_subnet
        router = gcp.compute.Router(
            f"{name}-router", name=f"{cluster}-router", network=network.id, region=region, opts=child
        )
        gcp.compute.RouterNat(
            f"{name}-nat",
            name=f"{cluster}-nat",
            router=router.name,
            region=region,
            nat_ip_allocate_option="AUTO_ONLY",
            source_subnetwork_ip_ranges_to_nat="ALL_SUBNETWORKS_ALL_IP_RANGES",
            log_config={"enable": True, "filter": "ERRORS_ONLY"},
            opts=child,
        )
        self.network_id = network.id
        self.subnetwork_id = subnetwork.id
        self.register_outputs({"network_id": self.network_id, "subnetwork_id": self.subnetwork_id})
