"""The NCCL check (`gpukit:verification.nccl`) under the mocks: what GpuCluster registers for an EFA pool,
that every object is valid, that its pods ask for what the `pools` output says a pod on the pool needs,
that its keys stay secret, and where it is not built; and what the plan says it costs."""

import json
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from gpukit.cli import main
from gpukit.components.addons.interconnect.nccl_check import NAMESPACE, NCCL_TESTS_IMAGE
from gpukit.plan.artifacts import kubernetes_object
from gpukit.program import build
from harness import Recording, eks_config, is_secret, record, unsecret

JOB = "kubernetes:batch/v1:Job"
H100 = {"name": "h100", "instanceType": "p5.48xlarge", "minNodes": 0, "maxNodes": 2, "zones": ["usw2-az3"]}


def nccl_config(**pool: Any) -> dict[str, Any]:
    config = eks_config(**{"gpukit:verification": {"nccl": True, "timeoutMinutes": 40}})
    config["gpukit:nodePools"].append({**H100, **pool})
    return config


@pytest.fixture(scope="module")
def checked() -> Recording:
    return record(lambda: build(nccl_config()))


def jobs(rec: Recording) -> dict[str, dict[str, Any]]:
    return {j.name: j.inputs for j in rec.of_type(JOB) if j.name.startswith("unit-nccl-")}


def test_one_indexed_job_of_two_pods_a_service_keys_and_the_judge_for_the_efa_pool(
    checked: Recording,
) -> None:
    found = jobs(checked)
    assert sorted(found) == ["unit-nccl-h100"]
    metadata, spec = found["unit-nccl-h100"]["metadata"], found["unit-nccl-h100"]["spec"]
    assert metadata["name"].startswith("nccl-h100-") and len(metadata["name"]) + 2 <= 63
    assert metadata["namespace"] == NAMESPACE
    assert metadata["annotations"]["pulumi.com/timeoutSeconds"] == str((40 + 2) * 60)
    assert (spec["completionMode"], spec["completions"], spec["parallelism"]) == ("Indexed", 2, 2)
    assert spec["activeDeadlineSeconds"] == 40 * 60
    assert spec["backoffLimit"] == 0  # a failed launcher fails the Job, which stops the worker
    assert spec["successPolicy"] == {"rules": [{"succeededIndexes": "0"}]}  # a passed one completes it
    pod = spec["template"]["spec"]
    assert pod["subdomain"] == "nccl-h100" and "hostname" not in pod  # pods are <job>-<index>
    assert pod["automountServiceAccountToken"] is False
    (container,) = pod["containers"]
    assert container["image"] == NCCL_TESTS_IMAGE and "@sha256:" in NCCL_TESTS_IMAGE
    job_name = next(e for e in container["env"] if e["name"] == "JOB_NAME")
    assert job_name["valueFrom"]["fieldRef"]["fieldPath"] == "metadata.labels['batch.kubernetes.io/job-name']"
    service = checked.one("kubernetes:core/v1:Service", "unit-nccl-h100-service").inputs["spec"]
    assert service["clusterIP"] == "None" and service["publishNotReadyAddresses"] is True
    namespace = checked.one("kubernetes:core/v1:Namespace", "unit-nccl-namespace").inputs["metadata"]
    assert namespace["labels"]["pod-security.kubernetes.io/enforce"] == "baseline"
    tools = checked.one("kubernetes:core/v1:ConfigMap", "unit-nccl-tools").inputs["data"]
    assert "def judge(" in tools["nccl_judge.py"]
    # A changed judge re-runs the check: its hash is part of the Job's spec, so of its name.
    assert len(spec["template"]["metadata"]["annotations"]["gpukit.dev/nccl-judge-sha256"]) == 64


def test_only_the_check_pods_reach_the_check_pods(checked: Recording) -> None:
    policy = checked.one("kubernetes:networking.k8s.io/v1:NetworkPolicy", "unit-nccl-peers-only").inputs[
        "spec"
    ]
    assert policy["podSelector"] == {} and policy["policyTypes"] == ["Ingress"]
    (rule,) = policy["ingress"]
    assert rule == {
        "from": [
            {"podSelector": {"matchExpressions": [{"key": "gpukit.dev/nccl-check", "operator": "Exists"}]}}
        ]
    }


def test_the_pods_ask_for_what_the_pools_output_says_a_pod_on_the_pool_needs(
    checked: Recording, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "Pulumi.nccl.yaml"
    path.write_text(yaml.safe_dump({"config": nccl_config()}))
    assert main(["plan", "--config", str(path), "--json"]) == 0
    wanted = json.loads(capsys.readouterr().out)["interconnect"]["h100"]
    pod = jobs(checked)["unit-nccl-h100"]["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    for resource, quantity in wanted["requests"].items():
        assert container["resources"]["requests"][resource] == quantity
        assert container["resources"]["limits"][resource] == quantity
    assert container["resources"]["limits"]["nvidia.com/gpu"] == "8"
    assert {e["name"]: e["value"] for e in container["env"] if "value" in e} == wanted["env"]
    assert pod["nodeSelector"] == {"gpukit.dev/pool": "h100"}


def test_the_ssh_keys_are_secret_and_the_launcher_trusts_only_the_check_host_key(checked: Recording) -> None:
    secret = checked.one("kubernetes:core/v1:Secret", "unit-nccl-ssh").inputs
    assert is_secret(secret["stringData"])
    data = unsecret(secret["stringData"])
    assert sorted(data) == ["authorized_keys", "id_ed25519", "known_hosts", "ssh_host_ed25519_key"]
    assert data["known_hosts"].startswith("* ssh-ed25519 ")
    keys = [k.inputs for k in checked.of_type("tls:index/privateKey:PrivateKey") if "-nccl-" in k.urn]
    assert [k["algorithm"] for k in keys] == ["ED25519", "ED25519"]


def test_the_check_waits_for_the_gpu_stack_and_the_efa_device_plugin(checked: Recording) -> None:
    namespace = checked.one("kubernetes:core/v1:Namespace", "unit-nccl-namespace")
    operator = checked.one("kubernetes:helm.sh/v3:Release", "unit-gpu-operator-release")
    plugin = checked.one("kubernetes:helm.sh/v3:Release", "unit-efa-device-plugin-release")
    assert operator.urn in namespace.dependencies
    assert plugin.urn in namespace.dependencies


def test_recorded_objects_are_valid_under_strict_schema(checked: Recording) -> None:
    names = {"unit-nccl-namespace", "unit-nccl-h100-service", "unit-nccl-tools", "unit-nccl-peers-only"}
    found = [r for r in checked.resources if r.name in {*names, *jobs(checked)}]
    assert len(found) == 5
    for resource in found:
        kubernetes_validate.validate(kubernetes_object(resource), "1.35.0", strict=True)


@pytest.mark.parametrize(
    "change",
    [
        {"maxNodes": 1},
        {"interconnect": "none"},
        {"sharing": {"mode": "mig", "mig": {"profile": "1g.10gb", "strategy": "single"}}},
    ],
    ids=["one-node", "no-fabric", "shared-gpus"],
)
def test_only_pools_with_two_nodes_of_whole_gpus_on_a_fabric_are_checked(change: dict[str, Any]) -> None:
    config = nccl_config()
    config["gpukit:nodePools"].append({**H100, "name": "other", **change})
    rec = record(lambda: build(config))
    assert sorted(jobs(rec)) == ["unit-nccl-h100"]


def test_no_check_unless_the_stack_asks() -> None:
    config = eks_config()
    config["gpukit:nodePools"].append(H100)
    assert record(lambda: build(config)).of_type("gpukit:index:NcclCheck") == []


def test_the_plan_states_the_check_and_its_cost(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "Pulumi.nccl.yaml"
    path.write_text(yaml.safe_dump({"config": nccl_config()}))
    assert main(["plan", "--config", str(path)]) == 0
    out = capsys.readouterr().out
    assert (
        "    NCCL check: 2 nodes, all_reduce_perf 8 B to 16 GiB, over Libfabric or OFI with GPUDirect RDMA; "
        "at least 300 GB/s bus bandwidth at 16 GiB (NVIDIA AICR's EKS H100 gate)\n"
    ) in out
    assert (
        "the NCCL check runs on 2 nodes of pool 'h100' (p5.48xlarge) each time it runs (the first "
        "`pulumi up`, then whenever the pool or the check changes), for at most timeoutMinutes plus the "
        "autoscaler's 10-minute idle delay; at most $91.73 per check (2 x $55.04/h x 50 min, list price)"
    ) in out
