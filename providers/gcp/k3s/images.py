"""Boot images of k3s machines on Compute Engine, per pool and driver mode (pure).

Image families, not image names: a new machine boots the family's newest image, so patched images
arrive with each new machine without a config change (a family is a path, so no invoke is needed).

- Plain Ubuntu 24.04 LTS (`ubuntu-os-cloud`) for CPU machines and for GPU pools with
  `driver: operator`: the GPU Operator's driver container needs a full distribution without a driver.
- Deep Learning VM "Base" image for GPU pools with `driver: preinstalled`: Ubuntu 24.04 with the
  NVIDIA R580 driver in the image, CUDA 12.9. Source: https://cloud.google.com/deep-learning-vm/docs/images
  (table "Base-cu129 (Python 3.12 / Ubuntu 24.04)", family `common-cu129-ubuntu-2404-nvidia-580`,
  supported until 2028-08-04). R580 runs CUDA 12.x and 13.x workloads. The `-nvidia-580` families
  carry the driver in the image itself (no `install-nvidia-driver` metadata, which would install one
  at first boot, racing gpukit's preflight). gpukit's preflight refuses a machine that lacks the driver
  or the NVIDIA container toolkit, so a family that changes what it ships fails loudly, not silently.
"""

from gpukit.components.pools import PoolFacts
from gpukit.components.spec import DriverMode

UBUNTU_PROJECT = "ubuntu-os-cloud"
UBUNTU_FAMILY = "ubuntu-2404-lts-amd64"
DLVM_PROJECT = "deeplearning-platform-release"
DLVM_FAMILY = "common-cu129-ubuntu-2404-nvidia-580"
DLVM_DRIVER_BRANCH = 580  # the family's name promises the branch; preflight checks against it

# (GPU pool, driver mode) -> (image project, family).
IMAGE_FAMILIES: dict[tuple[bool, DriverMode], tuple[str, str]] = {
    (False, DriverMode.PREINSTALLED): (UBUNTU_PROJECT, UBUNTU_FAMILY),
    (False, DriverMode.OPERATOR): (UBUNTU_PROJECT, UBUNTU_FAMILY),
    (True, DriverMode.PREINSTALLED): (DLVM_PROJECT, DLVM_FAMILY),
    (True, DriverMode.OPERATOR): (UBUNTU_PROJECT, UBUNTU_FAMILY),
}


def family_path(project: str, family: str) -> str:
    return f"projects/{project}/global/images/family/{family}"


def boot_image(pool: PoolFacts, driver: DriverMode) -> str:
    """The image family path a pool's machines boot from."""
    return family_path(*IMAGE_FAMILIES[(pool.is_gpu, driver)])
