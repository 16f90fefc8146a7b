"""How long a k3s node's kubelet holds a power-off back to stop its pods (graceful node shutdown).

The kubelet takes a systemd-logind delay inhibitor lock and, when the machine is told to power off
(a `systemctl poweroff`, or the ACPI soft-off a cloud sends before it takes a machine away), stops
the node's pods in two steps: regular pods first, critical pods (system-node-critical and
system-cluster-critical priority) in the last `critical_pods_s` seconds. During it the kubelet admits
no new pod, even one already bound to the node (kubernetes.io docs, "Node Shutdowns"), and reports
the node NotReady, so nothing new lands there. The kubelet raises logind's InhibitDelayMaxSec to the
period itself (KEP-2000, "Graceful Node Shutdown").
"""

from dataclasses import dataclass

from gpukit.components.k3s.host_scripts import (
    SHUTDOWN_GRACE_PERIOD_CRITICAL_PODS_S,
    SHUTDOWN_GRACE_PERIOD_S,
    kubelet_shutdown_config,
)


@dataclass(frozen=True)
class ShutdownWindow:
    grace_period_s: int
    """The whole time the kubelet holds the power-off back."""
    critical_pods_s: int
    """Its last part, kept for critical pods."""

    @property
    def regular_pods_s(self) -> int:
        """What a regular pod gets at most, whatever its terminationGracePeriodSeconds."""
        return self.grace_period_s - self.critical_pods_s

    def kubelet_config(self) -> str:
        """The kubelet drop-in install.sh writes (KUBELET_DROP_IN)."""
        return kubelet_shutdown_config(self.grace_period_s, self.critical_pods_s)

    def describe(self) -> str:
        return (
            f"{self.grace_period_s} s (regular pods {self.regular_pods_s} s, "
            f"then critical pods {self.critical_pods_s} s)"
        )


DEFAULT_SHUTDOWN = ShutdownWindow(SHUTDOWN_GRACE_PERIOD_S, SHUTDOWN_GRACE_PERIOD_CRITICAL_PODS_S)
"""Every k3s node unless its cloud gives its machines less time (providers/gcp/k3s/preemption.py)."""
