"""GPUDirect pools on GKE under the mocks: the GPU NICs' VPCs and subnets, the node pools' extra
networks and compact placement, multi-networking on the cluster, the Kubernetes network objects, and
what the plan and the `pools` output tell a training job, as the engine recorded them."""

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from crd_schemas import validate

from gpukit.cli import main
from gpukit.program import build
from harness import Recording, doc_stack, example_config, record, unknown_argument_names

NETWORK = "gcp:compute/network:Network"
SUBNET = "gcp:compute/subnetwork:Subnetwork"
FIREWALL = "gcp:compute/firewall:Firewall"
NODE_POOL = "gcp:container/nodePool:NodePool"
MEGA = {
    "name": "h100",
    "instanceType": "a3-megagpu-8g",
    "minNodes": 0,
    "maxNodes": 4,
    "zones": ["us-central1-a"],
}
DEV = example_config("gke-dev")["gpukit:cluster"]["name"]
ULTRA = {
    "name": "h200",
    "instanceType": "a3-ultragpu-8g",
    "minNodes": 0,
    "maxNodes": 2,
    "zones": ["us-central1-b"],
}


def gke_with(*pools: dict[str, Any], **network: Any) -> dict[str, Any]:
    config = copy.deepcopy(example_config("gke-dev"))
    config["gpukit:nodePools"] += [dict(p) for p in pools]
    config["gpukit:cluster"]["network"].update(network)
    return config


def run(config: dict[str, Any]) -> Recording:
    return record(lambda: build(config), region=config["gcp:region"], project=config["gcp:project"])


@pytest.fixture(scope="module")
def both() -> Recording:
    return run(gke_with(MEGA, ULTRA))


def node_pools(rec: Recording) -> dict[str, dict[str, Any]]:
    return {r.inputs["name"]: r.inputs for r in rec.of_type(NODE_POOL)}


def test_the_cluster_gets_multi_networking_with_dataplane_v2(both: Recording) -> None:
    cluster = both.one("gcp:container/cluster:Cluster").inputs
    assert cluster["enableMultiNetworking"] is True
    assert cluster["datapathProvider"] == "ADVANCED_DATAPATH"


def test_the_gpu_vpcs_have_the_mtu_and_profile_each_machine_needs(both: Recording) -> None:
    gpu = {
        n.inputs["name"]: n.inputs for n in both.of_type(NETWORK) if n.name.startswith(f"{DEV}-gpu-networks")
    }
    dev = DEV
    assert sorted(gpu) == sorted([*(f"{dev}-gpu-{i}" for i in range(1, 9)), f"{dev}-gvnic-1", f"{dev}-rdma"])
    assert {gpu[f"{dev}-gpu-{i}"]["mtu"] for i in range(1, 9)} == {8244}
    assert gpu[f"{dev}-rdma"]["mtu"] == 8896
    project = example_config("gke-dev")["gcp:project"]
    assert (
        gpu[f"{dev}-rdma"]["networkProfile"]
        == f"projects/{project}/global/networkProfiles/us-central1-b-vpc-roce"
    )
    assert all("networkProfile" not in v for k, v in gpu.items() if k != f"{dev}-rdma")
    assert all(v["autoCreateSubnetworks"] is False for v in gpu.values())
    subnets = [s.inputs for s in both.of_type(SUBNET) if s.name.startswith(f"{DEV}-gpu-networks")]
    assert len(subnets) == 8 + 1 + 8
    # Firewalls on the regular VPCs only (the RDMA profile takes none), letting the GPU block in.
    rules = [f.inputs for f in both.of_type(FIREWALL) if f.name.startswith(f"{DEV}-gpu-networks")]
    assert len(rules) == 9
    assert all(r["sourceRanges"] == ["192.168.0.0/16"] and r["direction"] == "INGRESS" for r in rules)


def test_each_gpudirect_pool_attaches_its_nics_in_order_and_compact_placement_where_offered(
    both: Recording,
) -> None:
    pools = node_pools(both)
    dev = DEV
    mega = pools["h100"]["networkConfig"]["additionalNodeNetworkConfigs"]
    assert [(c["network"], c["subnetwork"]) for c in mega] == [
        (f"{dev}-gpu-{i}", f"{dev}-gpu-{i}") for i in range(1, 9)
    ]
    assert pools["h100"]["placementPolicy"] == {"type": "COMPACT"}
    assert pools["h100"]["nodeLocations"] == ["us-central1-a"]
    ultra = pools["h200"]["networkConfig"]["additionalNodeNetworkConfigs"]
    assert [c["subnetwork"] for c in ultra] == [f"{dev}-gvnic-1", *(f"{dev}-rdma-{j}" for j in range(8))]
    assert "placementPolicy" not in pools["h200"]  # GKE documents compact placement for H100, not H200
    assert pools["h200"]["nodeConfig"]["gvnic"] == {"enabled": True}
    assert "networkConfig" not in pools["l4"] and "networkConfig" not in pools["system"]
    assert unknown_argument_names(pools["h100"]) == []


def test_the_kubernetes_networks_name_the_vpcs_and_validate(both: Recording) -> None:
    objects = [r.inputs for r in both.resources if r.type.startswith("kubernetes:networking.gke.io/v1:")]
    names = {(o["kind"], o["metadata"]["name"]) for o in objects}
    expected = {f"vpc{i}" for i in range(1, 9)} | {"gvnic-1"} | {f"rdma-{j}" for j in range(8)}
    assert names == {(k, n) for k in ("GKENetworkParamSet", "Network") for n in expected}
    for obj in objects:
        validate({k: obj[k] for k in ("apiVersion", "kind", "metadata", "spec")})


def test_a_stack_without_gpudirect_pools_builds_none_of_it() -> None:
    rec = run(example_config("gke-dev"))
    assert "enableMultiNetworking" not in rec.one("gcp:container/cluster:Cluster").inputs
    assert not [n for n in rec.of_type(NETWORK) if n.name.startswith(f"{DEV}-gpu-networks")]
    assert not [r for r in rec.resources if r.type.startswith("kubernetes:networking.gke.io")]


def test_interconnect_none_keeps_an_a3_mega_pool_on_the_ordinary_network() -> None:
    rec = run(gke_with({**MEGA, "interconnect": "none"}))
    assert "networkConfig" not in node_pools(rec)["h100"]
    assert "enableMultiNetworking" not in rec.one("gcp:container/cluster:Cluster").inputs


def test_compact_placement_false_is_kept_and_the_plan_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = gke_with({**MEGA, "compactPlacement": False})
    assert "placementPolicy" not in node_pools(run(config))["h100"]
    path = tmp_path / "Pulumi.loose.yaml"
    path.write_text(yaml.safe_dump({"config": config}))
    assert main(["plan", "--config", str(path)]) == 0
    out = capsys.readouterr().out
    assert "one zone (us-central1-a), 8 extra gVNICs, one VPC each\n" in out
    assert "no compact placement policy" in out


def test_an_unpinned_pool_asked_for_explicitly_goes_to_one_zone() -> None:
    unpinned = {k: v for k, v in MEGA.items() if k != "zones"}
    rec = run(gke_with({**unpinned, "interconnect": "auto"}))
    pool = node_pools(rec)["h100"]
    assert len(pool["nodeLocations"]) == 1
    assert len(pool["networkConfig"]["additionalNodeNetworkConfigs"]) == 8


def test_the_example_stack_plans_and_tells_a_job_what_to_carry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/interconnect.md's GKE stack plans, and its `interconnect` entry gives the annotations and
    environment a pod on the A3 Mega pool uses."""
    path = doc_stack("docs/interconnect.md", "gke-a3-mega", tmp_path)
    assert main(["plan", "--config", str(path), "--json"]) == 0
    entry = json.loads(capsys.readouterr().out)["interconnect"]["h100"]
    assert entry["fabric"] == "gpudirect-tcpxo" and entry["interfaces"] == 8
    assert entry["requests"] == {}
    interfaces = json.loads(entry["annotations"]["networking.gke.io/interfaces"])
    assert [i["network"] for i in interfaces] == ["default", *(f"vpc{i}" for i in range(1, 9))]
    assert entry["env"]["NCCL_FASTRAK_IFNAME"] == ",".join(f"eth{i}" for i in range(1, 9))
