"""gpukit's host scripts, executed: under bash, in a temporary root, with stub commands on PATH."""

import base64
from pathlib import Path

import pytest
from scripts.stubs import FakeHost

from gpukit.components.k3s.host_scripts import (
    KUBELET_DROP_IN,
    TOKEN_FILE,
    drain_script,
    install_script,
    k3s_config,
    kubelet_shutdown_config,
    preflight_script,
    secrets_bundle,
    uninstall_script,
)
from gpukit.components.spec import DriverMode, NodeRole
from tools import shellcheck_problems

L40S = "NVIDIA L40S, 46068, 580.95.05, [N/A]"
VERSION = "v1.35.8+k3s1"


@pytest.fixture
def host(tmp_path: Path) -> FakeHost:
    return FakeHost(tmp_path)


def facts(stdout: str) -> dict[str, str]:
    return {p[1]: p[2] for p in (line.split("\t") for line in stdout.splitlines()) if p[0] == "fact"}


def checks(stdout: str) -> list[tuple[str, str]]:
    return [(p[1], p[2]) for p in (line.split("\t") for line in stdout.splitlines()) if p[0] == "check"]


# --- preflight


def test_a_ready_gpu_host_reports_its_gpus_driver_and_toolkit(host: FakeHost) -> None:
    host.gpus(L40S, L40S, driver="580.95.05")
    result = host.run(preflight_script(2, "L40S", DriverMode.PREINSTALLED, 570, "12.8"))
    assert result.code == 0, result.stdout
    found = facts(result.stdout)
    assert (found["gpu_count"], found["gpu_model"], found["gpu_memory_mib"]) == ("2", "NVIDIA L40S", "46068")
    assert (found["driver_loaded"], found["driver_version"], found["container_toolkit"]) == (
        "yes",
        "580.95.05",
        "yes",
    )
    assert found["mig"] == "not-capable"
    assert ("ok", "driver 580.95.05 runs CUDA 12.8") in checks(result.stdout)
    assert checks(result.stdout)[-1] == ("ok", "ready to join")


def test_a_gpu_pool_host_without_a_gpu_is_refused(host: FakeHost) -> None:
    result = host.run(preflight_script(2, "L40S", DriverMode.PREINSTALLED))
    assert result.code == 1
    assert ("fail", "no NVIDIA GPU found: this host cannot join a GPU pool") in checks(result.stdout)


def test_preinstalled_mode_refuses_a_host_without_a_driver_or_toolkit(host: FakeHost) -> None:
    host.gpus(L40S, toolkit=False)  # GPU visible on the PCI bus and to a stub nvidia-smi, no driver loaded
    result = host.run(preflight_script(1, "L40S", DriverMode.PREINSTALLED))
    assert result.code == 1
    messages = [m for status, m in checks(result.stdout) if status == "fail"]
    assert any(m.startswith("no NVIDIA driver loaded, but driver: preinstalled") for m in messages)
    assert any(m.startswith("nvidia-container-toolkit not found") for m in messages)


def test_operator_mode_refuses_a_host_with_a_loaded_driver(host: FakeHost) -> None:
    host.gpus(L40S, driver="580.95.05")
    result = host.run(preflight_script(1, "L40S", DriverMode.OPERATOR))
    assert result.code == 1
    assert any(
        status == "fail" and "is loaded, but driver: operator installs its own" in message
        for status, message in checks(result.stdout)
    )


def test_count_and_model_must_match_the_pool(host: FakeHost) -> None:
    host.gpus("NVIDIA A10G, 23028, 580.95.05, [N/A]", driver="580.95.05")
    result = host.run(preflight_script(2, "L40S", DriverMode.PREINSTALLED))
    assert result.code == 1
    failed = [m for status, m in checks(result.stdout) if status == "fail"]
    assert "found 1 NVIDIA GPUs, but the pool declares gpu.count 2: fix the pool or the host" in failed
    assert "the GPU is 'NVIDIA A10G', but the pool declares L40S: fix gpu.model or move the host" in failed


def test_model_patterns_match_nvidia_smi_names(host: FakeHost) -> None:
    host.gpus("NVIDIA A100-SXM4-80GB, 81920, 580.95.05, Disabled", driver="580.95.05")
    result = host.run(preflight_script(1, "A100-80GB", DriverMode.PREINSTALLED))
    assert result.code == 0, result.stdout
    assert facts(result.stdout)["mig"] == "capable"


def test_an_old_driver_for_the_cuda_version_is_a_warning_not_a_refusal(host: FakeHost) -> None:
    host.gpus(L40S, driver="580.95.05")
    result = host.run(preflight_script(1, "L40S", DriverMode.PREINSTALLED, 590, "13.1"))
    assert result.code == 0
    assert ("warn", "driver 580.95.05 is older than R590, which CUDA 13.1 needs") in checks(result.stdout)


def test_a_cpu_pool_host_with_gpus_gets_a_warning(host: FakeHost) -> None:
    host.gpus(L40S, driver="580.95.05")
    result = host.run(preflight_script(0, "", DriverMode.PREINSTALLED))
    assert result.code == 0
    assert checks(result.stdout)[0][0] == "warn"


# --- install


def _install(role: NodeRole = NodeRole.SERVER, labels: dict[str, str] | None = None) -> str:
    config = k3s_config(role, "n1", labels or {"gpukit.dev/pool": "control"}, [], tls_sans=["192.0.2.10"])
    return install_script(role, VERSION, config, kubelet_shutdown_config())


BUNDLE = secrets_bundle(
    {
        TOKEN_FILE: "s3cret-token",
        "/var/lib/rancher/k3s/server/tls/server-ca.crt": "-----BEGIN CERTIFICATE-----\nCA\n-----END "
        "CERTIFICATE-----\n",
    }
)


def test_install_writes_secrets_and_config_then_installs_the_pinned_version(host: FakeHost) -> None:
    result = host.run(_install(), stdin=BUNDLE)
    assert result.code == 0, result.stderr
    assert f"sh {host.state.parent}" not in result.calls  # the installer runs from a temp file
    installs = [c for c in result.calls if c.startswith("sh ")]
    assert len(installs) == 1
    assert f"VERSION={VERSION} EXEC=server FORCE=true" in installs[0]
    assert any(
        c.startswith("curl -sfL --connect-timeout 10 --max-time 120 https://get.k3s.io -o ")
        for c in result.calls
    )
    assert (host.root / TOKEN_FILE.lstrip("/")).read_text() == "s3cret-token"
    assert host.mode(TOKEN_FILE) == 0o600
    assert host.mode("/var/lib/rancher/k3s/server/tls/server-ca.crt") == 0o600
    config = (host.root / "etc/rancher/k3s/config.yaml").read_text()
    assert "secrets-encryption: true" in config and "token-file: /etc/rancher/k3s/gpukit-token" in config
    assert "shutdownGracePeriod: 60s" in (host.root / KUBELET_DROP_IN.lstrip("/")).read_text()
    assert "s3cret-token" not in result.stdout + result.stderr + "\n".join(result.calls)
    assert f"k3s {VERSION} (server) installed and running" in result.stdout


def test_install_twice_changes_nothing_the_second_time(host: FakeHost) -> None:
    assert host.run(_install(), stdin=BUNDLE).code == 0
    before = {p: p.stat().st_mtime_ns for p in host.root.rglob("*") if p.is_file()}
    again = host.run(_install(), stdin=BUNDLE)
    assert again.code == 0
    assert not any(c.startswith(("sh ", "curl ")) for c in again.calls)
    assert "already installed and up to date" in again.stdout
    assert {p: p.stat().st_mtime_ns for p in host.root.rglob("*") if p.is_file()} == before


def test_a_changed_config_restarts_k3s_with_it(host: FakeHost) -> None:
    assert host.run(_install(), stdin=BUNDLE).code == 0
    changed = host.run(_install(labels={"gpukit.dev/pool": "renamed"}), stdin=BUNDLE)
    assert changed.code == 0
    assert next(c for c in changed.calls if c.startswith("sh ")).endswith("FORCE=true")
    assert "gpukit.dev/pool=renamed" in (host.root / "etc/rancher/k3s/config.yaml").read_text()


def test_a_host_of_another_cluster_is_refused_and_left_alone(host: FakeHost) -> None:
    ca = host.root / "var/lib/rancher/k3s/server/tls/server-ca.crt"
    ca.parent.mkdir(parents=True)
    ca.write_text("another cluster's CA\n")
    result = host.run(_install(), stdin=BUNDLE)
    assert result.code == 1
    assert "already runs another k3s cluster; uninstall it first" in result.stderr
    assert ca.read_text() == "another cluster's CA\n"
    assert not any(c.startswith("sh ") for c in result.calls)


def test_downloads_retry_with_backoff_then_give_up_with_a_clear_message(host: FakeHost) -> None:
    (host.state / "curl-failures").write_text("2")
    retried = host.run(_install(NodeRole.AGENT), stdin=BUNDLE)
    assert retried.code == 0
    assert [c for c in retried.calls if c.startswith("sleep")] == ["sleep 1", "sleep 4"]
    assert len([c for c in retried.calls if c.startswith("curl")]) == 3

    other = FakeHost(host.state.parent / "second")
    (other.state / "curl-failures").write_text("9")
    failed = other.run(_install(NodeRole.AGENT), stdin=BUNDLE)
    assert failed.code == 1
    assert "could not download the k3s installer from https://get.k3s.io after 5 attempts" in failed.stderr


def test_the_token_is_only_ever_read_from_stdin() -> None:
    script = _install()
    assert "s3cret" not in script
    assert base64.b64encode(b"s3cret-token").decode() not in script


# --- uninstall and drain


def test_uninstall_removes_k3s_and_gpukit_files_and_can_run_again(host: FakeHost) -> None:
    assert host.run(_install(), stdin=BUNDLE).code == 0
    uninstaller = host.root / "usr/local/bin/k3s-uninstall.sh"
    uninstaller.parent.mkdir(parents=True)
    uninstaller.write_text('#!/usr/bin/env bash\necho "k3s-uninstall" >> "$STATE/calls.log"\n')
    uninstaller.chmod(0o755)
    first = host.run(uninstall_script(NodeRole.SERVER))
    assert first.code == 0
    assert "k3s-uninstall" in first.calls
    assert not (host.root / "etc/rancher/k3s/config.yaml").exists()
    assert not (host.root / TOKEN_FILE.lstrip("/")).exists()
    uninstaller.unlink()
    second = host.run(uninstall_script(NodeRole.SERVER))
    assert second.code == 0
    assert "nothing to remove" in second.stdout


def test_drain_moves_pods_off_then_removes_the_node(host: FakeHost) -> None:
    nothing = host.run(drain_script("l40s-192-0-2-11"))
    assert nothing.code == 0 and "no k3s on this server" in nothing.stdout
    assert host.run(_install(), stdin=BUNDLE).code == 0
    (host.state / "node-present").touch()
    drained = host.run(drain_script("l40s-192-0-2-11"))
    assert drained.code == 0
    assert (
        "k3s kubectl drain l40s-192-0-2-11 --ignore-daemonsets --delete-emptydir-data --timeout=300s"
        in drained.calls
    )
    assert "k3s kubectl delete node l40s-192-0-2-11 --ignore-not-found" in drained.calls


# --- static checks on every rendered script


RENDERED = {
    "preflight-gpu": lambda: preflight_script(2, "L40S", DriverMode.PREINSTALLED, 570, "12.8"),
    "preflight-cpu": lambda: preflight_script(0, "", DriverMode.OPERATOR),
    "install-server": _install,
    "install-agent": lambda: _install(NodeRole.AGENT),
    "uninstall-server": lambda: uninstall_script(NodeRole.SERVER),
    "uninstall-agent": lambda: uninstall_script(NodeRole.AGENT),
    "drain": lambda: drain_script("l40s-192-0-2-11"),
}


@pytest.mark.parametrize("name", sorted(RENDERED))
def test_rendered_scripts_are_shellcheck_clean(name: str, tmp_path: Path) -> None:
    path = tmp_path / f"{name}.sh"
    path.write_text(RENDERED[name]())
    assert shellcheck_problems(path) == ""


@pytest.mark.parametrize("name", sorted(RENDERED))
def test_rendered_scripts_golden(name: str, golden) -> None:  # type: ignore[no-untyped-def]
    golden(f"scripts/{name}.sh", RENDERED[name]())


def test_a_server_waits_for_its_api_before_reporting_success(host: FakeHost) -> None:
    (host.state / "api-down").touch()
    result = host.run(_install(), stdin=BUNDLE)
    assert result.code == 1
    assert "the Kubernetes API on this server did not become ready within 300s" in result.stderr
    assert result.calls.count("k3s kubectl get --raw=/readyz") == 61  # every 5s for 300s, then once more
