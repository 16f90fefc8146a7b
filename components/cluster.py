"""GpuCluster: one typed description in, a GPU-ready Kubernetes cluster out, on any substrate."""

import contextvars
from typing import NotRequired, Optional, TypedDict

import pulumi

from gpukit.components.config.library import resolve_args
from gpukit.components.gpu_operator.component import GpuOperator, sharing_args
from gpukit.components.handle import ClusterHandle
from gpukit.components.pools import tolerations_for
from gpukit.components.resolved import ResolvedCluster
from gpukit.components.spec import (
    BudgetSpec,
    ClusterSpec,
    GpuOperatorSpec,
    NodePoolSpec,
    StorageSpec,
    WorkloadsSpec,
)
from gpukit.components.storage.built import BuiltVolume
from gpukit.components.storage.plan import planned_volumes
from gpukit.components.substrate import require_sdk

TYPE_TOKEN = "gpukit:index:GpuCluster"

# Set by `gpukit plan` while it runs a program: every GpuCluster the program declares is reported to
# it (its validated cluster is what the plan's pools, costs and preflight are computed from).
declared: contextvars.ContextVar[list["GpuCluster"] | None] = contextvars.ContextVar(
    "gpukit_declared_clusters", default=None
)


class PoolOutput(TypedDict):
    """One pool's scheduling facts, as the `pools` stack output shows them (plain values, known before
    deployment)."""

    name: str
    instanceType: str
    gpuModel: Optional[str]
    gpusPerNode: int
    minNodes: int
    maxNodes: int
    capacity: str
    labels: dict[str, str]
    taints: list[str]
    """`key=value:Effect`."""


class GpuClusterArgs(TypedDict):
    cluster: ClusterSpec
    node_pools: list[NodePoolSpec]
    gpu_operator: NotRequired[GpuOperatorSpec]
    """Default: chart v26.7.0, driver preinstalled."""
    workloads: NotRequired[WorkloadsSpec]
    budget: NotRequired[BudgetSpec]
    """A cost limit checked before anything is created (preflight error when the stack exceeds it)."""
    storage: NotRequired[StorageSpec]
    """Shared ReadWriteMany volumes (components/storage/): each a StorageClass `shared-<name>`."""
    ssh_private_key: NotRequired[pulumi.Input[str]]
    """provider ssh: the private key gpukit logs in to the hosts with (pass a secret Output)."""


class GpuCluster(pulumi.ComponentResource):
    """Network, control plane, node pools, then the GPU stack (GPU Operator, storage, autoscaler).

    Args go through the same parsing and validation as a stack file (enum values as plain strings are
    fine) before anything is registered: invalid args raise ConfigError listing every problem, each
    naming its stack config key, and leave no resource behind.
    """

    cluster_name: pulumi.Output[str]
    kubeconfig: pulumi.Output[str]
    """Secret."""
    pools: list[PoolOutput]
    """Per-pool scheduling facts (plain values, known before deployment)."""

    def __init__(self, name: str, args: GpuClusterArgs, opts: Optional[pulumi.ResourceOptions] = None):
        """Validate `args` as a stack file would be (ConfigError lists every problem; nothing is
        registered then), and build the cluster on the substrate its platform and provider name.

        `args` take the stack file's keys in snake_case; enum values may be plain strings ("eks",
        "spot"); `cluster.region` and `cluster.project` stand for the cloud's `aws:region`,
        `gcp:region` and `gcp:project`. MissingExtraError when the substrate's cloud SDK is not
        installed (pip install 'gpukit[aws]' or 'gpukit[gcp]').
        """
        self._declare(name, resolve_args(args), opts)

    @classmethod
    def from_resolved(
        cls, name: str, cluster: ResolvedCluster, opts: Optional[pulumi.ResourceOptions] = None
    ) -> "GpuCluster":
        """A cluster from a stack config gpukit already resolved (the program: validated once per run)."""
        instance = cls.__new__(cls)
        instance._declare(name, cluster, opts)
        return instance

    def _declare(self, name: str, cluster: ResolvedCluster, opts: Optional[pulumi.ResourceOptions]) -> None:
        require_sdk(cluster.substrate)
        super().__init__(TYPE_TOKEN, name, {}, opts)
        self.resolved = cluster
        substrate = cluster.substrate
        handle = substrate.build(name, cluster, self)

        software = substrate.gpu_node_software(cluster)
        if software.runs_gpu_operator and cluster.gpu_pools:
            GpuOperator(
                f"{name}-gpu-operator",
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
                    "priority_class_quota": software.needs_priority_quota,
                    "sharing": [sharing_args(p.sharing) for p in cluster.gpu_pools],
                },
                opts=pulumi.ResourceOptions(
                    parent=self,
                    providers={"kubernetes": handle.kubernetes},
                    depends_on=handle.system_ready,
                ),
            )

        self.shared_volumes = self._build_shared_storage(name, cluster, handle)

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
                "taints": [t.spec() for t in p.taints],
            }
            for p in cluster.pools
        ]
        self.storage = handle.storage_summary
        self.gpu_node_software = software
        self.register_outputs({"cluster_name": self.cluster_name, "kubeconfig": self.kubeconfig})
        found = declared.get()
        if found is not None:
            found.append(self)

    def _build_shared_storage(
        self, name: str, cluster: ResolvedCluster, handle: ClusterHandle
    ) -> list[BuiltVolume]:
        """The substrate's shared volumes; every planned one must come back built (validation refused
        kinds the substrate does not build, so a missing one is a substrate's bug, said here)."""
        volumes = planned_volumes(cluster)
        if not volumes:
            return []
        built = cluster.substrate.build_shared_storage(name, cluster, volumes, handle, self)
        missing = sorted({v.name for v in volumes} - {b.name for b in built})
        if missing:
            raise RuntimeError(
                f"substrate {cluster.substrate.name!r} built no shared volume {', '.join(missing)}"
            )
        return built
