"""The GPU NICs' networks on GKE, pure: which VPCs a cluster's GPUDirect pools need and with what MTU and
profile, the subnets' addresses, each pool's NICs in order, the pod's interfaces, and the Kubernetes
network objects against GKE's vendored CRDs."""

import ipaddress
import json
from typing import Any

import pytest
from crd_schemas import validate

from gpukit.components.catalog.fabrics import FabricKind
from gpukit.components.spec import Interconnect, Provider
from gpukit.providers.gcp.gke.gpu_networks import (
    GPU_NETWORKS_CIDR_DEFAULT,
    GpuNetworkError,
    gpu_vpcs,
    network_objects,
    pod_annotations,
    pod_interfaces,
    pool_subnets,
    rdma_network_profile,
    slice_capacity,
)
from harness import pool_facts


def gcp_pool(name: str, machine: str, **extra: Any) -> Any:
    spec = {"name": name, "instance_type": machine, "min_nodes": 0, "max_nodes": 2, **extra}
    return pool_facts(spec, Provider.GCP)


MEGA = gcp_pool("mega", "a3-megagpu-8g", zones=["us-central1-a"])
HIGH = gcp_pool("high", "a3-highgpu-8g", zones=["us-central1-a"])
ULTRA = gcp_pool("ultra", "a3-ultragpu-8g", zones=["us-central1-b"])
B200 = gcp_pool("b200", "a4-highgpu-8g", zones=["us-central1-b"])
L4 = gcp_pool("l4", "g2-standard-8")
ZONES = {p.name: list(p.zones) for p in (MEGA, HIGH, ULTRA, B200, L4)}


def test_gke_gives_the_a3_and_a4_machines_their_fabric_where_a_zone_is_pinned() -> None:
    assert MEGA.fabric is not None and MEGA.fabric.kind is FabricKind.GPUDIRECT_TCPXO
    assert HIGH.fabric is not None and HIGH.fabric.kind is FabricKind.GPUDIRECT_TCPX
    assert ULTRA.fabric is not None and ULTRA.fabric.kind is FabricKind.GPUDIRECT_RDMA
    assert L4.fabric is None
    assert (
        gcp_pool("x", "a3-megagpu-8g", zones=["us-central1-a"], interconnect=Interconnect.NONE).fabric is None
    )


def test_tcpxo_gets_eight_vpcs_with_mtu_8244_shared_with_tcpx_pools() -> None:
    vpcs = gpu_vpcs("train", GPU_NETWORKS_CIDR_DEFAULT, [HIGH, MEGA, L4], ZONES)
    assert [(v.name, v.mtu, v.device_mode, v.rdma_zone) for v in vpcs] == [
        (f"train-gpu-{i}", 8244, "NetDevice", None) for i in range(1, 9)
    ]
    assert [v.subnets[0].k8s_network for v in vpcs] == [f"vpc{i}" for i in range(1, 9)]
    assert all(v.firewalled for v in vpcs)
    # The A3 High pool takes the first four, the A3 Mega pool all eight, in NIC order.
    assert [s.k8s_network for _, s in pool_subnets(HIGH, vpcs)] == ["vpc1", "vpc2", "vpc3", "vpc4"]
    assert [s.k8s_network for _, s in pool_subnets(MEGA, vpcs)] == [f"vpc{i}" for i in range(1, 9)]
    assert pool_subnets(L4, vpcs) == []


def test_rdma_machines_get_a_gvnic_vpc_and_an_rdma_profile_vpc_with_eight_subnets() -> None:
    vpcs = gpu_vpcs("train", GPU_NETWORKS_CIDR_DEFAULT, [ULTRA, B200], ZONES)
    gvnic, rdma = vpcs
    assert (gvnic.name, gvnic.mtu, gvnic.device_mode, gvnic.rdma_zone) == (
        "train-gvnic-1",
        8896,
        "NetDevice",
        None,
    )
    assert (rdma.name, rdma.mtu, rdma.device_mode, rdma.rdma_zone) == (
        "train-rdma",
        8896,
        "RDMA",
        "us-central1-b",
    )
    assert not rdma.firewalled  # the RDMA profile allows traffic implicitly
    assert [s.k8s_network for s in rdma.subnets] == [f"rdma-{j}" for j in range(8)]
    assert [s.k8s_network for _, s in pool_subnets(ULTRA, vpcs)] == [
        "gvnic-1",
        *(f"rdma-{j}" for j in range(8)),
    ]
    assert rdma_network_profile("acme-ml", "us-central1-b") == (
        "projects/acme-ml/global/networkProfiles/us-central1-b-vpc-roce"
    )


def test_rdma_pools_in_two_zones_cannot_share_one_rdma_network() -> None:
    other = gcp_pool("other", "a4-highgpu-8g", zones=["us-central1-c"])
    with pytest.raises(GpuNetworkError, match="more than one zone: us-central1-b, us-central1-c"):
        gpu_vpcs("train", GPU_NETWORKS_CIDR_DEFAULT, [ULTRA, other], {**ZONES, "other": ["us-central1-c"]})


@pytest.mark.parametrize("block", ["192.168.0.0/16", "172.16.0.0/12", "10.200.0.0/19"])
def test_every_gpu_subnet_sits_inside_the_block_and_none_overlap(block: str) -> None:
    vpcs = gpu_vpcs("train", block, [MEGA, ULTRA], ZONES)
    nets = [ipaddress.IPv4Network(s.cidr) for v in vpcs for s in v.subnets]
    assert len(nets) == 8 + 1 + 8
    assert all(n.subnet_of(ipaddress.IPv4Network(block)) for n in nets)  # type: ignore[arg-type]
    assert not any(a.overlaps(b) for i, a in enumerate(nets) for b in nets[i + 1 :])
    assert slice_capacity(block) == nets[0].num_addresses - 4


def test_names_fit_compute_engine_and_kubernetes_limits() -> None:
    long_name = "a-very-long-training-cluster-name-that-goes-on-and-on-for-ever"
    vpcs = gpu_vpcs(long_name, GPU_NETWORKS_CIDR_DEFAULT, [MEGA, ULTRA], ZONES)
    networks = [v.name for v in vpcs]
    subnets = [s.name for v in vpcs for s in v.subnets]
    assert all(len(n) <= 63 for n in networks + subnets)
    assert len(set(networks)) == len(networks) and len(set(subnets)) == len(subnets)
    assert all(len(s.k8s_network) <= 41 for v in vpcs for s in v.subnets)


def test_pods_attach_the_gpu_nics_by_annotation_in_the_layout_google_s_plugins_expect() -> None:
    assert pod_interfaces(MEGA) == [
        {"interfaceName": "eth0", "network": "default"},
        *({"interfaceName": f"eth{i}", "network": f"vpc{i}"} for i in range(1, 9)),
    ]
    rdma = pod_interfaces(ULTRA)
    assert rdma[1] == {"interfaceName": "eth2", "network": "rdma-0"} and len(rdma) == 9
    annotations = pod_annotations(HIGH)
    assert annotations["networking.gke.io/default-interface"] == "eth0"
    assert [i["network"] for i in json.loads(annotations["networking.gke.io/interfaces"])] == [
        "default",
        "vpc1",
        "vpc2",
        "vpc3",
        "vpc4",
    ]


def test_every_network_object_validates_and_names_its_vpc_subnet_and_mode() -> None:
    vpcs = gpu_vpcs("train", GPU_NETWORKS_CIDR_DEFAULT, [MEGA, ULTRA], ZONES)
    objects = network_objects(vpcs)
    for obj in objects:
        validate(obj)
    params = {o["metadata"]["name"]: o["spec"] for o in objects if o["kind"] == "GKENetworkParamSet"}
    assert params["vpc1"] == {"vpc": "train-gpu-1", "vpcSubnet": "train-gpu-1", "deviceMode": "NetDevice"}
    assert params["rdma-3"] == {"vpc": "train-rdma", "vpcSubnet": "train-rdma-3", "deviceMode": "RDMA"}
    networks = [o for o in objects if o["kind"] == "Network"]
    assert {n["metadata"]["name"] for n in networks} == set(params)
    assert all(
        n["spec"]["type"] == "Device" and n["spec"]["parametersRef"]["name"] == n["metadata"]["name"]
        for n in networks
    )
    # Each ParamSet comes before the Network that names it.
    kinds = [(o["metadata"]["name"], o["kind"]) for o in objects]
    assert kinds.index(("vpc1", "GKENetworkParamSet")) < kinds.index(("vpc1", "Network"))
