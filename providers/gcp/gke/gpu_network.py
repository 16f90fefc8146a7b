"""GkeGpuNetworks: the extra VPCs and subnets of a cluster's GPUDirect pools, and the firewall rule each
regular one needs (gpu_networks.py says which, why, and their addresses)."""

from collections.abc import Sequence
from typing import Optional, TypedDict

import pulumi
import pulumi_gcp as gcp

from gpukit.components.names import fit_name
from gpukit.providers.gcp.gke.gpu_networks import GCE_NAME_MAX, GpuVpc, rdma_network_profile

TYPE_TOKEN = "gpukit:index:GkeGpuNetworks"


class GkeGpuNetworksArgs(TypedDict):
    project: str
    region: str
    block: str
    """The block the subnets come from: the firewall rules let it in."""
    vpcs: Sequence[GpuVpc]
    """From gpu_networks.gpu_vpcs (Python-only: built by GkeCluster)."""


class GkeGpuNetworks(pulumi.ComponentResource):
    """No Cloud NAT or routes: these NICs carry GPU traffic between the cluster's nodes only; the node's
    default route stays on its primary NIC (GKE multi-network, limitations).

    `subnets`: per Kubernetes network (`vpc1`, `rdma-0`), the (network, subnetwork) names a node pool's
    additional node network takes, as Outputs so that pools wait for them."""

    subnets: dict[str, tuple[pulumi.Output[str], pulumi.Output[str]]]

    def __init__(self, name: str, args: GkeGpuNetworksArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        child = pulumi.ResourceOptions(parent=self)
        self.subnets = {}
        for vpc in args["vpcs"]:
            network = gcp.compute.Network(
                f"{name}-{vpc.resource}",
                name=vpc.name,
                auto_create_subnetworks=False,
                routing_mode="REGIONAL",
                mtu=vpc.mtu,
                network_profile=(
                    rdma_network_profile(args["project"], vpc.rdma_zone)
                    if vpc.rdma_zone is not None
                    else None
                ),
                opts=child,
            )
            for subnet in vpc.subnets:
                made = gcp.compute.Subnetwork(
                    f"{name}-{subnet.resource}-subnet",
                    name=subnet.name,
                    network=network.id,
                    region=args["region"],
                    ip_cidr_range=subnet.cidr,
                    opts=child,
                )
                self.subnets[subnet.k8s_network] = (network.name, made.name)
            if vpc.firewalled:
                gcp.compute.Firewall(
                    f"{name}-{vpc.resource}-internal",
                    name=fit_name(vpc.name, "-internal", GCE_NAME_MAX),
                    network=network.id,
                    direction="INGRESS",
                    source_ranges=[args["block"]],
                    allows=[{"protocol": "tcp"}, {"protocol": "udp"}, {"protocol": "icmp"}],
                    opts=child,
                )
        self.register_outputs({"subnets": {k: v[1] for k, v in self.subnets.items()}})
