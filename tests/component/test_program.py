"""The Pulumi program as `pulumi up` runs it (`gpukit.program.main`), under the mocks."""

from typing import Any

import pulumi
import pytest

from gpukit.program import build, main
from harness import eks_config, is_secret, record, substrate, unsecret


def test_bad_config_fails_pulumi_up_with_every_problem_and_registers_nothing() -> None:
    config = eks_config()
    config["gpukit:nodePools"][1]["minNodes"] = 9  # > maxNodes 8
    config["gpukit:cluster"]["kubernetesVersion"] = "1.29"
    resources: list[Any] = []
    with pytest.raises(pulumi.RunError) as raised:
        resources = record(main, config=config).resources
    text = str(raised.value)
    assert text.startswith("invalid gpukit configuration:")
    assert "gpukit:nodePools[1].minNodes: must be <= maxNodes (8); got 9" in text
    assert "gpukit:cluster.kubernetesVersion: must be one of 1.34, 1.35, 1.36 for eks; got '1.29'" in text
    assert "Traceback" not in text
    assert resources == []


def test_preflight_error_fails_pulumi_up_before_any_resource() -> None:
    config = eks_config()
    config["gpukit:nodePools"].append(
        {"name": "rtx", "instanceType": "g7e.2xlarge", "minNodes": 0, "maxNodes": 1, "zones": ["usw2-az1"]}
    )
    with pytest.raises(pulumi.RunError) as raised:
        record(main, config=config)
    text = str(raised.value)
    assert text.startswith("gpukit preflight failed (nothing was created):")
    assert "gpukit:nodePools[2].instanceType" in text


def test_valid_config_deploys_through_main() -> None:
    rec = record(main, config=eks_config())
    assert len(rec.of_type("aws:eks/nodeGroup:NodeGroup")) == 3  # system, and the L4 pool in two zones


def test_kubeconfig_stack_output_is_secret() -> None:
    seen: dict[str, bool] = {}

    async def program() -> None:
        built = build(eks_config())
        seen["secret"] = await built.component.kubeconfig.is_secret()

    record(program)
    assert seen == {"secret": True}


def test_ambient_kubeconfig_is_never_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KUBECONFIG", "/home/someone/.kube/prod-cluster")
    rec = record(lambda: build(eks_config()))
    provider = rec.one("pulumi:providers:kubernetes")
    assert is_secret(provider.inputs["kubeconfig"])
    assert "prod-cluster" not in unsecret(provider.inputs["kubeconfig"])
    assert "get-token" in unsecret(provider.inputs["kubeconfig"])


def test_an_invoke_the_plan_engine_does_not_know_fails_loudly() -> None:
    import pulumi_aws as aws

    from gpukit.plan.fakes import UnmockedInvokeError

    with pytest.raises(UnmockedInvokeError, match="aws:ec2/getAmi:getAmi"):
        record(lambda: aws.ec2.get_ami(most_recent=True, owners=["amazon"]))


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("eks", "aws eks update-kubeconfig --name c --region us-west-2"),
        ("gke", "gcloud container clusters get-credentials c --location us-central1-b --project p1"),
        ("k3s-aws", "no SSH to the machines is needed"),
        ("k3s-ssh", None),
    ],
)
def test_next_steps_name_the_platforms_own_credential_command(name: str, expected: str | None) -> None:
    from gpukit.components.substrate import ResolvedCluster
    from gpukit.program import next_steps

    on = substrate(name)
    spec: Any = {
        "name": "c",
        "platform": on.platform,
        "region": "us-west-2",
        "zone": "us-central1-b",
        "project": "p1",
    }
    steps = "\n".join(next_steps(ResolvedCluster({"cluster": spec, "node_pools": []}, on, ())))  # type: ignore[typeddict-item]
    assert steps.startswith("pulumi stack output kubeconfig --show-secrets")
    if expected:
        assert expected in steps
    else:
        assert "# " not in steps.split("\n")[2]  # nothing of its own between the kubeconfig and kubectl lines
    assert "aws eks" not in steps or name == "eks"
    assert "gcloud" not in steps or name == "gke"
