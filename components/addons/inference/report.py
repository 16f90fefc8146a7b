"""The inference section of the plan report and of plan.json: the metrics store (where, retention,
size at the pools' max and its cost), what it scrapes, the autoscaler and where it queries, the
gateway (class, who programs it, who can reach it, what it costs), and each GPU pool's path to no GPU
bill when nobody asks."""

from typing import Any

from gpukit.components.addons.inference.charts import ENVOY_GATEWAY, KEDA, KUBE_PROMETHEUS_STACK
from gpukit.components.addons.inference.check_objects import CHECK_NAMESPACE
from gpukit.components.addons.inference.check_plan import check_steps
from gpukit.components.addons.inference.gateway_names import (
    GATEWAY_NAME,
    GATEWAY_NAMESPACE,
    GATEWAY_PORT,
    ROUTES_LABEL,
    ROUTES_LABEL_VALUE,
)
from gpukit.components.addons.inference.names import (
    CLUSTER_TRIGGER_AUTHENTICATION,
    KEDA_NAMESPACE,
    METRICS_LABEL,
    METRICS_LABEL_VALUE,
    METRICS_PORT_NAME,
    MONITORING_NAMESPACE,
    SCRAPE_INTERVAL_SECONDS,
)
from gpukit.components.addons.inference.settings import InferenceSettings, operator_dcgm
from gpukit.components.addons.inference.sizing import SECONDS_PER_MONTH, SERIES_PER_GPU, managed_series_at
from gpukit.components.pools import PoolFacts
from gpukit.components.spec import SharingMode
from gpukit.components.substrate import ResolvedCluster


def dcgm_scraped(cluster: ResolvedCluster, managed_store: bool) -> str:
    """Who collects the GPU metrics, in words."""
    if not cluster.gpu_pools:
        return "none (no GPU pool)"
    if not operator_dcgm(cluster):
        return "the platform's own DCGM collection (GKE managed DCGM; its labels are GKE's)"
    holder = (
        "pod and container (its namespace as exported_namespace)"
        if managed_store
        else "pod, namespace and container"
    )
    return f"the GPU Operator's DCGM exporter, each GPU's series labelled with the {holder} that holds it"


def shares_by_time(pool: PoolFacts) -> bool:
    """Several pods on one GPU at once (time-slicing, MPS): DCGM names one of them only."""
    return pool.sharing.mode in (SharingMode.TIME_SLICING, SharingMode.MPS)


def attribution(pool: PoolFacts, operator_dcgm: bool) -> str:
    """Whose GPU metrics a pool's series are, in words; `operator_dcgm`: the GPU Operator's exporter
    collects them (GKE's managed DCGM labels its own way, which gpukit has not confirmed)."""
    if not operator_dcgm:
        return "GKE's managed DCGM: which pod a series names is GKE's (not confirmed by gpukit)"
    if shares_by_time(pool):
        return (
            f"each GPU's series name one of the {pool.sharing.replicas} pods sharing it "
            "(NVIDIA/dcgm-exporter#307): scale its servers on their own metrics"
        )
    if pool.sharing.mode is SharingMode.MIG:
        return "each MIG instance's series name its pod"
    return "each GPU's series name its pod"


def query_access(settings: InferenceSettings) -> str:
    """Who may query the store, in words."""
    through_keda = (
        "; KEDA queries for any namespace that may create a ScaledObject, whatever it asks"
        if settings.autoscaling
        else ""
    )
    if settings.variant.managed_store:
        return (
            "IAM (roles/monitoring.viewer); KEDA's prometheus triggers that authenticate may query this "
            f"store only (a ValidatingAdmissionPolicy){through_keda}"
        )
    if settings.variant.network_policy_enforced:
        return f"pods in {MONITORING_NAMESPACE} and {KEDA_NAMESPACE} only (NetworkPolicy){through_keda}"
    return (
        f"every pod in the cluster: the NetworkPolicy limiting it to {MONITORING_NAMESPACE} and "
        f"{KEDA_NAMESPACE} is not enforced (the cluster's CNI enforces no NetworkPolicy as gpukit builds "
        f"it){through_keda}"
    )


def store_line(cluster: ResolvedCluster, settings: InferenceSettings) -> str:
    variant, size = settings.variant, settings.size
    if variant.managed_store:
        return (
            f"{variant.store}: samples kept {variant.managed_retention}, nothing of the store runs in the "
            "cluster"
        )
    price = variant.volume_price(cluster)
    return (
        f"{variant.store} (kube-prometheus-stack {KUBE_PROMETHEUS_STACK.version}): {settings.retention_days} "
        f"days, {size.volume_gib} GiB volume on {variant.volume_class} (old blocks go at "
        f"{size.retention_size_gib} GiB), {size.memory_mib} MiB memory requested; sized for ~{size.series:,} "
        f"series at max ({size.nodes} nodes, {size.gpus} GPUs; gpukit's estimate); volume: {price.note}"
    )


def ingestion_line(cluster: ResolvedCluster, settings: InferenceSettings) -> str:
    idle, peak = (managed_series_at(cluster.pools, m) for m in (False, True))
    per_month = SECONDS_PER_MONTH / SCRAPE_INTERVAL_SECONDS / 1e6
    price = settings.variant.usd_per_million_samples
    rate = (
        f"${price:.2f} per million samples (the first tier, an upper bound; in the totals)"
        if price is not None
        else "gpukit has no sourced list price"
    )
    return (
        f"billed per sample ingested, {rate}: DCGM ~{idle * per_month:,.1f}M samples/month at idle, "
        f"~{peak * per_month:,.1f}M at max (gpukit's estimate: "
        f"{SERIES_PER_GPU} series per GPU every {SCRAPE_INTERVAL_SECONDS} s), plus what the workloads "
        "export (not in the totals; GKE's system metrics are free)"
    )


def pool_scale_to_zero(pool: PoolFacts, autoscaling: bool) -> str:
    """A GPU pool's "no GPU bill when nobody asks" path."""
    if pool.hosts:
        return "machines you own: no hourly bill from gpukit, and none is stopped when idle"
    if pool.min_nodes > 0:
        return f"keeps {pool.min_nodes} node(s) at all times (minNodes {pool.min_nodes}): billed while idle"
    if not pool.pending_pods_scale:
        return "does not scale on demand"
    if not autoscaling:
        return "scales to zero nodes once no pod runs there; replicas stay as many as their Deployment says"
    return (
        "scales to zero nodes once no pod runs there; a model server's replicas reach zero only with "
        "minReplicaCount 0 on a metric that outlives its pods (a gateway's queue): its own metrics vanish "
        "with its last pod (kedacore/keda#6040), so the examples keep one replica (minReplicaCount 1) and "
        "with it a node"
    )


def gateway_line(cluster: ResolvedCluster, settings: InferenceSettings) -> str:
    variant = settings.variant
    if not settings.gateway:
        return "off"
    charge = variant.gateway_charge(cluster, settings.gateway_cidrs)
    cost = f"; {charge.what}: ${charge.at_max:.4f}/h" if charge else ""
    return (
        f"{GATEWAY_NAMESPACE}/{GATEWAY_NAME}, class {settings.gateway_class} "
        f"({variant.gateway_implementation}), HTTP on port {GATEWAY_PORT}, routes from namespaces "
        f'labelled {ROUTES_LABEL}: "{ROUTES_LABEL_VALUE}"; reachable: '
        f"{variant.gateway_scope(cluster, settings.gateway_cidrs)}{cost}"
    )


def gateway_document(cluster: ResolvedCluster, settings: InferenceSettings) -> dict[str, Any] | None:
    if not settings.gateway:
        return None
    variant = settings.variant
    charge = variant.gateway_charge(cluster, settings.gateway_cidrs)
    return {
        "gateway": f"{GATEWAY_NAMESPACE}/{GATEWAY_NAME}",
        "className": settings.gateway_class,
        "implementation": variant.gateway_implementation,
        "envoyGateway": ENVOY_GATEWAY.version if variant.runs_envoy_gateway else None,
        "reachable": variant.gateway_scope(cluster, settings.gateway_cidrs),
        "allowedCidrs": settings.gateway_cidrs,
        "usdPerHour": charge.at_max if charge else None,
    }


def report_lines(cluster: ResolvedCluster, settings: InferenceSettings) -> list[str]:
    lines = ["", "Inference:"]
    if settings.metrics:
        lines.append(f"  metrics store: {store_line(cluster, settings)}")
        if settings.variant.managed_store:
            lines.append(f"  metrics cost: {ingestion_line(cluster, settings)}")
        lines.append(f"  metrics queries: {query_access(settings)}")
        lines.append(f"  GPU metrics: {dcgm_scraped(cluster, settings.variant.managed_store)}")
        lines.append(
            f'  workload metrics: pods labelled {METRICS_LABEL}: "{METRICS_LABEL_VALUE}", container port '
            f"`{METRICS_PORT_NAME}`, /metrics every {SCRAPE_INTERVAL_SECONDS}s, in any namespace"
        )
    else:
        lines.append("  metrics store: off")
    if settings.autoscaling:
        auth = (
            ", as the KEDA operator's cloud identity (ClusterTriggerAuthentication "
            f"{CLUSTER_TRIGGER_AUTHENTICATION})"
            if settings.variant.keda_pod_identity
            else ""
        )
        url = settings.variant.query_url(cluster)
        lines.append(
            f"  pod autoscaling: KEDA {KEDA.version}, Prometheus scaler on {url}{auth}; docs/inference.md "
            "has ScaledObjects on queue depth and GPU utilisation"
        )
    else:
        lines.append("  pod autoscaling: off (HPA on CPU and memory only)")
    lines.append(f"  gateway: {gateway_line(cluster, settings)}")
    for pool in cluster.gpu_pools:
        lines.append(f"  pool {pool.name}: {pool_scale_to_zero(pool, settings.autoscaling)}")
        if settings.metrics:
            lines.append(f"  pool {pool.name} GPU metrics: {attribution(pool, operator_dcgm(cluster))}")
    steps, skipped = check_steps(cluster)
    lines.append(
        f"  check at pulumi up (namespace {CHECK_NAMESPACE}; its simulators stay, a few CPU millicores):"
        if steps
        else "  check at pulumi up: none"
    )
    lines += [f"    - {step}" for step in steps]
    lines += [f"    - not checked: {what}" for what in skipped]
    return lines


def document(cluster: ResolvedCluster, settings: InferenceSettings) -> dict[str, Any]:
    variant, size = settings.variant, settings.size
    store: dict[str, Any] | None = None
    if settings.metrics:
        store = {
            "where": variant.store,
            "managed": variant.managed_store,
            "gpuMetrics": dcgm_scraped(cluster, variant.managed_store),
            "queries": query_access(settings),
            "attribution": {p.name: attribution(p, operator_dcgm(cluster)) for p in cluster.gpu_pools},
        }
        if not variant.managed_store:
            price = variant.volume_price(cluster)
            store.update(
                {
                    "chart": f"kube-prometheus-stack {KUBE_PROMETHEUS_STACK.version}",
                    "retentionDays": settings.retention_days,
                    "volumeGiB": size.volume_gib,
                    "retentionSizeGB": size.retention_size_gib,
                    "memoryMiB": size.memory_mib,
                    "seriesAtMax": size.series,
                    "volumeUsdPerGbMonth": price.usd_per_gb_month,
                }
            )
    return {
        "inference": {
            "metrics": store,
            "autoscaling": {"keda": KEDA.version, "queries": variant.query_url(cluster)}
            if settings.autoscaling
            else None,
            "gateway": gateway_document(cluster, settings),
            "pools": {p.name: pool_scale_to_zero(p, settings.autoscaling) for p in cluster.gpu_pools},
            "check": dict(zip(("steps", "notChecked"), check_steps(cluster), strict=True)),
        }
    }
