"""What k3s GPU nodes get per driver mode, for the GPU Operator (shared by every k3s substrate).

- `driver: preinstalled`: the hosts have the NVIDIA driver and container toolkit; k3s detects the
  NVIDIA runtime itself when it starts and deploys its own `nvidia` RuntimeClass, so the Operator
  installs neither driver nor toolkit, and gpukit adds no RuntimeClass of its own (the Operator's
  `operator.runtimeClass` is the chart default, `nvidia`, the same name k3s ships).
- `driver: operator`: the Operator runs its driver container and toolkit; the toolkit must talk to
  k3s's containerd, whose socket is not the default one (the toolkit installer's CONTAINERD_SOCKET,
  NVIDIA/nvidia-container-toolkit cmd/nvidia-ctk-installer/container/runtime/runtime.go).
"""

from gpukit.components.gpu_operator.values import GpuNodeSoftware
from gpukit.components.spec import DriverMode

K3S_CONTAINERD_SOCKET = "/run/k3s/containerd/containerd.sock"
# Set in both modes: harmless while the toolkit is off, right the moment it is turned on.
K3S_TOOLKIT_ENV = (("CONTAINERD_SOCKET", K3S_CONTAINERD_SOCKET),)
LOCAL_PATH_STORAGE = (
    "local-path (k3s's packaged local-path provisioner, default; volumes live on one node's disk)"
)


def k3s_gpu_node_software(driver: DriverMode) -> GpuNodeSoftware:
    if driver == DriverMode.OPERATOR:
        return GpuNodeSoftware(
            driver_preinstalled=False,
            toolkit_preinstalled=False,
            summary="k3s hosts without a driver: the GPU Operator installs it",
            toolkit_env=K3S_TOOLKIT_ENV,
        )
    return GpuNodeSoftware(
        driver_preinstalled=True,
        toolkit_preinstalled=True,
        summary="driver and container toolkit on the hosts, NVIDIA runtime detected by k3s",
        toolkit_env=K3S_TOOLKIT_ENV,
    )
