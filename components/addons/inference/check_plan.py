"""What the inference check covers for a cluster (check_objects.CheckPlan): each step where the stack has
what it needs, nothing where it does not verify. Light: the add-on's findings, report, namespaces and
build all read it."""

from gpukit.components.addons.inference.check_objects import (
    CHECK_NAMESPACE,
    DCGM_METRIC,
    ROUTE_HEADER,
    ROUTE_HEADER_VALUE,
    ROUTE_PATH,
    SCALED_REPLICAS,
    SHARED_BY_TIME,
    STABLE,
    CheckPlan,
    HolderUnit,
)
from gpukit.components.addons.inference.scalers import Target
from gpukit.components.addons.inference.settings import InferenceSettings, inference_settings, operator_dcgm
from gpukit.components.config.schema import VERIFICATION_TIMEOUT_DEFAULT
from gpukit.components.pools import POOL_LABEL, PoolFacts, tolerations_for
from gpukit.components.sharing import GPU_RESOURCE
from gpukit.components.spec import NodeRole, SharingMode, VerificationSpec
from gpukit.components.substrate import ResolvedCluster


def verification_spec(cluster: ResolvedCluster) -> VerificationSpec:
    """`gpukit:verification` as the verification add-on reads it (its defaults filled in by the parser)."""
    return cluster.args.get("verification", {})


def startable_gpu_pools(cluster: ResolvedCluster) -> list[PoolFacts]:
    """The GPU pools a pending pod starts a node of (the GPU verification checks these too): not those
    whose nodes only ProvisioningRequests start (GKE's queued provisioning)."""
    return [p for p in cluster.gpu_pools if p.pending_pods_scale]


def holder_unit(pool: PoolFacts) -> HolderUnit:
    """One unit of `pool` for the holder: a GPU, or where the pool advertises MIG devices by profile
    (mixed strategy) one of the first profile's."""
    advertised = sorted(pool.advertised_resources)
    resource = GPU_RESOURCE if GPU_RESOURCE in advertised or not advertised else advertised[0]
    return HolderUnit(
        pool=pool.name,
        node_selector=((POOL_LABEL, pool.name),),
        tolerations=tuple((t.key, "Exists", t.effect) for t in pool.taints),
        resource=resource,
        sharing=pool.sharing.mode,
    )


def holder_pool(cluster: ResolvedCluster) -> HolderUnit | None:
    """The GPU pool unit the DCGM step's pod takes: one of a pool a pending pod starts a node of,
    preferring one whose GPUs are not shared by time (the exporter names one pod per GPU there:
    check_objects.witness_query), then one that keeps a node (nothing to start), then one that is not
    MIG (the exporter's attribution of MIG instances is a newer path), then config order."""
    pools = startable_gpu_pools(cluster)
    if not pools:
        return None
    best = min(
        pools,
        key=lambda p: (
            p.sharing.mode in SHARED_BY_TIME,
            p.min_nodes == 0,
            p.sharing.mode is SharingMode.MIG,
            pools.index(p),
        ),
    )
    return holder_unit(best)


def store_target(cluster: ResolvedCluster, settings: InferenceSettings) -> Target:
    """How KEDA reaches the store from the check's namespace (the queue ScaledObject's target)."""
    variant = settings.variant
    return Target(
        STABLE,
        CHECK_NAMESPACE,
        variant.query_url(cluster),
        SCALED_REPLICAS,
        authenticated=bool(variant.keda_pod_identity),
        cluster=cluster.name if variant.managed_store else "",
    )


def check_plan(cluster: ResolvedCluster, at_up: bool = True) -> CheckPlan | None:
    """None where the stack does not verify at `pulumi up` (`at_up`; `gpukit verify` checks whatever
    the stack built), or has neither a gateway nor metrics with autoscaling."""
    verification = verification_spec(cluster)
    if at_up and not verification.get("enabled", False):
        return None
    settings = inference_settings(cluster)
    store = store_target(cluster, settings) if settings.metrics and settings.autoscaling else None
    gateway = settings.variant.gateway_check_target() if settings.gateway else None
    hosts = check_pools(cluster)
    if (store is None and gateway is None) or not hosts:
        return None
    return CheckPlan(
        timeout_minutes=verification.get("timeout_minutes", VERIFICATION_TIMEOUT_DEFAULT),
        store=store,
        gateway=gateway,
        health_check_policies=settings.variant.gateway_health_check_policies,
        holder=holder_pool(cluster) if store and operator_dcgm(cluster) else None,
        tolerations=tuple(tolerations_for(hosts)),
        dcgm_namespace_label="exported_namespace" if settings.variant.managed_store else "namespace",
    )


def check_pools(cluster: ResolvedCluster) -> list[PoolFacts]:
    """Where the simulators and the check pod run: the pools without GPUs, never k3s servers. The
    servers admit only system namespaces' pods (components/k3s/host_scripts.py server_policy), and a
    running cloud server keeps the policy it booted with (its user data is applied once), so a new
    namespace there would be refused on an existing cluster; nor does a check belong beside etcd."""
    return [p for p in cluster.pools if not p.is_gpu and p.role is not NodeRole.SERVER]


def check_steps(cluster: ResolvedCluster) -> tuple[list[str], list[str]]:
    """What the inference check at `pulumi up` proves, step by step, and each step it leaves out with
    why (the report's and plan.json's)."""
    plan = check_plan(cluster)
    if plan is None:
        if not verification_spec(cluster).get("enabled", False):
            why = "gpukit:verification.enabled is false"
        elif not check_pools(cluster):
            why = "its pods need a node without GPUs that is not a k3s server, and this cluster has none"
        else:
            why = "neither the Gateway nor metrics with autoscaling is on"
        return [], [f"the whole check ({why})"]
    steps: list[str] = []
    skipped: list[str] = []
    if plan.gateway:
        where = plan.gateway.host or "the Gateway's own address"
        steps.append(
            f"a GET {ROUTE_PATH} through the Gateway ({where}, port {plan.gateway.port}) answers from the "
            f"stable simulator, and with header {ROUTE_HEADER}: {ROUTE_HEADER_VALUE} from the canary"
        )
    else:
        skipped.append("the route through the Gateway (the Gateway is off)")
    if plan.store:
        steps.append(
            f"KEDA scales a simulator (llm-d-inference-sim) from 1 to {SCALED_REPLICAS} replicas on the "
            "queue depth it publishes, read from the store"
        )
    else:
        skipped.append("scaling on a custom metric (it needs both metrics and autoscaling)")
    if plan.holder and plan.store:
        whose = (
            "a series naming a pod of another namespace than the exporter's and the GPU verification's "
            "(the GPU is shared by time: the exporter names one of the pods sharing it, "
            "NVIDIA/dcgm-exporter#307)"
            if plan.holder.sharing in SHARED_BY_TIME
            else "its series"
        )
        steps.append(
            f"the check's own pod runs on pool {plan.holder.pool} holding one {plan.holder.resource}; the "
            f"store then holds {whose} of {DCGM_METRIC} (KEDA scales a witness on it)"
        )
    elif plan.store:
        reason = (
            "no GPU pool a pod can start a node of"
            if not startable_gpu_pools(cluster)
            else "the platform collects DCGM, not the GPU Operator's exporter gpukit's monitor scrapes"
        )
        skipped.append(f"a GPU pod's DCGM series in the store ({reason})")
    return steps, skipped
