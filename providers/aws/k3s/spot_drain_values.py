"""Helm values for aws-node-termination-handler (NTH) on k3s over EC2: spot that drains.

A spot GPU machine gets a two-minute interruption notice, and a rebalance recommendation (a raised
risk of one) earlier, in its instance metadata (IMDS). NTH in IMDS mode is a DaemonSet that polls
its own node's IMDS and, on a notice, cordons the node and drains it through the Kubernetes API.

Why IMDS mode and not queue mode (SQS + EventBridge rules + Auto Scaling lifecycle hooks): queue mode
is one Deployment that reads the queue and calls EC2 and Auto Scaling with AWS credentials. k3s has no
IRSA or Pod Identity, so those would be the instance role of the machines it runs on: a role that
reads SQS and completes lifecycle actions for every node of the cluster, on machines that give their
role up once joined (providers/aws/k3s/iam.py). IMDS mode needs no AWS credentials and no AWS
resources at all, and covers what spot pools meet: spot interruption notices, rebalance
recommendations, scheduled maintenance events. What it cannot see (an instance terminated through
the API) the kubelet's graceful node shutdown covers when EC2 powers the machine off.

Least privilege: NTH's ServiceAccount holds the chart's ClusterRole (nodes get/list/patch/update,
pods get/list, pods/eviction create, daemonsets get, events create when events are on): what
`kubectl drain` needs and no more. It runs in kube-system (hostNetwork, which Pod Security refuses in
other namespaces), only on nodes of spot pools (node affinity on gpukit.dev/pool), so no on-demand
node, server or other namespace holds its token; a GPU workload pod never mounts it (it is NTH's own
projected token). Host network is what lets it reach IMDS: gpukit's metadata guard drops pod-network
traffic to 169.254.169.254 and the launch templates keep the IMDSv2 hop limit at 1.

Pure: golden-tested, and every key is checked against the chart's values.yaml
(tests/reference/aws-node-termination-handler-0.27.6/).
"""

from collections.abc import Sequence
from typing import Any

from gpukit.components.findings import Finding, Severity
from gpukit.components.k3s.shutdown import DEFAULT_SHUTDOWN
from gpukit.components.pools import POOL_LABEL, PoolFacts
from gpukit.components.spec import Capacity
from gpukit.providers.aws.k3s.spot_notice import MARGIN_SECONDS

# Chart 0.27.6 / app 1.25.6 is the newest release (aws/aws-node-termination-handler tag v1.25.6,
# config/helm/aws-node-termination-handler/Chart.yaml); published only to public ECR as an OCI chart
# (the project README, "Helm").
CHART = "oci://public.ecr.aws/aws-ec2/helm/aws-node-termination-handler"
CHART_VERSION = "0.27.6"
IMAGE_REPOSITORY = "public.ecr.aws/aws-ec2/aws-node-termination-handler"
IMAGE_TAG = "v1.25.6"
"""The chart's own default (`v{appVersion}`), written out so a plan shows the exact image."""
RELEASE_NAME = "aws-node-termination-handler"
NAMESPACE = "kube-system"
# The chart's default: how long before the interruption NTH plans the drain to be over; EC2 gives
# two minutes (EC2 user guide, "Spot Instance interruption notices").
NODE_TERMINATION_GRACE_PERIOD_S = 120


def spot_pools(pools: Sequence[PoolFacts]) -> list[str]:
    """The names of the pools NTH runs on, in config order."""
    return [p.name for p in pools if p.capacity == Capacity.SPOT]


def termination_handler_values(spot_pool_names: Sequence[str]) -> dict[str, Any]:
    """Values for IMDS mode on the nodes of `spot_pool_names` only.

    - Spot interruption notice: cordon and drain (the chart's default, stated).
    - Rebalance recommendation: cordon and drain too. The Auto Scaling groups of spot pools have
      capacity rebalancing on (agent_pool.py), so the group starts a replacement at that signal and then
      terminates the at-risk instance ("After launching a new instance, it then terminates an old
      instance": Auto Scaling API, CapacityRebalance): the node goes either way, and its pods move
      while the replacement boots instead of in the last two minutes.
    - Scheduled maintenance events: drain before the window (the chart's default, stated).
    - Drain like `kubectl drain --ignore-daemonsets --delete-emptydir-data`; each pod keeps its own
      terminationGracePeriodSeconds (-1), within the two-minute notice.
    - Kubernetes events on the node, so `kubectl get events` says why a node drained.
    """
    return {
        "image": {"repository": IMAGE_REPOSITORY, "tag": IMAGE_TAG},
        "enableSqsTerminationDraining": False,  # IMDS mode: a DaemonSet, no queue, no AWS credentials
        "useHostNetwork": True,
        "enableSpotInterruptionDraining": True,
        "enableRebalanceMonitoring": True,
        "enableRebalanceDraining": True,
        "enableScheduledEventDraining": True,
        "ignoreDaemonSets": True,
        "deleteLocalData": True,
        "podTerminationGracePeriod": -1,
        "nodeTerminationGracePeriod": NODE_TERMINATION_GRACE_PERIOD_S,
        "emitKubernetesEvents": True,
        "rbac": {"create": True, "pspEnabled": False},  # PodSecurityPolicy is gone since Kubernetes 1.25
        "daemonsetAffinity": {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {
                            "matchExpressions": [
                                {"key": POOL_LABEL, "operator": "In", "values": list(spot_pool_names)}
                            ]
                        }
                    ]
                }
            }
        },
        # Every taint (GPU pools are tainted): the chart's default, stated because it matters here.
        "daemonsetTolerations": [{"operator": "Exists"}],
    }


def spot_drain_findings(pools: Sequence[PoolFacts]) -> list[Finding]:
    """What the plan says for each spot pool: what drains its nodes."""
    return [
        Finding(
            Severity.INFO,
            f"gpukit:nodePools[{i}].capacity",
            f"spot pool {pool.name!r} drains: aws-node-termination-handler {IMAGE_TAG} (IMDS mode, on this "
            "pool's nodes only) cordons and drains a node on its spot interruption notice (2 minutes ahead) "
            "or rebalance recommendation; on the notice, gpukit-spot-notice.service on the node powers it "
            f"off {DEFAULT_SHUTDOWN.grace_period_s + MARGIN_SECONDS} s before EC2's deadline, so the "
            f"kubelet's graceful shutdown ({DEFAULT_SHUTDOWN.grace_period_s} s) stops its pods even if the "
            "drain has not finished; the same shutdown covers a machine powered off without notice",
        )
        for i, pool in enumerate(pools)
        if pool.capacity == Capacity.SPOT
    ]
