"""Preflight findings: what would break on real GPUs although the config is well-formed."""

import pytest

from gpukit.components.pools import PoolFacts
from gpukit.components.preflight import Finding, Severity, _pool_findings, newer_driver_fix, preflight
from gpukit.components.resolve.config import resolve_config
from gpukit.components.spec import Capacity, NodeImage
from gpukit.providers.aws.catalog import InstanceType
from harness import eks_config, example_config

SYSTEM_POOL = {"name": "system", "instanceType": "m7i.large", "minNodes": 1, "maxNodes": 3}
L4_POOL = {"name": "l4", "instanceType": "g6.xlarge", "minNodes": 0, "maxNodes": 8, "zones": ["usw2-az1"]}
G7E_POOL = {"name": "g7e", "instanceType": "g7e.2xlarge", "minNodes": 0, "maxNodes": 2, "zones": ["usw2-az1"]}
P5E_POOL = {
    "name": "h200",
    "instanceType": "p5e.48xlarge",
    "minNodes": 0,
    "maxNodes": 1,
    "zones": ["usw2-az1"],
}

CUDA_KEY = "gpukit:workloads.cudaVersion"


def _findings(**overrides) -> list[Finding]:
    """The findings of the EKS test stack with `overrides`, less the warning that its spot L4 pool has
    no on-demand fallback (test_quotas.py covers that one): these tests are about other findings."""
    found = preflight(resolve_config(eks_config(**overrides)))
    return [f for f in found if not (f.severity is Severity.WARNING and f.key.endswith("].capacity"))]


def _of(findings: list[Finding], severity: Severity) -> list[Finding]:
    return [f for f in findings if f.severity == severity]


def _cluster(**changes) -> dict:
    cluster = eks_config()["gpukit:cluster"]
    cluster.update(changes)
    return cluster


OFFICE = "18.200.16.0/24"  # a public range, as a real office's would be (not a documentation range)


def test_valid_config_has_no_errors_or_warnings():
    findings = _findings(**{"gpukit:cluster": _cluster(apiAccessCidrs=[OFFICE])})
    assert _of(findings, Severity.ERROR) == []
    assert _of(findings, Severity.WARNING) == []


def test_cuda_13_1_on_r580_warns_about_minor_version_compatibility():
    findings = _findings(**{"gpukit:workloads": {"cudaVersion": "13.1"}})
    warnings = [f for f in _of(findings, Severity.WARNING) if f.key == CUDA_KEY]
    assert len(warnings) == 1
    assert "minor-version compatibility" in warnings[0].message
    assert "R580" in warnings[0].message
    assert "13.0" in warnings[0].message  # the newest CUDA R580 runs fully
    assert _of(findings, Severity.ERROR) == []


def test_cuda_13_0_on_r580_is_clean():
    findings = _findings(**{"gpukit:workloads": {"cudaVersion": "13.0"}})
    assert [f for f in findings if f.key == CUDA_KEY] == []


def test_g7e_pool_errors_because_eks_images_ship_r580_not_r595():
    findings = _findings(**{"gpukit:nodePools": [SYSTEM_POOL, L4_POOL, G7E_POOL]})
    errors = _of(findings, Severity.ERROR)
    assert len(errors) == 1
    assert errors[0].key == "gpukit:nodePools[2].instanceType"
    assert "R595" in errors[0].message
    assert "R580" in errors[0].message


def test_g7e_on_bottlerocket_errors_too():
    pool = {**G7E_POOL, "nodeImage": "bottlerocket"}
    errors = _of(_findings(**{"gpukit:nodePools": [SYSTEM_POOL, pool]}), Severity.ERROR)
    assert [e.key for e in errors] == ["gpukit:nodePools[1].instanceType"]
    assert "R595" in errors[0].message


def test_p5e_pool_is_reported_as_unpriced():
    findings = _findings(**{"gpukit:nodePools": [SYSTEM_POOL, P5E_POOL]})
    infos = [f for f in _of(findings, Severity.INFO) if f.key == "gpukit:nodePools[1].instanceType"]
    assert len(infos) == 1
    assert "p5e.48xlarge" in infos[0].message
    assert "price" in infos[0].message
    assert _of(findings, Severity.ERROR) == []


def test_priced_pools_get_no_price_finding():
    findings = _findings()
    assert [f for f in findings if "price" in f.message] == []


def test_missing_cuda_version_is_an_info():
    findings = _findings(**{"gpukit:workloads": {}})
    infos = [f for f in findings if f.key == CUDA_KEY]
    assert len(infos) == 1
    assert infos[0].severity == Severity.INFO
    assert "not set" in infos[0].message


def test_cuda_version_set_gives_no_not_set_info():
    assert [f for f in _findings() if f.key == CUDA_KEY] == []


def test_api_open_to_the_internet_warns():
    findings = _findings(**{"gpukit:cluster": _cluster(apiAccessCidrs=[OFFICE, "0.0.0.0/0"])})
    warnings = _of(findings, Severity.WARNING)
    assert [w.key for w in warnings] == ["gpukit:cluster.apiAccessCidrs[1]"]
    assert "internet" in warnings[0].message


def test_a_documentation_range_is_flagged_as_a_placeholder():
    """The examples' 203.0.113.0/24 stands for "your office range": no client has it, and EKS refuses
    reserved ranges, so the plan says to replace it, on the range's own key."""
    findings = _findings(**{"gpukit:cluster": _cluster(apiAccessCidrs=[OFFICE, "198.51.100.128/25"])})
    warnings = _of(findings, Severity.WARNING)
    assert [w.key for w in warnings] == ["gpukit:cluster.apiAccessCidrs[1]"]
    assert warnings[0].message.startswith("198.51.100.128/25 is a documentation range (RFC 5737)")


def test_api_open_to_the_internet_in_halves_warns_on_the_list():
    """Two halves admit everyone as 0.0.0.0/0 does: the warning names the list, since no range does alone."""
    findings = _findings(**{"gpukit:cluster": _cluster(apiAccessCidrs=["0.0.0.0/1", "128.0.0.0/1"])})
    warnings = _of(findings, Severity.WARNING)
    assert [w.key for w in warnings] == ["gpukit:cluster.apiAccessCidrs"]
    assert "whole internet" in warnings[0].message and "0.0.0.0/1, 128.0.0.0/1" in warnings[0].message


def test_api_open_to_the_internet_warns_on_every_substrate():
    """The finding is gpukit's, not a substrate's: GKE and k3s stacks get it as EKS does."""
    for stack in ("gke-dev", "k3s-aws", "k3s-gcp"):
        config = example_config(stack)
        config["gpukit:cluster"]["apiAccessCidrs"] = ["0.0.0.0/1", "128.0.0.0/1"]
        keys = [f.key for f in _of(preflight(resolve_config(config)), Severity.WARNING)]
        assert "gpukit:cluster.apiAccessCidrs" in keys, stack


def test_api_open_to_the_internet_less_private_space_still_warns():
    """Everything but 10.0.0.0/8 (private space) still admits every public address."""
    public = ["0.0.0.0/5", "8.0.0.0/7", "11.0.0.0/8", "12.0.0.0/6", "16.0.0.0/4", "32.0.0.0/3", "64.0.0.0/2"]
    findings = _findings(**{"gpukit:cluster": _cluster(apiAccessCidrs=[*public, "128.0.0.0/1"])})
    assert [w.key for w in _of(findings, Severity.WARNING)] == ["gpukit:cluster.apiAccessCidrs"]


def test_half_the_internet_gives_no_whole_internet_warning():
    findings = _findings(**{"gpukit:cluster": _cluster(apiAccessCidrs=["0.0.0.0/1"])})
    assert _of(findings, Severity.WARNING) == []


def test_private_api_gives_no_warning():
    # In a reused VPC the deployer routes into (in a new one, a private API is refused).
    routed = {
        "vpcId": "vpc-0123456789abcdef0",
        "subnetIds": ["subnet-0123456789abcdef0", "subnet-0123456789abcdef1"],
    }
    findings = _findings(**{"gpukit:cluster": _cluster(apiAccessCidrs=[], network=routed)})
    assert _of(findings, Severity.WARNING) == []


def test_findings_are_sorted_errors_first():
    # Produced in the order error (g7e driver), info (no CUDA), info (p5e price), warning (open API).
    findings = _findings(
        **{
            "gpukit:nodePools": [SYSTEM_POOL, P5E_POOL, G7E_POOL],
            "gpukit:workloads": {},
            "gpukit:cluster": _cluster(apiAccessCidrs=["0.0.0.0/0"]),
        }
    )
    severities = [f.severity for f in findings]
    # Then infos only (EKS adds one per GPU pool whose zones plan cannot check offline).
    assert severities == [Severity.ERROR, Severity.WARNING] + [Severity.INFO] * (len(findings) - 2)
    # Stable within a severity: the CUDA info, then the price info (components/budget.py) in that order.
    assert findings[2].key == CUDA_KEY
    assert findings[3].key == "gpukit:nodePools[1].instanceType"


def test_cpu_only_pools_get_no_driver_findings():
    findings = _findings(**{"gpukit:nodePools": [SYSTEM_POOL], "gpukit:workloads": {"cudaVersion": "13.2"}})
    assert [f for f in findings if f.key.startswith("gpukit:nodePools")] == []
    assert [f for f in findings if f.key == CUDA_KEY] == []


def test_finding_str_names_severity_and_key():
    finding = Finding(Severity.ERROR, "gpukit:nodePools[0].instanceType", "boom")
    assert str(finding) == "error: gpukit:nodePools[0].instanceType: boom"


# --- _pool_findings on a GPU the catalog does not sell (Volta)

V100_INSTANCE = InstanceType("p3.2xlarge", 8, 61, 3.06, gpu_model="V100", gpu_count=1)


def _volta_pool() -> PoolFacts:
    return PoolFacts(
        name="volta",
        instance=V100_INSTANCE,
        min_nodes=0,
        max_nodes=1,
        capacity=Capacity.ON_DEMAND,
        node_image=NodeImage.AL2023,
        disk_size_gb=100,
    )


def test_r590_does_not_drive_volta():
    findings = _pool_findings(0, _volta_pool(), 590, "12.8", "use node images with a newer driver")
    assert len(findings) == 1
    assert findings[0].severity == Severity.ERROR
    assert findings[0].key == "gpukit:nodePools[0].instanceType"
    assert "R590" in findings[0].message
    assert "Volta" in findings[0].message


def test_cuda_13_cannot_build_for_volta():
    findings = _pool_findings(0, _volta_pool(), 580, "13.0", "use node images with a newer driver")
    assert len(findings) == 1
    assert findings[0].severity == Severity.ERROR
    assert findings[0].key == CUDA_KEY
    assert "CUDA 13.0 cannot build for Volta" in findings[0].message


def test_volta_on_r580_with_cuda_12_8_is_clean():
    assert _pool_findings(3, _volta_pool(), 580, "12.8", "use node images with a newer driver") == []


def test_unsupported_cuda_is_an_error_naming_the_newest_runnable_release():
    findings = _pool_findings(0, _volta_pool(), 570, "13.0", "use node images with a newer driver")
    cuda_errors = [f for f in findings if f.key == CUDA_KEY and "does not run" in f.message]
    assert len(cuda_errors) == 1
    assert cuda_errors[0].severity == Severity.ERROR
    assert "12.8" in cuda_errors[0].message


def _k3s_stack(name: str, **changes: object) -> dict:
    config = example_config(name)
    config.update(changes)
    return config


def test_k3s_on_gce_checks_cuda_against_the_deep_learning_vm_driver() -> None:
    """driver: preinstalled on GCE boots the R580 Deep Learning VM family: CUDA 13.2 wants R595."""
    config = _k3s_stack("k3s-gcp", **{"gpukit:workloads": {"cudaVersion": "13.2"}})
    findings = preflight(resolve_config(config))
    warnings = [f for f in _of(findings, Severity.WARNING) if f.key == CUDA_KEY]
    assert len(warnings) == 1 and "driver R580" in warnings[0].message
    assert _of(findings, Severity.ERROR) == []


def test_k3s_on_ec2_with_the_operator_driver_gets_the_operators_branch() -> None:
    config = _k3s_stack("k3s-aws", **{"gpukit:workloads": {"cudaVersion": "13.2"}})
    assert _of(preflight(resolve_config(config)), Severity.ERROR) == []  # R595 runs 13.2


@pytest.mark.parametrize(("stack", "provider"), [("k3s-aws", "aws"), ("k3s-gcp", "gce")])
def test_k3s_cloud_pools_say_the_autoscaler_owns_their_size(stack: str, provider: str) -> None:
    findings = preflight(resolve_config(_k3s_stack(stack)))
    (note,) = [f for f in findings if f.key == "gpukit:nodePools[1].minNodes"]
    assert note.severity == Severity.INFO
    assert f"scales between 0 and 4 node(s): the Cluster Autoscaler on the servers ({provider} provider)" in (
        note.message
    )
    assert note.message.endswith("so it costs nothing while idle")


def test_a_driver_fix_names_the_setting_that_gives_a_newer_driver_on_each_substrate() -> None:
    """The fix names the config key that clears a driver finding, where one exists."""
    gke = example_config("gke-dev")
    gke["gpukit:gpuOperator"] = {**gke["gpukit:gpuOperator"], "gkeDriverVersion": "default"}
    gke["gpukit:workloads"] = {"cudaVersion": "13.0"}  # R535 (GKE's default) runs 12.2 at most
    errors = [f for f in _of(preflight(resolve_config(gke)), Severity.ERROR) if f.key == CUDA_KEY]
    assert errors and "set gpukit:gpuOperator.gkeDriverVersion to latest" in errors[0].fix
    k3s_gcp = resolve_config(_k3s_stack("k3s-gcp"))  # the Deep Learning VM's R580; the Operator's is newer
    assert newer_driver_fix(k3s_gcp, 580).startswith("set gpukit:gpuOperator.driver to operator")
    assert "no driver: operator on EKS" in newer_driver_fix(resolve_config(example_config("eks-dev")), 580)


def test_the_mig_manager_warning_only_where_a_mig_manager_runs() -> None:
    """GKE's own driver partitions the GPUs (gpu_partition_size): no MIG manager drains or reboots its
    nodes, so the plan must not tell the user to drain and relabel (issue 29, point 11); with the GPU
    Operator's driver the MIG manager does, and the warning stays."""
    config = example_config("gke-dev")
    config["gpukit:nodePools"][1].update(
        instanceType="a3-highgpu-8g",
        capacity="on-demand",
        sharing={"mode": "mig", "mig": {"profile": "1g.10gb"}},
    )
    keys = [f.key for f in preflight(resolve_config(config))]
    assert "gpukit:nodePools[1].sharing.mig" not in keys
    eks = eks_config()
    eks["gpukit:nodePools"].append(
        {
            "name": "h100",
            "instanceType": "p5.48xlarge",
            "minNodes": 0,
            "maxNodes": 1,
            "zones": ["usw2-az3"],
            "sharing": {"mode": "mig", "mig": {"profile": "1g.10gb"}},
        }
    )
    keys = [f.key for f in preflight(resolve_config(eks))]
    assert f"gpukit:nodePools[{len(eks['gpukit:nodePools']) - 1}].sharing.mig" in keys
