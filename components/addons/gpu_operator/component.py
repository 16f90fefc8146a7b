"""GpuOperator: the NVIDIA GPU Operator as a pinned Helm release in its own privileged namespace."""

from typing import Any, NotRequired, Optional, TypedDict

import pulumi
import pulumi_kubernetes as k8s

from gpukit.components.addons.base import merge_values
from gpukit.components.addons.gpu_operator.values import (
    CHART,
    CHART_REPOSITORY,
    NAMESPACE,
    RELEASE_NAME,
    gpu_operator_values,
)
from gpukit.components.node_software import GpuNodeSoftware
from gpukit.components.sharing import PoolSharing
from gpukit.components.spec import MigStrategy, SharingMode

TYPE_TOKEN = "gpukit:index:GpuOperator"
# Helm waits for the operator Deployment; image pulls on a fresh cluster can take minutes.
RELEASE_TIMEOUT_SECONDS = 900


class TolerationArgs(TypedDict):
    key: str
    operator: str
    effect: str


class EnvVarArgs(TypedDict):
    name: str
    value: str


class SharingArgs(TypedDict):
    mode: str
    """none, time-slicing, mps or mig."""
    replicas: NotRequired[int]
    mig_profile: NotRequired[str]
    mig_strategy: NotRequired[str]
    mig_devices: NotRequired[dict[str, int]]
    """MIG: instances per profile on each GPU."""


def _sharing(args: SharingArgs) -> PoolSharing:
    strategy = args.get("mig_strategy")
    return PoolSharing(
        SharingMode(args["mode"]),
        replicas=args.get("replicas", 1),
        mig_profile=args.get("mig_profile"),
        mig_strategy=MigStrategy(strategy) if strategy else None,
        mig_devices=tuple(sorted(args.get("mig_devices", {}).items())),
    )


def sharing_args(sharing: PoolSharing) -> SharingArgs:
    """A pool's setting as GpuOperatorArgs take it."""
    out: SharingArgs = {"mode": sharing.mode.value, "replicas": sharing.replicas}
    if sharing.mig_profile is not None:
        out["mig_profile"] = sharing.mig_profile
    if sharing.mig_strategy is not None:
        out["mig_strategy"] = sharing.mig_strategy.value
    if sharing.mig_devices:
        out["mig_devices"] = dict(sharing.mig_devices)
    return out


class GpuOperatorArgs(TypedDict):
    chart_version: str
    """Exact chart version, e.g. "v26.7.0"."""
    driver_preinstalled: bool
    """True where the GPU node image ships the NVIDIA driver (the Operator then skips its driver)."""
    toolkit_preinstalled: bool
    """True where the GPU node image ships the NVIDIA container toolkit."""
    tolerations: list[TolerationArgs]
    """Tolerations for the GPU pools' taints, so operands run on GPU nodes."""
    controller_tolerations: NotRequired[list[TolerationArgs]]
    """Tolerations for the taints of machines without GPUs (k3s servers' CriticalAddonsOnly), so the
    operator and NFD's master and garbage collector can run where only system pods may."""
    node_software_summary: str
    """One line saying which image ships what, shown in plans."""
    toolkit_env: NotRequired[list[EnvVarArgs]]
    """Extra environment for the container toolkit (platform fixes)."""
    priority_class_pods: NotRequired[int]
    """Create the ResourceQuota that lets GKE admit the operands' critical priority classes, for this
    many pods (values.critical_pod_quota: sized from the pools' maxNodes)."""
    sharing: NotRequired[list[SharingArgs]]
    """The GPU pools' sharing settings the Operator applies (device-plugin config, MIG strategy)."""
    extra_values: NotRequired[dict[str, Any]]
    """Chart values laid over gpukit's, map by map. GpuCluster passes what other add-ons ask of the chart
    (BuildContext.asked): the inference add-on's `dcgmExporter.serviceMonitor.enabled: false`, where its
    own monitor scrapes the exporter. Each key must exist in the pinned chart's values.yaml."""


class GpuOperator(pulumi.ComponentResource):
    """Namespace `gpu-operator` (privileged Pod Security) plus the `gpu-operator` Helm release.

    Pass the cluster's Kubernetes provider through `opts.providers`; nothing here falls back to an
    ambient kubeconfig.
    """

    namespace: pulumi.Output[Optional[str]]
    release_name: pulumi.Output[Optional[str]]
    chart_version: pulumi.Output[Optional[str]]

    def __init__(self, name: str, args: GpuOperatorArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        software = GpuNodeSoftware(
            driver_preinstalled=args["driver_preinstalled"],
            toolkit_preinstalled=args["toolkit_preinstalled"],
            summary=args["node_software_summary"],
            toolkit_env=tuple((e["name"], e["value"]) for e in args.get("toolkit_env", [])),
        )
        tolerations = [
            {"key": t["key"], "operator": t["operator"], "effect": t["effect"]} for t in args["tolerations"]
        ]
        controller = [
            {"key": t["key"], "operator": t["operator"], "effect": t["effect"]}
            for t in args.get("controller_tolerations", [])
        ]
        sharing = [_sharing(s) for s in args.get("sharing", [])]
        values = merge_values(
            gpu_operator_values(software, tolerations, controller, sharing), args.get("extra_values", {})
        )

        namespace = k8s.core.v1.Namespace(
            f"{name}-namespace",
            metadata={
                "name": NAMESPACE,
                # Operands mount host paths and run privileged: the restricted/baseline profiles
                # would reject them, so this one namespace is explicitly privileged.
                "labels": {
                    "pod-security.kubernetes.io/enforce": "privileged",
                    "pod-security.kubernetes.io/audit": "privileged",
                    "pod-security.kubernetes.io/warn": "privileged",
                },
            },
            opts=pulumi.ResourceOptions(parent=self),
        )
        waits_for: list[pulumi.Resource] = [namespace]
        if args.get("priority_class_pods", 0) > 0:
            waits_for.append(
                k8s.core.v1.ResourceQuota(
                    f"{name}-priority-quota",
                    metadata={"name": "gpu-operator-quota", "namespace": namespace.metadata["name"]},
                    # GKE admits pods of the system-node-critical and system-cluster-critical priority
                    # classes outside kube-system only under a quota that names them (NVIDIA's GKE guide).
                    spec={
                        "hard": {"pods": str(args["priority_class_pods"])},
                        "scope_selector": {
                            "match_expressions": [
                                {
                                    "operator": "In",
                                    "scope_name": "PriorityClass",
                                    "values": ["system-node-critical", "system-cluster-critical"],
                                }
                            ]
                        },
                    },
                    opts=pulumi.ResourceOptions(parent=self),
                )
            )
        release = k8s.helm.v3.Release(
            f"{name}-release",
            name=RELEASE_NAME,
            chart=CHART,
            version=args["chart_version"],
            repository_opts={"repo": CHART_REPOSITORY},
            namespace=namespace.metadata["name"],
            create_namespace=False,
            values=values,
            timeout=RELEASE_TIMEOUT_SECONDS,
            opts=pulumi.ResourceOptions(parent=self, depends_on=waits_for),
        )
        self.namespace = namespace.metadata["name"]
        self.release_name = release.name
        self.chart_version = release.version
        self.register_outputs(
            {
                "namespace": self.namespace,
                "release_name": self.release_name,
                "chart_version": self.chart_version,
            }
        )
