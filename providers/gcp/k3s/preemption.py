"""Spot VMs on Compute Engine: the preemption notice drains the node within the shutdown window.

Compute Engine preempts a Spot VM with an ACPI G2 soft off and powers it off (ACPI G3) 30 seconds
later (Compute Engine API v1, `Scheduling.skipGuestOsShutdown`: "120 seconds between GCE ACPI G2 Soft
Off and ACPI G3 Mechanical Off for Standard VMs and 30 seconds for Spot VMs"). The soft off is a
power-off request to systemd-logind, so the kubelet's graceful node shutdown runs (components/k3s/
shutdown.py): it admits no new pod, reports the node NotReady and stops the node's pods, and all of
it must fit in those 30 seconds. GKE does the same for its own Spot nodes: 30 s, the first 15 s for
pods and the last 15 s for critical system pods (GKE docs, concepts/spot-vms, "Termination and
graceful shutdown of Spot VMs"); gpukit's k3s nodes take GKE's split. Google's own node termination
handler for GCE is deprecated in favour of exactly this (GoogleCloudPlatform/k8s-node-termination-
handler README: "As of Kubernetes 1.20, Graceful Node Shutdown replaces the need for GCP Node
termination handler"), so no watcher or API credentials are added to the node.

On-demand machines keep the default window: Compute Engine gives a Standard VM 120 s.
"""

from collections.abc import Sequence
from dataclasses import replace

from gpukit.components.findings import Finding, Severity
from gpukit.components.k3s.cloud_init import CloudNode
from gpukit.components.k3s.shutdown import ShutdownWindow
from gpukit.components.pools import PoolFacts
from gpukit.components.spec import Capacity

SPOT_SOFT_OFF_SECONDS = 30
"""Between the preemption's ACPI soft off and the power-off (Compute Engine API, above)."""
SPOT_SHUTDOWN = ShutdownWindow(grace_period_s=30, critical_pods_s=15)
"""GKE's split of the same window (GKE docs, above)."""


def preemption_ready(node: CloudNode, pool: PoolFacts) -> CloudNode:
    """What a machine of `pool` runs: a spot pool's kubelet stops its pods within the window."""
    return replace(node, shutdown=SPOT_SHUTDOWN) if pool.capacity == Capacity.SPOT else node


def preemption_findings(pools: Sequence[PoolFacts]) -> list[Finding]:
    """What the plan says for each spot pool: what drains its nodes."""
    return [
        Finding(
            Severity.INFO,
            f"gpukit:nodePools[{i}].capacity",
            f"spot pool {pool.name!r} drains: on a preemption notice Compute Engine powers the VM off "
            f"{SPOT_SOFT_OFF_SECONDS} s later; the kubelet's graceful node shutdown takes no new pod, marks "
            f"the node NotReady and stops its pods within {SPOT_SHUTDOWN.describe()}",
        )
        for i, pool in enumerate(pools)
        if pool.capacity == Capacity.SPOT
    ]
