"""The Cluster Autoscaler chart and image gpukit installs, and the flags every cluster shares (EKS, k3s on
EC2 and on Compute Engine). Pure: the per-cloud values (providers/aws/eks/autoscaler_values.py,
components/autoscaler/k3s_values.py) start from these."""

from collections.abc import Sequence
from typing import Any

IDLE_NODE_MINUTES = 10
"""How long a node the Cluster Autoscaler started stays once idle (unneeded, or unready as a mixed-MIG
node counts) before it is removed, as gpukit sets it; Karpenter's consolidateAfter is the same
(providers/aws/eks/karpenter_objects.py). What a check that starts nodes costs is counted with it."""

CHART = "cluster-autoscaler"
CHART_REPOSITORY = "https://kubernetes.github.io/autoscaler"
# Chart 9.59.0 (appVersion 1.35.0) is the newest released chart (kubernetes/autoscaler, 2026-08).
CHART_VERSION = "9.59.0"
RELEASE_NAME = "cluster-autoscaler"
NAMESPACE = "kube-system"
SERVICE_ACCOUNT = "cluster-autoscaler"

# The autoscaler's minor must match the cluster's ("Cross version compatibility is not tested or
# supported": AWS EKS best practices guide). Image tags per minor, from kubernetes/autoscaler
# releases: 1.34.2 (chart 9.53.0), 1.35.0 (charts 9.54.0 to 9.59.0), 1.36.1 (released 2026-07-23,
# no chart defaults to it yet, so gpukit sets the tag itself).
IMAGE_TAG_BY_MINOR = {"1.34": "v1.34.2", "1.35": "v1.35.0", "1.36": "v1.36.1"}

# The image index (multi-architecture manifest) digest of a tag, pinned where two independent
# projects publish the same one (read 2026-12): v1.35.0's in a Cluster API / OpenStack autoscaling
# record (image index digest, with its arm64 child sha256:22cacc1f...) and in an EKS stack's test of its
# rendered autoscaler Deployment. A tag can be moved; a digest cannot. registry.k8s.io could not be
# asked from where gpukit was built, and no second source was found for v1.34.2 or v1.36.1, which stay
# pinned by tag only (the chart takes `image.tag` verbatim into `repository:tag`, deployment.yaml at
# cluster-autoscaler-chart-9.59.0, so `tag@digest` makes a digest reference).
IMAGE_DIGEST_BY_TAG = {
    "v1.35.0": "sha256:2fc9433dd3b47baef0e68d6b1110b770a3c93db10c7bead4c5bc6cb21c72b875",
}


def image_tag(kubernetes_version: str) -> str:
    """The autoscaler image for a cluster's Kubernetes minor, as the chart's `image.tag`: the tag, and
    its digest where pinned ("1.35" -> "v1.35.0@sha256:2fc9...")."""
    tag = IMAGE_TAG_BY_MINOR[kubernetes_version]
    digest = IMAGE_DIGEST_BY_TAG.get(tag)
    return f"{tag}@{digest}" if digest else tag


# The autoscaler decides between groups that fit a pending pod by priority first (spot before
# on-demand), then by least waste among groups of the same priority (kubernetes/autoscaler
# cluster-autoscaler/expander/priority/readme.md; several expanders chain since 1.23, FAQ "What are
# Expanders?").
PRIORITY_EXPANDER = "priority,least-waste"
SPOT_PRIORITY = 20
OTHER_PRIORITY = 10


def scaling_args(expander: str = "least-waste") -> dict[str, Any]:
    """Flags every gpukit cluster's autoscaler runs with.

    - expander least-waste: between pools that fit a pending pod, pick the one that wastes the least
      CPU and memory, which keeps an idle 8-GPU node from being started for a 1-GPU pod.
    - balance-similar-node-groups: spread a scale-up over the per-zone groups of the same shape.
    - skip-nodes-with-system-pods=false: DaemonSet-like system pods (GPU Operator operands) must not
      pin an idle GPU node forever; scale-to-zero depends on it.
    - scale-down-unneeded-time 10m: the upstream default, stated so plans show it.
    - scale-down-unready-time 10m (upstream 20m): the autoscaler counts a node labelled as a GPU node
      that advertises no nvidia.com/gpu as unready (a mixed-MIG node offers nvidia.com/mig-* only), and
      removes unready nodes only after this delay; the same 10 minutes keep the verification's cost
      finding (components/addons/verification/findings.py) true for every pool (FAQ @1.35.0,
      `scale-down-unready-time`: "How long an unready node should be unneeded before it is eligible for
      scale down", 20m0s).
    """
    return {
        "expander": expander,
        "balance-similar-node-groups": True,
        "skip-nodes-with-system-pods": False,
        "scale-down-unneeded-time": f"{IDLE_NODE_MINUTES}m",
        "scale-down-unready-time": f"{IDLE_NODE_MINUTES}m",
    }


def priority_ranking(spot_patterns: Sequence[Any], others: int) -> dict[str, list[Any]]:
    """The priority expander's ranking: the spot groups' patterns above every other group, so a
    pending pod that fits both starts a spot machine, and an on-demand one once the spot group fails to
    get capacity (the autoscaler backs a group off after a failed scale-up: FAQ, "How does scale-up
    work?"). Empty unless there are spot groups and `others` groups besides (nothing to fall back to,
    or nothing to prefer). Patterns may be Pulumi inputs (EKS names its groups itself). Keys are strings
    (Helm values are JSON); the chart writes them as integers
    (templates/priority-expander-configmap.yaml: `{{ $k | int }}`)."""
    if not spot_patterns or not others:
        return {}
    return {str(SPOT_PRIORITY): list(spot_patterns), str(OTHER_PRIORITY): [".*"]}


def expander_values(ranking: dict[str, list[Any]]) -> dict[str, Any]:
    """The chart's `extraArgs`, with the priority expander and its `expanderPriorities` where there is
    a ranking (least waste then breaks ties within a rank), least waste alone otherwise."""
    if not ranking:
        return {"extraArgs": scaling_args()}
    return {"extraArgs": scaling_args(PRIORITY_EXPANDER), "expanderPriorities": ranking}
