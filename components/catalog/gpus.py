"""GPU models: architecture, compute capability, memory and MIG geometry.

Sources:
- Architecture and compute capability: NVIDIA "CUDA toolkit, driver and architecture matrix",
  https://docs.nvidia.com/datacenter/tesla/drivers/cuda-toolkit-driver-and-architecture-matrix.html
- MIG support and maximum instances: NVIDIA MIG User Guide, "Supported GPUs",
  https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-gpus.html
- MIG geometry (slices, placements, which layouts fit): components/catalog/mig.py.
- MIG profile names and per-GPU counts: NVIDIA/gpu-operator v26.7.0
  `assets/state-mig-manager/0400_configmap.yaml` (copied to
  tests/reference/gpu-operator-v26.7.0/mig-parted-default-config.yaml; a test checks every
  profile below against that file).
- Memory per GPU: the EC2 API as tabulated by aws/karpenter-provider-aws
  `website/content/en/docs/reference/instance-types.md` @1d927085 (marketing GB shown here).
- Models people run on their own hosts (k3s over SSH), each fact sourced in a comment at the model:
  compute capability from NVIDIA's "CUDA GPU Compute Capability" list (https://developer.nvidia.com/cuda-gpus,
  read 2026-12), which also places each GPU in its architecture (8.6 Ampere, 8.9 Ada, 12.0 Blackwell);
  memory, MIG support and instance counts of MIG GPUs from the MIG User Guide, "Supported GPUs"; memory
  of the others from public spec tables and `nvidia-smi` outputs cited at each model. A model without
  a sourced memory size is not in the catalog: declare it in the stack with `gpu.memoryGb` and
  `gpu.architecture` (docs/gpus.md).
"""

from dataclasses import dataclass
from enum import Enum

from gpukit.components.catalog.lookup import UnknownNameError, lookup
from gpukit.components.catalog.mig import (
    A30_GEOMETRY,
    RTX_PRO_6000_GEOMETRY,
    Layout,
    MigGeometry,
    layout_fits,
    maximal_layouts,
    seven_slice_geometry,
)


class Architecture(str, Enum):
    """NVIDIA GPU architectures, oldest first (the order matters for driver support checks)."""

    MAXWELL = "Maxwell"
    PASCAL = "Pascal"
    VOLTA = "Volta"
    TURING = "Turing"
    AMPERE = "Ampere"
    ADA = "Ada"
    HOPPER = "Hopper"
    BLACKWELL = "Blackwell"


@dataclass(frozen=True)
class GpuModel:
    name: str
    """Catalog name users write in config (`gpu: {model: L40S}`); also the node label value."""
    architecture: Architecture
    compute_capability: str
    """`major.minor`; empty for a declared model whose stack gives none."""
    memory_gb: int
    """Memory per GPU in GB, as NVIDIA markets it (the MIG profile names use the same unit)."""
    mig: MigGeometry | None = None
    """MIG geometry (profiles, slices, placements); None when MIG is unsupported."""
    min_driver_branch: int | None = None
    """Oldest driver branch that drives this model at all, where newer than the CUDA minimum."""
    declared: bool = False
    """Declared in the stack (`gpu.memoryGb`, `gpu.architecture`), not from gpukit's catalog: gpukit
    knows no driver minimum, MIG geometry or nvidia-smi name for it."""

    @property
    def mig_profiles(self) -> tuple[str, ...]:
        """MIG GPU-instance profile names, smallest first; empty when MIG is unsupported."""
        return tuple(p.name for p in self.mig.profiles) if self.mig else ()

    @property
    def mig_capable(self) -> bool:
        return self.mig is not None


_A100_80_PROFILES = seven_slice_geometry("1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb")

GPU_MODELS: dict[str, GpuModel] = {
    gpu.name: gpu
    for gpu in (
        GpuModel("V100", Architecture.VOLTA, "7.0", 16),
        GpuModel("T4", Architecture.TURING, "7.5", 16),
        GpuModel("A10G", Architecture.AMPERE, "8.6", 24),
        GpuModel(
            "A100-40GB",
            Architecture.AMPERE,
            "8.0",
            40,
            seven_slice_geometry("1g.5gb", "1g.10gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb"),
        ),
        GpuModel("A100-80GB", Architecture.AMPERE, "8.0", 80, _A100_80_PROFILES),
        GpuModel("L4", Architecture.ADA, "8.9", 24),
        GpuModel("L40S", Architecture.ADA, "8.9", 48),
        GpuModel("H100", Architecture.HOPPER, "9.0", 80, _A100_80_PROFILES),
        GpuModel(
            "H200",
            Architecture.HOPPER,
            "9.0",
            141,
            seven_slice_geometry("1g.18gb", "1g.35gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb"),
        ),
        GpuModel(
            "B200",
            Architecture.BLACKWELL,
            "10.0",
            180,
            seven_slice_geometry("1g.23gb", "1g.45gb", "2g.45gb", "3g.90gb", "4g.90gb", "7g.180gb"),
            # MIG User Guide, "Getting started": B200 needs R570 (>= 570.133.20).
            min_driver_branch=570,
        ),
        GpuModel(
            "RTX-PRO-6000",
            Architecture.BLACKWELL,
            "12.0",
            96,
            RTX_PRO_6000_GEOMETRY,
            # GPU Operator platform support: the Server Edition needs >= 575.57.08.
            min_driver_branch=575,
        ),
        # --- GPUs people own (k3s over SSH). CC: developer.nvidia.com/cuda-gpus. ---
        # 24 GB: nvidia-smi reports 24564 MiB (public nvidia-smi outputs, e.g. GitHub code search
        # "NVIDIA GeForce RTX 4090 ... 24564MiB"); GeForce RTX 4090 is CC 8.9 (Ada).
        GpuModel("RTX-4090", Architecture.ADA, "8.9", 24),
        # 32 GB: nvidia-smi reports 32607 MiB ("NVIDIA GeForce RTX 5090, 32607 MiB, 12.0" in public
        # test fixtures); huggingface.js hardware.ts (techpowerup) lists 32 GB. CC 12.0 (Blackwell).
        # Driver: GeForce RTX 50 (Blackwell) runs on R570 and newer, open kernel modules only (user
        # reports: github oddmario/NVIDIA-Ubuntu-Driver-Guide#10, getsolus/packages#5575).
        GpuModel("RTX-5090", Architecture.BLACKWELL, "12.0", 32, min_driver_branch=570),
        # 24 GB: Lambda LLM calculator gpu_specs.csv (techpowerup: "24 GB, GDDR6X"). CC 8.6 (Ampere).
        GpuModel("RTX-3090", Architecture.AMPERE, "8.6", 24),
        # 48 GB: Lambda gpu_specs.csv ("48 GB, GDDR6"); nvidia-smi reports 49140 MiB. CC 8.6 (Ampere).
        GpuModel("RTX-A6000", Architecture.AMPERE, "8.6", 48),
        # 48 GB: "NVIDIA RTX 6000 Ada Generation,48" (huggingface ohdoking/gpu_spec nvidia_gpu.csv).
        # CC 8.9 ("NVIDIA RTX 6000 Ada").
        GpuModel("RTX-6000-Ada", Architecture.ADA, "8.9", 48),
        # 48 GB: Lambda gpu_specs.csv ("A40 PCIe ... 48 GB, GDDR6"). CC 8.6 (Ampere).
        GpuModel("A40", Architecture.AMPERE, "8.6", 48),
        # 48 GB: NVIDIA's L40/L40S specification table ("GPU Memory 48 GB GDDR6 with ECC", as resellers
        # reproduce it, e.g. mullet.se product 355414); CC 8.9 (Ada, "NVIDIA L40"). No MIG (L40S's
        # table says the same of the shared silicon).
        GpuModel("L40", Architecture.ADA, "8.9", 48),
        # 24 GB: "The A10 and A10G share the same GPU memory stats: 24 gigabytes of GDDR6"
        # (baseten.co, "NVIDIA A10 vs A10G for ML model inference"); CC 8.6 (Ampere, "NVIDIA A10").
        GpuModel("A10", Architecture.AMPERE, "8.6", 24),
        # MIG User Guide, "Supported GPUs": A30, Ampere, CC 8.0, 24GB, 4 instances at most;
        # "Supported MIG Profiles", A30-24GB: 1g.6gb (4), 2g.12gb (2), 4g.24gb (1), the same counts as
        # the mig-parted config's all-1g.6gb / all-2g.12gb / all-4g.24gb.
        GpuModel("A30", Architecture.AMPERE, "8.0", 24, A30_GEOMETRY),
        # MIG User Guide, "Supported GPUs": "H100-PCIE, Hopper, 9.0, 94GB, 7" is the H100 NVL (the
        # mig-parted config's all-balanced entry for "H100 NVL" uses 1g.12gb, 2g.24gb, 3g.47gb); its
        # six profiles and counts are the config's all-1g.12gb (7), all-1g.24gb (4), all-2g.24gb (3),
        # all-3g.47gb (2), all-4g.47gb (1), all-7g.94gb (1).
        GpuModel(
            "H100-NVL",
            Architecture.HOPPER,
            "9.0",
            94,
            seven_slice_geometry("1g.12gb", "1g.24gb", "2g.24gb", "3g.47gb", "4g.47gb", "7g.94gb"),
        ),
        # MIG User Guide, "Supported GPUs": "H200 NVL, Hopper, 9.0, 141GB, 7"; the mig-parted config
        # gives "H200 141GB, H200 NVL" the same entries (H200's profiles).
        GpuModel(
            "H200-NVL",
            Architecture.HOPPER,
            "9.0",
            141,
            seven_slice_geometry("1g.18gb", "1g.35gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb"),
        ),
    )
}


class UnknownGpuModelError(UnknownNameError):
    pass


def gpu_model(name: str) -> GpuModel:
    """Look a GPU model up by its catalog name; raises UnknownGpuModelError with close matches."""
    return lookup(GPU_MODELS, name, UnknownGpuModelError)


def fits(model: GpuModel | str, layout: Layout) -> bool:
    """Whether one GPU of `model` can hold the MIG `layout` ({"3g.40gb": 1, "1g.10gb": 4}); False for
    models without MIG and for profiles the model does not have."""
    gpu = model if isinstance(model, GpuModel) else gpu_model(model)
    return gpu.mig is not None and layout_fits(gpu.mig, layout)


def max_layouts(model: GpuModel | str) -> tuple[dict[str, int], ...]:
    """The maximal valid MIG layouts of one GPU of `model` (empty for models without MIG)."""
    gpu = model if isinstance(model, GpuModel) else gpu_model(model)
    return maximal_layouts(gpu.mig) if gpu.mig is not None else ()
