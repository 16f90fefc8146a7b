"""KEDA's objects: the ClusterTriggerAuthentication a managed store needs, and the example ScaledObjects
docs/inference.md shows (a vLLM-style server on its queue depth, any GPU pod on DCGM utilisation), as
pure functions the tests validate against KEDA's vendored CRDs.

Why KEDA and not prometheus-adapter: KEDA's Prometheus scaler queries any Prometheus HTTP API,
including Google's managed one with workload identity and Amazon's with SigV4; it scales 0 <-> 1 itself
(the HPA it makes starts at 1); prometheus-adapter is being deprecated in KEDA's favour
(kubernetes-sigs/prometheus-adapter#701) and speaks to neither cloud store natively.

The 0 -> 1 step: a metric the pods themselves export is gone when there are none
(kedacore/keda#6040), so the examples keep one replica (minReplicaCount 1); scaling a model server to
zero needs a metric that outlives it (a gateway's queue).
"""

from dataclasses import dataclass
from typing import Any

from gpukit.components.addons.inference.names import CLUSTER_TRIGGER_AUTHENTICATION

KEDA_API = "keda.sh/v1alpha1"
QUEUE_METRIC = "vllm:num_requests_waiting"
QUEUE_THRESHOLD = 5
"""Requests waiting per replica before KEDA adds one: the Gateway API Inference Extension's default
queue-depth threshold for a saturated server."""
GPU_UTILISATION_METRIC = "DCGM_FI_DEV_GPU_UTIL"
GPU_UTILISATION_THRESHOLD = 80
"""Percent, averaged over the deployment's GPUs."""
POLLING_SECONDS = 15
"""No `cooldownPeriod`: KEDA applies it only between 1 and 0 replicas, and the examples keep one. Scaling
in from N is the HPA's, which waits out its default 300 s stabilization window before it drops a GPU
replica whose queue has emptied."""


def cluster_trigger_authentication(provider: str) -> dict[str, Any]:
    """Credentials the ScaledObjects name to query a managed store: the KEDA operator's pod identity
    (`gcp` on GKE: its Kubernetes service account acts as a Google one)."""
    return {
        "apiVersion": KEDA_API,
        "kind": "ClusterTriggerAuthentication",
        "metadata": {"name": CLUSTER_TRIGGER_AUTHENTICATION},
        "spec": {"podIdentity": {"provider": provider}},
    }


def _pods_of(target: "Target") -> str:
    # A Deployment's pods are <name>-<replicaset hash>-<suffix>; a project-wide store holds every
    # cluster's series, so the query names this one.
    matchers = f'namespace="{target.namespace}",pod=~"{target.deployment}-[a-z0-9]+-[a-z0-9]+"'
    return f'cluster="{target.cluster}",{matchers}' if target.cluster else matchers


@dataclass(frozen=True)
class Target:
    """The Deployment a ScaledObject scales, and where it queries."""

    deployment: str
    namespace: str
    server_address: str
    """The store's Prometheus API (InferenceVariant.query_url)."""
    max_replicas: int
    authenticated: bool
    """Whether the store wants the ClusterTriggerAuthentication (a managed store)."""
    cluster: str = ""
    """The cluster's name where the store holds other clusters' series too (GKE's: the `cluster` label
    Managed Service for Prometheus puts on every series); empty for an in-cluster store."""


def scaled_object(target: Target, query: str, threshold: int, metric_type: str) -> dict[str, Any]:
    """A ScaledObject of `target` on one Prometheus query (the inference check's witness uses it too)."""
    trigger: dict[str, Any] = {
        "type": "prometheus",
        "metricType": metric_type,
        "metadata": {"serverAddress": target.server_address, "query": query, "threshold": str(threshold)},
    }
    if target.authenticated:
        trigger["authenticationRef"] = {
            "name": CLUSTER_TRIGGER_AUTHENTICATION,
            "kind": "ClusterTriggerAuthentication",
        }
    return {
        "apiVersion": KEDA_API,
        "kind": "ScaledObject",
        "metadata": {"name": target.deployment, "namespace": target.namespace},
        "spec": {
            "scaleTargetRef": {"name": target.deployment},
            "minReplicaCount": 1,
            "maxReplicaCount": target.max_replicas,
            "pollingInterval": POLLING_SECONDS,
            "triggers": [trigger],
        },
    }


def queue_scaled_object(target: Target) -> dict[str, Any]:
    """Scale a vLLM-style server on the requests waiting across its replicas: the summed query over an
    AverageValue target gives ceil(waiting / QUEUE_THRESHOLD) replicas."""
    query = f"sum({QUEUE_METRIC}{{{_pods_of(target)}}})"
    return scaled_object(target, query, QUEUE_THRESHOLD, "AverageValue")


def gpu_utilisation_scaled_object(target: Target) -> dict[str, Any]:
    """Scale any GPU deployment on its GPUs' mean utilisation (DCGM, attributed to its pods): a Value
    target, so replicas grow by the ratio of the mean to GPU_UTILISATION_THRESHOLD (an average over
    an AverageValue target would be divided by the replicas again)."""
    query = f"avg({GPU_UTILISATION_METRIC}{{{_pods_of(target)}}})"
    return scaled_object(target, query, GPU_UTILISATION_THRESHOLD, "Value")
