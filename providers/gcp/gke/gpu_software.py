"""What GKE GPU nodes get, per driver mode, and why gpukit runs the GPU Operator only in one of them.

- `driver: preinstalled`: GKE installs the driver (DEFAULT or LATEST) and runs its own device plugin,
  and exports DCGM metrics itself (managed DCGM, into Cloud Monitoring / Managed Prometheus).
  gpukit does not add the GPU Operator on these COS nodes: Google recommends GKE-managed GPU nodes,
  and the Operator's toolkit on COS with Google's driver has failed with "no runtime for nvidia is
  configured" (NVIDIA/gpu-operator#1679), which would break GPU pods on the first `pulumi up`.
- `driver: operator`: Ubuntu nodes with GKE's driver installation disabled and GKE's device plugin
  switched off by label; the GPU Operator installs driver, toolkit, device plugin, GFD, DCGM exporter
  and MIG manager, as on every other platform (NVIDIA's GKE guide, google-gke.rst).
"""

from gpukit.components.node_software import GpuNodeSoftware, Operand
from gpukit.components.spec import DriverMode, GkeDriverVersion, GpuOperatorSpec

# GKE-installed drivers (gpu_driver_version DEFAULT or LATEST) are chosen per COS image and GPU type
# (GoogleCloudPlatform/professional-services tools/gke-gpu-driver-version), so no exact table per
# GKE version exists. These are floors for preflight: LATEST has been R580 or newer since early 2026
# ("Using the `latest` flag ensures that driver version > 580.65 is installed, which is a requirement
# when using CUDA 13", rapidsai/deployment#659, 2026-02); DEFAULT is older than that, assumed as old
# as R535 (the LTS branch GKE defaulted to before R580).
GKE_DRIVER_BRANCH_FLOOR = {GkeDriverVersion.DEFAULT: 535, GkeDriverVersion.LATEST: 580}

# NVIDIA's GKE guide: on GKE 1.33+ the toolkit misconfigures containerd's config.toml unless it reads
# the file (NVIDIA/cloud-native-docs#312). Every GKE version gpukit accepts is 1.34 or newer.
GKE_TOOLKIT_ENV = (("RUNTIME_CONFIG_SOURCE", "file"),)


def gke_driver_version(operator: GpuOperatorSpec) -> GkeDriverVersion:
    """The GKE-installed driver a cluster asks for (`gkeDriverVersion`, default `default`)."""
    return operator.get("gke_driver_version", GkeDriverVersion.DEFAULT)


def gke_gpu_node_software(driver: DriverMode, version: GkeDriverVersion) -> GpuNodeSoftware:
    if driver == DriverMode.OPERATOR:
        return GpuNodeSoftware(
            driver_preinstalled=False,
            toolkit_preinstalled=False,
            summary="GKE Ubuntu nodes, GKE driver installation disabled",
            toolkit_env=GKE_TOOLKIT_ENV,
            needs_priority_quota=True,
        )
    floor = GKE_DRIVER_BRANCH_FLOOR[version]
    return GpuNodeSoftware(
        driver_preinstalled=True,
        toolkit_preinstalled=True,
        summary=f"GKE-installed {version.value.upper()} driver (R{floor} or newer) on COS",
        runs_gpu_operator=False,
        platform_operands=(
            Operand(
                "NVIDIA driver",
                True,
                f"installed by GKE ({version.value.upper()}, R{floor} or newer) on COS nodes",
            ),
            Operand("container runtime", True, "GKE's containerd GPU configuration"),
            Operand("device plugin", True, "GKE's managed NVIDIA device plugin, advertises nvidia.com/gpu"),
            Operand("GPU labels", True, "GKE labels cloud.google.com/gke-accelerator=<type>"),
            Operand(
                "DCGM metrics",
                True,
                "GKE managed DCGM into Cloud Monitoring and Managed Service for Prometheus",
            ),
            Operand("GPU Operator", False, "not installed: GKE manages these GPU nodes"),
        ),
    )
