"""Helm values for the NVIDIA GPU Operator, derived from what the nodes already provide.

Every key set here exists in the chart's values.yaml at the pinned version (a test walks them against
tests/reference/gpu-operator-v26.7.0/values.yaml).
"""

from collections.abc import Sequence
from typing import Any

from gpukit.components.node_software import GpuNodeSoftware, Operand
from gpukit.components.pools import PoolFacts
from gpukit.components.sharing import (
    MIG_CONFIG_MAP_PREFIX,
    WHOLE_GPU_ENTRY,
    PoolSharing,
    cluster_mig_strategy,
    config_map_name,
    device_plugin_config,
    mig_parted_config,
)

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


def gpu_operator_values(
    software: GpuNodeSoftware,
    tolerations: list[dict[str, str]],
    controller_tolerations: list[dict[str, str]] | None = None,
    sharing: Sequence[PoolSharing] = (),
) -> dict[str, Any]:
    """Values for the gpu-operator chart.

    - driver/toolkit: off where the node image ships them (EKS AL2023/Bottlerocket NVIDIA AMIs do;
      AWS's own example values for that AMI set both to false).
    - toolkit.env: platform fixes (GKE 1.33+: RUNTIME_CONFIG_SOURCE=file, NVIDIA's GKE guide).
    - daemonsets.tolerations: the operands (device plugin, GFD, DCGM exporter, validator) must land on
      tainted GPU nodes, so they tolerate exactly the taints gpukit puts on its GPU pools.
    - node-feature-discovery.worker.tolerations: NFD labels the GPU nodes the operands select on.
    - operator / NFD master and gc tolerations, only where machines without GPUs are tainted (k3s
      servers while the cluster has agents): the controllers may run there, next to the chart's own
      control-plane toleration.
    - devicePlugin.config, mig.strategy, migManager.env: where a GPU pool shares its GPUs
      (`sharing`: the GPU pools' settings), see sharing_values.
    """
    toolkit: dict[str, Any] = {"enabled": not software.toolkit_preinstalled}
    if software.toolkit_env:
        toolkit["env"] = [{"name": k, "value": v} for k, v in software.toolkit_env]
    values: dict[str, Any] = {
        "driver": {"enabled": not software.driver_preinstalled},
        "toolkit": toolkit,
        "daemonsets": {"tolerations": [dict(t) for t in tolerations]},
        "node-feature-discovery": {
            "worker": {"tolerations": [dict(CONTROL_PLANE_TOLERATION), *(dict(t) for t in tolerations)]},
        },
    }
    if controller_tolerations:
        controllers = [dict(CONTROL_PLANE_TOLERATION), *(dict(t) for t in controller_tolerations)]
        values["operator"] = {"tolerations": controllers}
        nfd = values["node-feature-discovery"]
        nfd["master"] = {"tolerations": [dict(t) for t in controllers]}
        nfd["gc"] = {"tolerations": [dict(t) for t in controllers]}
    values.update(sharing_values(sharing))
    return values


def sharing_values(sharing: Sequence[PoolSharing]) -> dict[str, Any]:
    """The chart values that apply the GPU pools' sharing settings (nothing where no pool shares).

    - devicePlugin.config: the chart creates the ConfigMap (`create`, `data`; templates/plugin_config.yaml
      makes it when `data` is set), named after a hash of its content so a changed setting changes the
      ClusterPolicy's devicePlugin.config.name and the device plugin rolls out with it; nodes without a
      `nvidia.com/device-plugin.config` label take the whole-GPU entry.
    - mig.strategy: cluster-wide, `single` or `mixed` (the ClusterPolicy CRD's enum).
    - migManager.env WITH_REBOOT=true: on cloud VMs a MIG change may need a reboot to reset the GPU
      (GPU Operator gpu-operator-mig.rst, "on CSPs"); the MIG manager reboots only when it must.
    """
    if not any(s.shares for s in sharing):
        return {}
    data = device_plugin_config(sharing)
    values: dict[str, Any] = {
        "devicePlugin": {
            "config": {
                "create": True,
                "name": config_map_name(data),
                "default": WHOLE_GPU_ENTRY,
                "data": data,
            }
        }
    }
    strategy = cluster_mig_strategy(sharing)
    if strategy is not None:
        values["mig"] = {"strategy": strategy.value}
        mig_manager: dict[str, Any] = {"env": [{"name": "WITH_REBOOT", "value": "true"}]}
        custom = mig_parted_config(sharing)
        if custom is not None:
            # A layout that is no stock config: the chart creates gpukit's mig-parted ConfigMap, named
            # by its content like the device plugin's, and the MIG manager uses it instead of the
            # configs it generates per node (values.yaml, migManager.config).
            mig_manager["config"] = {
                "create": True,
                "name": config_map_name(custom, MIG_CONFIG_MAP_PREFIX),
                "default": "all-disabled",
                "data": custom,
            }
        values["migManager"] = mig_manager
    return values


def operands(software: GpuNodeSoftware, has_gpu_pools: bool = True) -> list[Operand]:
    """What runs on the GPU nodes, for the plan report. Without a GPU pool gpukit installs no GPU
    Operator (components/cluster.py), so nothing is claimed."""
    if not has_gpu_pools:
        return [
            Operand(
                "none",
                False,
                "no pool declares GPUs, so gpukit installs no GPU Operator, device plugin or driver; "
                "GPUs on any node stay unused by pods",
            )
        ]
    if not software.runs_gpu_operator:
        return list(software.platform_operands)
    return [
        Operand(
            "NVIDIA driver",
            True,
            f"preinstalled ({software.summary})"
            if software.driver_preinstalled
            else "driver container from the GPU Operator",
        ),
        Operand(
            "container toolkit",
            True,
            "preinstalled"
            if software.toolkit_preinstalled
            # The chart's default cdi.enabled: the device plugin hands GPUs over through CDI.
            else "GPU Operator daemonset; GPUs reach pods through CDI (no runtimeClassName needed)",
        ),
        Operand("device plugin", True, "GPU Operator daemonset, advertises nvidia.com/gpu"),
        Operand("GPU feature discovery", True, "GPU Operator daemonset, labels nvidia.com/gpu.product etc."),
        Operand(
            "DCGM exporter", True, "GPU Operator daemonset; GPU metrics on :9400/metrics of each GPU node"
        ),
        Operand(
            "MIG manager", True, "GPU Operator daemonset; idle until a node is labelled nvidia.com/mig.config"
        ),
        Operand("node feature discovery", True, "labels NVIDIA PCI devices so operands find GPU nodes"),
    ]


NFD = "node feature discovery"
VALIDATOR_PODS = 3
"""The operator-validator daemonset's pod on each GPU node, and the CUDA and device-plugin validation
pods it starts there (they count against a quota while they run)."""
ROLLOUT_PODS = 1
"""A daemonset update replaces a node's pod: the new one is admitted while the old one may still count."""
CONTROLLER_PODS = 4
"""The operator and NFD's master and garbage collector, one each, and one for a rollout of either."""


def gpu_node_pods(software: GpuNodeSoftware) -> int:
    """Operand pods the chart runs on each GPU node: the operands() this software runs as pods (a
    preinstalled driver or toolkit runs none; NFD's worker is on every node, counted apart), the
    validator's, and one for a rollout."""
    preinstalled = {
        "NVIDIA driver": software.driver_preinstalled,
        "container toolkit": software.toolkit_preinstalled,
    }
    pods = [o for o in operands(software) if o.runs and o.name != NFD and not preinstalled.get(o.name, False)]
    return len(pods) + VALIDATOR_PODS + ROLLOUT_PODS


def critical_pod_quota(software: GpuNodeSoftware, pools: Sequence[PoolFacts]) -> int:
    """The pods the GPU Operator's namespace runs at the critical priority classes with every pool at
    maxNodes (GKE admits such pods outside kube-system only under a quota that names them): the GPU
    nodes' operands, NFD's worker on every node, the controllers. Sized from the pools, never a constant:
    a fixed 100 left GPU nodes past the twelfth without driver or device plugin."""
    gpu_nodes = sum(p.max_nodes for p in pools if p.is_gpu)
    all_nodes = sum(p.max_nodes for p in pools)
    return gpu_nodes * gpu_node_pods(software) + all_nodes * (1 + ROLLOUT_PODS) + CONTROLLER_PODS
