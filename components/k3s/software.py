"""What k3s GPU nodes get per driver mode, for the GPU Operator (shared by every k3s substrate).

- `driver: preinstalled`: the hosts have the NVIDIA driver; the Operator installs no driver.
- `driver: operator`: the Operator runs its driver container.

In both, the Operator's container toolkit runs on every GPU node, whatever the image ships: an image
without the toolkit (a risk on the Deep Learning VM images) still gets one, from the pinned chart
rather than an unpinned package installed as root at boot. With the chart's default `cdi.enabled`,
the device plugin hands GPUs to pods through CDI, so GPU pods need no `runtimeClassName` (k3s puts
/usr/local/nvidia/toolkit, where the toolkit installs its runtimes, on the path it searches, and
ships containerd 2.x, which CDI needs: rancher/rke2-docs docs/add-ons/gpu_operators.md). The toolkit
must talk to k3s's containerd, whose socket is not the default one (the toolkit installer's
CONTAINERD_SOCKET, NVIDIA/nvidia-container-toolkit cmd/nvidia-ctk-installer/container/runtime/runtime.go).
"""

from gpukit.components.node_software import GpuNodeSoftware
from gpukit.components.spec import DriverMode

K3S_CONTAINERD_SOCKET = "/run/k3s/containerd/containerd.sock"
K3S_TOOLKIT_ENV = (("CONTAINERD_SOCKET", K3S_CONTAINERD_SOCKET),)
LOCAL_PATH_STORAGE = (
    "local-path (k3s's packaged local-path provisioner, default; volumes live on one node's disk)"
)


def k3s_gpu_node_software(driver: DriverMode) -> GpuNodeSoftware:
    if driver == DriverMode.OPERATOR:
        return GpuNodeSoftware(
            driver_preinstalled=False,
            toolkit_preinstalled=False,
            summary="k3s hosts without a driver: the GPU Operator installs it and the toolkit; GPUs reach "
            "pods through CDI",
            toolkit_env=K3S_TOOLKIT_ENV,
        )
    return GpuNodeSoftware(
        driver_preinstalled=True,
        toolkit_preinstalled=False,
        summary="driver on the hosts; the GPU Operator's container toolkit, GPUs reach pods through CDI",
        toolkit_env=K3S_TOOLKIT_ENV,
    )
