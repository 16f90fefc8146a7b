"""What the metrics store scrapes, as manifests: the GPU Operator's DCGM exporter, with the GPU's pod
kept on every series, and every workload pod that follows docs/inference.md's label convention.

Pod attribution: the DCGM exporter labels each GPU's series with the pod, namespace and container
that holds the GPU (DCGM_EXPORTER_KUBERNETES=true, the Operator's default). Scraped as-is, Prometheus
would rename those to `exported_pod` / `exported_namespace` (the target's own pod and namespace win:
dcgm-exporter#85), so the DCGM monitor honours the exporter's labels; it selects only the exporter's
pods in the GPU Operator's namespace, since a pod whose labels are honoured could pose as any other.
Workloads' labels are never honoured: a workload cannot claim another namespace's series (a
ScaledObject in that namespace would scale on them). Prometheus takes monitors from its own namespace
only (values.py), so nobody else's monitor can honour labels either.

A GPU shared by time-slicing or MPS is attributed to one of the pods that share it, whichever the
device plugin lists first (NVIDIA/dcgm-exporter#307); a whole GPU or a MIG instance to its pod.
"""

from typing import Any

from gpukit.components.addons.inference.names import (
    DCGM_EXPORTER_POD_LABEL,
    DCGM_EXPORTER_PORT_NAME,
    GPU_OPERATOR_NAMESPACE,
    METRICS_LABEL,
    METRICS_LABEL_VALUE,
    METRICS_PATH,
    METRICS_PORT_NAME,
    MONITORING_NAMESPACE,
    SCRAPE_INTERVAL_SECONDS,
)
from gpukit.components.admission import MANAGED_LABELS

PROMETHEUS_OPERATOR_API = "monitoring.coreos.com/v1"
MANAGED_PROMETHEUS_API = "monitoring.googleapis.com/v1"
DCGM_MONITOR = "gpukit-dcgm-exporter"
WORKLOAD_MONITOR = "gpukit-workloads"
INTERVAL = f"{SCRAPE_INTERVAL_SECONDS}s"


def _pod_monitor(
    name: str, namespaces: dict[str, Any], labels: dict[str, str], honor: bool
) -> dict[str, Any]:
    return {
        "apiVersion": PROMETHEUS_OPERATOR_API,
        "kind": "PodMonitor",
        "metadata": {"name": name, "namespace": MONITORING_NAMESPACE, "labels": dict(MANAGED_LABELS)},
        "spec": {
            "namespaceSelector": namespaces,
            "selector": {"matchLabels": labels},
            "podMetricsEndpoints": [
                {"port": port, "path": METRICS_PATH, "interval": INTERVAL, "honorLabels": honor}
                for port in ((DCGM_EXPORTER_PORT_NAME,) if honor else (METRICS_PORT_NAME,))
            ],
        },
    }


def in_cluster_monitors(dcgm: bool) -> list[dict[str, Any]]:
    """PodMonitors for the in-cluster Prometheus; `dcgm`: the GPU Operator runs the DCGM exporter."""
    workloads = _pod_monitor(WORKLOAD_MONITOR, {"any": True}, {METRICS_LABEL: METRICS_LABEL_VALUE}, False)
    if not dcgm:
        return [workloads]
    key, value = DCGM_EXPORTER_POD_LABEL
    exporter = _pod_monitor(DCGM_MONITOR, {"matchNames": [GPU_OPERATOR_NAMESPACE]}, {key: value}, True)
    return [exporter, workloads]


def _managed_monitor(
    kind: str, name: str, labels: dict[str, str], port: str, namespace: str | None = None
) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "selector": {"matchLabels": labels},
        "endpoints": [{"port": port, "path": METRICS_PATH, "interval": INTERVAL}],
    }
    metadata: dict[str, Any] = {"name": name, "labels": dict(MANAGED_LABELS)}
    if namespace is not None:
        metadata["namespace"] = namespace
        spec["targetLabels"] = {"metadata": []}
    return {"apiVersion": MANAGED_PROMETHEUS_API, "kind": kind, "metadata": metadata, "spec": spec}


def managed_monitors(dcgm: bool) -> list[dict[str, Any]]:
    """Monitors for GKE's managed collection.

    - Workloads: a ClusterPodMonitoring with GMP's default target labels (namespace, pod, container,
      top-level controller: set by the collector, never by the pod).
    - The GPU Operator's DCGM exporter (where it runs; GKE's managed DCGM needs none): a PodMonitoring
      in the Operator's namespace, so only the exporter's own pods there are scraped (a
      ClusterPodMonitoring selects in every namespace, and any pod carrying the exporter's label would
      be trusted). It sets no pod metadata (`targetLabels.metadata: []`, as Google's prometheus-engine
      keeps DCGM's labels: GoogleCloudPlatform/prometheus-engine#1002), so each series keeps the `pod`
      and `container` of the GPU's holder; a PodMonitoring always sets `namespace` (the Operator's),
      so the holder's namespace is `exported_namespace` there."""
    workloads = _managed_monitor(
        "ClusterPodMonitoring", WORKLOAD_MONITOR, {METRICS_LABEL: METRICS_LABEL_VALUE}, METRICS_PORT_NAME
    )
    if not dcgm:
        return [workloads]
    key, value = DCGM_EXPORTER_POD_LABEL
    exporter = _managed_monitor(
        "PodMonitoring", DCGM_MONITOR, {key: value}, DCGM_EXPORTER_PORT_NAME, GPU_OPERATOR_NAMESPACE
    )
    return [exporter, workloads]
