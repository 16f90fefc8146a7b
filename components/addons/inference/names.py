"""The names the inference add-on installs under, and the convention a workload follows to have its
metrics collected (docs/inference.md states it)."""

KEY = "gpukit:inference"
"""The add-on's config section, as problems and findings name it."""

MONITORING_NAMESPACE = "gpukit-monitoring"
KEDA_NAMESPACE = "keda"
KEDA_OPERATOR_SERVICE_ACCOUNT = "keda-operator"
"""The chart's operator service account (values.yaml `serviceAccount.operator.name` default): the one
that queries the metrics store, so the identity a cloud store trusts is bound to it."""

PROMETHEUS_RELEASE = "gpukit-metrics"
PROMETHEUS_FULLNAME = "gpukit"
"""kube-prometheus-stack's `fullnameOverride`: its objects are `gpukit-<component>`, so the Prometheus
Service is `gpukit-prometheus` (templates/prometheus/service.yaml: `<fullname>-prometheus`)."""
PROMETHEUS_PORT = 9090
IN_CLUSTER_PROMETHEUS_URL = (
    f"http://{PROMETHEUS_FULLNAME}-prometheus.{MONITORING_NAMESPACE}.svc.cluster.local:{PROMETHEUS_PORT}"
)
"""Where KEDA's Prometheus scaler queries the in-cluster store."""

METRICS_LABEL = "gpukit.dev/metrics"
METRICS_LABEL_VALUE = "true"
METRICS_PORT_NAME = "metrics"
METRICS_PATH = "/metrics"
"""A workload pod labelled `gpukit.dev/metrics: "true"` is scraped on its container port named
`metrics`, at /metrics, every SCRAPE_INTERVAL, in any namespace."""
SCRAPE_INTERVAL_SECONDS = 30
"""Every monitor gpukit makes scrapes this often (kube-prometheus-stack's own default interval, 30s
when prometheusSpec.scrapeInterval is empty; GMP's PodMonitoring default is 60s, so it is stated)."""

GPU_OPERATOR_NAMESPACE = "gpu-operator"
DCGM_EXPORTER_POD_LABEL = ("app", "nvidia-dcgm-exporter")
DCGM_EXPORTER_PORT_NAME = "metrics"
"""The GPU Operator's DCGM exporter DaemonSet (v26.7.0 assets/state-dcgm-exporter/0800_daemonset.yaml):
pods labelled app=nvidia-dcgm-exporter, container port `metrics` (9400)."""

CLUSTER_TRIGGER_AUTHENTICATION = "gpukit-metrics-store"
"""The ClusterTriggerAuthentication a ScaledObject names to query a store that wants credentials (GKE's
managed Prometheus, through workload identity); absent where the store is in the cluster."""
