"""The charts the inference add-on installs, pinned; their values are checked against each chart's
vendored values.yaml (tests/reference/)."""

from dataclasses import dataclass


@dataclass(frozen=True)
class RepoChart:
    """A chart in a classic (https) Helm repository."""

    name: str
    version: str
    repository: str


# prometheus-community/helm-charts tag kube-prometheus-stack-88.5.3 (commit ea930bae): the Prometheus
# Operator, one Prometheus, kube-state-metrics; the CRDs for PodMonitor and ServiceMonitor.
KUBE_PROMETHEUS_STACK = RepoChart(
    "kube-prometheus-stack", "88.5.3", "https://prometheus-community.github.io/helm-charts"
)
# kedacore/charts tag v2.20.2 (KEDA v2.20.2, 2026-07-31). KEDA's cluster page tests v2.20 on Kubernetes
# 1.33 to 1.35 and v2.21 on 1.34 to 1.36 (https://keda.sh/docs/2.22/operate/cluster/); 2.20.2 is the
# release whose chart and CRDs are vendored here (findings.py says so on a 1.36 cluster).
KEDA = RepoChart("keda", "2.20.2", "https://kedacore.github.io/charts")
KEDA_TESTED_MINORS = ("1.33", "1.34", "1.35")


@dataclass(frozen=True)
class OciChart:
    """A chart in an OCI registry: Helm pulls `reference` at `version`, no repository index."""

    reference: str
    version: str


# envoyproxy/gateway tag v1.9.0 (commit 39763b1c, 2026-08-15): tested on Kubernetes 1.33 to 1.36, end of
# life 2027-02-14 (site/content/en/news/releases/matrix.md), built against Gateway API v1.6.1.
# Published as OCI charts on Docker Hub (site/content/en/v1.9/install/install-helm.md). The controller's
# chart would install the experimental-channel Gateway API CRDs; gpukit turns that off and installs the
# standard channel from the CRD chart (`crds.gatewayAPI.channel: standard`), with Envoy Gateway's own
# CRDs: two channels from two installers would fight over the same CRDs, and Gateway API v1.6's
# safe-upgrades policy refuses experimental CRDs over standard ones.
ENVOY_GATEWAY = OciChart("oci://docker.io/envoyproxy/gateway-helm", "v1.9.0")
GATEWAY_CRDS = OciChart("oci://docker.io/envoyproxy/gateway-crds-helm", "v1.9.0")
