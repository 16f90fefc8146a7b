"""EKS managed node group images: AMI type per image family, CPU and GPU, and the driver branch.

Sources:
- AMI type strings (case matters: `AL2023_x86_64_NVIDIA`): aws-sdk-go-v2 `ekstypes.AMITypes`.
- Accelerated AMIs preinstall the NVIDIA driver, CUDA user-mode driver and container toolkit, and
  currently ship driver branch R580: AWS EKS user guide, `ml/device-management-nvidia-dra-device-plugin`
  and `ml/device-management-nvidia-mig` (read 2026-11).
- Bottlerocket NVIDIA variants also ship the NVIDIA device plugin, enabled by default (same guide).
- Root device names: AL2023 boots from /dev/xvda; Bottlerocket keeps its OS on /dev/xvda and
  containers and images on the data volume /dev/xvdb (Bottlerocket "Quickstart on EKS").
"""

from dataclasses import dataclass

from gpukit.components.catalog.instances import CpuArch
from gpukit.components.spec import NodeImage


@dataclass(frozen=True)
class EksImage:
    ami_type: str
    driver_branch: int | None
    """Driver branch the image preinstalls; None for images without an NVIDIA driver."""
    data_device: str
    """Block device that holds container images, sized by the pool's `diskSizeGb`."""
    ships_device_plugin: bool = False


_AL2023_DEVICE = "/dev/xvda"
_BOTTLEROCKET_DEVICE = "/dev/xvdb"
_EKS_ACCELERATED_DRIVER_BRANCH = 580

EKS_IMAGES: dict[tuple[NodeImage, CpuArch, bool], EksImage] = {
    (NodeImage.AL2023, CpuArch.X86_64, False): EksImage("AL2023_x86_64_STANDARD", None, _AL2023_DEVICE),
    (NodeImage.AL2023, CpuArch.ARM64, False): EksImage("AL2023_ARM_64_STANDARD", None, _AL2023_DEVICE),
    (NodeImage.AL2023, CpuArch.X86_64, True): EksImage(
        "AL2023_x86_64_NVIDIA", _EKS_ACCELERATED_DRIVER_BRANCH, _AL2023_DEVICE
    ),
    (NodeImage.BOTTLEROCKET, CpuArch.X86_64, False): EksImage(
        "BOTTLEROCKET_x86_64", None, _BOTTLEROCKET_DEVICE
    ),
    (NodeImage.BOTTLEROCKET, CpuArch.ARM64, False): EksImage(
        "BOTTLEROCKET_ARM_64", None, _BOTTLEROCKET_DEVICE
    ),
    (NodeImage.BOTTLEROCKET, CpuArch.X86_64, True): EksImage(
        "BOTTLEROCKET_x86_64_NVIDIA",
        _EKS_ACCELERATED_DRIVER_BRANCH,
        _BOTTLEROCKET_DEVICE,
        ships_device_plugin=True,
    ),
}


def eks_image(image: NodeImage, arch: CpuArch, gpu: bool) -> EksImage:
    return EKS_IMAGES[(image, arch, gpu)]
