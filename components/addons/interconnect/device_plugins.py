"""The device plugin that advertises a fabric's devices to pods, per fabric kind: a pinned chart and its
values, pure (the release is component.py's).

EFA: AWS's chart aws-efa-k8s-device-plugin v0.5.30 (image v0.5.20) from https://aws.github.io/eks-charts
(aws/eks-charts@5239609242f3, 2026-08-03, the newest in the snapshot read; vendored in
tests/reference/aws-efa-k8s-device-plugin-v0.5.30/), the install the EKS user guide gives
(device-management-efa: `helm install efa eks/aws-efa-k8s-device-plugin -n kube-system`). It advertises
`vpc.amazonaws.com/efa`, one device per EFA interface, each given to one pod. Why these values:
- `supportedInstanceLabels`: the chart's node affinity is `<key> In <values>` over these; its default
  is the instance-type label against the EFA-capable types. gpukit selects on its own label on the
  pools it attaches EFA to (components/pools.py FABRIC_LABEL), so the plugin runs exactly where EFA
  interfaces are, whichever label rewriting the platform does (k3s sets the instance-type label to
  `k3s`: k3s-io/k3s#3933).
- `tolerations`: the fabric pools' taints (the GPU taint), so the plugin runs on tainted GPU nodes; the
  chart adds CriticalAddonsOnly itself and runs at system-node-critical priority.
The GPU Operator v26.7.0's device plugin is v0.20.0, past the v0.19.0-only default that mounted every
/dev/infiniband device into GPU containers and clashed with EFA (NVIDIA/k8s-device-plugin#1692, fixed
in v0.19.3; EKS user guide, device-management-efa).
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gpukit.components.catalog.fabrics import FabricKind
from gpukit.components.pools import FABRIC_LABEL, PoolFacts


@dataclass(frozen=True)
class DevicePluginChart:
    kind: FabricKind
    repository: str
    chart: str
    version: str
    release: str
    namespace: str
    resource: str
    """The extended resource it advertises."""


EFA_DEVICE_PLUGIN = DevicePluginChart(
    kind=FabricKind.EFA,
    repository="https://aws.github.io/eks-charts",
    chart="aws-efa-k8s-device-plugin",
    version="v0.5.30",
    release="aws-efa-k8s-device-plugin",
    namespace="kube-system",
    resource="vpc.amazonaws.com/efa",
)
DEVICE_PLUGINS: dict[FabricKind, DevicePluginChart] = {EFA_DEVICE_PLUGIN.kind: EFA_DEVICE_PLUGIN}


def device_plugin_values(kind: FabricKind, pools: Sequence[PoolFacts]) -> dict[str, Any]:
    """The plugin's values for the pools with a fabric of `kind`: it runs on their nodes only."""
    fabric_pools = [p for p in pools if p.fabric is not None and p.fabric.kind is kind]
    tolerations = {t.key + t.effect: t.toleration() for p in fabric_pools for t in p.taints}
    return {
        "supportedInstanceLabels": {"keys": [FABRIC_LABEL], "values": [kind.value]},
        "tolerations": list(tolerations.values()),
    }
