"""Node labels of an EKS pool, the same whoever launches its nodes (a managed node group or Karpenter).
Pure: no AWS SDK."""

from gpukit.components.pools import PoolFacts
from gpukit.components.spec import NodeImage

# Bottlerocket NVIDIA images run their own NVIDIA device plugin; this label keeps the GPU Operator's
# device plugin off those nodes so the two never both advertise nvidia.com/gpu (GPU Operator docs,
# "nvidia.com/gpu.deploy.<operand>=false" per-node opt-out).
BOTTLEROCKET_GPU_LABELS = {"nvidia.com/gpu.deploy.device-plugin": "false"}


def pool_labels(pool: PoolFacts) -> dict[str, str]:
    """Node labels for a pool on EKS: gpukit's scheduling labels plus image-specific opt-outs."""
    labels = dict(pool.labels)
    if pool.is_gpu and pool.node_image == NodeImage.BOTTLEROCKET:
        labels.update(BOTTLEROCKET_GPU_LABELS)
    return labels
