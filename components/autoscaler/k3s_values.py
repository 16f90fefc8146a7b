"""Helm values for the Cluster Autoscaler on k3s servers, whatever the cloud (the cloud's own part:
providers/aws/k3s/autoscaler.py, providers/gcp/k3s/autoscaler.py). Pure: unit-tested and golden.

Where it runs, and with what identity: on the servers (the only machines that are always there: agent
pools may all be at zero), in the host's network, so that it reaches the cloud's metadata service and
takes the server machine's own identity (EC2 instance profile, GCE service account), scoped to the
cluster's groups. Pods in the pod network cannot: the metadata guard drops their traffic to it
(components/k3s/scripts/metadata-guard.sh), and on EC2 the one-hop IMDSv2 limit as well. A
host-network pod can only run in the namespaces Pod Security exempts (kube-system) or labels
privileged (gpu-operator), and only those may tolerate the servers' taint (host_scripts.server_policy).
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gpukit.components.autoscaler.chart import SERVICE_ACCOUNT, expander_values, image_tag, priority_ranking
from gpukit.components.pools import SERVER_TAINT

# k3s labels its servers `node-role.kubernetes.io/control-plane=true` (k3s-io/k3s
# pkg/nodeconfig; the label the node sync already selects servers by: node-sync.sh).
SERVER_SELECTOR = {"node-role.kubernetes.io/control-plane": "true"}


def server_placement() -> dict[str, Any]:
    """Pod placement on the servers: their label, and a toleration of their CriticalAddonsOnly taint."""
    return {
        "nodeSelector": dict(SERVER_SELECTOR),
        "tolerations": [
            {"key": SERVER_TAINT.key, "operator": "Exists", "effect": SERVER_TAINT.effect},
            {"key": "node-role.kubernetes.io/control-plane", "operator": "Exists", "effect": "NoSchedule"},
        ],
    }


@dataclass(frozen=True)
class ScalingGroup:
    """One group the autoscaler owns, as the priority expander names it."""

    name_pattern: str
    """A regex that matches the group's id and no other group's, searched anywhere in the id as the
    priority expander does (so anchored)."""
    spot: bool


def expander_priorities(groups: Sequence[ScalingGroup]) -> dict[str, list[str]]:
    """The priority expander's ranking of these groups (chart.py priority_ranking): spot groups first."""
    return priority_ranking([g.name_pattern for g in groups if g.spot], sum(1 for g in groups if not g.spot))


def exact(name: str) -> str:
    """A regex for one group whose id ends in its name. The priority expander looks for a pattern
    anywhere in a group's id (kubernetes/autoscaler cluster-autoscaler/expander/priority/priority.go,
    groupIDMatchesList: `FindStringIndex`), so an unanchored `k3s-gcp-l4-b` would also match pool
    `l4-b`'s group `k3s-gcp-l4-b-a`; the GCE id is the group's URL, so the name starts after a `/`."""
    return f"(^|/){re.escape(name)}$"


def k3s_autoscaler_values(
    cloud_values: dict[str, Any], kubernetes_version: str, groups: Sequence[ScalingGroup]
) -> dict[str, Any]:
    """Chart values: the cloud's part (cloudProvider, its groups) plus what every k3s cluster shares."""
    return {
        **cloud_values,
        "rbac": {"serviceAccount": {"create": True, "name": SERVICE_ACCOUNT}},
        "image": {"tag": image_tag(kubernetes_version)},
        # The machine's identity comes from the metadata service, reachable from the host's network
        # only; the API server is reached by its service address, so no cluster DNS is needed.
        "hostNetwork": True,
        "dnsPolicy": "Default",
        **server_placement(),
        **expander_values(expander_priorities(groups)),
    }
