"""The GPU Operator add-on: the NVIDIA GPU Operator on clusters with GPU pools, wherever the platform
does not run the GPU stack itself. What it runs follows what the substrate's GPU nodes already have
(Substrate.gpu_node_software, a fact each substrate declares: the driver in the image, GKE's own
device plugin); `gpukit:gpuOperator` picks the chart and who provides the driver."""

from typing import Any

from gpukit.components.addons.base import Addon, BuildContext, Built, ValidationScope
from gpukit.components.addons.gpu_operator.values import critical_pod_quota, operands
from gpukit.components.errors import Problem
from gpukit.components.handle import ClusterHandle
from gpukit.components.pools import tolerations_for
from gpukit.components.substrate import ResolvedCluster

GPU_OPERATOR = "gpu-operator"
# Chart versions whose values gpukit renders and has checked against the chart's values.yaml.
SUPPORTED_GPU_OPERATOR_CHARTS = ("v26.7.0",)
CHART_KEY = "gpukit:gpuOperator.chartVersion"


class GpuOperatorAddon(Addon):
    name = GPU_OPERATOR
    section = "gpuOperator"

    def problems(self, scope: ValidationScope) -> list[Problem]:
        """A chart gpukit's values are checked against, and the substrate's own rules (EKS has no
        `driver: operator`; gkeDriverVersion is GKE's)."""
        if scope.substrate is None:
            return []
        operator = scope.args["gpu_operator"]
        problems = []
        if operator["chart_version"] not in SUPPORTED_GPU_OPERATOR_CHARTS:
            problems.append(
                Problem(
                    CHART_KEY,
                    f"must be one of {', '.join(SUPPORTED_GPU_OPERATOR_CHARTS)} (the charts gpukit's values "
                    f"are checked against); got {operator['chart_version']!r}",
                )
            )
        return problems + scope.substrate.validate_operator(operator)

    def wanted(self, cluster: ResolvedCluster) -> bool:
        """Where the cluster has GPU pools and the platform leaves the GPU stack to the Operator."""
        return bool(cluster.gpu_pools) and cluster.substrate.gpu_node_software(cluster).runs_gpu_operator

    def report(self, cluster: ResolvedCluster, handle: ClusterHandle) -> list[str]:
        """What runs on the GPU nodes, the Operator's or the platform's."""
        found = operands(cluster.substrate.gpu_node_software(cluster), bool(cluster.gpu_pools))
        return ["", "GPU software:", *(f"  {o.name}: {o.note}" for o in found)]

    def document(self, cluster: ResolvedCluster, handle: ClusterHandle) -> dict[str, Any]:
        found = operands(cluster.substrate.gpu_node_software(cluster), bool(cluster.gpu_pools))
        return {"gpuSoftware": [{"component": o.name, "runs": o.runs, "note": o.note} for o in found]}

    def build(self, ctx: BuildContext) -> Built:
        # Lazy: the component imports pulumi_kubernetes, which only building needs.
        from gpukit.components.addons.gpu_operator.component import GpuOperator, sharing_args

        cluster = ctx.cluster
        software = cluster.substrate.gpu_node_software(cluster)
        operator = GpuOperator(
            f"{ctx.name}-gpu-operator",
            {
                "chart_version": cluster.operator["chart_version"],
                "driver_preinstalled": software.driver_preinstalled,
                "toolkit_preinstalled": software.toolkit_preinstalled,
                "tolerations": tolerations_for(cluster.gpu_pools),  # type: ignore[typeddict-item]
                "controller_tolerations": tolerations_for(  # type: ignore[typeddict-item]
                    [p for p in cluster.pools if not p.is_gpu]
                ),
                "node_software_summary": software.summary,
                "toolkit_env": [{"name": k, "value": v} for k, v in software.toolkit_env],
                "priority_class_pods": critical_pod_quota(software, cluster.pools)
                if software.needs_priority_quota
                else 0,
                "sharing": [sharing_args(p.sharing) for p in cluster.gpu_pools],
                "extra_values": dict(ctx.asked),
            },
            opts=ctx.in_cluster(ctx.ready()),
        )
        return Built(ready=(operator,))


GPU_OPERATOR_ADDON = GpuOperatorAddon()
