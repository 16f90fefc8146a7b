"""k3s on EC2, the pure parts: API load balancer scheme, images, security rules, IAM, user data."""

import base64
import gzip
import json
import random

import pytest

from gpukit.components.catalog.instances import CpuArch
from gpukit.components.spec import DriverMode
from gpukit.providers.aws.k3s.api_lb import api_lb_internal
from gpukit.providers.aws.k3s.iam import agent_policy, node_cleanup_policy, server_policy
from gpukit.providers.aws.k3s.images import IMAGES, ImageFamily, k3s_image
from gpukit.providers.aws.k3s.join_key import alias_name, secret_arns
from gpukit.providers.aws.k3s.security import Group, IngressRule, ingress_rules
from gpukit.providers.aws.k3s.user_data import EC2_USER_DATA_LIMIT, ec2_user_data

CANONICAL_AMD64 = "/aws/service/canonical/ubuntu/server/24.04/stable/current/amd64/hvm/ebs-gp3/ami-id"
CANONICAL_ARM64 = "/aws/service/canonical/ubuntu/server/24.04/stable/current/arm64/hvm/ebs-gp3/ami-id"
DLAMI_X86 = "/aws/service/deeplearning/ami/x86_64/base-oss-nvidia-driver-gpu-ubuntu-24.04/latest/ami-id"


# --- API load balancer scheme


@pytest.mark.parametrize(
    ("cidrs", "internal"),
    [
        ([], True),  # nobody outside the VPC: private only
        (["10.0.0.0/8"], True),
        (["172.16.4.0/24", "192.168.1.0/24", "100.64.0.0/10"], True),
        (["203.0.113.0/24"], False),  # a documentation range, standing in for a public office range
        (["10.0.0.0/8", "198.51.100.7/32"], False),  # one public range is enough
        (["0.0.0.0/0"], False),
        (["8.8.8.0/24"], False),
    ],
)
def test_api_lb_is_internal_only_when_every_range_is_private(cidrs: list[str], internal: bool) -> None:
    assert api_lb_internal(cidrs) is internal


# --- images


def test_operator_and_cpu_nodes_boot_canonical_ubuntu() -> None:
    for has_gpu in (False, True):
        assert k3s_image(CpuArch.X86_64, has_gpu, DriverMode.OPERATOR).ssm_parameter == CANONICAL_AMD64
    assert k3s_image(CpuArch.X86_64, False, DriverMode.PREINSTALLED).ssm_parameter == CANONICAL_AMD64
    assert k3s_image(CpuArch.ARM64, False, DriverMode.PREINSTALLED).ssm_parameter == CANONICAL_ARM64


def test_preinstalled_gpu_nodes_boot_the_dlami() -> None:
    image = k3s_image(CpuArch.X86_64, True, DriverMode.PREINSTALLED)
    assert image.family == ImageFamily.DLAMI_GPU
    assert image.ssm_parameter == DLAMI_X86
    assert image.image_id == f"resolve:ssm:{DLAMI_X86}"


def test_every_image_is_a_public_ssm_parameter_never_an_ami_id() -> None:
    assert len(IMAGES) == len(ImageFamily) * len(CpuArch)
    for (family, arch), image in IMAGES.items():
        assert image.family == family
        assert image.image_id.startswith("resolve:ssm:/aws/service/")
        assert image.ssm_parameter.endswith("/ami-id")
        assert "ami-0" not in image.image_id
        assert ("arm64" in image.ssm_parameter) == (arch == CpuArch.ARM64)
        assert image.root_device == "/dev/sda1"


# --- security rules


def _rule_keys(rules: list[IngressRule]) -> set[tuple[str, str, int, int, str]]:
    return {
        (
            r.group.value,
            r.protocol,
            r.from_port,
            r.to_port,
            r.source_group.value if r.source_group else str(r.cidr),
        )
        for r in rules
    }


def test_ingress_rules_are_exactly_what_k3s_needs() -> None:
    assert _rule_keys(ingress_rules(["203.0.113.0/24"])) == {
        ("nodes", "udp", 8472, 8472, "nodes"),
        ("nodes", "tcp", 10250, 10250, "nodes"),
        ("servers", "tcp", 6443, 6443, "nodes"),
        ("servers", "tcp", 6443, 6443, "api-lb"),
        ("servers", "tcp", 2379, 2380, "servers"),
        ("api-lb", "tcp", 6443, 6443, "203.0.113.0/24"),
    }


def test_nothing_is_open_to_the_world_unless_the_config_lists_it() -> None:
    for cidrs in ([], ["10.0.0.0/8"], ["203.0.113.0/24", "198.51.100.0/24"]):
        rules = ingress_rules(cidrs)
        assert [r.cidr for r in rules if r.cidr] == cidrs
        assert all(r.group == Group.API_LB for r in rules if r.cidr)
    opened = [r for r in ingress_rules(["0.0.0.0/0"]) if r.cidr == "0.0.0.0/0"]
    assert [(r.group, r.from_port) for r in opened] == [(Group.API_LB, 6443)]


def test_etcd_is_reachable_from_servers_only() -> None:
    etcd = [r for r in ingress_rules(["203.0.113.0/24"]) if r.from_port <= 2380 and r.to_port >= 2379]
    assert [(r.group, r.source_group, r.cidr) for r in etcd] == [(Group.SERVERS, Group.SERVERS, None)]


def test_rule_names_are_stable_unique_and_resource_safe() -> None:
    rules = ingress_rules(["203.0.113.0/24", "198.51.100.7/32", "203.0.113.0/24"])
    slugs = [r.slug for r in rules]
    assert len(slugs) == len(set(slugs))  # a repeated CIDR is one rule
    assert "servers-tcp-2379-2380-from-servers" in slugs
    assert "api-lb-tcp-6443-from-198-51-100-7-32" in slugs
    assert all(set(s) <= set("abcdefghijklmnopqrstuvwxyz0123456789-") for s in slugs)
    assert slugs == [r.slug for r in ingress_rules(["203.0.113.0/24", "198.51.100.7/32"])]


# --- IAM


def test_agent_role_reads_its_own_secret_then_may_only_detach_its_own_profile_from_itself() -> None:
    arn = "arn:aws:secretsmanager:us-east-1:123456789012:secret:gpukit/c/k3s-agent-join-abc-XyZ123"
    profile = "arn:aws:iam::123456789012:instance-profile/c-agent-profile-1a2b3c"
    policy = json.loads(agent_policy(arn, profile, "c", "us-east-1", "aws"))
    read, find, detach = policy["Statement"]
    assert (read["Effect"], read["Action"], read["Resource"]) == (
        "Allow",
        "secretsmanager:GetSecretValue",
        arn,
    )
    assert "Condition" not in read and "NotResource" not in read
    assert (find["Action"], find["Resource"]) == ("ec2:DescribeIamInstanceProfileAssociations", "*")
    assert find["Condition"] == {"StringEquals": {"aws:RequestedRegion": "us-east-1"}}
    assert detach["Action"] == "ec2:DisassociateIamInstanceProfile"
    # The calling instance only: its own ARN is the instance the action is on (a policy variable).
    assert detach["Condition"]["ArnLike"] == {
        "ec2:SourceInstanceARN": "arn:aws:ec2:us-east-1:*:instance/${ec2:InstanceId}"
    }
    assert detach["Condition"]["ArnEquals"] == {"ec2:InstanceProfile": profile}
    assert detach["Condition"]["StringEquals"] == {"aws:ResourceTag/gpukit:cluster": "c"}
    assert all(s["Effect"] == "Allow" and "NotAction" not in s for s in policy["Statement"])


def test_server_role_reads_its_own_secret_and_detaches_nothing() -> None:
    arn = "arn:aws:secretsmanager:us-east-1:123456789012:secret:gpukit/c/k3s-server-join-abc-XyZ123"
    (read,) = json.loads(server_policy(arn))["Statement"]
    assert (read["Action"], read["Resource"]) == ("secretsmanager:GetSecretValue", arn)


def test_node_cleanup_describes_instances_in_the_clusters_region_only() -> None:
    (describe,) = json.loads(node_cleanup_policy("eu-west-1"))["Statement"]
    assert (describe["Action"], describe["Resource"]) == ("ec2:DescribeInstances", "*")
    assert describe["Condition"] == {"StringEquals": {"aws:RequestedRegion": "eu-west-1"}}


def test_join_key_alias_and_secret_pattern() -> None:
    assert alias_name("gpu-prod") == "alias/gpukit/gpu-prod/k3s-server-join"
    pattern = secret_arns("aws", "us-east-1", "123456789012", "gpukit/gpu-prod/k3s-server-join-")
    assert pattern == "arn:aws:secretsmanager:us-east-1:123456789012:secret:gpukit/gpu-prod/k3s-server-join-*"


# --- user data


def _decode(user_data: str) -> bytes:
    raw = base64.b64decode(user_data)
    return gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw


def test_user_data_is_plain_base64_while_it_fits() -> None:
    text = "#cloud-config\n" + "x" * (EC2_USER_DATA_LIMIT - 20)
    encoded = ec2_user_data(text)
    assert base64.b64decode(encoded) == text.encode()


def test_user_data_over_the_limit_is_gzipped_reproducibly() -> None:
    text = "#cloud-config\n" + "runcmd: []\n" * (EC2_USER_DATA_LIMIT // 5)
    encoded = ec2_user_data(text)
    assert base64.b64decode(encoded)[:2] == b"\x1f\x8b"
    assert len(base64.b64decode(encoded)) <= EC2_USER_DATA_LIMIT
    assert _decode(encoded) == text.encode()
    assert ec2_user_data(text) == encoded  # mtime 0: same text, same launch template


def test_user_data_that_cannot_fit_is_refused() -> None:
    incompressible = base64.b64encode(random.Random(0).randbytes(3 * EC2_USER_DATA_LIMIT)).decode()
    with pytest.raises(ValueError, match="gzipped"):
        ec2_user_data(incompressible)
