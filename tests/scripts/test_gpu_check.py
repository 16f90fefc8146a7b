"""The verification pod's check script, executed under bash with a stub nvidia-smi and CUDA sample."""

import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from gpukit.components.addons.verification.checks import PoolCheck, check_script, memory_bounds_mib
from gpukit.components.spec import SharingMode
from tools import shellcheck_problems

L4_LOW, L4_HIGH = memory_bounds_mib(24)
L40S_LOW, L40S_HIGH = memory_bounds_mib(48)
TOLERATION = (("nvidia.com/gpu", "Exists", "NoSchedule"),)


def check(pool: str = "l4", **overrides: object) -> PoolCheck:
    values: dict[str, object] = {
        "pool": pool,
        "node_selector": (("gpukit.dev/pool", pool),),
        "tolerations": TOLERATION,
        "resource": "nvidia.com/gpu",
        "gpu_model": "L4",
        "gpu_names": "l4",
        "gpu_pattern": "l4",
        "memory_min_mib": L4_LOW,
        "memory_max_mib": L4_HIGH,
        "sharing": SharingMode.NONE,
    }
    values.update(overrides)
    return PoolCheck(**values)  # type: ignore[arg-type]


L40S_MPS = check(
    "l40s",
    gpu_model="L40S",
    gpu_names="l40s",
    gpu_pattern="l40s",
    memory_min_mib=L40S_LOW,
    memory_max_mib=L40S_HIGH,
    sharing=SharingMode.MPS,
)
H100_MIG = check(
    "h100",
    resource="nvidia.com/mig-1g.10gb",
    gpu_model="H100",
    gpu_names="h100 h10080gb h10080gbhbm3",
    gpu_pattern="h100",
    memory_min_mib=0,
    memory_max_mib=0,
    sharing=SharingMode.MIG,
    mig_profiles=("1g.10gb",),
)


@dataclass
class Run:
    code: int
    out: str

    @property
    def failures(self) -> list[str]:
        return [line for line in self.out.splitlines() if line.startswith("gpukit-verify: FAIL: ")]


def run(
    tmp_path: Path,
    pool: PoolCheck,
    query: str,
    listing: str = "",
    *,
    sample_passes: bool = True,
    env: dict[str, str] | None = None,
    smi_installed: bool = True,
    gke_mps_directory: str = "/nonexistent",
) -> Run:
    """The script with nvidia-smi answering `query` (--query-gpu) and `listing` (-L), in a fresh
    folder under `tmp_path` (a test may run several)."""
    tmp_path = tmp_path / f"run{len(list(tmp_path.iterdir()))}"
    stubs = tmp_path / "bin"
    stubs.mkdir(parents=True)
    (tmp_path / "query").write_text(query)
    (tmp_path / "listing").write_text(listing)
    smi = stubs / "nvidia-smi"
    smi.write_text(
        f'#!/bin/bash\nif [ "$1" = -L ]; then cat {tmp_path}/listing; else cat {tmp_path}/query; fi\n'
    )
    sample = tmp_path / "vectorAdd"
    # As vectorAdd prints: its result and "Done", or the CUDA error it stops at.
    ending = (
        "echo 'Test PASSED'\necho Done\n"
        if sample_passes
        else "echo 'Failed to allocate device vector A (error code no CUDA-capable device)!'\nexit 1\n"
    )
    sample.write_text(f"#!/bin/bash\necho '[Vector addition of 50000 elements]'\n{ending}")
    for path in (smi, sample):
        path.chmod(0o755)
    if not smi_installed:
        smi.unlink()
    done = subprocess.run(
        ["bash", "-c", check_script(pool, sample=str(sample), gke_mps_directory=gke_mps_directory)],
        capture_output=True,
        text=True,
        env={"PATH": f"{stubs}:/usr/bin:/bin", **(env or {})},
        check=False,
    )
    return Run(done.returncode, done.stdout + done.stderr)


def test_an_l4_that_computes_passes(tmp_path: Path) -> None:
    result = run(tmp_path, check(), "NVIDIA L4, 23034\n")
    assert result.code == 0, result.out
    assert result.out.splitlines()[-1] == "gpukit-verify: PASS pool l4"
    assert "gpukit-verify: ok: CUDA sample" in result.out


def test_another_gpu_model_fails_naming_the_pool_and_the_promised_model(tmp_path: Path) -> None:
    result = run(tmp_path, check(), "NVIDIA A10G, 23028\n")
    assert result.code == 1
    assert result.failures == ["gpukit-verify: FAIL: GPU model is 'NVIDIA A10G', but pool l4 promises L4"]
    assert result.out.splitlines()[-1] == "gpukit-verify: FAIL pool l4 (1 check(s) failed)"


def test_a_model_is_matched_whole_not_as_a_prefix(tmp_path: Path) -> None:
    # "l40s" contains "l4": a full-string match must still refuse an L40S in an L4 pool.
    result = run(tmp_path, check(), "NVIDIA L40S, 23034\n")
    assert result.code == 1
    assert "promises L4" in result.failures[0]


def test_memory_outside_the_models_range_fails(tmp_path: Path) -> None:
    result = run(tmp_path, L40S_MPS, "NVIDIA L40S, 23034\n", env={"CUDA_MPS_PIPE_DIRECTORY": str(tmp_path)})
    assert result.code == 1
    assert result.failures == [
        f"gpukit-verify: FAIL: GPU memory is 23034 MiB, but L40S has {L40S_LOW}..{L40S_HIGH} MiB"
    ]


def test_more_than_the_one_unit_requested_fails(tmp_path: Path) -> None:
    result = run(tmp_path, check(), "NVIDIA L4, 23034\nNVIDIA L4, 23034\n")
    assert result.code == 1
    assert result.failures == ["gpukit-verify: FAIL: 2 GPUs visible, but the pod asked for one unit"]


def test_mps_needs_the_device_plugins_pipe_directory(tmp_path: Path) -> None:
    pipe = tmp_path / "pipe"
    pipe.mkdir()
    assert (
        run(tmp_path, L40S_MPS, "NVIDIA L40S, 46068\n", env={"CUDA_MPS_PIPE_DIRECTORY": str(pipe)}).code == 0
    )
    other = tmp_path / "again"
    other.mkdir()
    result = run(other, L40S_MPS, "NVIDIA L40S, 46068\n")
    assert result.code == 1
    assert "no MPS pipe directory (CUDA_MPS_PIPE_DIRECTORY)" in result.failures[0]


L4_GKE_MPS = check(sharing=SharingMode.MPS, platform_shares=True, replicas=4)


def test_gkes_mps_needs_its_pipe_mount_and_the_clients_share_not_the_nvidia_plugins_variable(
    tmp_path: Path,
) -> None:
    pipes = tmp_path / "nvidia-mps"
    pipes.mkdir()
    share = {"CUDA_MPS_ACTIVE_THREAD_PERCENTAGE": "25", "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT": "0=5758M"}
    good = run(tmp_path, L4_GKE_MPS, "NVIDIA L4, 23034\n", env=share, gke_mps_directory=str(pipes))
    assert good.code == 0, good.out
    assert "gpukit-verify: ok: GKE MPS client share: 25 % of the threads, memory 0=5758M" in good.out
    no_mount = run(tmp_path, L4_GKE_MPS, "NVIDIA L4, 23034\n", env=share)
    assert no_mount.failures == [
        "gpukit-verify: FAIL: no MPS pipe directory /nonexistent, but GKE shares pool l4's GPUs through MPS"
    ]
    half = {**share, "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE": "50"}
    wrong = run(tmp_path, L4_GKE_MPS, "NVIDIA L4, 23034\n", env=half, gke_mps_directory=str(pipes))
    assert wrong.code == 1
    assert "GKE MPS client share is '50' % of the threads" in wrong.failures[0]
    assert "promises 25 %" in wrong.failures[0]


MIG_LISTING = "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-a)\n  MIG {profile}     Device  0: (UUID: MIG-b)\n"


def test_mig_passes_with_the_promised_profile_and_fails_with_another_or_none(tmp_path: Path) -> None:
    query = "NVIDIA H100 80GB HBM3, 81559\n"
    good = run(tmp_path, H100_MIG, query, MIG_LISTING.format(profile="1g.10gb"))
    assert good.code == 0, good.out
    other = run(tmp_path, H100_MIG, query, MIG_LISTING.format(profile="2g.20gb"))
    assert other.code == 1
    assert "MIG device(s) 2g.20gb visible, but pool h100 promises 1g.10gb" in other.failures[0]
    none = run(tmp_path, H100_MIG, query, "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-a)\n")
    assert none.code == 1
    assert "no MIG device visible" in none.failures[0]


def test_a_sample_that_cannot_use_the_gpu_fails(tmp_path: Path) -> None:
    result = run(tmp_path, check(), "NVIDIA L4, 23034\n", sample_passes=False)
    assert result.code == 1
    assert "CUDA sample" in result.failures[0] and "no CUDA-capable device" in result.failures[0]


def test_without_nvidia_smi_the_check_fails(tmp_path: Path) -> None:
    result = run(tmp_path, check(), "", smi_installed=False)
    assert result.code == 1
    assert "nvidia-smi is not in the container" in result.failures[0]


def test_a_declared_model_matches_its_pattern_as_a_whole(tmp_path: Path) -> None:
    declared = check(
        "ada", gpu_model="RTX-4080-SUPER", gpu_names="", gpu_pattern="rtx.*4080.*super", memory_min_mib=0
    )
    assert run(tmp_path, declared, "NVIDIA GeForce RTX 4080 SUPER, 16376\n").code == 0
    assert run(tmp_path, declared, "NVIDIA GeForce RTX 4080, 16376\n").code == 1


RENDERED = {
    "gpu-check-l4": check(),
    "gpu-check-l40s-mps": L40S_MPS,
    "gpu-check-h100-mig": H100_MIG,
    "gpu-check-l4-gke-mps": L4_GKE_MPS,
}


@pytest.mark.parametrize("name", sorted(RENDERED))
def test_rendered_check_scripts_are_shellcheck_clean(name: str, tmp_path: Path) -> None:
    path = tmp_path / f"{name}.sh"
    path.write_text(check_script(RENDERED[name]))
    assert shellcheck_problems(path) == ""


@pytest.mark.parametrize("name", sorted(RENDERED))
def test_rendered_check_scripts_golden(name: str, golden) -> None:  # type: ignore[no-untyped-def]
    golden(f"scripts/{name}.sh", check_script(RENDERED[name]))
