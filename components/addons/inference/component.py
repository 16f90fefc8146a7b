"""InferenceServing: the in-cluster Prometheus (pinned chart) where the substrate's store runs in the
cluster, the monitors that have the store scrape DCGM and the workloads, and KEDA (pinned chart) with
what it needs to query the store. Every object and value is rendered by the pure modules beside this
one; this file applies them in order: a CRD's objects after the release that installs the CRD, the
admission policy on KEDA's objects before KEDA, the Gateway after its class (and on EKS after Envoy
Gateway and the Gateway API CRDs it is installed with)."""

from typing import Any, NotRequired, Optional, TypedDict

import pulumi
import pulumi_kubernetes as k8s

from gpukit.components.addons.inference.charts import (
    ENVOY_GATEWAY,
    GATEWAY_CRDS,
    KEDA,
    KUBE_PROMETHEUS_STACK,
    OciChart,
    RepoChart,
)
from gpukit.components.addons.inference.gateway_names import ENVOY_GATEWAY_NAMESPACE, GATEWAY_NAMESPACE
from gpukit.components.addons.inference.gateway_objects import (
    client_policy,
    envoy_gateway_class,
    envoy_proxy,
    gateway,
)
from gpukit.components.addons.inference.monitors import in_cluster_monitors, managed_monitors
from gpukit.components.addons.inference.names import KEDA_NAMESPACE, MONITORING_NAMESPACE, PROMETHEUS_RELEASE
from gpukit.components.addons.inference.objects import namespace
from gpukit.components.addons.inference.policies import prometheus_network_policy, trigger_address_policy
from gpukit.components.addons.inference.scalers import cluster_trigger_authentication
from gpukit.components.addons.inference.settings import inference_settings, operator_dcgm
from gpukit.components.addons.inference.values import (
    envoy_gateway_values,
    gateway_crds_values,
    keda_values,
    prometheus_values,
)
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
    gateway_crds_values: NotRequired[dict[str, Any]]
    envoy_gateway_values: NotRequired[dict[str, Any]]
    """Both absent where the platform runs the Gateway API itself (GKE) or there is no gateway."""
    gateway_objects: NotRequired[list[dict[str, Any]]]
    """Applied in order, each after the one before (EnvoyProxy, GatewayClass, the client-address policy,
    Gateway), after Envoy Gateway where gpukit installs it."""


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
    if settings.gateway:
        objects = []
        if settings.variant.runs_envoy_gateway:
            args["namespaces"].append(namespace(ENVOY_GATEWAY_NAMESPACE))
            args["gateway_crds_values"] = gateway_crds_values()
            args["envoy_gateway_values"] = envoy_gateway_values(system)
            service = settings.variant.envoy_service(cluster, settings.gateway_cidrs)
            objects = [envoy_proxy(service, system), envoy_gateway_class()]
        if settings.variant.gateway_client_policy:
            # Before the Gateway: its proxies never run without it.
            objects.append(
                client_policy(settings.variant.gateway_client_ranges(cluster, settings.gateway_cidrs))
            )
        args["namespaces"].append(namespace(GATEWAY_NAMESPACE))
        args["gateway_objects"] = [*objects, gateway(settings.gateway_class)]
    if settings.autoscaling:
        args["namespaces"].append(namespace(KEDA_NAMESPACE))
        args["keda_values"] = keda_values(system, settings.variant.keda_platform_values(), identity)
        if settings.variant.keda_pod_identity:
            args["keda_guards"] = trigger_address_policy(settings.variant.query_url(cluster))
            args["keda_objects"] = [cluster_trigger_authentication(settings.variant.keda_pod_identity)]
    return args


def _release(
    name: str,
    chart: RepoChart | OciChart,
    *,
    release: str,
    namespace_name: str,
    values: dict[str, Any],
    opts: pulumi.ResourceOptions,
) -> k8s.helm.v3.Release:
    where: dict[str, Any] = (
        {"chart": chart.name, "repository_opts": {"repo": chart.repository}}
        if isinstance(chart, RepoChart)
        else {"chart": chart.reference}
    )
    return k8s.helm.v3.Release(
        name,
        name=release,
        version=chart.version,
        **where,
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
    gateway: str | None
    """`<namespace>/<name>` of the Gateway routes attach to; None without one."""
    gateway_status: pulumi.Output[Any] | None
    """The Gateway's status once Programmed (its `addresses`); None without one."""

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
        self.gateway = None
        self.gateway_status = None
        if "gateway_objects" in args:
            self.gateway = self._gateway(name, args, namespaces, waits)
        self.register_outputs(
            {
                "prometheus_release": self.prometheus_release,
                "keda_release": self.keda_release,
                "gateway": self.gateway,
            }
        )

    def _gateway(
        self,
        name: str,
        args: InferenceServingArgs,
        namespaces: dict[str, k8s.core.v1.Namespace],
        waits: list[pulumi.Resource],
    ) -> str:
        """Envoy Gateway and its CRDs where gpukit installs them, then the objects in order."""
        after: list[pulumi.Resource] = list(waits)
        if "envoy_gateway_values" in args:
            system_ns = namespaces[ENVOY_GATEWAY_NAMESPACE]
            # Not a Helm release: the chart's templates hold every Gateway API and Envoy Gateway CRD,
            # and its release record outgrows the 1 MiB Secret Helm keeps it in (envoyproxy/gateway
            # #6105, #6471: "Secret sh.helm.release.v1... data: Too long"). Pulumi renders the chart
            # and applies the CRDs itself (server-side apply), as upstream's `helm template | kubectl
            # apply --server-side` does.
            crds = k8s.helm.v4.Chart(
                f"{name}-gateway-crds",
                name="gateway-crds",
                chart=GATEWAY_CRDS.reference,
                version=GATEWAY_CRDS.version,
                namespace=ENVOY_GATEWAY_NAMESPACE,
                values=args.get("gateway_crds_values", {}),
                opts=pulumi.ResourceOptions(parent=self, depends_on=[*waits, system_ns]),
            )
            controller = _release(
                f"{name}-envoy-gateway",
                ENVOY_GATEWAY,
                release="envoy-gateway",
                namespace_name=ENVOY_GATEWAY_NAMESPACE,
                values=args["envoy_gateway_values"],
                opts=pulumi.ResourceOptions(parent=self, depends_on=[*waits, system_ns, crds]),
            )
            after = [controller]
        for obj in args["gateway_objects"]:
            ns = obj["metadata"].get("namespace")
            is_gateway = obj["kind"] == "Gateway"
            applied = custom_object(
                f"{name}-{obj['kind'].lower()}-{obj['metadata']['name']}",
                obj,
                pulumi.ResourceOptions(parent=self, depends_on=[*after, *([namespaces[ns]] if ns else [])]),
                outputs=("status",) if is_gateway else (),
            )
            if is_gateway:
                self.gateway_status = applied.status  # type: ignore[attr-defined]
            after = [applied]
        (gateway_obj,) = [obj for obj in args["gateway_objects"] if obj["kind"] == "Gateway"]
        return f"{gateway_obj['metadata']['namespace']}/{gateway_obj['metadata']['name']}"
