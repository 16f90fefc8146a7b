"""Cluster Autoscaler tags on AWS Auto Scaling groups: discovery, and scale-from-zero node templates.

Shared by EKS managed node groups (tagged through their groups) and k3s agent pools on EC2.
"""

from gpukit.components.pools import GPU_RESOURCE, PoolFacts


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
