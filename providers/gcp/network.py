"""GcpNetwork: a VPC-native network for GKE: one subnet with pods/services ranges, Cloud NAT."""

from typing import Optional, TypedDict

import pulumi
import pulumi_gcp as gcp

from components.gke_ranges import SubnetRanges

TYPE_TOKEN = "gpukit:index:GcpNetwork"
PODS_RANGE = "pods"
SERVICES_RANGE = "services"


class GcpNetworkArgs(TypedDict):
    cluster_name: str
    region: str
    ranges: SubnetRanges
    """From components.gke_ranges.subnet_ranges (Python-only: built by GkeCluster)."""


class GcpNetwork(pulumi.ComponentResource):
    """Nodes get no external IPs (private nodes), so Cloud NAT gives them egress for image pulls."""

    network_id: pulumi.Output[str]
    subnetwork_id: pulumi.Output[str]

    def __init__(self, name: str, args: GcpNetworkArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        child = pulumi.ResourceOptions(parent=self)
        cluster, region, ranges = args["cluster_name"], args["region"], args["ranges"]

        network = gcp.compute.Network(
            f"{name}-vpc",
            name=f"{cluster}-vpc",
            auto_create_subnetworks=False,  # custom mode: only the subnet below exists
            routing_mode="REGIONAL",
            opts=child,
        )
        subnetwork = gcp.compute.Subnetwork(
            f"{name}-subnet",
            name=f"{cluster}-{region}",
            network=network.id,
            region=region,
            ip_cidr_range=ranges.nodes,
            secondary_ip_ranges=[
                {"range_name": PODS_RANGE, "ip_cidr_range": ranges.pods},
                {"range_name": SERVICES_RANGE, "ip_cidr_range": ranges.services},
            ],
            private_ip_google_access=True,  # private nodes reach Google APIs (Artifact Registry, GCS)
            opts=child,
        )
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
