"""Helm values of the charts the inference add-on installs. Every key set here exists in the pinned
chart's vendored values.yaml (tests/unit/test_inference.py walks them; the kube-state-metrics
subchart's against its own, tests/reference/kube-prometheus-stack-88.5.3/)."""

from typing import Any

from gpukit.components.addons.base import merge_values
from gpukit.components.addons.inference.names import (
    MONITORING_NAMESPACE,
    PROMETHEUS_FULLNAME,
    SCRAPE_INTERVAL_SECONDS,
)
from gpukit.components.addons.inference.sizing import StoreSize

Tolerations = list[dict[str, str]]


def prometheus_values(size: StoreSize, retention_days: int, system: Tolerations) -> dict[str, Any]:
    """kube-prometheus-stack as gpukit runs it: one Prometheus, its operator and kube-state-metrics.

    - Off: Grafana and Alertmanager (a store for scaling and queries, not a dashboard and paging
      stack), the default alerting rules (nothing would receive them), the node exporter (it needs the
      host's network and PID namespace, which the namespace's baseline Pod Security level refuses;
      node figures come from the kubelet and cAdvisor, GPU figures from DCGM), and the control-plane
      scrapes a managed control plane does not expose (controller manager, scheduler, etcd, kube-proxy).
    - Monitors and rules only from `gpukit-monitoring` (`*NamespaceSelector`), all of them there
      (`*SelectorNilUsesHelmValues: false`: not only those labelled for this release): gpukit's
      (monitors.py) and the chart's. A monitor or rule elsewhere could claim any namespace's series (a
      PodMonitor with honorLabels, a recording rule), which a ScaledObject there would scale on; a
      workload is collected by the label convention instead (names.py), its labels never honoured.
    - Retention by time and by size (RETENTION_SIZE_SHARE of the volume), the volume and memory from
      sizing.py at the pools' max; the volume on the default StorageClass.
    - Everything tolerates the taints of the pools without GPUs only: the store never keeps a GPU node
      from scaling in.
    """
    tolerations = [dict(t) for t in system]
    own_namespace = {"matchLabels": {"kubernetes.io/metadata.name": MONITORING_NAMESPACE}}
    return {
        "fullnameOverride": PROMETHEUS_FULLNAME,
        "defaultRules": {"create": False},
        "alertmanager": {"enabled": False},
        "grafana": {"enabled": False},
        "nodeExporter": {"enabled": False},
        "kubeControllerManager": {"enabled": False},
        "kubeScheduler": {"enabled": False},
        "kubeEtcd": {"enabled": False},
        "kubeProxy": {"enabled": False},
        "kube-state-metrics": {"tolerations": tolerations},
        "prometheusOperator": {
            "tolerations": tolerations,
            "admissionWebhooks": {"patch": {"tolerations": tolerations}},
        },
        "prometheus": {
            "prometheusSpec": {
                "scrapeInterval": f"{SCRAPE_INTERVAL_SECONDS}s",
                "retention": f"{retention_days}d",
                # Prometheus's units are powers of two (its `--storage.tsdb.retention.size`: "GB").
                "retentionSize": f"{size.retention_size_gib}GB",
                "podMonitorSelectorNilUsesHelmValues": False,
                "serviceMonitorSelectorNilUsesHelmValues": False,
                "ruleSelectorNilUsesHelmValues": False,
                "probeSelectorNilUsesHelmValues": False,
                "scrapeConfigSelectorNilUsesHelmValues": False,
                "podMonitorNamespaceSelector": own_namespace,
                "serviceMonitorNamespaceSelector": own_namespace,
                "ruleNamespaceSelector": own_namespace,
                "probeNamespaceSelector": own_namespace,
                "scrapeConfigNamespaceSelector": own_namespace,
                "resources": {
                    "requests": {"cpu": "250m", "memory": f"{size.memory_mib}Mi"},
                    "limits": {"memory": f"{size.memory_mib * 2}Mi"},
                },
                "storageSpec": {
                    "volumeClaimTemplate": {
                        "spec": {
                            "accessModes": ["ReadWriteOnce"],
                            "resources": {"requests": {"storage": f"{size.volume_gib}Gi"}},
                        }
                    }
                },
                "tolerations": tolerations,
            }
        },
    }


def keda_values(
    system: Tolerations, platform: dict[str, Any] | None = None, identity: dict[str, Any] | None = None
) -> dict[str, Any]:
    """KEDA's operator, metrics server and webhooks on the pools without GPUs, reading Secrets in the
    `keda` namespace only (the chart's default is every namespace's: a ClusterTriggerAuthentication
    keeps a trigger's secrets there). `platform`: what the substrate needs (variant
    keda_platform_values: GKE's ports); `identity`: the managed store's (StoreAccess.keda_values:
    `podIdentity.gcp` on GKE), None in-cluster."""
    values: dict[str, Any] = {
        "tolerations": [dict(t) for t in system],
        "permissions": {
            "operator": {"restrict": {"secret": True}},
            "metricServer": {"restrict": {"secret": True}},
        },
    }
    return merge_values(merge_values(values, platform or {}), identity or {})


def gpu_operator_asks() -> dict[str, Any]:
    """What the in-cluster store asks of the GPU Operator's chart (Addon.asks): no ServiceMonitor of its
    own for the DCGM exporter. gpukit's PodMonitor scrapes the exporter once, keeping the GPU's pod on
    each series (monitors.py); the Operator's would scrape it again with those labels renamed, and only
    once it noticed the ServiceMonitor CRD the Prometheus release installs after it."""
    return {"dcgmExporter": {"serviceMonitor": {"enabled": False}}}


def gateway_crds_values() -> dict[str, Any]:
    """The CRD chart: the Gateway API's standard channel (v1.6.1 in Envoy Gateway v1.9.0) and Envoy
    Gateway's own CRDs (EnvoyProxy among them), both off by default (charts.py says why from here)."""
    return {
        "crds": {"gatewayAPI": {"enabled": True, "channel": "standard"}, "envoyGateway": {"enabled": True}}
    }


def envoy_gateway_values(system: Tolerations) -> dict[str, Any]:
    """The controller's chart: no CRDs of its own (the CRD chart's), and its controller and certificate
    Job on the pools without GPUs, as every system pod gpukit runs."""
    tolerations = [dict(t) for t in system]
    return {
        "crds": {"enabled": False},
        "deployment": {"pod": {"tolerations": tolerations}},
        "certgen": {"job": {"tolerations": [dict(t) for t in system]}},
    }
