"""GpuCluster: one typed description in, a GPU-ready Kubernetes cluster out, on any substrate."""

import contextvars
from typing import Any, NotRequired, Optional, TypedDict, cast

import pulumi

from gpukit.components.addons.build import addon_pool_output, build_addons
from gpukit.components.resolve.library import resolve_args
from gpukit.components.spec import ClusterConfig
from gpukit.components.substrate import ResolvedCluster, require_sdk

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
    interconnect: Optional[dict[str, Any]]
    """Added by the interconnect add-on (its `pool_output`, as any add-on may add keys): a pool with a
    fast fabric, its kind, interfaces and bandwidth and what a pod per node requests and sets to use
    it; None on the ordinary network."""


class GpuClusterArgs(ClusterConfig):
    """Every `gpukit:` section of a stack file, in snake_case (components/spec.py ClusterConfig), and the
    SSH key as a Pulumi input."""

    ssh_private_key: NotRequired[pulumi.Input[str]]
    """provider ssh: the private key gpukit logs in to the hosts with (pass a secret Output)."""


class GpuCluster(pulumi.ComponentResource):
    """Network, control plane and node pools (the substrate's), then each add-on the cluster wants, in
    install order (components/addons/registry.py: the GPU Operator, verification, shared storage).

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
        handle = cluster.substrate.build(name, cluster, self)
        self.handle = handle
        """What the substrate built: the plan report reads its facts (components/addons/base.py)."""
        self.addons = build_addons(name, cluster, handle, self)
        """What each wanted add-on built, by name (components/addons/registry.py), in install order."""

        self.cluster_name = handle.name
        self.kubeconfig = handle.kubeconfig
        self.pools = [
            cast(
                PoolOutput,
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
                    **addon_pool_output(cluster, p),
                },
            )
            for p in cluster.pools
        ]
        self.register_outputs({"cluster_name": self.cluster_name, "kubeconfig": self.kubeconfig})
        found = declared.get()
        if found is not None:
            found.append(self)
