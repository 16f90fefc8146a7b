"""Preflight: what would go wrong on real GPUs although the config is well-formed.

Findings are not config errors (those stop with exit 2); an error-level finding makes `gpukit plan`
exit 1 and stops `pulumi up` before any resource is created.
"""

from gpukit.components.addons import registry as addons
from gpukit.components.api_access import covers_public_internet, is_documentation_range
from gpukit.components.budget import price_findings
from gpukit.components.catalog.drivers import (
    GPU_OPERATOR_DRIVER_BRANCH,
    CudaSupport,
    branch_drives,
    cuda_support,
    cuda_targets,
    newest_full_cuda,
)
from gpukit.components.findings import Finding, Severity
from gpukit.components.pools import PoolFacts
from gpukit.components.spec import DriverMode
from gpukit.components.substrate import ResolvedCluster


def driver_branch_for(cluster: ResolvedCluster, pool: PoolFacts) -> int | None:
    """The driver branch a GPU pool's nodes will run (a floor where the platform picks the patch)."""
    if cluster.driver == DriverMode.OPERATOR:
        return GPU_OPERATOR_DRIVER_BRANCH[cluster.operator["chart_version"]]
    return cluster.substrate.preinstalled_driver_branch(cluster, pool)


def newer_driver_fix(cluster: ResolvedCluster, branch: int) -> str:
    """What gives a pool on driver R`branch` a newer one: the substrate's own setting (GKE's
    gkeDriverVersion), else the GPU Operator's driver where it is newer, else a newer node image."""
    setting = cluster.substrate.newer_driver_setting(cluster)
    if setting is not None:
        return setting
    chart = cluster.operator.get("chart_version")
    operator_branch = GPU_OPERATOR_DRIVER_BRANCH.get(chart) if chart is not None else None
    if cluster.driver == DriverMode.PREINSTALLED and operator_branch is not None and operator_branch > branch:
        return f"set gpukit:gpuOperator.driver to operator (the GPU Operator's driver is R{operator_branch})"
    return "use node images with a newer driver"


def _pool_findings(
    index: int, pool: PoolFacts, branch: int, cuda: str | None, driver_fix: str
) -> list[Finding]:
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
                "Maxwell, Pascal and Volta",
                fix=f"set {key}.instanceType to a Turing or newer GPU, or use an R580 node image",
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
                fix=f"a driver R{needed} or newer: {driver_fix}",
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
                fix="set gpukit:workloads.cudaVersion to a 12.x version, or pick a newer GPU for the pool",
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
                fix=f"set gpukit:workloads.cudaVersion to {newest} or older, or {driver_fix}",
            )
        )
    elif support == CudaSupport.MINOR_VERSION_COMPAT:
        findings.append(
            Finding(
                Severity.WARNING,
                "gpukit:workloads.cudaVersion",
                f"CUDA {cuda} runs on driver R{branch} of pool {pool.name!r} only through minor-version "
                f"compatibility (no JIT of newer PTX); images built for CUDA {newest} or older run fully",
                fix=f"set gpukit:workloads.cudaVersion to {newest} if your images are built for it",
            )
        )
    return findings


API_ACCESS_KEY = "gpukit:cluster.apiAccessCidrs"
_WHOLE_INTERNET = "the Kubernetes API is reachable from the whole internet"


def api_access_findings(cidrs: list[str]) -> list[Finding]:
    """Warnings for placeholder (documentation) ranges, and where `apiAccessCidrs` admits every public
    address, however it is written: one range
    that does (`0.0.0.0/0`, `0.0.0.0/0` with host bits) is named by its index; ranges that only do
    together (`0.0.0.0/1` + `128.0.0.0/1`) name the list. Any substrate, since every one of them
    opens its API to exactly these ranges."""
    placeholders = [
        Finding(
            Severity.WARNING,
            f"{API_ACCESS_KEY}[{i}]",
            f"{cidr} is a documentation range (RFC 5737), a placeholder no client has",
            fix=f"replace {API_ACCESS_KEY}[{i}] with your office/VPN CIDR",
        )
        for i, cidr in enumerate(cidrs)
        if is_documentation_range(cidr)
    ]
    return placeholders + _whole_internet_findings(cidrs)


def _whole_internet_findings(cidrs: list[str]) -> list[Finding]:
    alone = [i for i, cidr in enumerate(cidrs) if covers_public_internet([cidr])]
    if alone:
        return [
            Finding(
                Severity.WARNING,
                f"{API_ACCESS_KEY}[{i}]",
                f"{_WHOLE_INTERNET} ({cidrs[i]})",
                fix=f"list your office/VPN CIDRs in {API_ACCESS_KEY}",
            )
            for i in alone
        ]
    if covers_public_internet(cidrs):
        return [
            Finding(
                Severity.WARNING,
                API_ACCESS_KEY,
                f"{_WHOLE_INTERNET}: together, {', '.join(cidrs)} cover every public IPv4 address",
                fix=f"list your office/VPN CIDRs in {API_ACCESS_KEY}",
            )
        ]
    return []


def preflight(cluster: ResolvedCluster) -> list[Finding]:
    """Findings for a validated cluster, errors first."""
    cuda = cluster.cuda_version
    findings: list[Finding] = []
    # Where the platform partitions the GPUs itself (GKE's driver: gpu_partition_size), no MIG manager runs.
    mig_manager = cluster.substrate.operator_shares_gpus(cluster.args)
    for i, pool in enumerate(cluster.pools):
        if not pool.is_gpu:
            continue
        branch = driver_branch_for(cluster, pool)
        if branch is not None:
            findings.extend(_pool_findings(i, pool, branch, cuda, newer_driver_fix(cluster, branch)))
        if pool.sharing.mig_config is not None and mig_manager:
            findings.append(
                Finding(
                    Severity.WARNING,
                    f"gpukit:nodePools[{i}].sharing.mig",
                    f"the pool's GPUs are cut into MIG instances by the MIG manager "
                    f"({pool.sharing.mig_config}); changing this later reconfigures every node of the pool: "
                    "the MIG manager stops its GPU pods and may reboot the node. Drain, relabel, verify "
                    "(docs/gpu-sharing.md)",
                    fix="nothing to do now; before changing this pool's sharing.mig, drain the pool as "
                    "docs/gpu-sharing.md describes",
                )
            )
    if cuda is None:
        findings.append(
            Finding(
                Severity.INFO,
                "gpukit:workloads.cudaVersion",
                "not set: the CUDA version of your images is not checked against the pools' drivers",
                fix="set gpukit:workloads.cudaVersion to the CUDA version your images are built for "
                '(e.g. "12.8")',
            )
        )
    findings.extend(price_findings(cluster))
    findings.extend(f for addon in addons.ADDONS if addon.wanted(cluster) for f in addon.findings(cluster))
    findings.extend(cluster.substrate.findings(cluster))
    findings.extend(api_access_findings(cluster.spec.get("api_access_cidrs", [])))
    order = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}
    return sorted(findings, key=lambda f: order[f.severity])
