"""What `cluster.autoscaler: karpenter` (the EKS default) asks of the pools.

Karpenter launches nodes for pending pods and removes empty ones; it keeps no floor of nodes (a
NodePool has `limits`, a ceiling, and no minimum: Karpenter docs, "NodePools"). So:
- a GPU pool (a Karpenter NodePool) must have `minNodes: 0`;
- a pool without GPUs stays a managed node group (the system pool hosts Karpenter itself, which must not
  run on nodes it manages: Karpenter docs, "Getting Started", controller on a managed node group), and
  with Karpenter nothing scales it: it must be of fixed size (`minNodes` = `maxNodes`);
- MIG with `strategy: mixed` is refused: its nodes offer `nvidia.com/mig-<profile>`, which no EC2
  instance type lists, so Karpenter would never launch a node for such a pod (and would launch one for
  a whole-GPU pod the node can never run);
- (Bottlerocket GPU pools run on a pinned `bottlerocket@<version>` alias: eks/karpenter_objects.py.)
Each refusal names the key and the way out (`cluster.autoscaler: cluster-autoscaler`).
"""

from gpukit.components.catalog.instances import UnknownInstanceTypeError
from gpukit.components.errors import Problem
from gpukit.components.spec import Autoscaler, ClusterSpec, MigStrategy, NodePoolSpec, SharingMode
from gpukit.components.validate.common import CLUSTER, POOLS
from gpukit.providers.aws.catalog import AWS_CATALOG

_ESCAPE = f"or set {CLUSTER}.autoscaler: cluster-autoscaler (managed node groups)"


def uses_karpenter(cluster: ClusterSpec) -> bool:
    return cluster.get("autoscaler", Autoscaler.KARPENTER) is Autoscaler.KARPENTER


def validate_karpenter_pools(
    cluster: ClusterSpec, pools: list[NodePoolSpec], problems: list[Problem]
) -> None:
    if not uses_karpenter(cluster):
        return
    for i, pool in enumerate(pools):
        try:
            gpu = AWS_CATALOG.pool_instance(pool["instance_type"], pool.get("gpu")).has_gpu
        except UnknownInstanceTypeError:
            continue  # reported by the catalog check
        low, high = pool["min_nodes"], pool["max_nodes"]
        if gpu and low > 0:
            problems.append(
                Problem(
                    f"{POOLS}[{i}].minNodes",
                    "Karpenter (the default autoscaler on EKS) keeps no minimum of nodes: a GPU pool is a "
                    f"NodePool that starts at 0; set minNodes: 0, {_ESCAPE}; got {low}",
                )
            )
        sharing = pool.get("sharing")
        if (
            gpu
            and sharing is not None
            and sharing["mode"] is SharingMode.MIG
            and sharing.get("mig", {}).get("strategy") is MigStrategy.MIXED
        ):
            problems.append(
                Problem(
                    f"{POOLS}[{i}].sharing.mig.strategy",
                    "Karpenter launches nodes for what EC2 instance types offer (nvidia.com/gpu), never for "
                    "nvidia.com/mig-<profile>, so a mixed-MIG pool could not scale from zero; use strategy "
                    f"single, {_ESCAPE}; got mixed",
                )
            )
        if not gpu and low != high:
            problems.append(
                Problem(
                    f"{POOLS}[{i}].maxNodes",
                    "with Karpenter, a pool without GPUs is a managed node group that nothing scales "
                    f"(Karpenter scales the GPU pools only): set maxNodes to minNodes ({low}), {_ESCAPE}; "
                    f"got {high}",
                )
            )
