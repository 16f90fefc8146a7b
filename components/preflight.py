"""Preflight: what would go wrong on real GPUs although the config is well-formed.

Findings are not config errors (those stop with exit 2); an error-level finding makes `gpukit plan`
exit 1 and stops `pulumi up` before any resource is created.
"""

from dataclasses import dataclass
from enum import Enum
from typing import Any

from gpukit.components.catalog.drivers import (
    GKE_DRIVER_BRANCH_FLOOR,
    GPU_OPERATOR_DRIVER_BRANCH,
    K3S_CLOUD_IMAGE_DRIVER_BRANCH,
    CudaSupport,
    branch_drives,
    cuda_support,
    cuda_targets,
    newest_full_cuda,
)
from gpukit.components.pools import OWN_HOSTS_NOTE, PoolFacts, cluster_pool_facts
from gpukit.components.spec import DriverMode, GkeDriverVersion, NodeRole, Platform, Provider
from gpukit.providers.aws.eks.images import eks_image


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True)
class Finding:
    severity: Severity
    key: str
    message: str

    def __str__(self) -> str:
        return f"{self.severity.value}: {self.key}: {self.message}"


def driver_branch_for(args: Any, pool: PoolFacts) -> int | None:
    """The driver branch a GPU pool's nodes will run (a floor where the platform picks the patch)."""
    platform: Platform = args["cluster"]["platform"]
    operator = args["gpu_operator"]
    if operator["driver"] == DriverMode.OPERATOR:
        return GPU_OPERATOR_DRIVER_BRANCH[operator["chart_version"]]
    if platform == Platform.EKS:
        return eks_image(pool.node_image, pool.instance.arch, pool.is_gpu).driver_branch
    if platform == Platform.GKE:
        return GKE_DRIVER_BRANCH_FLOOR[operator.get("gke_driver_version", GkeDriverVersion.DEFAULT).value]
    provider = args["cluster"].get("provider")
    if provider in (Provider.AWS, Provider.GCP):
        return K3S_CLOUD_IMAGE_DRIVER_BRANCH[provider.value]
    return None  # k3s on your own hosts: each host's preflight checks the driver it has


def _pool_findings(index: int, pool: PoolFacts, branch: int, cuda: str | None) -> list[Finding]:
    key = f"gpukit:nodePools[{index}]"
    gpu = pool.gpu
    assert gpu is not None
    findings: list[Finding] = []
    where = f"{pool.instance.name} ({gpu.name}, {gpu.architecture.value})"
    if not branch_drives(gpu.architecture, branch):
        findings.append(
            Finding(
                Severity.ERROR,
                f"{key}.instanceType",
                f"{where} is not driven by driver branch R{branch}: R590 and newer dropped "
                "Maxwell, Pascal and Volta; pick a Turing or newer GPU or an R580 image",
            )
        )
    needed = max(
        (b for b in (gpu.min_driver_branch, pool.instance.min_driver_branch) if b is not None),
        default=None,
    )
    if needed is not None and branch < needed:
        findings.append(
            Finding(
                Severity.ERROR,
                f"{key}.instanceType",
                f"{where} needs driver R{needed} or newer, but the node image ships R{branch}",
            )
        )
    if cuda is None:
        return findings
    if not cuda_targets(gpu.architecture, cuda):
        findings.append(
            Finding(
                Severity.ERROR,
                "gpukit:workloads.cudaVersion",
                f"CUDA {cuda} cannot build for {gpu.architecture.value} GPUs ({where} in pool "
                f"{pool.name!r}); CUDA 12.x is the last to support them",
            )
        )
    support = cuda_support(cuda, branch)
    newest = newest_full_cuda(branch)
    if support == CudaSupport.UNSUPPORTED:
        findings.append(
            Finding(
                Severity.ERROR,
                "gpukit:workloads.cudaVersion",
                f"CUDA {cuda} does not run on driver R{branch} of pool {pool.name!r}; "
                f"the newest CUDA it runs is {newest}",
            )
        )
    elif support == CudaSupport.MINOR_VERSION_COMPAT:
        findings.append(
            Finding(
                Severity.WARNING,
                "gpukit:workloads.cudaVersion",
                f"CUDA {cuda} runs on driver R{branch} of pool {pool.name!r} only through minor-version "
                f"compatibility (no JIT of newer PTX); images built for CUDA {newest} or older run fully",
            )
        )
    return findings


def _k3s_cloud_scaling(args: Any) -> list[Finding]:
    """k3s on cloud VMs has no cluster autoscaler yet: say what minNodes and maxNodes do today."""
    cluster = args["cluster"]
    if cluster["platform"] != Platform.K3S or cluster.get("provider") == Provider.SSH:
        return []
    return [
        Finding(
            Severity.INFO,
            f"gpukit:nodePools[{i}].minNodes",
            f"pool {pool.name!r} starts with {pool.min_nodes} node(s) and stays there: k3s on "
            f"{cluster['provider'].value} has no cluster autoscaler in gpukit yet (maxNodes {pool.max_nodes} "
            "bounds the group; resize its desired capacity to scale by hand)",
        )
        for i, pool in enumerate(cluster_pool_facts(args))
        if pool.role == NodeRole.AGENT and pool.min_nodes < pool.max_nodes
    ]


def preflight(args: Any) -> list[Finding]:
    """Findings for validated GpuClusterArgs, errors first."""
    cuda: str | None = args.get("workloads", {}).get("cuda_version")
    findings: list[Finding] = []
    for i, pool in enumerate(cluster_pool_facts(args)):
        if not pool.is_gpu:
            continue
        branch = driver_branch_for(args, pool)
        if branch is not None:
            findings.extend(_pool_findings(i, pool, branch, cuda))
        if pool.instance.price_per_hour is None and pool.instance.price_note != OWN_HOSTS_NOTE:
            findings.append(
                Finding(
                    Severity.INFO,
                    f"gpukit:nodePools[{i}].instanceType",
                    f"{pool.instance.name} has no list price in gpukit's catalog "
                    f"({pool.instance.price_note}); its cost is left out of the totals",
                )
            )
    if cuda is None:
        findings.append(
            Finding(
                Severity.INFO,
                "gpukit:workloads.cudaVersion",
                "not set: the CUDA version of your images is not checked against the pools' drivers",
            )
        )
    findings.extend(_k3s_cloud_scaling(args))
    for i, cidr in enumerate(args["cluster"].get("api_access_cidrs", [])):
        if cidr == "0.0.0.0/0":
            findings.append(
                Finding(
                    Severity.WARNING,
                    f"gpukit:cluster.apiAccessCidrs[{i}]",
                    "the Kubernetes API is reachable from the whole internet; list your office/VPN CIDRs",
                )
            )
    order = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}
    return sorted(findings, key=lambda f: order[f.severity])
