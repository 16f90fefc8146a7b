"""Helm values for the NVIDIA GPU Operator, derived from what the nodes already provide.

Every key set here exists in the chart's values.yaml at the pinned version (a test walks them against
../shared/reference/gpu-operator-v26.7.0/values.yaml).
"""

from dataclasses import dataclass
from typing import Any

CHART = "gpu-operator"
CHART_REPOSITORY = "https://helm.ngc.nvidia.com/nvidia"
RELEASE_NAME = "gpu-operator"
NAMESPACE = "gpu-operator"

# The chart's own default for NFD workers; setting the list replaces it, so it is kept.
CONTROL_PLANE_TOLERATION = {
    "key": "node-role.kubernetes.io/control-plane",
    "operator": "Equal",
    "value": "",
    "effect": "NoSchedule",
}


@dataclass(frozen=True)
class GpuNodeSoftware:
    """What a platform's GPU node images ship, which decides the Operator's operands."""

    driver_preinstalled: bool
    toolkit_preinstalled: bool
    summary: str
    """One line for the plan: which image ships what."""


def gpu_operator_values(software: GpuNodeSoftware, tolerations: list[dict[str, str]]) -> dict[str, Any]:
    """Values for the gpu-operator chart.

    - driver/toolkit: off where the node image ships them (EKS AL2023/Bottlerocket NVIDIA AMIs do;
      AWS's own example values for that AMI set both to false).
    - daemonsets.tolerations: the operands (device plugin, GFD, DCGM exporter, validator) must land on
      tainted GPU nodes, so they tolerate exactly the taints gpukit puts on its GPU pools.
    - node-feature-discovery.worker.tolerations: NFD labels the GPU nodes the operands select on.
    """
    return {
        "driver": {"enabled": not software.driver_preinstalled},
        "toolkit": {"enabled": not software.toolkit_preinstalled},
        "daemonsets": {"tolerations": [dict(t) for t in tolerations]},
        "node-feature-discovery": {
            "worker": {"tolerations": [dict(CONTROL_PLANE_TOLERATION), *(dict(t) for t in tolerations)]},
        },
    }


@dataclass(frozen=True)
class Operand:
    name: str
    runs: bool
    note: str


def operands(values: dict[str, Any], software: GpuNodeSoftware) -> list[Operand]:
    """What runs on the GPU nodes with these values, for the plan report."""
    driver = values["driver"]["enabled"]
    toolkit = values["toolkit"]["enabled"]
    return [
        Operand(
            "NVIDIA driver",
            True,
            "driver container from the Operator" if driver else f"node image ({software.summary})",
        ),
        Operand("container toolkit", True, "Operator daemonset" if toolkit else "node image"),
        Operand("device plugin", True, "Operator daemonset, advertises nvidia.com/gpu"),
        Operand("GPU feature discovery", True, "Operator daemonset, labels nvidia.com/gpu.product etc."),
        Operand("DCGM exporter", True, "Operator daemonset; GPU metrics on :9400/metrics of each GPU node"),
        Operand(
            "MIG manager", True, "Operator daemonset; idle until a node is labelled nvidia.com/mig.config"
        ),
        Operand("node feature discovery", True, "labels NVIDIA PCI devices so operands find GPU nodes"),
    ]
