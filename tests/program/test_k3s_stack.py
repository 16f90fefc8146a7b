"""The k3s-ssh example through `gpukit plan --out`, and `gpukit doctor` on this machine."""

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from conftest import PlannedStack
from gpukit.cli import main
from harness import ROOT, example_config

STACK = example_config("k3s-ssh")


@pytest.fixture
def planned(planned_stack: Callable[[str], PlannedStack]) -> Path:
    plan = planned_stack("k3s-ssh")
    assert plan.code == 0
    return plan.out


def test_no_secret_reaches_any_output_file(planned: Path) -> None:
    everything = "\n".join(p.read_text() for p in planned.rglob("*") if p.is_file())
    ciphertext = STACK["gpukit:sshPrivateKey"]["secure"]
    for leaked in (
        ciphertext,
        "gpukit-plan-secret-placeholder",
        "plan-fake-",
        "PRIVATE KEY",
        "client-key-data",
    ):
        assert leaked not in everything, leaked


def test_one_server_two_agents_with_pool_labels_taints_and_the_pinned_k3s(planned: Path) -> None:
    doc = json.loads((planned / "plan.json").read_text())
    installs = {r["name"]: r["inputs"]["create"] for r in doc["resources"] if r["name"].endswith("-k3s")}
    assert sorted(installs) == [
        "lab-control-192-0-2-10-k3s",
        "lab-l40s-192-0-2-11-k3s",
        "lab-l40s-192-0-2-12-k3s",
    ]
    assert all("K3S_VERSION=v1.36.4+k3s1" in create for create in installs.values())
    assert "ROLE=server" in installs["lab-control-192-0-2-10-k3s"]
    for agent in ("lab-l40s-192-0-2-11-k3s", "lab-l40s-192-0-2-12-k3s"):
        assert "ROLE=agent" in installs[agent]
        assert "nvidia.com/gpu=true:NoSchedule" in installs[agent]
        assert "gpukit.dev/gpu-model=L40S" in installs[agent]


def test_gpu_operator_release_with_the_k3s_socket(planned: Path) -> None:
    release = yaml.safe_load((planned / "manifests" / "helm" / "gpu-operator.yaml").read_text())
    assert release["version"] == "v26.7.0"
    assert {"name": "CONTAINERD_SOCKET", "value": "/run/k3s/containerd/containerd.sock"} in release["values"][
        "toolkit"
    ]["env"]


def test_report_lists_hosts_and_local_path_storage(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", "--project", str(ROOT), "--stack", "k3s-ssh"]) == 0
    text = capsys.readouterr().out
    # The host key as its fingerprint (ssh-keygen -lf's), to compare with the host's console.
    assert (
        "l40s-192-0-2-11     agent   192.0.2.11  "
        "ssh-ed25519 SHA256:WFiBJDzgcbg03si9DtmFwQRvHzY2qPBKOg5ec0u1bU0  v1.36.4+k3s1"
    ) in text
    assert "Storage: local-path" in text
    assert "gpukit adds no cloud charges" in text
    # Machines the user owns do not scale: the plan says so per agent pool, and installs no autoscaler.
    assert (
        "info: gpukit:nodePools[1].hosts: pool 'l40s' is the 2 host(s) it lists and does not scale"
    ) in text
    assert "ClusterAutoscaler" not in text


@pytest.mark.skipif(shutil.which("nvidia-smi") is not None, reason="this machine has an NVIDIA GPU")
def test_doctor_on_this_machine_says_there_is_no_gpu(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["doctor"])
    text = capsys.readouterr().out
    assert code == 1
    assert "[FAIL] no NVIDIA GPU found: this host cannot join a GPU pool" in text
    assert "Result: NOT ready to join (exit status 1)" in text


def test_doctor_as_a_cpu_node_and_as_json(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # The preflight runs on this machine: it needs iptables, which a build container may lack.
    (tmp_path / "iptables").write_text("#!/bin/sh\nexit 0\n")
    (tmp_path / "iptables").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    assert main(["doctor", "--cpu"]) == 0
    assert "Result: ready to join" in capsys.readouterr().out
    assert main(["doctor", "--gpu", "L40S:2", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["ready"] is False
    facts = report["facts"]
    assert facts["gpuCount"] == 0 and facts["nvidiaPciDevices"] == 0  # numbers, not strings
    assert facts["driverLoaded"] is False and facts["containerToolkit"] in (True, False)
    assert facts["gpuModel"] is None and facts["gpuMemoryMib"] is None and facts["migCapable"] is None
    assert report["exitCode"] == 1
    assert {"status": "fail", "message": "no NVIDIA GPU found: this host cannot join a GPU pool"} in report[
        "checks"
    ]


def test_doctor_rejects_unknown_models_without_a_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor", "--gpu", "L40X:2"]) == 2
    err = capsys.readouterr().err
    assert "--gpu must be MODEL:COUNT" in err and "Traceback" not in err
