"""K3sPoolSync: the pools' labels and taints as a ConfigMap the servers' node sync reads
(components/k3s/scripts/node-sync.sh), so that a pool's changed labels or taints reach the nodes it
already has: k3s applies `node-label` and `node-taint` only when a node registers."""

from collections.abc import Sequence
from typing import Optional, TypedDict

import pulumi
import pulumi_kubernetes as k8s

from gpukit.components.pools import PoolFacts

TYPE_TOKEN = "gpukit:index:K3sPoolSync"
NAMESPACE = "kube-system"
NAME = "gpukit-pools"


def pool_sync_data(pools: Sequence[PoolFacts]) -> str:
    """One line per pool, "<pool><TAB><k=v,...><TAB><key=value:Effect,...>", in config order."""
    return "".join(
        "\t".join(
            (
                pool.name,
                ",".join(f"{k}={v}" for k, v in sorted(pool.labels.items())),
                ",".join(t.spec() for t in pool.taints),
            )
        )
        + "\n"
        for pool in pools
    )


class K3sPoolSyncArgs(TypedDict):
    pools: list[PoolFacts]
    """The cluster's pools (Python-only: built by the k3s backends)."""


class K3sPoolSync(pulumi.ComponentResource):
    """Pass the cluster's Kubernetes provider through `opts.providers`."""

    def __init__(self, name: str, args: K3sPoolSyncArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        k8s.core.v1.ConfigMap(
            f"{name}-pools",
            metadata={
                "name": NAME,
                "namespace": NAMESPACE,
                "labels": {"app.kubernetes.io/managed-by": "gpukit"},
            },
            data={"pools": pool_sync_data(args["pools"])},
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.register_outputs({})
