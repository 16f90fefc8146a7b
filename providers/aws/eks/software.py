"""What EKS GPU nodes get from their image: both EKS NVIDIA images (AL2023 and Bottlerocket) ship driver
R580 and the container toolkit, so the GPU Operator installs neither (providers/aws/eks/images.py)."""

from gpukit.components.node_software import GpuNodeSoftware
from gpukit.components.pools import PoolFacts
from gpukit.components.spec import NodeImage


def eks_gpu_node_software(pools: tuple[PoolFacts, ...]) -> GpuNodeSoftware:
    images = sorted({p.node_image.value for p in pools if p.is_gpu}) or [NodeImage.AL2023.value]
    return GpuNodeSoftware(
        driver_preinstalled=True,
        toolkit_preinstalled=True,
        summary=f"EKS {'/'.join(images)} NVIDIA AMI: driver R580 and container toolkit preinstalled",
    )
