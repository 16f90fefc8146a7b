"""Node pools as facts: what each pool is, and the scheduling facts derived from it.

Pure: the providers turn these into node groups, the GPU Operator takes its tolerations from them,
and `gpukit plan` prints them. Labels and taints are decided here once, so a GPU pod's toleration,
the node's taint and the autoscaler's scale-from-zero template can never disagree.
"""

from dataclasses import dataclass, field
from typing import Any

from gpukit.components.catalog.clouds import pool_instance
from gpukit.components.catalog.gpus import GpuModel
from gpukit.components.catalog.instances import InstanceType
from gpukit.components.spec import Capacity, NodeImage, NodePoolSpec, NodeRole, Provider, cloud_of

GPU_RESOURCE = "nvidia.com/gpu"
GPU_TAINT_KEY = "nvidia.com/gpu"
GPU_TAINT_VALUE = "true"
POOL_LABEL = "gpukit.dev/pool"
GPU_MODEL_LABEL = "gpukit.dev/gpu-model"
GPU_PRESENT_LABEL = "nvidia.com/gpu.present"

DEFAULT_GPU_DISK_GB = 100  # CUDA images are large: 20 GiB fills with one PyTorch image
DEFAULT_CPU_DISK_GB = 50


@dataclass(frozen=True)
class Taint:
    key: str
    value: str
    effect: str
    """Kubernetes spelling: NoSchedule, PreferNoSchedule, NoExecute."""

    def toleration(self) -> dict[str, str]:
        """The toleration that admits pods onto nodes with this taint (any value)."""
        return {"key": self.key, "operator": "Exists", "effect": self.effect}


GPU_TAINT = Taint(GPU_TAINT_KEY, GPU_TAINT_VALUE, "NoSchedule")
# GKE taints GPU nodes nvidia.com/gpu=present:NoSchedule itself; declaring the same value keeps the
# node pool free of drift. Tolerations match any value, so pods are unaffected.
GPU_TAINT_VALUES = {Provider.GCP: "present"}


@dataclass(frozen=True)
class PoolFacts:
    name: str
    instance: InstanceType
    min_nodes: int
    max_nodes: int
    capacity: Capacity
    node_image: NodeImage
    disk_size_gb: int
    labels: dict[str, str] = field(default_factory=dict)
    taints: tuple[Taint, ...] = ()
    zones: tuple[str, ...] = ()
    """Zones the pool was pinned to in config (empty: the provider decides)."""
    role: NodeRole = NodeRole.AGENT
    """k3s: servers run the control plane (and workloads); other platforms have agents only."""
    alternative_instances: tuple[InstanceType, ...] = ()
    """k3s on aws: more instance types the pool's group may launch (same GPUs per node)."""

    @property
    def is_gpu(self) -> bool:
        return self.instance.has_gpu

    @property
    def gpu(self) -> GpuModel | None:
        return self.instance.gpu

    @property
    def gpus_per_node(self) -> int:
        return self.instance.gpu_count

    @property
    def gpus_at_max(self) -> int:
        return self.gpus_per_node * self.max_nodes

    @property
    def gpu_memory_gb_per_node(self) -> int:
        gpu = self.gpu
        return gpu.memory_gb * self.gpus_per_node if gpu else 0


OWN_HOSTS_NOTE = "your own hosts: no cloud list price"


def host_instance(pool: NodePoolSpec) -> InstanceType:
    """The machine shape of an SSH host pool: only its declared GPUs are known."""
    gpu = pool.get("gpu")
    if gpu is None:
        return InstanceType("ssh-host", 0, 0, None, price_note=OWN_HOSTS_NOTE)
    return InstanceType(
        f"ssh-host {gpu['count']}x{gpu['model']}",
        0,
        0,
        None,
        gpu["model"],
        gpu["count"],
        price_note=OWN_HOSTS_NOTE,
    )


def pool_facts(pool: NodePoolSpec, cloud: Provider) -> PoolFacts:
    """Facts for one validated pool spec on `cloud`."""
    hosts = pool.get("hosts")
    if hosts is not None:
        instance = host_instance(pool)
        min_nodes = max_nodes = len(hosts)
    else:
        instance = pool_instance(cloud, pool["instance_type"], pool.get("gpu"))
        min_nodes, max_nodes = pool["min_nodes"], pool["max_nodes"]
    labels = {POOL_LABEL: pool["name"]}
    taints: tuple[Taint, ...] = ()
    if instance.has_gpu:
        gpu = instance.gpu
        assert gpu is not None
        labels[GPU_MODEL_LABEL] = gpu.name
        labels[GPU_PRESENT_LABEL] = "true"
        taints = (Taint(GPU_TAINT_KEY, GPU_TAINT_VALUES.get(cloud, GPU_TAINT_VALUE), "NoSchedule"),)
    default_disk = DEFAULT_GPU_DISK_GB if instance.has_gpu else DEFAULT_CPU_DISK_GB
    return PoolFacts(
        name=pool["name"],
        instance=instance,
        min_nodes=min_nodes,
        max_nodes=max_nodes,
        capacity=pool.get("capacity", Capacity.ON_DEMAND),
        node_image=pool.get("node_image", NodeImage.AL2023),
        disk_size_gb=pool.get("disk_size_gb", default_disk),
        labels=labels,
        taints=taints,
        zones=tuple(pool.get("zones", ())),
        role=pool.get("role", NodeRole.AGENT),
        alternative_instances=tuple(
            pool_instance(cloud, name, pool.get("gpu")) for name in pool.get("alternative_instance_types", [])
        ),
    )


def cluster_pool_facts(args: Any) -> list[PoolFacts]:
    """Facts for every pool of validated GpuClusterArgs, in config order."""
    cloud = cloud_of(args["cluster"])
    return [pool_facts(p, cloud) for p in args["node_pools"]]


def tolerations_for(pools: list[PoolFacts]) -> list[dict[str, str]]:
    """Tolerations for the pools' taints, once each, in pool order: what GPU daemonsets need."""
    seen: dict[tuple[str, str], dict[str, str]] = {}
    for pool in pools:
        for taint in pool.taints:
            seen.setdefault((taint.key, taint.effect), taint.toleration())
    return list(seen.values())


def autoscaler_discovery_tags(cluster_name: str) -> dict[str, str]:
    """The tags Cluster Autoscaler auto-discovery looks for, with the exact values gpukit's IAM
    condition requires (`enabled`=true, `<cluster>`=owned): tag values are ignored by discovery but
    not by IAM, so they are set explicitly rather than trusted to be there."""
    return {
        "k8s.io/cluster-autoscaler/enabled": "true",
        f"k8s.io/cluster-autoscaler/{cluster_name}": "owned",
    }


def autoscaler_node_template_tags(labels: dict[str, str], pool: PoolFacts) -> dict[str, str]:
    """Cluster Autoscaler scale-from-zero hints for a pool's autoscaling group.

    With no node running, the autoscaler builds a template node from these tags to decide whether a
    pending pod would fit (kubernetes/autoscaler cloudprovider/aws/README.md, "Scaling a node group
    to 0"). Format: node-template/label/<k>: v, node-template/taint/<k>: <value>:<Effect>,
    node-template/resources/<name>: <quantity>.
    """
    prefix = "k8s.io/cluster-autoscaler/node-template"
    tags = {f"{prefix}/label/{k}": v for k, v in sorted(labels.items())}
    for taint in pool.taints:
        tags[f"{prefix}/taint/{taint.key}"] = f"{taint.value}:{taint.effect}"
    if pool.is_gpu:
        tags[f"{prefix}/resources/{GPU_RESOURCE}"] = str(pool.gpus_per_node)
    return tags
