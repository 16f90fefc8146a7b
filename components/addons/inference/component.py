"""InferenceServing: the in-cluster Prometheus (pinned chart) where the substrate's store runs in the
cluster, the monitors that have the store scrape DCGM and the workloads, and KEDA (pinned chart) with
what it needs to query the store. Every object and value is rendered by the pure modules beside this
one; this file applies them in order: a CRD's objects after the release that installs the CRD, the
admission policy on KEDA's objects before KEDA."""

from typing import Any, NotRequired, Optional, TypedDict

import pulumi
import pulumi_kubernetes as k8s

from gpukit.components.addons.inference.charts import KEDA, KUBE_PROMETHEUS_STACK, RepoChart
from gpukit.components.addons.inference.monitors import in_cluster_monitors, managed_monitors
from gpukit.components.addons.inference.names import KEDA_NAMESPACE, MONITORING_NAMESPACE, PROMETHEUS_RELEASE
from gpukit.components.addons.inference.objects import namespace
from gpukit.components.addons.inference.policies import prometheus_network_policy, trigger_address_policy
from gpukit.components.addons.inference.scalers import cluster_trigger_authentication
from gpukit.components.addons.inference.settings import inference_settings, operator_dcgm
from gpukit.components.addons.inference.values import keda_values, prometheus_values
from gpukit.components.custom_objects import custom_object
from gpukit.components.pools import tolerations_for
from gpukit.components.substrate import ResolvedCluster

TYPE_TOKEN = "gpukit:index:InferenceServing"
RELEASE_TIMEOUT_SECONDS = 900
"""Helm waits for the chart's Deployments and its admission-webhook Job. The Prometheus StatefulSet is
the operator's, made after the release is up, so Helm does not wait for it (nor for its volume)."""


class InferenceServingArgs(TypedDict):
    namespaces: list[dict[str, Any]]
    prometheus_values: NotRequired[dict[str, Any]]
    """Absent: the store is not in the cluster (GKE's managed one), or metrics are off."""
    monitoring_objects: NotRequired[list[dict[str, Any]]]
    """Built-in objects in the monitoring namespace, after it: the Prometheus NetworkPolicy."""
    monitors: list[dict[str, Any]]
    """PodMonitors (after the Prometheus release, which installs their CRD) or GKE's
    ClusterPodMonitorings (their CRD is GKE's)."""
    keda_values: NotRequired[dict[str, Any]]
    """Absent: no autoscaling."""
    keda_guards: NotRequired[list[dict[str, Any]]]
    """Before the KEDA release: the admission policy that keeps authenticated triggers on the store."""
    keda_objects: NotRequired[list[dict[str, Any]]]
    """After the KEDA release: the ClusterTriggerAuthentication a managed store needs."""


def inference_args(cluster: ResolvedCluster, identity: dict[str, Any] | None = None) -> InferenceServingArgs:
    """The component's args for a cluster; `identity`: KEDA's values for a managed store's identity."""
    settings = inference_settings(cluster)
    system = tolerations_for([p for p in cluster.pools if not p.is_gpu])
    dcgm = operator_dcgm(cluster)
    args: InferenceServingArgs = {"namespaces": [], "monitors": []}
    if settings.metrics:
        if settings.variant.managed_store:
            args["monitors"] = managed_monitors(dcgm)
        else:
            args["namespaces"].append(namespace(MONITORING_NAMESPACE))
            args["prometheus_values"] = prometheus_values(settings.size, settings.retention_days, system)
            args["monitoring_objects"] = [prometheus_network_policy()]
            args["monitors"] = in_cluster_monitors(dcgm)
    if settings.autoscaling:
        args["namespaces"].append(namespace(KEDA_NAMESPACE))
        args["keda_values"] = keda_values(system, settings.variant.keda_platform_values(), identity)
        if settings.variant.keda_pod_identity:
            args["keda_guards"] = trigger_address_policy(settings.variant.query_url(cluster))
            args["keda_objects"] = [cluster_trigger_authentication(settings.variant.keda_pod_identity)]
    return args


def _release(
    name: str,
    chart: RepoChart,
    *,
    release: str,
    namespace_name: str,
    values: dict[str, Any],
    opts: pulumi.ResourceOptions,
) -> k8s.helm.v3.Release:
    return k8s.helm.v3.Release(
        name,
        name=release,
        chart=chart.name,
        version=chart.version,
        repository_opts={"repo": chart.repository},
        namespace=namespace_name,
        create_namespace=False,  # gpukit's, with its Pod Security labels
        values=values,
        timeout=RELEASE_TIMEOUT_SECONDS,
        opts=opts,
    )


class InferenceServing(pulumi.ComponentResource):
    """Pass the cluster's Kubernetes provider through `opts.providers`; `opts.depends_on` is what the
    releases wait for (the GPU Operator, or the system pools)."""

    prometheus_release: pulumi.Output[str | None] | None
    keda_release: pulumi.Output[str | None] | None

    def __init__(self, name: str, args: InferenceServingArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        waits = list(opts.depends_on) if opts and isinstance(opts.depends_on, list) else []
        namespaces = {
            n["metadata"]["name"]: k8s.core.v1.Namespace(
                f"{name}-ns-{n['metadata']['name']}",
                metadata=n["metadata"],
                opts=pulumi.ResourceOptions(parent=self, depends_on=waits),
            )
            for n in args["namespaces"]
        }
        self.prometheus_release = None
        monitors_after: list[pulumi.Resource] = waits
        for obj in args.get("monitoring_objects", []):
            custom_object(
                f"{name}-{obj['kind'].lower()}-{obj['metadata']['name']}",
                obj,
                pulumi.ResourceOptions(parent=self, depends_on=[namespaces[MONITORING_NAMESPACE]]),
            )
        if "prometheus_values" in args:
            prometheus = _release(
                f"{name}-prometheus",
                KUBE_PROMETHEUS_STACK,
                release=PROMETHEUS_RELEASE,
                namespace_name=MONITORING_NAMESPACE,
                values=args["prometheus_values"],
                opts=pulumi.ResourceOptions(
                    parent=self, depends_on=[*waits, namespaces[MONITORING_NAMESPACE]]
                ),
            )
            self.prometheus_release = prometheus.name
            monitors_after = [prometheus]
        for monitor in args["monitors"]:
            custom_object(
                f"{name}-{monitor['kind'].lower()}-{monitor['metadata']['name']}",
                monitor,
                pulumi.ResourceOptions(parent=self, depends_on=monitors_after),
            )
        self.keda_release = None
        if "keda_values" in args:
            guards = [
                custom_object(
                    f"{name}-{obj['kind'].lower()}-{obj['metadata']['name']}",
                    obj,
                    pulumi.ResourceOptions(parent=self, depends_on=waits),
                )
                for obj in args.get("keda_guards", [])
            ]
            keda = _release(
                f"{name}-keda",
                KEDA,
                release=KEDA.name,
                namespace_name=KEDA_NAMESPACE,
                values=args["keda_values"],
                opts=pulumi.ResourceOptions(
                    parent=self, depends_on=[*waits, namespaces[KEDA_NAMESPACE], *guards]
                ),
            )
            self.keda_release = keda.name
            for obj in args.get("keda_objects", []):
                custom_object(
                    f"{name}-{obj['kind'].lower()}-{obj['metadata']['name']}",
                    obj,
                    pulumi.ResourceOptions(parent=self, depends_on=[keda]),
                )
        self.register_outputs(
            {"prometheus_release": self.prometheus_release, "keda_release": self.keda_release}
        )
