"""The extra VPCs, subnets and Kubernetes networks GKE's GPU machines use for NCCL between nodes, as
pure tables and functions (GkeGpuNetworks and GkeNetworkObjects build them; the node pools attach them).

Which machine needs what (shared/reference facts, sources in components/catalog/fabrics.py):
- a3-highgpu-8g (GPUDirect-TCPX) and a3-megagpu-8g (GPUDirect-TCPXO): 4 and 8 extra gVNICs, each in
  its own VPC with MTU 8244 (GoogleCloudPlatform/cluster-toolkit examples gke-a3-highgpu /
  gke-a3-megagpu, `modules/network/multivpc`, @1047080375af). Their Kubernetes networks are named
  `vpc1`... as Google's TCPX/TCPXO installers and test manifests expect (toolkit gke-cluster
  `k8s_network_names`, gvnic_prefix `vpc`, start 1), device mode NetDevice. Both machines share the
  same VPCs (an A3 High pool uses the first four), so a cluster with both makes eight, not twelve. No
  other gVNIC is added to these pools: on A3 Mega it takes a GPU NIC's PCI slot and the TCPXO daemon
  sees 7 of 8 GPUs (NVIDIA AICR PR #1662, #420).
- a3-ultragpu-8g and a4-highgpu-8g (GPUDirect RDMA over RoCE): one extra gVNIC in a regular VPC
  (network `gvnic-1`, the node's, not the pods') and 8 RDMA NICs in one VPC made with the zone's RDMA
  network profile (`<zone>-vpc-roce`), one subnet per NIC, MTU 8896, networks `rdma-0`... in device
  mode RDMA (toolkit gke-a3-ultragpu / gke-a4, `modules/network/gpu-rdma-vpc`; VPC "RDMA network
  profiles": zonal, MRDMA NICs only, recommended MTU 8896, implicit allow firewall).

Why these are the cluster's and not each pool's: a Kubernetes network names one VPC and subnet
(GKENetworkParamSet), and a pod names the networks it attaches to, so every pool of one fabric shares
them. The RDMA profile is zonal, so a cluster's RDMA pools share one zone (validation says so).

Addresses: the GPU subnets come from one block, `cluster.network.gpuNetworksCidr` (default
192.168.0.0/16, the range Google's blueprints use for them), cut into 32 equal slices: slices 0-7 are
vpc1-vpc8, slice 8 gvnic-1, slices 16-23 rdma-0..rdma-7. A VM's NICs must sit in subnets that do not
overlap, so the block must miss the primary subnet's node, pod and service ranges.
"""

import ipaddress
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gpukit.components.catalog.fabrics import FabricKind
from gpukit.components.names import fit_name
from gpukit.components.pools import PoolFacts

GPU_NETWORKS_CIDR_DEFAULT = "192.168.0.0/16"
SLICES = 32
"""The GPU block is cut into this many equal subnets (see the module's docstring for which is which)."""
GPU_CIDR_PREFIXES = (8, 19)
"""The block's prefix length, inclusive: a /19 gives /24 subnets (252 nodes each)."""
RDMA_NICS = 8
"""MRDMA NICs per a3-ultragpu-8g / a4-highgpu-8g: one RDMA subnet each."""
TCPX_MTU = 8244
RDMA_MTU = 8896
GCE_NAME_MAX = 63
K8S_DEVICE_NETWORK_MAX = 41
"""GKE: a device-type Network's name is at most 41 characters (a Unix socket path carries it; "Set up
multi-network support for Pods", requirements)."""
RESERVED_ADDRESSES = 4
"""Compute Engine keeps four addresses of every subnet's primary range (VPC docs, "Subnets")."""


class GpuNetworkError(ValueError):
    """A plan that cannot be laid out (validation refuses these first)."""


@dataclass(frozen=True)
class GpuSubnet:
    resource: str
    """The Pulumi resource name's suffix: `gpu-1`, `rdma-0`."""
    name: str
    """The subnetwork's name in Compute Engine."""
    cidr: str
    k8s_network: str
    """The Kubernetes Network and GKENetworkParamSet that name it: `vpc1`, `rdma-0`."""


@dataclass(frozen=True)
class GpuVpc:
    resource: str
    name: str
    """The network's name in Compute Engine."""
    mtu: int
    device_mode: str
    """GKENetworkParamSet.spec.deviceMode: NetDevice (gVNIC) or RDMA (MRDMA NICs)."""
    rdma_zone: str | None
    """The zone whose RDMA network profile (`<zone>-vpc-roce`) the VPC is made with; None: a regular VPC."""
    subnets: tuple[GpuSubnet, ...]

    @property
    def firewalled(self) -> bool:
        """Regular VPCs deny ingress by default, so they get a rule letting the GPU block in; an RDMA
        profile's VPC allows it implicitly (and takes no firewall rules)."""
        return self.rdma_zone is None


def gpu_slices(block: str) -> list[str]:
    network = ipaddress.IPv4Network(block)
    return [str(s) for s in network.subnets(prefixlen_diff=SLICES.bit_length() - 1)]


def slice_capacity(block: str) -> int:
    """Nodes one GPU subnet holds: one address per node on each of its NICs."""
    prefix = ipaddress.IPv4Network(block).prefixlen + SLICES.bit_length() - 1
    return int(2 ** (32 - prefix)) - RESERVED_ADDRESSES


def netdevice_count(pools: Sequence[PoolFacts]) -> int:
    """The TCPX / TCPXO VPCs a cluster needs: as many as the pool with the most extra NICs has."""
    return max(
        (
            p.fabric.interfaces
            for p in pools
            if p.fabric is not None
            and p.fabric.kind in (FabricKind.GPUDIRECT_TCPX, FabricKind.GPUDIRECT_TCPXO)
        ),
        default=0,
    )


def rdma_zones(pools: Sequence[PoolFacts], zones_of: dict[str, list[str]]) -> list[str]:
    """The zones of the cluster's GPUDirect RDMA pools, in pool order, once each."""
    found: list[str] = []
    for pool in pools:
        if pool.fabric is not None and pool.fabric.kind is FabricKind.GPUDIRECT_RDMA:
            for zone in zones_of.get(pool.name, []):
                if zone not in found:
                    found.append(zone)
    return found


def gpu_vpcs(
    cluster_name: str, block: str, pools: Sequence[PoolFacts], zones_of: dict[str, list[str]]
) -> tuple[GpuVpc, ...]:
    """Every GPU VPC the cluster's fabric pools need, with their subnets. `zones_of`: each pool's zones
    (the pools' own, placement.pool_zones)."""
    slices = gpu_slices(block)
    vpcs: list[GpuVpc] = []
    for i in range(1, netdevice_count(pools) + 1):
        name = fit_name(cluster_name, f"-gpu-{i}", GCE_NAME_MAX)
        subnet = GpuSubnet(f"gpu-{i}", name, slices[i - 1], f"vpc{i}")
        vpcs.append(GpuVpc(f"gpu-{i}", name, TCPX_MTU, "NetDevice", None, (subnet,)))
    zones = rdma_zones(pools, zones_of)
    if len(zones) > 1:
        raise GpuNetworkError(f"GPUDirect RDMA pools in more than one zone: {', '.join(zones)}")
    if zones:
        gvnic = fit_name(cluster_name, "-gvnic-1", GCE_NAME_MAX)
        vpcs.append(
            GpuVpc(
                "gvnic-1",
                gvnic,
                RDMA_MTU,
                "NetDevice",
                None,
                (GpuSubnet("gvnic-1", gvnic, slices[8], "gvnic-1"),),
            )
        )
        rdma = tuple(
            GpuSubnet(
                f"rdma-{j}", fit_name(cluster_name, f"-rdma-{j}", GCE_NAME_MAX), slices[16 + j], f"rdma-{j}"
            )
            for j in range(RDMA_NICS)
        )
        vpcs.append(
            GpuVpc("rdma", fit_name(cluster_name, "-rdma", GCE_NAME_MAX), RDMA_MTU, "RDMA", zones[0], rdma)
        )
    return tuple(vpcs)


def pool_subnets(pool: PoolFacts, vpcs: Sequence[GpuVpc]) -> list[tuple[GpuVpc, GpuSubnet]]:
    """The extra NICs of one fabric pool's nodes, in NIC order: the node pool's
    `network_config.additional_node_network_configs`."""
    if pool.fabric is None:
        return []
    if pool.fabric.kind is FabricKind.GPUDIRECT_RDMA:
        return [(v, s) for v in vpcs if v.rdma_zone is not None or v.resource == "gvnic-1" for s in v.subnets]
    netdevice = [(v, v.subnets[0]) for v in vpcs if v.resource.startswith("gpu-")]
    return netdevice[: pool.fabric.interfaces]


def pod_interfaces(pool: PoolFacts) -> list[dict[str, str]]:
    """A pod's interfaces on a fabric pool (the `networking.gke.io/interfaces` annotation): eth0 on the
    pod network, then one per GPU NIC. TCPX / TCPXO pods attach every extra NIC (eth1... -> vpc1...);
    RDMA pods the 8 RDMA NICs as eth2-eth9 (eth1 is the node's extra gVNIC, which pods do not take:
    Google's gpudirect-rdma nccl-test.yaml, cluster-toolkit gke-a4 nccl-jobset-example.yaml)."""
    if pool.fabric is None:
        return []
    found = [{"interfaceName": "eth0", "network": "default"}]
    if pool.fabric.kind is FabricKind.GPUDIRECT_RDMA:
        found += [
            {"interfaceName": f"eth{j + 2}", "network": f"rdma-{j}"} for j in range(pool.fabric.interfaces)
        ]
    else:
        found += [
            {"interfaceName": f"eth{i}", "network": f"vpc{i}"} for i in range(1, pool.fabric.interfaces + 1)
        ]
    return found


def pod_annotations(pool: PoolFacts) -> dict[str, str]:
    """What a pod on a fabric pool carries to get its GPU NICs (GKE multi-network: the default
    interface stays eth0, the pod network)."""
    return {
        "networking.gke.io/default-interface": "eth0",
        "networking.gke.io/interfaces": json.dumps(pod_interfaces(pool), separators=(",", ":")),
    }


def network_objects(vpcs: Sequence[GpuVpc]) -> list[dict[str, Any]]:
    """The GKENetworkParamSet and Network of every GPU subnet (networking.gke.io/v1; CRDs
    GoogleCloudPlatform/gke-networking-api, vendored in tests/reference/)."""
    objects: list[dict[str, Any]] = []
    for vpc in vpcs:
        for subnet in vpc.subnets:
            if len(subnet.k8s_network) > K8S_DEVICE_NETWORK_MAX:
                raise GpuNetworkError(f"network name {subnet.k8s_network!r} is longer than 41 characters")
            objects.append(
                {
                    "apiVersion": "networking.gke.io/v1",
                    "kind": "GKENetworkParamSet",
                    "metadata": {"name": subnet.k8s_network},
                    "spec": {"vpc": vpc.name, "vpcSubnet": subnet.name, "deviceMode": vpc.device_mode},
                }
            )
            objects.append(
                {
                    "apiVersion": "networking.gke.io/v1",
                    "kind": "Network",
                    "metadata": {"name": subnet.k8s_network},
                    "spec": {
                        "type": "Device",
                        "parametersRef": {
                            "group": "networking.gke.io",
                            "kind": "GKENetworkParamSet",
                            "name": subnet.k8s_network,
                        },
                    },
                }
            )
    return objects


def rdma_network_profile(project: str, zone: str) -> str:
    """The RDMA network profile a VPC for MRDMA NICs is made with (pulumi-gcp compute.Network
    `network_profile`: "projects/{projectId}/global/networkProfiles/{network_profile_name}")."""
    return f"projects/{project}/global/networkProfiles/{zone}-vpc-roce"


def block_overlaps(block: str, ranges: dict[str, str]) -> list[str]:
    """The named ranges the GPU block overlaps."""
    net = ipaddress.IPv4Network(block)
    return [name for name, cidr in ranges.items() if net.overlaps(ipaddress.IPv4Network(cidr))]
