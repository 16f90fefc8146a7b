"""Which machine image each k3s node on EC2 boots, per CPU architecture and driver mode.

Never an AMI id: launch templates take `resolve:ssm:<public parameter>`, which EC2 resolves to the
image's current id in the launch's region at every launch (EC2 user guide, "Reference AMIs using
Systems Manager parameters"). New nodes get the publisher's latest patched image without a stack
change, and one table serves every region.

- Plain Ubuntu 24.04 LTS (Canonical's public parameters, `.../ubuntu/PRODUCT/RELEASE/stable/current/
  ARCH/VIRT/VOL/ami-id`: https://discourse.ubuntu.com/t/finding-ubuntu-images-with-the-aws-ssm-parameter-store/15507,
  https://documentation.ubuntu.com/aws/en/latest/aws-how-to/instances/find-ubuntu-images/): servers,
  CPU pools, and GPU pools with `driver: operator` (the GPU Operator brings the driver; a host
  driver would clash with it, which the node preflight refuses).
- AWS Deep Learning Base OSS Nvidia Driver GPU AMI (Ubuntu 24.04): GPU pools with
  `driver: preinstalled` (NVIDIA driver and container toolkit on the image). Parameter format
  `/aws/service/deeplearning/ami/<arch>/<type>/latest/ami-id`, where <type> is the DLAMI's name
  without "deep", "learning" and "ami": https://docs.aws.amazon.com/dlami/latest/devguide/find-dlami-id.html
"""

from dataclasses import dataclass
from enum import Enum

from gpukit.components.catalog.instances import CpuArch
from gpukit.components.spec import DriverMode

# The DLAMI's driver branch: 595.91.07 in its 2026-10 releases (AWS DLAMI release notes,
# "aws-deep-learning-ami-gpubaseoss..." 2026-10-08); AWS moves it to newer branches over time (R580
# in 2025-12), never back. Preflight checks GPU pools and CUDA against it.
DLAMI_DRIVER_BRANCH = 595
UBUNTU_ROOT_DEVICE = "/dev/sda1"  # Canonical's images and the Ubuntu DLAMIs both boot from it


class ImageFamily(str, Enum):
    UBUNTU = "ubuntu-24.04"
    DLAMI_GPU = "dlami-base-oss-nvidia-gpu-ubuntu-24.04"


@dataclass(frozen=True)
class Ec2Image:
    family: ImageFamily
    ssm_parameter: str
    root_device: str = UBUNTU_ROOT_DEVICE

    @property
    def image_id(self) -> str:
        """What a launch template's `image_id` takes: resolved by EC2 at each launch."""
        return f"resolve:ssm:{self.ssm_parameter}"


_CANONICAL = "/aws/service/canonical/ubuntu/server/24.04/stable/current/{arch}/hvm/ebs-gp3/ami-id"
_DLAMI = "/aws/service/deeplearning/ami/{arch}/base-oss-nvidia-driver-gpu-ubuntu-24.04/latest/ami-id"

# Canonical spells the architectures amd64/arm64, the DLAMI parameters x86_64/arm64.
IMAGES: dict[tuple[ImageFamily, CpuArch], Ec2Image] = {
    (ImageFamily.UBUNTU, CpuArch.X86_64): Ec2Image(ImageFamily.UBUNTU, _CANONICAL.format(arch="amd64")),
    (ImageFamily.UBUNTU, CpuArch.ARM64): Ec2Image(ImageFamily.UBUNTU, _CANONICAL.format(arch="arm64")),
    (ImageFamily.DLAMI_GPU, CpuArch.X86_64): Ec2Image(ImageFamily.DLAMI_GPU, _DLAMI.format(arch="x86_64")),
    (ImageFamily.DLAMI_GPU, CpuArch.ARM64): Ec2Image(ImageFamily.DLAMI_GPU, _DLAMI.format(arch="arm64")),
}


def image_family(has_gpu: bool, driver: DriverMode) -> ImageFamily:
    """The DLAMI only where a GPU node needs its driver on the image; plain Ubuntu everywhere else."""
    return ImageFamily.DLAMI_GPU if has_gpu and driver == DriverMode.PREINSTALLED else ImageFamily.UBUNTU


def k3s_image(arch: CpuArch, has_gpu: bool, driver: DriverMode) -> Ec2Image:
    return IMAGES[(image_family(has_gpu, driver), arch)]
