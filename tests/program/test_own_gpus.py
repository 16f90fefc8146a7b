"""k3s over SSH on GPUs people own: RTX 4090 hosts plan with the GPU's memory and architecture, the
model is accepted as nvidia-smi and people write it, and an unknown or ambiguous model is refused
(exit 2) naming the key, listing the known models; a model gpukit does not know plans when declared."""

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpukit.cli import main
from gpukit.components.catalog.gpus import GPU_MODELS
from harness import ROOT

FIXTURE = ROOT / "tests" / "fixtures" / "own-gpus" / "Pulumi.k3s-4090.yaml"
KEY = "gpukit:nodePools[1].gpu.model"


def fixture() -> dict[str, Any]:
    config: dict[str, Any] = yaml.safe_load(FIXTURE.read_text())["config"]
    return config


def plan(tmp_path: Path, config: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    path = tmp_path / "Pulumi.stack.yaml"
    path.write_text(yaml.safe_dump({"config": config}))
    code = main(["plan", "--config", str(path)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def with_model(model: str) -> dict[str, Any]:
    config = copy.deepcopy(fixture())
    config["gpukit:nodePools"][1]["gpu"]["model"] = model
    return config


def test_four_rtx_4090_per_host_plan_with_their_memory_and_architecture(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = plan(tmp_path, fixture(), capsys)
    assert code == 0, err
    rows: dict[str, list[str]] = {}
    for line in out.split("GPU pools:", 1)[1].split("\n\n", 1)[0].splitlines():
        if line.strip():
            rows[line.split()[0]] = line.split()
    # pool, instance (2 words), GPUs/node (2 words), GPU mem/node: 4 x 24 GB.
    assert rows["rtx4090"][3:7] == ["RTX-4090", "x4", "96", "GB"]
    assert "  RTX-4090: 24 GB, Ada, compute capability 8.9, no MIG" in out.splitlines()
    # The declared model plans, and the plan says what gpukit cannot check for it.
    assert rows["rtx4080"][3:7] == ["RTX-4080-SUPER", "x1", "16", "GB"]
    declared = next(line for line in out.splitlines() if line.startswith("  RTX-4080-SUPER: "))
    assert declared.startswith("  RTX-4080-SUPER: 16 GB, Ada, compute capability 8.9 (declared in the stack")
    assert "driver minimum and MIG support are unknown" in declared
    assert "gpukit.dev/gpu-model=RTX-4090" in out
    assert "gpukit.dev/gpu-model=RTX-4080-SUPER" in out


@pytest.mark.parametrize(
    "model", ["GeForce RTX 4090", "NVIDIA GeForce RTX 4090", "rtx4090", "4090", "RTX-4090"]
)
def test_every_spelling_of_the_rtx_4090_plans_as_the_one_catalog_model(
    model: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = plan(tmp_path, with_model(model), capsys)
    assert code == 0, err
    assert "rtx4090  ssh-host 4xRTX-4090" in out


def test_an_unknown_model_is_refused_with_the_known_models(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = plan(tmp_path, with_model("RTX 4090 Ultra Max"), capsys)
    assert code == 2
    line = next(line for line in (out + err).splitlines() if KEY in line)
    assert "unknown GPU model 'RTX 4090 Ultra Max'" in line
    assert f"Known models: {', '.join(GPU_MODELS)}" in line
    assert "gpu.memoryGb and gpu.architecture" in line
    assert "Traceback" not in out + err


def test_a_misspelt_model_suggests_the_close_one_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = plan(tmp_path, with_model("RTX 4900"), capsys)
    assert code == 2
    line = next(line for line in (out + err).splitlines() if KEY in line)
    assert "did you mean RTX-4090?" in line


@pytest.mark.parametrize(
    ("model", "candidates"),
    [("A100", "A100-40GB, A100-80GB"), ("6000", "RTX-6000-Ada, RTX-A6000, RTX-PRO-6000")],
)
def test_an_ambiguous_short_name_is_refused_with_its_candidates(
    model: str, candidates: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = plan(tmp_path, with_model(model), capsys)
    assert code == 2
    assert f"{KEY}: {model!r} could be {candidates}: write one of them" in out + err


def test_a_catalog_model_with_declared_facts_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = fixture()
    config["gpukit:nodePools"][1]["gpu"].update({"memoryGb": 48, "architecture": "ada"})
    code, out, err = plan(tmp_path, config, capsys)
    assert code == 2
    assert (
        "gpukit:nodePools[1].gpu.memoryGb: gpukit knows '4090' as RTX-4090 (24 GB, Ada, compute capability "
        "8.9): remove gpu.memoryGb, gpu.architecture"
    ) in out + err


def test_a_declared_model_needs_its_architecture_and_a_sane_memory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = fixture()
    config["gpukit:nodePools"][2]["gpu"] = {"model": "RTX 4080 SUPER", "count": 1, "memoryGb": 0}
    code, out, err = plan(tmp_path, config, capsys)
    assert code == 2
    assert "gpukit:nodePools[2].gpu.memoryGb: must be 1 to 1024; got 0" in out + err
    assert "gpukit:nodePools[2].gpu.architecture: required for a model gpukit does not know" in out + err


def test_declared_gpu_keys_are_refused_on_cloud_pools(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config: dict[str, Any] = yaml.safe_load((ROOT / "stacks" / "Pulumi.gke-dev.yaml").read_text())["config"]
    pools = config["gpukit:nodePools"]
    gpu_pool = next(
        p for p in pools if "instanceType" in p and p.get("gpu") is None and p["name"] != "system"
    )
    gpu_pool["gpu"] = {"model": "T4", "count": 1, "memoryGb": 16}
    code, out, err = plan(tmp_path, config, capsys)
    assert code == 2
    assert "gpu.memoryGb" in out + err


def test_a_plan_without_a_gpu_pool_claims_no_gpu_software(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = fixture()
    config["gpukit:nodePools"] = [config["gpukit:nodePools"][0]]
    code, out, err = plan(tmp_path, config, capsys)
    assert code == 0, err
    software = out.split("GPU software:\n", 1)[1].split("\n\n", 1)[0]
    assert software == (
        "  none: no pool declares GPUs, so gpukit installs no GPU Operator, device plugin or driver; GPUs on "
        "any node stay unused by pods"
    )
    assert "GPU pools:\n  (none)" in out
    assert "gpu-operator" not in out
