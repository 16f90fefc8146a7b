"""GpuVerification under the mocks: what GpuCluster registers when a stack verifies its GPU pools."""

from typing import Any

import kubernetes_validate
import pytest

from gpukit.components.addons.verification.checks import SAMPLE_IMAGE
from gpukit.plan.artifacts import kubernetes_object
from gpukit.program import build
from harness import Recording, eks_config, example_config, record

JOB = "kubernetes:batch/v1:Job"
TRAIN_POOLS = [
    {"name": "system", "instanceType": "m7i.large", "minNodes": 1, "maxNodes": 3},
    {"name": "l4", "instanceType": "g6.xlarge", "minNodes": 0, "maxNodes": 8, "zones": ["usw2-az1"]},
    {
        "name": "h100",
        "instanceType": "p5.48xlarge",
        "minNodes": 0,
        "maxNodes": 2,
        "zones": ["usw2-az3"],
        "sharing": {"mode": "mig", "mig": {"layout": {"3g.40gb": 1, "1g.10gb": 4}, "strategy": "mixed"}},
    },
]


@pytest.fixture(scope="module")
def verified() -> Recording:
    config = eks_config(**{"gpukit:nodePools": TRAIN_POOLS, "gpukit:verification": {"enabled": True}})
    return record(lambda: build(config))


def job(rec: Recording, pool: str) -> dict[str, Any]:
    return rec.one(JOB, f"unit-verify-{pool}").inputs


def test_one_job_per_gpu_pool_named_after_it_under_the_component(verified: Recording) -> None:
    jobs = verified.of_type(JOB)
    assert sorted(j.name for j in jobs) == ["unit-verify-h100", "unit-verify-l4"]  # no job for `system`
    component = verified.one("gpukit:index:GpuVerification")
    assert all(j.parent == component.urn for j in jobs)
    assert verified.parent_of(component) == verified.one("gpukit:index:GpuCluster")


def test_jobs_carry_the_pools_toleration_selector_and_unit(verified: Recording) -> None:
    l4 = job(verified, "l4")["spec"]["template"]["spec"]
    assert l4["nodeSelector"] == {"gpukit.dev/pool": "l4"}
    assert l4["tolerations"] == [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
    assert l4["containers"][0]["resources"]["limits"] == {"nvidia.com/gpu": "1", "memory": "512Mi"}
    h100 = job(verified, "h100")["spec"]["template"]["spec"]
    assert h100["nodeSelector"] == {"gpukit.dev/pool": "h100"}
    assert h100["containers"][0]["resources"]["limits"] == {"nvidia.com/mig-1g.10gb": "1", "memory": "512Mi"}


def test_jobs_are_pinned_hardened_and_awaited_for_the_timeout(verified: Recording) -> None:
    inputs = job(verified, "l4")
    annotations = inputs["metadata"]["annotations"]
    assert annotations == {"pulumi.com/timeoutSeconds": str(22 * 60), "pulumi.com/replaceUnready": "true"}
    assert "pulumi.com/skipAwait" not in annotations
    spec = inputs["spec"]
    assert spec["activeDeadlineSeconds"] == 20 * 60
    assert "ttlSecondsAfterFinished" not in spec  # Pulumi owns the Job's lifetime
    pod = spec["template"]["spec"]
    assert pod["automountServiceAccountToken"] is False
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
    (container,) = pod["containers"]
    assert container["image"] == SAMPLE_IMAGE
    # A failed check's FAIL lines stay in the pod's status after its node (and log) is gone.
    assert container["terminationMessagePolicy"] == "FallbackToLogsOnError"
    assert container["securityContext"] == {
        "allowPrivilegeEscalation": False,
        "capabilities": {"drop": ["ALL"]},
    }


def test_jobs_wait_for_the_gpu_operator(verified: Recording) -> None:
    namespace = verified.one("kubernetes:core/v1:Namespace", "unit-verify-namespace")
    release = verified.one("kubernetes:helm.sh/v3:Release", "unit-gpu-operator-release")
    assert release.urn in namespace.dependencies
    assert namespace.urn in verified.one(JOB, "unit-verify-l4").dependencies


def test_recorded_objects_are_valid_under_strict_schema(verified: Recording) -> None:
    for resource in [
        *verified.of_type(JOB),
        verified.one("kubernetes:core/v1:Namespace", "unit-verify-namespace"),
    ]:
        kubernetes_validate.validate(kubernetes_object(resource), "1.35.0", strict=True)


def test_nothing_is_verified_unless_the_stack_says_so() -> None:
    rec = record(lambda: build(eks_config()))
    assert rec.of_type(JOB) == []
    assert rec.of_type("gpukit:index:GpuVerification") == []


def test_the_mps_pool_of_k3s_over_ssh_runs_its_check_as_root_in_a_baseline_namespace() -> None:
    config = example_config("k3s-ssh")
    config["gpukit:sshPrivateKey"] = "not-a-real-key"
    rec = record(lambda: build(config, ["gpukit:sshPrivateKey"]))
    pod = rec.one(JOB, "lab-verify-l40s").inputs["spec"]["template"]["spec"]
    assert "runAsNonRoot" not in pod["securityContext"]
    assert pod["containers"][0]["securityContext"]["capabilities"] == {"drop": ["ALL"]}
    labels = rec.one("kubernetes:core/v1:Namespace", "lab-verify-namespace").inputs["metadata"]["labels"]
    assert labels["pod-security.kubernetes.io/enforce"] == "baseline"
    assert labels["pod-security.kubernetes.io/warn"] == "restricted"


def test_gkes_own_mps_pool_is_verified_with_host_ipc_in_a_privileged_namespace_of_its_own() -> None:
    config = example_config("gke-dev")
    config["gpukit:nodePools"][1]["sharing"] = {"mode": "mps", "replicas": 4}  # GKE's MPS (preinstalled)
    config["gpukit:verification"] = {"enabled": True}
    rec = record(lambda: build(config))
    job_inputs = rec.one(JOB, "gke-dev-verify-l4").inputs
    assert job_inputs["metadata"]["namespace"] == "gpukit-verify-hostipc"
    pod = job_inputs["spec"]["template"]["spec"]
    assert pod["hostIPC"] is True
    assert pod["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] == "1"
    assert pod["containers"][0]["securityContext"]["capabilities"] == {"drop": ["ALL"]}
    script = pod["containers"][0]["command"][2]
    assert "MPS_THREADS=25\n" in script and "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE" in script
    # No pool needs the hardened one (gke-dev's other namespace is KEDA's: inference is on).
    (namespace,) = [n for n in rec.of_type("kubernetes:core/v1:Namespace") if "-verify-" in n.name]
    assert namespace.name == "gke-dev-verify-namespace-hostipc"
    labels = namespace.inputs["metadata"]["labels"]
    assert labels["pod-security.kubernetes.io/enforce"] == "privileged"
    assert labels["pod-security.kubernetes.io/audit"] == "restricted"
    assert namespace.urn in rec.one(JOB, "gke-dev-verify-l4").dependencies
    for resource in (rec.one(JOB, "gke-dev-verify-l4"), namespace):
        kubernetes_validate.validate(kubernetes_object(resource), "1.35.0", strict=True)
