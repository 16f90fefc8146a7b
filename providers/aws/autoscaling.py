"""Cluster Autoscaler tags on AWS Auto Scaling groups: discovery, and scale-from-zero node templates.

Shared by EKS managed node groups (tagged through their groups) and k3s agent pools on EC2.
"""

from gpukit.components.pools import GPU_RESOURCE, PoolFacts
from gpukit.components.spec import NodeImage
from gpukit.providers.aws.efa import efa_node_resources

# The label the Cluster Autoscaler's AWS provider reads as "this node has GPUs" (kubernetes/autoscaler
# cloudprovider/aws/aws_cloud_provider.go: GPULabel). Its presence is what counts
# (utils/gpu/gpu.go NodeHasGpu): a node that carries it but advertises no nvidia.com/gpu yet is
# treated as unready, not as a node without GPUs, so the minutes of driver and device-plugin start-up
# do not trigger further scale-ups. Its value is the GPU type that --gpu-total limits name.
ACCELERATOR_LABEL = "k8s.amazonaws.com/accelerator"
# Values the autoscaler's AWS provider lists (availableGPUTypes in aws_cloud_provider.go, 2025);
# other models get "nvidia-" and the catalog name in lower case, in the same style.
_ACCELERATOR_VALUES = {
    "T4": "nvidia-tesla-t4",
    "V100": "nvidia-tesla-v100",
    "A100-40GB": "nvidia-tesla-a100",
    "A10G": "nvidia-a10g",
    "L4": "nvidia-l4",
    "L40S": "nvidia-l40s",
}


def accelerator_label(pool: PoolFacts) -> dict[str, str]:
    """`k8s.amazonaws.com/accelerator=<GPU type>` for a GPU pool's nodes; nothing for CPU pools."""
    gpu = pool.gpu
    if gpu is None or not pool.is_gpu:
        return {}
    return {ACCELERATOR_LABEL: _ACCELERATOR_VALUES.get(gpu.name, f"nvidia-{gpu.name.lower()}")}


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
    # What a node will offer once its GPUs are shared as configured (GPUs x replicas for time-slicing
    # and MPS), so a pending pod that asks for a share scales the right group up from zero.
    advertised = pool.advertised_resources
    if pool.is_gpu and GPU_RESOURCE not in advertised:
        # Mixed-strategy MIG nodes offer no nvidia.com/gpu at all. The autoscaler's template node starts
        # with nvidia.com/gpu = the instance type's GPU count and lets these tags override it
        # (cloudprovider/aws/aws_manager.go buildNodeFromTemplate: Capacity[nvidia.com/gpu] =
        # InstanceType.GPU, then extractAllocatableResourcesFromAsg): without a 0 here a pending
        # whole-GPU pod would scale this pool up for a node that can never run it.
        advertised = {GPU_RESOURCE: 0, **advertised}
    for resource, count in advertised.items():
        tags[f"{prefix}/resources/{resource}"] = str(count)
    if pool.fabric is not None:  # an EFA pool: its EFA devices (and huge pages) scale it from zero too
        offered = efa_node_resources(pool.fabric.interfaces, pool.node_image is NodeImage.AL2023)
        tags.update({f"{prefix}/resources/{resource}": value for resource, value in offered.items()})
    return tags
