"""NVIDIA driver branches, the CUDA versions they run, and the architectures they still drive.

Sources:
- CUDA minimum Linux driver per toolkit release (GA builds): CUDA 13.2 Update 2 release notes,
  Table 3, https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/ (read 2026-11).
- Minor-version compatibility floors (13.x >= 580, 12.x >= 525, 11.x >= 450): same notes, Table 2, and
  https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html
- Last driver branch per architecture (R580 is the last for Maxwell, Pascal and Volta):
  https://docs.nvidia.com/datacenter/tesla/drivers/cuda-toolkit-driver-and-architecture-matrix.html
- Last CUDA major per architecture (CUDA 13.0 dropped Maxwell, Pascal and Volta): CUDA 13.0 release
  notes, "Deprecated architectures".
"""

from enum import Enum

from gpukit.components.catalog.gpus import Architecture

# CUDA toolkit (major.minor, GA build) -> oldest Linux driver that runs it with every feature.
CUDA_MIN_DRIVER: dict[str, str] = {
    "11.8": "520.61.05",
    "12.0": "525.60.13",
    "12.1": "530.30.02",
    "12.2": "535.54.03",
    "12.3": "545.23.06",
    "12.4": "550.54.14",
    "12.5": "555.42.02",
    "12.6": "560.28.03",
    "12.8": "570.26",
    "12.9": "575.51.03",
    "13.0": "580.65.06",
    "13.1": "590.44.01",
    "13.2": "595.45.04",
}

# CUDA major -> oldest driver branch that runs any minor of it through minor-version compatibility
# (with a limited feature set: PTX compiled by a newer toolkit cannot be JIT-compiled).
CUDA_MAJOR_COMPAT_FLOOR: dict[int, int] = {11: 450, 12: 525, 13: 580}

# Architectures that a driver branch newer than the given one no longer drives.
LAST_DRIVER_BRANCH: dict[Architecture, int] = {
    Architecture.MAXWELL: 580,
    Architecture.PASCAL: 580,
    Architecture.VOLTA: 580,
}

# Architectures that a CUDA major newer than the given one can no longer target.
LAST_CUDA_MAJOR: dict[Architecture, int] = {
    Architecture.MAXWELL: 12,
    Architecture.PASCAL: 12,
    Architecture.VOLTA: 12,
}


class CudaSupport(str, Enum):
    FULL = "full"
    MINOR_VERSION_COMPAT = "minor-version-compat"
    UNSUPPORTED = "unsupported"


def branch_of(driver_version: str) -> int:
    """`580.65.06` -> 580."""
    return int(driver_version.split(".", 1)[0])


def cuda_support(cuda_version: str, branch: int) -> CudaSupport:
    """How well a driver branch runs containers built for `cuda_version` (a key of CUDA_MIN_DRIVER).

    A node image promises a branch, not a patch release, so a branch counts as fully supporting a
    CUDA release when that release's minimum driver is in the same or an older branch.
    """
    if branch >= branch_of(CUDA_MIN_DRIVER[cuda_version]):
        return CudaSupport.FULL
    major = int(cuda_version.split(".", 1)[0])
    if branch >= CUDA_MAJOR_COMPAT_FLOOR[major]:
        return CudaSupport.MINOR_VERSION_COMPAT
    return CudaSupport.UNSUPPORTED


def min_driver_branch(cuda_version: str | None) -> int:
    """The oldest driver branch that runs `cuda_version` with every feature (0 when none is given):
    what each k3s host's own preflight checks its driver against."""
    return branch_of(CUDA_MIN_DRIVER[cuda_version]) if cuda_version else 0


def newest_full_cuda(branch: int) -> str | None:
    """The newest CUDA release a branch runs with every feature, to suggest in messages."""
    full = [v for v, d in CUDA_MIN_DRIVER.items() if branch_of(d) <= branch]
    return max(full, key=lambda v: tuple(int(p) for p in v.split("."))) if full else None


def branch_drives(architecture: Architecture, branch: int) -> bool:
    last = LAST_DRIVER_BRANCH.get(architecture)
    return last is None or branch <= last


def cuda_targets(architecture: Architecture, cuda_version: str) -> bool:
    last = LAST_CUDA_MAJOR.get(architecture)
    return last is None or int(cuda_version.split(".", 1)[0]) <= last


# The driver the GPU Operator installs when it manages drivers: chart v26.7.0 defaults to
# driver.version 595.91.07 (NVIDIA/gpu-operator deployments/gpu-operator/values.yaml @v26.7.0).
GPU_OPERATOR_DRIVER_BRANCH = {"v26.7.0": 595}
