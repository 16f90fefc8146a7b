"""GpuCluster: one typed description in, a GPU-ready Kubernetes cluster out, on any substrate."""

import importlib
from typing import Any, NotRequired, Optional, TypedDict

import pulumi

from gpukit.components.errors import ConfigError
from gpukit.components.gpu_operator.component import GpuOperator
from gpukit.components.pools import cluster_pool_facts, tolerations_for
from gpukit.components.spec import (
    ClusterSpec,
    GpuOperatorSpec,
    NodePoolSpec,
    Platform,
    Provider,
    WorkloadsSpec,
    cloud_of,
)
from gpukit.components.substrate import ClusterHandle
from gpukit.components.validate.cluster import validate_cluster_args

TYPE_TOKEN = "gpukit:index:GpuCluster"

# Backends are imported only when a stack uses them, so an EKS stack never pays for (or needs)
# pulumi_gcp, and a GKE stack never imports pulumi_aws.
BACKENDS: dict[tuple[Platform, Provider], str] = {
    (Platform.EKS, Provider.AWS): "gpukit.providers.aws.eks.cluster:build_eks",
    (Platform.GKE, Provider.GCP): "gpukit.providers.gcp.gke.cluster:build_gke",
    (Platform.K3S, Provider.SSH): "gpukit.providers.ssh.k3s.cluster:build_k3s_ssh",
    (Platform.K3S, Provider.AWS): "gpukit.providers.aws.k3s.cluster:build_k3s_ec2",
    (Platform.K3S, Provider.GCP): "gpukit.providers.gcp.k3s.cluster:build_k3s_gce",
}


def load_backend(cluster: ClusterSpec) -> Any:
    module, _, attr = BACKENDS[(cluster["platform"], cloud_of(cluster))].partition(":")
    return getattr(importlib.import_module(module), attr)


class GpuClusterArgs(TypedDict):
    cluster: ClusterSpec
    node_pools: list[NodePoolSpec]
    gpu_operator: GpuOperatorSpec
    workloads: NotRequired[WorkloadsSpec]
    ssh_private_key: NotRequired[pulumi.Input[str]]
    """provider ssh: the private key gpukit logs in to the hosts with (pass a secret Output)."""


class GpuCluster(pulumi.ComponentResource):
    """Network, control plane, node pools, then the GPU stack (GPU Operator, storage, autoscaler).

    Args are validated before anything is registered: invalid args raise ConfigError listing every
    problem, each naming its stack config key, and leave no resource behind.
    """

    cluster_name: pulumi.Output[str]
    kubeconfig: pulumi.Output[str]
    """Secret."""
    pools: list[dict[str, Any]]
    """Per-pool scheduling facts (plain values, known before deployment)."""

    def __init__(self, name: str, args: GpuClusterArgs, opts: Optional[pulumi.ResourceOptions] = None):
        problems = validate_cluster_args(args)
        if problems:
            raise ConfigError(problems)
        super().__init__(TYPE_TOKEN, name, {}, opts)

        facts = cluster_pool_facts(args)
        handle: ClusterHandle = load_backend(args["cluster"])(name, args, self)

        software = handle.gpu_node_software
        if software.runs_gpu_operator and any(p.is_gpu for p in facts):
            GpuOperator(
                f"{name}-gpu-operator",
                {
                    "chart_version": args["gpu_operator"]["chart_version"],
                    "driver_preinstalled": software.driver_preinstalled,
                    "toolkit_preinstalled": software.toolkit_preinstalled,
                    "tolerations": tolerations_for(facts),  # type: ignore[typeddict-item]
                    "node_software_summary": software.summary,
                    "toolkit_env": [{"name": k, "value": v} for k, v in software.toolkit_env],
                    "priority_class_quota": software.needs_priority_quota,
                },
                opts=pulumi.ResourceOptions(
                    parent=self,
                    providers={"kubernetes": handle.kubernetes},
                    depends_on=handle.system_ready,
                ),
            )

        self.cluster_name = handle.name
        self.kubeconfig = handle.kubeconfig
        self.pools = [
            {
                "name": p.name,
                "instanceType": p.instance.name,
                "gpuModel": p.gpu.name if p.gpu else None,
                "gpusPerNode": p.gpus_per_node,
                "minNodes": p.min_nodes,
                "maxNodes": p.max_nodes,
                "capacity": p.capacity.value,
                "labels": dict(p.labels),
                "taints": [f"{t.key}={t.value}:{t.effect}" for t in p.taints],
            }
            for p in facts
        ]
        self.storage = handle.storage_summary
        self.gpu_node_software = software
        self.register_outputs({"cluster_name": self.cluster_name, "kubeconfig": self.kubeconfig})
