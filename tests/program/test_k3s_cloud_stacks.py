"""The k3s-on-cloud example stacks through `gpukit plan --out`, read the way a reviewer would:
plan.json for the machines and their network rules, boot/ for what the machines run at first boot."""

import base64
import gzip
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import PlannedStack
from tools import cloud_init_schema_problems, shellcheck_problems

STACKS = ("k3s-aws", "k3s-gcp")
# What the mock engine hands out as the k3s token and PEM bodies (gpukit/plan/fakes.py): none of it
# may reach user data, plan.json or any other written file.
SECRET_MARKERS = ("plan-fake-", "PRIVATE KEY", "gpukit-plan-secret-placeholder")


@pytest.fixture
def plans(planned_stack: Callable[[str], PlannedStack]) -> dict[str, Path]:
    """`gpukit plan --out` of each stack (planned once per session): stack -> its out folder."""
    outs = {}
    for stack in STACKS:
        plan = planned_stack(stack)
        assert plan.code == 0, f"{stack} should plan cleanly"
        outs[stack] = plan.out
    return outs


@pytest.fixture(params=STACKS)
def planned(request: pytest.FixtureRequest, plans: dict[str, Path]) -> tuple[str, Path]:
    return request.param, plans[request.param]


def resources(out: Path, token: str) -> list[dict[str, Any]]:
    doc = json.loads((out / "plan.json").read_text())
    return [r for r in doc["resources"] if r["type"] == token]


def inputs(out: Path, token: str) -> list[dict[str, Any]]:
    return [r["inputs"] for r in resources(out, token)]


def test_no_secret_reaches_any_written_file(planned: tuple[str, Path]) -> None:
    _, out = planned
    files = [p for p in out.rglob("*") if p.is_file()]
    assert any(p.parent.name == "boot" for p in files)
    for path in files:
        text = path.read_text()
        for marker in SECRET_MARKERS:
            assert marker not in text, f"{marker!r} in {path.relative_to(out)}"


def test_every_boot_file_is_valid_cloud_init_or_clean_shell(
    planned: tuple[str, Path], tmp_path: Path
) -> None:
    stack, out = planned
    boot = sorted((out / "boot").iterdir())
    assert boot, "every machine definition carries its bootstrap"
    for path in boot:
        if path.suffix == ".yaml":
            assert cloud_init_schema_problems(path) == "", path.name
            for i, file in enumerate(yaml.safe_load(path.read_text())["write_files"]):
                if file["path"].startswith("/etc/systemd/"):
                    assert "[Service]" in file["content"], file["path"]  # a unit, not a script
                    continue
                script = tmp_path / f"{path.stem}-{i}.sh"
                script.write_text(file["content"])
                assert shellcheck_problems(script) == "", f"{path.name}: {file['path']}"
        else:
            assert path.suffix == ".sh", path.name
            assert shellcheck_problems(path) == "", path.name
    kinds = {p.suffix for p in boot}
    # EC2 machines boot from cloud-config; GCE machines from a startup script, GCE's NFS VM cloud-config.
    assert kinds == ({".yaml"} if stack == "k3s-aws" else {".sh", ".yaml"})


def test_the_gpu_operator_release_is_v26_7_0_with_the_k3s_containerd_socket(
    planned: tuple[str, Path],
) -> None:
    _, out = planned
    release = yaml.safe_load((out / "manifests" / "helm" / "gpu-operator.yaml").read_text())
    assert release["version"] == "v26.7.0"
    env = {e["name"]: e["value"] for e in release["values"]["toolkit"]["env"]}
    assert env["CONTAINERD_SOCKET"] == "/run/k3s/containerd/containerd.sock"


# --- EC2


@pytest.fixture
def aws(plans: dict[str, Path]) -> Path:
    return plans["k3s-aws"]


def test_every_launch_template_requires_imdsv2_and_encrypts_its_root_volume(aws: Path) -> None:
    templates = inputs(aws, "aws:ec2/launchTemplate:LaunchTemplate")
    assert len(templates) >= 2  # servers, and the L4 pool
    for lt in templates:
        assert lt["metadataOptions"]["httpTokens"] == "required"
        assert lt["metadataOptions"]["httpPutResponseHopLimit"] == 1
        for device in lt["blockDeviceMappings"]:
            assert device["ebs"]["encrypted"] in (True, "true")
        assert lt["imageId"].startswith("resolve:ssm:/aws/service/")  # never a hard-coded AMI id


def test_the_l4_pool_is_a_spot_auto_scaling_group_of_its_size(aws: Path) -> None:
    groups = inputs(aws, "aws:autoscaling/group:Group")
    assert len(groups) == 1
    group = groups[0]
    assert (group["minSize"], group["maxSize"], group["desiredCapacity"]) == (0, 4, 0)  # idles at zero
    assert group["capacityRebalance"] is True
    policy = group["mixedInstancesPolicy"]
    assert policy["instancesDistribution"]["onDemandPercentageAboveBaseCapacity"] == 0
    types = [o["instanceType"] for o in policy["launchTemplate"]["overrides"]]
    assert types == ["g6.xlarge", "g6.2xlarge"]


def test_operator_driver_boots_plain_ubuntu(aws: Path) -> None:
    images = {lt["imageId"] for lt in inputs(aws, "aws:ec2/launchTemplate:LaunchTemplate")}
    assert images == {
        "resolve:ssm:/aws/service/canonical/ubuntu/server/24.04/stable/current/amd64/hvm/ebs-gp3/ami-id"
    }


def test_no_ingress_is_open_to_the_internet_and_the_api_only_to_the_configured_range(aws: Path) -> None:
    rules = inputs(aws, "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule")
    assert rules
    cidrs = {r.get("cidrIpv4") for r in rules if r.get("cidrIpv4")}
    assert cidrs == {"203.0.113.0/24"}
    for rule in rules:
        if rule.get("cidrIpv4"):
            assert (rule["fromPort"], rule["toPort"]) == (6443, 6443)
    lb = inputs(aws, "aws:lb/loadBalancer:LoadBalancer")
    assert len(lb) == 1 and lb[0]["loadBalancerType"] == "network" and lb[0]["internal"] is False


def test_servers_are_instances_and_the_token_is_stored_in_secrets_manager(aws: Path) -> None:
    # The server, and the NFS VM of the example's shared volume (no k3s node: no secret to fetch).
    instances = sorted(inputs(aws, "aws:ec2/instance:Instance"), key=lambda i: i["tags"]["Name"])
    assert [i["tags"]["Name"] for i in instances] == ["k3s-aws-control-0", "k3s-aws-nfs-checkpoints"]
    nfs_vm = instances.pop()
    assert "secretsmanager" not in base64.b64decode(nfs_vm["userDataBase64"]).decode()
    versions = inputs(aws, "aws:secretsmanager/secretVersion:SecretVersion")
    assert len(versions) == 2
    for version in versions:
        assert version["secretString"] == "[secret]"
    boot = [
        *(lt.get("userData") for lt in inputs(aws, "aws:ec2/launchTemplate:LaunchTemplate")),
        *(i.get("userDataBase64") for i in instances),
    ]
    texts = [
        gzip.decompress(raw).decode() if raw[:2] == b"\x1f\x8b" else raw.decode()
        for raw in map(base64.b64decode, filter(None, boot))
    ]
    assert len(texts) == 2  # the server instance, the L4 pool's launch template
    for text in texts:
        assert "fetch-secrets.sh" in text and "secretsmanager" in text


# --- Compute Engine


@pytest.fixture
def gcp(plans: dict[str, Path]) -> Path:
    return plans["k3s-gcp"]


def test_three_ha_servers_with_static_internal_addresses(gcp: Path) -> None:
    servers = [s for s in inputs(gcp, "gcp:compute/instance:Instance") if "startup-script" in s["metadata"]]
    assert len(servers) == 3
    assert len({s["zone"] for s in servers}) == 3
    internal = [a for a in inputs(gcp, "gcp:compute/address:Address") if a.get("addressType") == "INTERNAL"]
    # One per server, and the NFS VM's (the example's shared checkpoints volume).
    assert sorted(a["name"] for a in internal) == [
        "k3s-gcp-control-0-internal",
        "k3s-gcp-control-1-internal",
        "k3s-gcp-control-2-internal",
        "k3s-gcp-nfs-checkpoints-internal",
    ]


def test_the_l4_pool_is_a_zonal_managed_instance_group_per_l4_zone(gcp: Path) -> None:
    groups = inputs(gcp, "gcp:compute/instanceGroupManager:InstanceGroupManager")
    assert sorted(g["zone"] for g in groups) == ["us-central1-a", "us-central1-b", "us-central1-c"]
    assert [g["targetSize"] for g in groups] == [0, 0, 0]  # idles at zero
    (template,) = inputs(gcp, "gcp:compute/instanceTemplate:InstanceTemplate")
    assert template["machineType"] == "g2-standard-8"
    assert template["scheduling"]["onHostMaintenance"] == "TERMINATE"
    assert "deeplearning-platform-release" in template["disks"][0]["sourceImage"]


def test_firewall_opens_nothing_to_the_internet(gcp: Path) -> None:
    rules = inputs(gcp, "gcp:compute/firewall:Firewall")
    assert rules
    for rule in rules:
        assert "0.0.0.0/0" not in (rule.get("sourceRanges") or [])
    api = [r for r in rules if r.get("sourceRanges")]
    assert [r["sourceRanges"] for r in api] == [["203.0.113.0/24"]]
