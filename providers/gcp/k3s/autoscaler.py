"""The Cluster Autoscaler of a k3s cluster on Compute Engine: its GCE provider over the agent pools'
zonal managed instance groups. Pure: unit-tested.

What the GCE provider needs, from kubernetes/autoscaler cloudprovider/gce:
- Zonal groups only: a group is named by `https://.../projects/<p>/zones/<zone>/instanceGroups/<name>`
  (gce_url.go ParseMigUrl wants `zones/`), given as `--nodes=<min>:<max>:<url>` (the chart's
  autoscalingGroups), so every group has its own bounds.
- A template node for a group at zero, built from the group's instance template
  (templates.go BuildNodeFromTemplate): CPU and memory from the machine type, nvidia.com/gpu from the
  template's guest accelerators, and from the template's `kube-env` metadata value (a YAML map) its
  AUTOSCALER_ENV_VARS (`;`-separated): `node_labels` and `node_taints` (`k=v,...`, taints
  `key=value:Effect`), `os`, `os_distribution`, `arch`, and `extended_resources` (`name=quantity,...`),
  which BuildCapacity applies last, so it also sets nvidia.com/gpu where the machine type brings its
  GPUs (G2: no guest accelerators in the template) or shares them (time-slicing replicas).
- Nodes matched to groups by provider ID `gce://<project>/<zone>/<instance>` (scripts/provider-id-gcp.sh).
- The GPU label `cloud.google.com/gke-accelerator` (utils/gpu/gpu.go GPULabel), on the nodes and in the
  template: a new GPU node whose device plugin has not yet advertised its GPUs counts as not ready,
  instead of as a node without GPUs that calls for one more machine.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import yaml

from gpukit.components.autoscaler.k3s_values import ScalingGroup, exact, k3s_autoscaler_values
from gpukit.components.catalog.instances import CpuArch
from gpukit.components.pools import GPU_RESOURCE, PoolFacts
from gpukit.components.spec import Capacity

GPU_LABEL = "cloud.google.com/gke-accelerator"
KUBE_ENV_KEY = "kube-env"
# Ubuntu and the Deep Learning VM images (Ubuntu based) are what gpukit's k3s machines boot
# (images.py); the GCE provider's default would be COS (templates.go OperatingSystemDistributionDefault).
OS_DISTRIBUTION = "ubuntu"
# The provider's names (templates.go ToSystemArchitecture: amd64, arm64).
KUBERNETES_ARCH = {CpuArch.X86_64: "amd64", CpuArch.ARM64: "arm64"}


def gpu_label(pool: PoolFacts) -> dict[str, str]:
    """`cloud.google.com/gke-accelerator=<accelerator type>` on a GPU pool's nodes; nothing elsewhere."""
    accelerator = pool.instance.accelerator_type
    if not pool.is_gpu or not accelerator:
        return {}
    return {GPU_LABEL: accelerator}


def kube_env(pool: PoolFacts) -> str:
    """The instance template's `kube-env` metadata: what the autoscaler's template node of the pool
    carries (labels, taints, what its GPUs advertise once shared as configured), nothing secret."""
    advertised = dict(pool.advertised_resources)
    if pool.is_gpu and GPU_RESOURCE not in advertised:
        # Mixed-strategy MIG nodes offer no nvidia.com/gpu: say 0, or the guest accelerators' count
        # would let a whole-GPU pod scale this pool up for a node that can never run it.
        advertised = {GPU_RESOURCE: 0, **advertised}
    variables = {
        "node_labels": ",".join(f"{k}={v}" for k, v in sorted(pool.labels.items())),
        "node_taints": ",".join(t.spec() for t in pool.taints),
        "os": "linux",
        "os_distribution": OS_DISTRIBUTION,
        "arch": KUBERNETES_ARCH[pool.instance.arch],
        "extended_resources": ",".join(f"{name}={count}" for name, count in advertised.items()),
    }
    autoscaler_vars = ";".join(f"{k}={v}" for k, v in variables.items() if v)
    return yaml.safe_dump({"AUTOSCALER_ENV_VARS": autoscaler_vars}, sort_keys=False)


@dataclass(frozen=True)
class ZoneGroup:
    """One zonal group of an agent pool."""

    zone: str
    name: str
    min_size: int
    max_size: int


def split_evenly(total: int, parts: int) -> list[int]:
    """`total` over `parts`, the first ones one larger: 4 over 3 -> [2, 1, 1]."""
    return [total // parts + (1 if i < total % parts else 0) for i in range(parts)]


def zone_groups(cluster_name: str, pool: PoolFacts, zones: Sequence[str]) -> list[ZoneGroup]:
    """A pool's groups, one per zone, its minNodes and maxNodes split evenly over them (a zone whose
    share of maxNodes is 0 gets no group), so the pool never runs more than maxNodes machines. The
    autoscaler balances scale-ups over groups of the same shape (balance-similar-node-groups), and a
    zone without capacity backs off while the others grow."""
    mins, maxes = split_evenly(pool.min_nodes, len(zones)), split_evenly(pool.max_nodes, len(zones))
    return [
        ZoneGroup(zone, f"{cluster_name}-{pool.name}-{zone.rsplit('-', 1)[-1]}", low, high)
        for zone, low, high in zip(zones, mins, maxes, strict=True)
        if high > 0
    ]


def gce_autoscaler_values(
    kubernetes_version: str, groups: Sequence[tuple[ZoneGroup, bool, str]]
) -> dict[str, Any]:
    """GCE provider, one `--nodes=<min>:<max>:<instance group URL>` per (group, spot, URL). Credentials:
    the servers' service account, from the metadata server (hostNetwork)."""
    cloud = {
        "cloudProvider": "gce",
        "autoscalingGroups": [
            {"name": url, "minSize": group.min_size, "maxSize": group.max_size} for group, _, url in groups
        ],
    }
    return k3s_autoscaler_values(
        cloud, kubernetes_version, [ScalingGroup(exact(group.name), spot) for group, spot, _ in groups]
    )


def is_spot(pool: PoolFacts) -> bool:
    return pool.capacity == Capacity.SPOT
