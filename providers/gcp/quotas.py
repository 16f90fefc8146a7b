"""The Compute Engine GPU quotas GPU pools draw on, checked when `pulumi up` runs (not by `gpukit plan`,
which has no project to ask).

Compute Engine meters GPUs per project: per region and GPU model, on-demand and Spot (preemptible)
apart, and over all regions together (GPUS-ALL-REGIONS-per-project). A new project often has 0 in one
of them (the all-regions cap most of all). With 0, `pulumi up` creates every resource and then waits:
the autoscaler retries in silence, and verification's Jobs time out after their timeout. So before the
cluster is built, the quotas of the GPU pools are read from the Cloud Quotas API (pulumi-gcp's
`cloudquota.get_s_quota_info`, with the deployer's credentials): a quota below what the stack starts
right away (its GPU pools' `minNodes`, the one node each verification Job scales up, and on GKE one
node in each zone of a pool with `minNodes` above 0) fails the run, naming the quota, region, pools and
numbers; one below what `maxNodes` needs is a warning. Quotas are limits: what other workloads of the
project already use is not subtracted (as for EC2's, providers/aws/quotas.py).

The read needs the Cloud Quotas API (cloudquotas.googleapis.com, which the stack enables with the
others: apis.py, so nothing but the project's API enablements is created before it) and the
`cloudquotas.quotas.get` permission. A quota that cannot be read (no permission, an id the project does
not list, a value Cloud Quotas leaves unset) is a warning, never a refusal; so is a quota whose id is
not confirmed (`GpuQuota.confirmed`).

Sources:
- Ids: Cloud Quotas names Compute Engine's quotas `<METRIC>-per-project-region` for regional ones
  (pulumi-gcp 10.2.0 cloudquota.get_s_quota_info's own example: service `compute.googleapis.com`, quota
  `CPUS-per-project-region`) and `<METRIC>-per-project` for project-wide ones. The metrics (NVIDIA_L4_GPUS,
  PREEMPTIBLE_NVIDIA_L4_GPUS, GPUS_ALL_REGIONS, ...) are the Compute Engine API's `Quota.Metric` values
  (Google's client reference, Google.Cloud.Compute.V1 `Quota.Types.Metric`: NvidiaL4Gpus, GpusAllRegions,
  CommittedNvidiaH100Gpus, ...). No Google page listing the Cloud Quotas ids of GPUs was readable here:
  the ids marked confirmed below are those that Cloud Quotas returns in published readings of real
  projects by several independent third parties (quota dumps and `gcloud beta quotas preferences create
  --quota-id=...` commands in public repositories), and for GPUS-ALL-REGIONS a gcloud error quoted
  verbatim ("Quota 'GPUS_ALL_REGIONS' exceeded ... metric name = compute.googleapis.com/gpus_all_regions
  ... limit name = GPUS-ALL-REGIONS-per-project").
- The newest families (H100 in A3 High, H100 Mega, H200, B200, RTX PRO 6000) have no per-model on-demand
  quota in those readings but GPUS-PER-GPU-FAMILY-per-project-region, with a `gpu_family` dimension
  (Cloud Quotas docs, "Configure dimensions": Compute Engine's gpu_family dimension "measures the number
  of GPUs of a given family"). The family values (NVIDIA_H100, ...) come from third-party readings only,
  and one report names NVIDIA-H100-GPUS-per-project-region instead: unconfirmed. Their PREEMPTIBLE- ids:
  PREEMPTIBLE-NVIDIA-H100-GPUS in several readings; the H100 Mega, H200, B200 and RTX PRO 6000 ones in
  one project's each: unconfirmed.
- Spot VMs: "To prevent Spot VMs from consuming your quotas for standard VMs' CPUs, GPUs, and disks,
  consider requesting preemptible quota for Spot VMs" (Compute Engine docs, "Create and use Spot VMs"):
  a Spot pool draws on the preemptible quota, and on the standard one where the project has none. Which
  of the two applies when the preemptible one is granted but too low was not found in a Google source,
  so a Spot pool fails the run only where both are below what it starts.
- GKE flex-start VMs (`provisioning: queued`): no source says which quota they draw on. They are counted
  as the EC2 check counts every pool that is not spot, against the on-demand quota; such a pool starts
  nothing at `pulumi up` (minNodes 0, never verified by a Job: its nodes come only for a
  ProvisioningRequest), so it can only ever warn.
"""

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from gpukit.components.addons.verification.cluster_checks import nodes_at_up, verified_pools
from gpukit.components.pools import PoolFacts
from gpukit.components.spec import Capacity
from gpukit.providers.gcp.apis import COMPUTE
from gpukit.providers.gcp.placement import initial_node_count, pool_zones

if TYPE_CHECKING:
    import pulumi

    from gpukit.components.findings import Finding
    from gpukit.components.substrate import ResolvedCluster


@dataclass(frozen=True)
class GpuQuota:
    quota_id: str
    """As the Cloud Quotas API names it (`NVIDIA-L4-GPUS-per-project-region`)."""
    metric: str
    """Compute Engine's metric, as the console's quota pages and `gcloud compute regions describe` show it."""
    dimensions: tuple[tuple[str, str], ...] = ()
    """Service-specific dimensions of the slice that holds the pool's GPUs (`gpu_family`)."""
    regional: bool = True
    """Per region (`region` dimension); else one value for the whole project."""
    confirmed: bool = True
    """False: no source confirms the id (module docstring): a value too low warns, never refuses."""

    @property
    def label(self) -> str:
        dims = "".join(f", {key}={value}" for key, value in self.dimensions)
        return f"{self.metric} ({self.quota_id}{dims})"


def _regional(metric: str, *, confirmed: bool = True) -> GpuQuota:
    """A per-model regional quota: Cloud Quotas' id is the metric, dashed, `-per-project-region`."""
    return GpuQuota(f"{metric.replace('_', '-')}-per-project-region", metric, confirmed=confirmed)


def _family(family: str) -> GpuQuota:
    return GpuQuota(
        "GPUS-PER-GPU-FAMILY-per-project-region",
        "GPUS_PER_GPU_FAMILY",
        (("gpu_family", family),),
        confirmed=False,
    )


# Accelerator type (providers/gcp/catalog.py: the machine's, or N1's attached one) -> the on-demand and
# the Spot (preemptible) quota its GPUs draw on in the region (module docstring, "Sources").
GPU_QUOTAS: dict[str, tuple[GpuQuota, GpuQuota]] = {
    "nvidia-l4": (_regional("NVIDIA_L4_GPUS"), _regional("PREEMPTIBLE_NVIDIA_L4_GPUS")),
    "nvidia-tesla-t4": (_regional("NVIDIA_T4_GPUS"), _regional("PREEMPTIBLE_NVIDIA_T4_GPUS")),
    "nvidia-tesla-a100": (_regional("NVIDIA_A100_GPUS"), _regional("PREEMPTIBLE_NVIDIA_A100_GPUS")),
    "nvidia-a100-80gb": (_regional("NVIDIA_A100_80GB_GPUS"), _regional("PREEMPTIBLE_NVIDIA_A100_80GB_GPUS")),
    "nvidia-h100-80gb": (_family("NVIDIA_H100"), _regional("PREEMPTIBLE_NVIDIA_H100_GPUS")),
    "nvidia-h100-mega-80gb": (
        _family("NVIDIA_H100_MEGA"),
        _regional("PREEMPTIBLE_NVIDIA_H100_MEGA_GPUS", confirmed=False),
    ),
    "nvidia-h200-141gb": (_family("NVIDIA_H200"), _regional("PREEMPTIBLE_NVIDIA_H200_GPUS", confirmed=False)),
    "nvidia-b200": (_family("NVIDIA_B200"), _regional("PREEMPTIBLE_NVIDIA_B200_GPUS", confirmed=False)),
    "nvidia-rtx-pro-6000": (
        _family("NVIDIA_RTX_PRO_6000"),
        _regional("PREEMPTIBLE_NVIDIA_RTX_PRO_6000_GPUS", confirmed=False),
    ),
}
# Every GPU of the project, whatever its model or region (module docstring, "Sources").
ALL_REGIONS = GpuQuota("GPUS-ALL-REGIONS-per-project", "GPUS_ALL_REGIONS", regional=False)

_EVERY = (ALL_REGIONS, *(q for pair in GPU_QUOTAS.values() for q in pair))
QUOTAS_BY_ID: dict[str, tuple[GpuQuota, ...]] = {
    quota_id: tuple(q for q in _EVERY if q.quota_id == quota_id)
    for quota_id in dict.fromkeys(q.quota_id for q in _EVERY)
}
"""Each id the preflight reads, with its slices (one id holds every GPU family): the plan fakes answer
these, and refuse any other."""


@dataclass(frozen=True)
class QuotaNeed:
    quota: GpuQuota
    pools: tuple[str, ...]
    at_start: int
    """GPUs the stack starts right away (the module docstring)."""
    at_max: int
    """GPUs at every pool's `maxNodes`."""
    fallback: GpuQuota | None = None
    """Spot: the standard quota its VMs draw on where the project has no preemptible quota."""
    flex_start: tuple[str, ...] = ()
    """Of `pools`, the GKE flex-start ones (`provisioning: queued`), whose quota is unsourced."""


def quota_needs(
    pools: Sequence[PoolFacts], started: Callable[[PoolFacts], int], *, flex_start: bool = False
) -> list[QuotaNeed]:
    """What each quota must allow, from the GPU pools (in the order of GPU_QUOTAS, on-demand before Spot,
    then all regions). `started`: a pool's nodes at `pulumi up`; `flex_start`: queued pools run
    flex-start VMs (GKE)."""
    found: dict[tuple[str, bool], list[PoolFacts]] = {}
    for pool in pools:
        accelerator = pool.instance.accelerator_type
        if pool.is_gpu and accelerator in GPU_QUOTAS:
            found.setdefault((accelerator, pool.capacity == Capacity.SPOT), []).append(pool)

    def need(quota: GpuQuota, members: Sequence[PoolFacts], fallback: GpuQuota | None = None) -> QuotaNeed:
        return QuotaNeed(
            quota,
            tuple(p.name for p in members),
            sum(started(p) * p.instance.gpu_count for p in members),
            sum(p.max_nodes * p.instance.gpu_count for p in members),
            fallback,
            tuple(p.name for p in members if flex_start and p.queued),
        )

    needs = []
    for accelerator, (on_demand, spot) in GPU_QUOTAS.items():
        if members := found.get((accelerator, False)):
            needs.append(need(on_demand, members))
        if members := found.get((accelerator, True)):
            needs.append(need(spot, members, fallback=on_demand))
    if counted := [p for p in pools if p.is_gpu and p.instance.accelerator_type in GPU_QUOTAS]:
        needs.append(need(ALL_REGIONS, counted))
    return needs


def gke_quota_needs(cluster: "ResolvedCluster") -> list[QuotaNeed]:
    """GKE: a new node pool starts its initialNodeCount in each of its zones, and queued pools are
    flex-start."""
    verified = verified_pools(cluster)

    def started(pool: PoolFacts) -> int:
        per_zone = initial_node_count(pool) * len(pool_zones(cluster.spec, pool))
        return max(nodes_at_up(pool, verified), per_zone)

    return quota_needs(cluster.pools, started, flex_start=True)


def k3s_quota_needs(cluster: "ResolvedCluster") -> list[QuotaNeed]:
    """k3s on Compute Engine: the groups start at minNodes (split over the zones), as the shared rule."""
    verified = verified_pools(cluster)
    return quota_needs(cluster.pools, lambda pool: nodes_at_up(pool, verified))


@dataclass(frozen=True)
class DimensionsInfo:
    """One row of a QuotaInfo's dimensionsInfos: the dimensions it applies to, and its value."""

    dimensions: Mapping[str, str]
    value: str | None
    locations: tuple[str, ...] = ()


def quota_value(rows: Sequence[DimensionsInfo], region: str | None, quota: GpuQuota) -> float | None:
    """The value in effect for the quota's slice in `region` (None: a project-wide quota), from Cloud
    Quotas' rows, "ordered by their dimensions from more specific ones to less specific ones" (pulumi-gcp
    GetSQuotaInfoResult.dimensions_infos), a dimension a row leaves out applying to every value: the first
    row whose dimensions are all the slice's. None where no row applies or its value is unset or not a
    number; a negative value (Cloud Quotas' -1) is no limit."""
    wanted = {**({"region": region} if region else {}), **dict(quota.dimensions)}
    where = region or "global"
    for row in rows:
        applies = all(wanted.get(key) == value for key, value in row.dimensions.items())
        if applies and (not row.locations or where in row.locations or "global" in row.locations):
            try:
                value = float(row.value) if row.value is not None else None
            except ValueError:
                return None
            return math.inf if value is not None and value < 0 else value
    return None


@dataclass(frozen=True)
class QuotaCheck:
    errors: list[str]
    warnings: list[str]


def _place(quota: GpuQuota, region: str, project: str) -> str:
    return f"region {region} of project {project}" if quota.regional else f"project {project} (all regions)"


def _raise_it(quota: GpuQuota, region: str, to: int) -> str:
    dims = ",".join(
        f"{k}={v}" for k, v in ((("region", region),) if quota.regional else ()) + quota.dimensions
    )
    flag = f" --dimensions={dims}" if dims else ""
    return (
        f"request {to} in the Cloud console (IAM & Admin > Quotas & System Limits) or with `gcloud beta "
        f"quotas preferences create --service={COMPUTE} --quota-id={quota.quota_id}{flag} "
        f"--preferred-value={to}`"
    )


def _check_one(
    need: QuotaNeed, value_of: Callable[[GpuQuota], float | None], region: str, project: str
) -> tuple[str | None, str | None]:
    """(error, warning) of one need; the module docstring says when which."""
    quota, pools = need.quota, ", ".join(need.pools)
    about = f"Compute Engine quota {quota.label} in {_place(quota, region, project)}"
    value = value_of(quota)
    if value is None:
        return None, f"{about} could not be read: check that it allows {need.at_max} GPUs ({pools})"
    if value >= need.at_max:
        return None, None
    if value >= need.at_start:
        return None, (
            f"{about} is {value:g} GPUs; pools {pools} need {need.at_max} at maxNodes, so they stop "
            f"scaling before it: {_raise_it(quota, region, need.at_max)}"
        )
    low = f"{about} is {value:g} GPUs"
    sure = quota.confirmed
    if need.fallback is not None:  # Spot: the standard quota where the project has no preemptible one
        standard = value_of(need.fallback)
        if standard is None or standard >= need.at_start:
            said = "could not be read" if standard is None else f"is {standard:g}"
            return None, (
                f"{low}, below the {need.at_start} that pools {pools} start right away; Spot VMs draw on "
                f"the standard quota {need.fallback.label} where the project has no preemptible quota, "
                f"which {said}: {_raise_it(quota, region, need.at_max)}"
            )
        low += f" and the standard quota {need.fallback.label} Spot VMs fall back on is {standard:g}"
        sure = sure and need.fallback.confirmed
    starting = (
        f"{low}; pools {pools} start {need.at_start} GPUs right away (what minNodes and the verification "
        f"Jobs start): {_raise_it(quota, region, need.at_max)}, or lower minNodes"
    )
    if not sure:
        return None, f"{starting} (gpukit has not confirmed this quota's id, so it does not stop the run)"
    return starting, None


def check_quotas(
    needs: Sequence[QuotaNeed], value_of: Callable[[GpuQuota], float | None], region: str, project: str
) -> QuotaCheck:
    """The needs against the project's quotas (`value_of`: the quota's value in `region`, None where it
    could not be read)."""
    errors, warnings = [], []
    for need in needs:
        error, warning = _check_one(need, value_of, region, project)
        errors += [error] if error else []
        warnings += [warning] if warning else []
    return QuotaCheck(errors, warnings)


def dimensions_infos(rows: Sequence[Any] | None) -> list[DimensionsInfo]:
    """pulumi-gcp's GetSQuotaInfoDimensionsInfoResult rows (details: a list of one), as plain data."""
    return [
        DimensionsInfo(
            dict(row.dimensions or {}),
            next((str(d.value) for d in row.details or [] if d.value is not None), None),
            tuple(row.applicable_locations or ()),
        )
        for row in rows or []
    ]


def _invoke_failed(error: Exception) -> bool:
    """A failed invoke, as the Pulumi engine reports one: a plain Exception ("invoke of <token> failed:
    ...", pulumi/runtime/invoke.py), for a refused permission or an id the project lacks. Anything else
    (the plan fakes refusing wrong arguments, a bug, the engine going away) is no answer about the quota
    and stops the run."""
    return type(error) is Exception


T = TypeVar("T")
_NOT_ENABLED_YET = ("SERVICE_DISABLED", "has not been used in project", "it is disabled")
"""How Google's APIs say a service is off, or just enabled and not serving the project yet (the
google.rpc ErrorInfo reason SERVICE_DISABLED, and its message): the stack enables Cloud Quotas in the same
run (apis.py), and a first read right after can meet it."""
ENABLE_WAIT_S = 120
ENABLE_RETRY_S = 15


def read_after_enabling(read: Callable[[], T], sleep: Callable[[float], None] = time.sleep) -> T:
    """`read()`, again every ENABLE_RETRY_S seconds for ENABLE_WAIT_S while the API says it is not
    enabled yet, so a new project's first `pulumi up` checks its quotas instead of only warning that it
    could not. Any other error is raised at once."""
    waited = 0
    while True:
        try:
            return read()
        except Exception as error:
            if waited >= ENABLE_WAIT_S or not any(text in str(error) for text in _NOT_ENABLED_YET):
                raise
        sleep(ENABLE_RETRY_S)
        waited += ENABLE_RETRY_S


def enforce_quotas(
    cluster: "ResolvedCluster", needs: Sequence[QuotaNeed], invoke: "pulumi.InvokeOptions"
) -> None:
    """At `pulumi up`, before the cluster is built: read the GPU pools' quotas, fail on one too low for
    what starts right away, warn on one below maxNodes (the module docstring)."""
    import pulumi
    import pulumi_gcp as gcp

    spec = cluster.spec
    project, region = spec.get("project", ""), spec["region"]
    read: dict[str, list[DimensionsInfo] | None] = {}

    def value_of(quota: GpuQuota) -> float | None:
        if quota.quota_id not in read:  # one id holds every family's slice: read it once
            try:
                info = read_after_enabling(
                    lambda: gcp.cloudquota.get_s_quota_info(
                        parent=f"projects/{project}", service=COMPUTE, quota_id=quota.quota_id, opts=invoke
                    )
                )
                read[quota.quota_id] = dimensions_infos(info.dimensions_infos)
            except Exception as error:
                if not _invoke_failed(error):
                    raise
                read[quota.quota_id] = None
        rows = read[quota.quota_id]
        return None if rows is None else quota_value(rows, region if quota.regional else None, quota)

    result = check_quotas(needs, value_of, region, project)
    for warning in result.warnings:
        pulumi.log.warn(f"gpukit: {warning}")
    if result.errors:
        raise pulumi.RunError("; ".join(result.errors))


def quota_findings(cluster: "ResolvedCluster", needs: Sequence[QuotaNeed]) -> list["Finding"]:
    """What the plan says of the quotas: which ones `pulumi up` reads, and what each must allow."""
    from gpukit.components.findings import Finding, Severity

    region = cluster.spec["region"]
    findings = []
    for need in needs:
        quota = need.quota
        where = f"in {region}" if quota.regional else "over all regions"
        notes = [
            *(
                [f"Spot VMs draw on {need.fallback.label} where the project has no preemptible quota"]
                if need.fallback
                else []
            ),
            *(
                [
                    f"flex-start pools {', '.join(need.flex_start)}: gpukit has no source for the quota "
                    "their VMs draw on, and counts them here"
                ]
                if need.flex_start
                else []
            ),
            *([] if quota.confirmed else ["gpukit has not confirmed this id: a lower value only warns"]),
        ]
        findings.append(
            Finding(
                Severity.INFO,
                "gpukit:nodePools",
                f"Compute Engine quota {quota.label} {where} must allow {need.at_max} GPUs at maxNodes "
                f"({', '.join(need.pools)}); "
                + (
                    f"{need.at_start} start when `pulumi up` runs, which reads the quota before creating the "
                    "cluster and stops if it is lower (the plan has no project to ask)"
                    if need.at_start
                    else "none start before a pod asks; `pulumi up` reads the quota and warns if it is lower "
                    "(the plan has no project to ask)"
                )
                + "".join(f"; {note}" for note in notes),
            )
        )
    return findings
