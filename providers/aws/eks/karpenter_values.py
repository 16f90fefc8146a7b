"""Helm values for the Karpenter controller on EKS (charts karpenter-crd and karpenter, 1.14.1).

Sources (aws/karpenter-provider-aws at tag v1.14.1, vendored in tests/reference/karpenter-v1.14.1/):
- 1.14.1 is the newest release (website docs "KARPENTER_VERSION=1.14.1", 2026-08-21) and supports
  Kubernetes 1.30 to 1.36 (docs "Compatibility" matrix: 1.35 needs >= 1.9, 1.36 >= 1.13), so every EKS
  minor gpukit creates (1.34 to 1.36).
- The charts are published at oci://public.ecr.aws/karpenter/ (docs "Getting Started": `helm upgrade
  --install karpenter oci://public.ecr.aws/karpenter/karpenter --version ...`).
- CRDs through the separate karpenter-crd chart: Helm installs a chart's crds/ folder once and never
  upgrades it, so Karpenter recommends karpenter-crd to keep the CRDs in step with the controller
  (docs "Upgrade Guide", "CRD Upgrades"); the controller's release then skips its own copy.
- kube-system: the namespace the getting-started guide installs into.
"""

from collections.abc import Sequence
from typing import Any

from gpukit.components.pools import POOL_LABEL

CHART = "oci://public.ecr.aws/karpenter/karpenter"
CRD_CHART = "oci://public.ecr.aws/karpenter/karpenter-crd"
CHART_VERSION = "1.14.1"
RELEASE_NAME = "karpenter"
CRD_RELEASE_NAME = "karpenter-crd"
NAMESPACE = "kube-system"
SERVICE_ACCOUNT = "karpenter"
# The chart runs 2 replicas that must sit on different nodes (its default podAntiAffinity on
# kubernetes.io/hostname): with one system node the second would stay Pending.
MAX_REPLICAS = 2


def controller_replicas(system_nodes: int) -> int:
    return max(1, min(MAX_REPLICAS, system_nodes))


def karpenter_values(
    cluster_name: str, interruption_queue: str, system_pools: Sequence[str], system_nodes: int
) -> dict[str, Any]:
    """The controller on the system pools (never on a node it manages), reading the interruption queue.

    - settings.clusterName / interruptionQueue: the cluster it launches nodes for (its endpoint it reads
      with eks:DescribeCluster) and the SQS queue EventBridge sends interruption events to.
    - affinity: the chart's own rules (not on Karpenter nodes, one replica per node) plus gpukit's
      system pools, so the controller lands on the managed node groups that outlive every NodePool.
    """
    return {
        "settings": {"clusterName": cluster_name, "interruptionQueue": interruption_queue},
        "serviceAccount": {"create": True, "name": SERVICE_ACCOUNT},
        "replicas": controller_replicas(system_nodes),
        "affinity": {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {
                            "matchExpressions": [
                                {"key": "karpenter.sh/nodepool", "operator": "DoesNotExist"},
                                {"key": POOL_LABEL, "operator": "In", "values": list(system_pools)},
                            ]
                        }
                    ]
                }
            },
            "podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": "kubernetes.io/hostname"}]
            },
        },
    }
