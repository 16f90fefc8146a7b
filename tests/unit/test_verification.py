"""GPU verification as pure values: what each pool's Job requests and checks, and how it is hardened."""

from typing import Any

import kubernetes_validate
import pytest

from gpukit.components.addons.verification.checks import SAMPLE_IMAGE, memory_bounds_mib
from gpukit.components.addons.verification.cluster_checks import cluster_checks, fingerprint
from gpukit.components.addons.verification.findings import verification_findings
from gpukit.components.addons.verification.jobs import (
    HOST_IPC_NAMESPACE,
    NAMESPACE,
    job_manifest,
    namespace_manifests,
)
from gpukit.components.resolve.config import resolve_config
from gpukit.components.spec import SharingMode
from gpukit.components.substrate import ResolvedCluster
from harness import eks_config, example_config

TIME_SLICED_L4 = {
    "name": "l4",
    "instanceType": "g6.xlarge",
    "minNodes": 0,
    "maxNodes": 8,
    "zones": ["usw2-az1", "usw2-az2"],
    "sharing": {"mode": "time-slicing", "replicas": 4},
}
MIXED_MIG_H100 = {
    "name": "h100",
    "instanceType": "p5.48xlarge",
    "minNodes": 0,
    "maxNodes": 2,
    "zones": ["usw2-az3"],
    "sharing": {
        "mode": "mig",
        "mig": {"layout": {"3g.40gb": 1, "2g.20gb": 1, "1g.10gb": 2}, "strategy": "mixed"},
    },
}
SINGLE_MIG_H100 = {**MIXED_MIG_H100, "sharing": {"mode": "mig", "mig": {"profile": "1g.10gb"}}}


def cluster(*gpu_pools: dict[str, Any], verification: dict[str, Any] | None = None) -> ResolvedCluster:
    config = eks_config()
    config["gpukit:nodePools"] = [config["gpukit:nodePools"][0], *gpu_pools]
    config["gpukit:verification"] = verification or {"enabled": True}
    return resolve_config(config)


def test_memory_bounds_take_an_l40s_as_nvidia_smi_reports_it_and_refuse_a_gpu_half_its_size() -> None:
    low, high = memory_bounds_mib(48)
    assert low <= 46068 <= high  # "NVIDIA L40S, 46068" (nvidia-smi)
    assert not low <= 23034 <= high  # an L4's 24 GB is not an L40S
    low24, high24 = memory_bounds_mib(24)
    assert low24 <= 23034 <= high24


def test_a_whole_gpu_pool_requests_one_gpu_on_its_own_nodes_and_checks_model_and_memory() -> None:
    (check,) = cluster_checks(cluster({**TIME_SLICED_L4, "sharing": {"mode": "none"}}))
    assert check.resource == "nvidia.com/gpu"
    assert check.node_selector == (("gpukit.dev/pool", "l4"),)
    assert check.tolerations == (("nvidia.com/gpu", "Exists", "NoSchedule"),)
    assert check.gpu_model == "L4"
    assert "l4" in check.gpu_names.split()
    assert check.memory_min_mib > 0
    assert check.sharing is SharingMode.NONE


def test_a_time_sliced_pool_requests_one_share_under_the_gpu_resource() -> None:
    (check,) = cluster_checks(cluster(TIME_SLICED_L4))
    assert (check.resource, check.sharing) == ("nvidia.com/gpu", SharingMode.TIME_SLICING)


def test_mixed_mig_requests_its_first_profile_by_name_and_single_mig_the_gpu_resource() -> None:
    (mixed,) = cluster_checks(cluster(MIXED_MIG_H100))
    assert mixed.resource == "nvidia.com/mig-1g.10gb"
    assert mixed.mig_profiles == ("1g.10gb",)
    assert (mixed.memory_min_mib, mixed.memory_max_mib) == (0, 0)  # a MIG unit is checked by profile
    (single,) = cluster_checks(cluster(SINGLE_MIG_H100))
    assert single.resource == "nvidia.com/gpu"
    assert single.mig_profiles == ("1g.10gb",)


def test_an_mps_pool_runs_its_check_as_root_and_every_other_as_nobody() -> None:
    config = example_config("k3s-ssh")
    config["gpukit:sshPrivateKey"] = "not-a-real-key"  # the stack file holds it encrypted
    mps = cluster_checks(resolve_config(config, ["gpukit:sshPrivateKey"]))
    assert [c.sharing for c in mps] == [SharingMode.MPS]
    job = job_manifest(mps[0], 20)
    assert "runAsNonRoot" not in job["spec"]["template"]["spec"]["securityContext"]
    (namespace,) = namespace_manifests(mps)
    assert namespace["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "baseline"
    assert "hostIPC" not in job["spec"]["template"]["spec"]  # the GPU Operator's MPS needs no host IPC
    (l4,) = cluster_checks(cluster(TIME_SLICED_L4))
    pod = job_manifest(l4, 20)["spec"]["template"]["spec"]
    assert pod["securityContext"] == {
        "runAsNonRoot": True,
        "runAsUser": 65534,
        "runAsGroup": 65534,
        "seccompProfile": {"type": "RuntimeDefault"},
    }
    (namespace,) = namespace_manifests([l4])
    assert namespace["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "restricted"


@pytest.mark.parametrize("pool", [TIME_SLICED_L4, MIXED_MIG_H100, SINGLE_MIG_H100])
def test_every_job_is_hardened_pinned_bounded_and_valid_under_strict_schema(pool: dict[str, Any]) -> None:
    (check,) = cluster_checks(cluster(pool, verification={"enabled": True, "timeoutMinutes": 30}))
    job = job_manifest(check, 30, {"gpukit.dev/driver": "preinstalled"}, run="abc123", ttl_seconds=3600)
    kubernetes_validate.validate(job, "1.35.0", strict=True)
    for namespace in namespace_manifests([check]):
        kubernetes_validate.validate(namespace, "1.35.0", strict=True)
    spec = job["spec"]
    assert spec["activeDeadlineSeconds"] == 30 * 60
    assert spec["backoffLimit"] <= 2
    assert spec["ttlSecondsAfterFinished"] == 3600
    pod = spec["template"]["spec"]
    assert pod["automountServiceAccountToken"] is False
    assert pod["restartPolicy"] == "Never"
    (container,) = pod["containers"]
    assert container["image"] == SAMPLE_IMAGE
    assert not container["image"].endswith(":latest")
    assert container["resources"]["limits"][check.resource] == "1"
    assert container["securityContext"] == {
        "allowPrivilegeEscalation": False,
        "capabilities": {"drop": ["ALL"]},
    }
    assert job["metadata"]["namespace"] == NAMESPACE
    assert len(job["metadata"]["name"]) <= 63


def test_a_job_name_changes_with_what_it_checks_or_vouches_for_and_not_otherwise() -> None:
    (check,) = cluster_checks(cluster(TIME_SLICED_L4))
    name = job_manifest(check, 20, {"gpukit.dev/gpu-operator-chart": "v26.7.0"})["metadata"]["name"]
    assert name == job_manifest(check, 20, {"gpukit.dev/gpu-operator-chart": "v26.7.0"})["metadata"]["name"]
    assert name != job_manifest(check, 20, {"gpukit.dev/gpu-operator-chart": "v26.8.0"})["metadata"]["name"]
    assert name != job_manifest(check, 25, {"gpukit.dev/gpu-operator-chart": "v26.7.0"})["metadata"]["name"]
    (whole,) = cluster_checks(cluster({**TIME_SLICED_L4, "sharing": {"mode": "none"}}))
    assert name != job_manifest(whole, 20, {"gpukit.dev/gpu-operator-chart": "v26.7.0"})["metadata"]["name"]
    assert name.startswith("gpukit-verify-l4-")


def test_a_pool_name_at_its_limit_keeps_the_job_name_within_63_characters() -> None:
    longest = {**TIME_SLICED_L4, "name": "p" * 24}
    (check,) = cluster_checks(cluster(longest))
    assert len(job_manifest(check, 20, fingerprint(cluster(longest)), run="abc123")["metadata"]["name"]) <= 63


def test_the_plan_states_what_verifying_a_scale_to_zero_pool_costs() -> None:
    resolved = cluster(TIME_SLICED_L4, verification={"enabled": True, "timeoutMinutes": 20})
    (finding,) = verification_findings(resolved)
    assert finding.key == "gpukit:nodePools[1].minNodes"
    assert "scales pool 'l4' from 0 to 1 node (g6.xlarge)" in finding.message
    per_node = resolved.substrate.catalog.quote(resolved.pools[1].instance, "us-west-2").per_node
    assert per_node is not None
    assert f"${per_node * 30 / 60:,.2f} per verification" in finding.message  # 20 min + 10 idle


def test_no_cost_finding_without_verification_or_for_pools_that_keep_nodes() -> None:
    assert verification_findings(cluster(TIME_SLICED_L4, verification={"enabled": False})) == []
    assert verification_findings(cluster({**TIME_SLICED_L4, "minNodes": 1})) == []


def gke_cluster(sharing: dict[str, Any], driver: str = "preinstalled") -> ResolvedCluster:
    config = example_config("gke-dev")
    config["gpukit:nodePools"][1]["sharing"] = sharing
    config["gpukit:gpuOperator"]["driver"] = driver
    if driver == "operator":
        del config["gpukit:gpuOperator"]["gkeDriverVersion"]  # GKE's driver only
    config["gpukit:verification"] = {"enabled": True}
    return resolve_config(config)


def test_gkes_own_mps_runs_with_host_ipc_in_a_privileged_namespace_of_its_own() -> None:
    (check,) = cluster_checks(gke_cluster({"mode": "mps", "replicas": 4}))
    assert check.platform_shares and check.host_ipc
    job = job_manifest(check, 20)
    pod = job["spec"]["template"]["spec"]
    assert pod["hostIPC"] is True
    assert pod["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] == "1"
    assert job["metadata"]["namespace"] == HOST_IPC_NAMESPACE
    (namespace,) = namespace_manifests([check])
    labels = namespace["metadata"]["labels"]
    assert namespace["metadata"]["name"] == HOST_IPC_NAMESPACE
    assert labels["pod-security.kubernetes.io/enforce"] == "privileged"
    assert labels["pod-security.kubernetes.io/warn"] == "restricted"
    kubernetes_validate.validate(job, "1.35.0", strict=True)
    kubernetes_validate.validate(namespace, "1.35.0", strict=True)
    script = pod["containers"][0]["command"][2]
    assert "MPS_THREADS=25\n" in script  # GKE's device plugin gives one of 4 clients 100 // 4 %


def test_gke_mps_under_the_operator_and_gke_time_sharing_stay_in_the_hardened_namespace() -> None:
    (operator_mps,) = cluster_checks(gke_cluster({"mode": "mps", "replicas": 4}, driver="operator"))
    assert not operator_mps.host_ipc and operator_mps.mps_thread_percentage == 0
    assert job_manifest(operator_mps, 20)["metadata"]["namespace"] == NAMESPACE
    (time_shared,) = cluster_checks(gke_cluster({"mode": "time-slicing", "replicas": 4}))
    assert time_shared.platform_shares and not time_shared.host_ipc
    pod = job_manifest(time_shared, 20)["spec"]["template"]["spec"]
    assert "hostIPC" not in pod and pod["securityContext"]["runAsNonRoot"] is True
    assert pod["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] == "1"  # GKE's unit
    (namespace,) = namespace_manifests([time_shared])
    assert namespace["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "restricted"
