"""What GKE takes of `gpukit:nodePools[i].sharing`, per driver mode.

- `driver: preinstalled` (GKE's driver and device plugin): GKE's own sharing on the node pool. Time-
  sharing and MPS take 2 to 48 clients per GPU (GKE ComputeClass reference, gpuSharing
  maxSharedClientsPerGPU "Valid range: 2-48"); MIG takes one `gpu_partition_size` per node pool, whose
  partitions GKE advertises as `nvidia.com/gpu` (GKE "Running multi-instance GPUs",
  https://cloud.google.com/kubernetes-engine/docs/how-to/gpus-multi), so only the `single` strategy
  matches what the nodes offer.
- Which models: that page's "Supported GPUs" lists A100 (40GB and 80GB), H100 (80GB), H200 (141GB)
  and, in its later copy, B200 ("partition an NVIDIA A100, H100, H200, or B200 GPU"; each has seven
  compute and eight memory units).
- Which partition sizes: the profile names of the NVIDIA MIG User Guide for the pool's model, as the
  catalog's MIG geometry has them (components/catalog/mig.py; validated before this module runs). The
  API takes them as they are: Container API v1 AcceleratorConfig.gpuPartitionSize "Size of partitions
  to create on the GPU. Valid values are described in the NVIDIA mig user guide" (googleapis
  container_v1 reference; Dataproc's GkeNodePoolAcceleratorConfig.gpuPartitionSize links the guide's
  "#partitioning" table).
- `driver: operator`: the GPU Operator shares the GPUs (node labels and its device-plugin config, as
  on EKS). GKE's cluster autoscaler builds its scale-from-zero nodes from the node pool's own fields,
  which know nothing of the Operator's `nvidia.com/mig-<profile>` resources: mixed MIG is refused.
- Custom MIG layouts are not built on GKE (either driver mode).
"""

from gpukit.components.errors import Problem
from gpukit.components.findings import Finding, Severity
from gpukit.components.pools import PoolFacts
from gpukit.components.spec import DriverMode, MigStrategy, NodePoolSpec, SharingMode
from gpukit.components.validate.common import POOLS
from gpukit.providers.gcp.catalog import GCP_CATALOG

# GKE "Running multi-instance GPUs", "Supported GPUs" (B200 on A4 machines: a4-highgpu-8g).
GKE_MIG_MODELS = ("A100-40GB", "A100-80GB", "H100", "H200", "B200")


def validate_gke_sharing(pools: list[NodePoolSpec], driver: DriverMode, problems: list[Problem]) -> None:
    for i, pool in enumerate(pools):
        sharing = pool.get("sharing")
        if sharing is None or sharing["mode"] is not SharingMode.MIG or "mig" not in sharing:
            continue
        key = f"{POOLS}[{i}].sharing"
        if "layout" in sharing["mig"]:
            problems.append(
                Problem(
                    f"{key}.mig.layout",
                    "GKE cuts a node pool's GPUs into one partition size (gpu_partition_size), and gpukit "
                    "builds no custom MIG layouts on GKE; use mig.profile",
                )
            )
        strategy = sharing["mig"].get("strategy", MigStrategy.SINGLE)
        if strategy is MigStrategy.MIXED:
            problems.append(
                Problem(
                    f"{key}.mig.strategy",
                    "GKE advertises MIG partitions as nvidia.com/gpu (driver: preinstalled), and its "
                    "autoscaler cannot scale up from zero for the GPU Operator's nvidia.com/mig-<profile> "
                    "resources (driver: operator); use strategy single; got mixed",
                )
            )
        if driver == DriverMode.OPERATOR:
            continue
        machine = GCP_CATALOG.machines.get(pool.get("instance_type", ""))
        gpu = machine.gpu_model if machine is not None else None
        if gpu is not None and gpu not in GKE_MIG_MODELS:
            problems.append(
                Problem(
                    f"{key}.mode",
                    f"GKE partitions {', '.join(GKE_MIG_MODELS)} GPUs with its own driver; this pool has "
                    f"{gpu}; use driver: operator for MIG on it, or another mode",
                )
            )


def operator_sharing_findings(pools: tuple[PoolFacts, ...], driver: DriverMode) -> list[Finding]:
    """With `driver: operator` GKE's autoscaler sizes a scale-up from zero by the node pool's own fields:
    one `nvidia.com/gpu` per GPU, not the Operator's shares or MIG instances (the module docstring), so
    for pending pods of a shared pool at 0 nodes it may start up to one node per pod; the extra ones go
    once idle. `driver: preinstalled` shares through GKE's own fields, which its autoscaler knows."""
    if driver != DriverMode.OPERATOR:
        return []
    return [
        Finding(
            Severity.WARNING,
            f"{POOLS}[{i}].sharing",
            f"pool {pool.name!r} shares its GPUs through the GPU Operator ({pool.units_per_node} units per "
            "node), but GKE's autoscaler counts a node it has not started yet as "
            f"{pool.gpus_per_node} nvidia.com/gpu: scaling from zero it may start up to one node per pending "
            "pod, and the extra nodes run (and cost) until they have been idle for the scale-down delay",
            fix="set the pool's minNodes to at least 1 (with a running node the autoscaler sizes from its "
            "real allocatable), or use driver: preinstalled (GKE's own sharing)",
        )
        for i, pool in enumerate(pools)
        if pool.is_gpu and pool.sharing.shares and pool.min_nodes == 0
    ]
