"""The plan's fakes name resources as the clouds would, and refuse the names the clouds refuse."""

from typing import Any

import pytest

from gpukit.components.name_rules import ResourceNameError
from gpukit.providers.aws.fakes import AwsFakes
from gpukit.providers.gcp.fakes import GcpFakes

LB = "aws:lb/loadBalancer:LoadBalancer"
TG = "aws:lb/targetGroup:TargetGroup"
ROLE = "aws:iam/role:Role"
ALIAS = "aws:kms/alias:Alias"
ADDRESS = "gcp:compute/address:Address"
ACCOUNT = "gcp:serviceaccount/account:Account"


def aws(token: str, resource: str, **inputs: Any) -> dict[str, Any]:
    """The outputs the AWS fakes give the resource `resource` of type `token`."""
    return AwsFakes({}).resource(token, resource, inputs)[1]


def gcp(token: str, resource: str, **inputs: Any) -> dict[str, Any]:
    return GcpFakes({}).resource(token, resource, inputs)[1]


def test_names_are_the_given_name_a_prefix_and_an_id_or_pulumis_auto_name() -> None:
    assert aws(LB, "api", name="ml-dev-api")["name"] == "ml-dev-api"
    prefixed = aws(LB, "api", namePrefix="k3s-")["name"]
    assert prefixed.startswith("k3s-") and len(prefixed) == 30
    auto = aws(ROLE, "ml-dev-node-role")["name"]
    assert auto.startswith("ml-dev-node-role-") and len(auto) == len("ml-dev-node-role") + 8
    assert aws(ROLE, "r")["arn"].endswith(f":role/{aws(ROLE, 'r')['name']}")


@pytest.mark.parametrize(
    ("token", "name", "inputs", "refusal"),
    [
        (LB, "api", {"name": "a" * 33}, r"name 'a{33}' \(33 characters\) is refused: the cloud takes 1-32"),
        (LB, "api", {"name": "internal-api"}, "not starting with internal-"),
        (LB, "api", {"name": "api-"}, "not starting or ending with '-'"),
        (
            LB,
            "api",
            {"namePrefix": "k3s-api"},
            r"namePrefix 'k3s-api' \(7 characters\) is refused: the provider takes at most 6",
        ),
        (TG, "a" * 25, {}, "Pulumi's auto-name .* would have 33 characters; the cloud takes at most 32"),
        (ROLE, "role", {"name": "r" * 65}, "1-64 characters"),
        (ROLE, "role", {"name": "a role"}, r"letters, digits and \+=,\.@_-"),
        # KMS keeps alias/aws/ for AWS managed keys, and every alias begins with alias/.
        (ALIAS, "alias", {"name": "alias/aws/secretsmanager"}, "not alias/aws/"),
        (ALIAS, "alias", {"name": "gpukit/c/k3s-server-join"}, "alias/ then"),
        (ALIAS, "alias", {"name": "alias/" + "a" * 251}, "1-256 characters"),
    ],
)
def test_the_aws_fakes_refuse_what_aws_refuses(
    token: str, name: str, inputs: dict[str, Any], refusal: str
) -> None:
    with pytest.raises(ResourceNameError, match=refusal) as err:
        aws(token, name, **inputs)
    assert f"{token} {name!r}" in str(err.value)
    assert "API" in str(err.value)  # it says where the limit is documented


@pytest.mark.parametrize(
    ("token", "inputs", "refusal"),
    [
        (ADDRESS, {"name": "a" * 64}, r"\(64 characters\) is refused: the cloud takes 1-63"),
        (ADDRESS, {"name": "Api-0"}, "lowercase letters"),
        (ACCOUNT, {"accountId": "nodes"}, "the cloud takes 6-30"),
        (ACCOUNT, {"accountId": "a" * 31}, "the cloud takes 6-30"),
        ("gcp:compute/instanceTemplate:InstanceTemplate", {"namePrefix": "t" * 55}, "at most 54"),
        (
            "gcp:compute/instanceGroupManager:InstanceGroupManager",
            {"name": "group", "zone": "us-central1-a", "baseInstanceName": "b" * 59},
            r"baseInstanceName 'b{59}' \(59 characters\) is refused: the cloud takes 1-58",
        ),
        ("gcp:container/nodePool:NodePool", {"name": "p" * 41}, "1-40"),
        ("gcp:projects/iAMCustomRole:IAMCustomRole", {"roleId": "gpukit-c-read"}, "letters, digits"),
        ("gcp:projects/iAMCustomRole:IAMCustomRole", {"roleId": "r" * 65}, "3-64"),
    ],
)
def test_the_gcp_fakes_refuse_what_google_refuses(token: str, inputs: dict[str, Any], refusal: str) -> None:
    with pytest.raises(ResourceNameError, match=refusal):
        gcp(token, "resource", **inputs)


def test_a_gcp_name_prefix_gets_the_id_the_provider_appends() -> None:
    short = gcp("gcp:compute/instanceTemplate:InstanceTemplate", "t", namePrefix="k3s-l4-")["name"]
    long = gcp("gcp:compute/instanceTemplate:InstanceTemplate", "t", namePrefix="a" * 40 + "-")["name"]
    assert len(short) == len("k3s-l4-") + 26 and len(long) == 41 + 9


def test_a_resource_name_the_cloud_refuses_fails_a_plan_of_ones_own_program(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from gpukit.cli import EXIT_INVALID, main

    project = tmp_path / "lb"
    project.mkdir()
    (project / "Pulumi.yaml").write_text("name: lb\nruntime: python\n")
    (project / "Pulumi.dev.yaml").write_text("config:\n  aws:region: us-west-2\n")
    (project / "__main__.py").write_text(
        "import pulumi_aws as aws\n"
        "aws.lb.LoadBalancer('inference-gateway-production', load_balancer_type='network')\n"
    )
    assert main(["plan", "--program", str(project), "--stack", "dev"]) == EXIT_INVALID
    err = capsys.readouterr().err
    assert err.startswith("gpukit: aws:lb/loadBalancer:LoadBalancer 'inference-gateway-production': ")
    assert "would have 36 characters; the cloud takes at most 32" in err
    assert "Traceback" not in err
