"""What a GPU pool promises a pod, as plain values, and the check script that verifies it from inside
the pod (components/addons/verification/scripts/gpu-check.sh).

Pure: the GpuVerification component and `gpukit verify` both render their Jobs from these, so a deploy
and a later check of the same cluster run the very same script.

Memory: the catalog gives memory per GPU in GB as NVIDIA markets it; nvidia-smi reports `memory.total`
in MiB, less what the driver and ECC reserve (an L40S, "48 GB", reports 46068 MiB: the nvidia-smi line
gpukit's host preflight tests use, tests/scripts/test_host_scripts.py). The check accepts 90 % of the
GB figure up to 105 % of it read as GiB: wide enough for ECC and firmware reservations, narrow enough
to tell a 24 GB GPU from a 48 GB one. A MIG device's memory is not checked through `memory.total` (that
is the parent GPU's); its profile, which names its memory, is.
"""

import math
from dataclasses import dataclass
from pathlib import Path

from gpukit.components.catalog.gpus import GPU_MODELS
from gpukit.components.config.schema import VERIFICATION_TIMEOUT_DEFAULT
from gpukit.components.k3s.host_scripts import gpu_pattern, gpu_spellings, render_script
from gpukit.components.pools import POOL_LABEL, PoolFacts
from gpukit.components.sharing import GPU_RESOURCE
from gpukit.components.spec import MigStrategy, SharingMode, VerificationSpec

SCRIPT = Path(__file__).parent / "scripts" / "gpu-check.sh"
# Its header comment names the renderer by the path it had when verification Jobs were first made
# (components/verification/checks.py, now this file). It stays: the script is part of each Job's spec,
# whose hash names the Job, and a changed comment would re-verify every pool of every stack.
# NVIDIA's CUDA vectorAdd sample, at the exact tag gpukit's README and the GPU Operator's "Run a Sample
# Workload" use (nvcr.io/nvidia/k8s/cuda-sample); the binary's path in that image is
# /cuda-samples/vectorAdd (NVIDIA GPU Operator e2e tests and k8s-dra-driver demos run it so). No image
# digest is published alongside the tag in any source gpukit has, so the tag is the pin.
SAMPLE_IMAGE = "nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda12.5.0-ubuntu22.04"
SAMPLE_BINARY = "/cuda-samples/vectorAdd"

# Where GKE's device plugin mounts the node's MPS pipes into every client on an MPS node (nvidiaMpsDir,
# GoogleCloudPlatform/container-engine-accelerators pkg/gpu/nvidia/manager.go@992db81).
GKE_MPS_DIRECTORY = "/tmp/nvidia-mps"

MEMORY_LOW = 0.90
MEMORY_HIGH = 1.05
_MIB = 2**20


@dataclass(frozen=True)
class PoolCheck:
    """One pool's verification: where its pod runs, what it requests, and what it must find."""

    pool: str
    node_selector: tuple[tuple[str, str], ...]
    tolerations: tuple[tuple[str, str, str], ...]
    """(key, operator, effect) of each toleration."""
    resource: str
    """The one unit the pod requests: nvidia.com/gpu, or nvidia.com/mig-<profile> (MIG mixed)."""
    gpu_model: str
    gpu_names: str
    """The model's normalised nvidia-smi spellings, space-separated; empty for a declared model."""
    gpu_pattern: str
    memory_min_mib: int
    memory_max_mib: int
    sharing: SharingMode
    mig_profiles: tuple[str, ...] = ()
    """MIG: the profiles a unit of the pool may be (one for `mixed`: the one requested)."""
    platform_shares: bool = False
    """The platform's own device plugin (GKE's, `driver: preinstalled`) shares the pool's GPUs, not the
    GPU Operator's: its MPS clients are set up differently (see `host_ipc`, `mps_thread_percentage`)."""
    replicas: int = 1
    """Time-slicing and MPS: pods per GPU."""

    @property
    def host_ipc(self) -> bool:
        """GKE's MPS clients share the node's IPC namespace: GKE's "Share GPUs with multiple workloads
        using NVIDIA MPS" (cloud.google.com/kubernetes-engine/docs/how-to/nvidia-mps-gpus) deploys its
        MPS workloads with `hostIPC: true` so that they reach the MPS control daemon, which runs on the
        node outside any pod (GKE's device plugin only health-checks it through
        nvidia-cuda-mps-control, GoogleCloudPlatform/container-engine-accelerators
        pkg/gpu/nvidia/manager.go@992db81, isMpsHealthy). The NVIDIA device plugin's MPS needs no host
        IPC: its daemon runs in a pod and the plugin mounts its pipe and shm directories."""
        return self.sharing is SharingMode.MPS and self.platform_shares

    @property
    def mps_thread_percentage(self) -> int:
        """What GKE's device plugin sets CUDA_MPS_ACTIVE_THREAD_PERCENTAGE to for a one-unit client:
        1 * 100 / maxSharedClientsPerGPU, integer division (container-engine-accelerators
        pkg/gpu/nvidia/manager.go@992db81, Envs); 0 where GKE does not run the pool's MPS."""
        return 100 // self.replicas if self.host_ipc else 0

    @property
    def runs_as_root(self) -> bool:
        """MPS clients run as root: the MPS control daemon starts a server per client user, which a
        non-root user cannot reach on every node image (bottlerocket-os/bottlerocket#4673: "MPS works
        for root/privileged pods only"; kubernetes-sigs/dra-driver-nvidia-gpu#1158: clients of one
        MPS daemon must share one UID unless it runs multi-user). Every other pod runs as non-root."""
        return self.sharing is SharingMode.MPS


def memory_bounds_mib(memory_gb: int) -> tuple[int, int]:
    """What nvidia-smi may report as `memory.total` (MiB) for a GPU the catalog lists at `memory_gb`."""
    low = math.floor(memory_gb * 1e9 * MEMORY_LOW / _MIB)
    high = math.ceil(memory_gb * 2**30 * MEMORY_HIGH / _MIB)
    return low, high


def pool_check(pool: PoolFacts, platform_shares: bool = False) -> PoolCheck:
    """The verification of one GPU pool, from its facts (labels, taints, sharing, GPU model).
    `platform_shares`: the platform's device plugin shares the GPUs (GKE's driver), not the Operator's."""
    gpu = pool.gpu
    assert gpu is not None and pool.is_gpu, f"pool {pool.name} has no GPU"
    sharing = pool.sharing
    resource = GPU_RESOURCE
    profiles: tuple[str, ...] = ()
    if sharing.mode is SharingMode.MIG:
        profiles = tuple(profile for profile, _ in sharing.mig_devices)
        if sharing.mig_strategy is MigStrategy.MIXED:
            # One unit of the pool's first profile (sorted): the pod requests that resource by name.
            profiles = profiles[:1]
            resource = f"nvidia.com/mig-{profiles[0]}"
    low, high = (0, 0) if sharing.mode is SharingMode.MIG else memory_bounds_mib(gpu.memory_gb)
    names = gpu_spellings(gpu.name)[0] if gpu.name in GPU_MODELS else ""
    return PoolCheck(
        pool=pool.name,
        node_selector=((POOL_LABEL, pool.name),),
        tolerations=tuple((t.key, "Exists", t.effect) for t in pool.taints),
        resource=resource,
        gpu_model=gpu.name,
        gpu_names=names,
        gpu_pattern=gpu_pattern(gpu.name),
        memory_min_mib=low,
        memory_max_mib=high,
        sharing=sharing.mode,
        mig_profiles=profiles,
        platform_shares=platform_shares,
        replicas=sharing.replicas,
    )


def check_script(
    check: PoolCheck, sample: str = SAMPLE_BINARY, gke_mps_directory: str = GKE_MPS_DIRECTORY
) -> str:
    """The bash script the pool's verification pod runs (exit 0: every check passed)."""
    return render_script(
        SCRIPT,
        POOL=check.pool,
        GPU_MODEL=check.gpu_model,
        GPU_NAMES=check.gpu_names,
        GPU_PATTERN=check.gpu_pattern,
        MEMORY_MIN_MIB=check.memory_min_mib,
        MEMORY_MAX_MIB=check.memory_max_mib,
        SHARING=check.sharing.value,
        MIG_PROFILES=" ".join(check.mig_profiles),
        MPS_THREADS=check.mps_thread_percentage,
        GKE_MPS_DIRECTORY=gke_mps_directory,
        SAMPLE=sample,
    )


def timeout_minutes(verification: VerificationSpec) -> int:
    """`gpukit:verification.timeoutMinutes`, or its default."""
    return verification.get("timeout_minutes", VERIFICATION_TIMEOUT_DEFAULT)
