"""What the plan's totals cannot hold, said as findings: cross-zone traffic to single-zone volumes, a
volume server's final snapshot, EKS's control-plane log ingestion."""

from gpukit.components.findings import Finding
from gpukit.components.preflight import preflight
from gpukit.components.resolve.config import resolve_config
from harness import eks_config, example_config


def _findings(config: dict, secret_keys: tuple[str, ...] = ()) -> list[Finding]:  # type: ignore[type-arg]
    return preflight(resolve_config(config, list(secret_keys)))


def test_a_k3s_nfs_volume_says_it_is_single_zone_and_leaves_a_snapshot() -> None:
    found = [
        f.message for f in _findings(example_config("k3s-aws")) if f.key.startswith("gpukit:storage.shared")
    ]
    assert any(
        "lives in one zone: pods in the cluster's other zones read and write it across zones" in m
        for m in found
    )
    assert any("`pulumi destroy` keeps a final snapshot of" in m for m in found)


def test_hosts_over_ssh_are_in_no_cloud_zone() -> None:
    config = example_config("k3s-ssh")
    config["gpukit:sshPrivateKey"] = "not-a-real-key"  # the stack file holds it encrypted
    found = [f.message for f in _findings(config, ("gpukit:sshPrivateKey",)) if "across zones" in f.message]
    assert found == []


def test_eks_says_its_control_plane_logs_are_billed_by_the_gb() -> None:
    (logs,) = [f for f in _findings(eks_config()) if f.key == "gpukit:cluster.logRetentionDays"]
    assert "CloudWatch Logs ingests the control plane's 5 log types" in logs.message
    assert "keeps them 30 days" in logs.message
