"""The Google Cloud substrates: GKE Standard with GPU node pools, and k3s on Compute Engine VMs.

Pure: building (build) imports pulumi_gcp, and nothing else here does, so planning or validating a
stack on another cloud never needs the Google Cloud SDK.
"""

from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from gpukit.components.addons.batch.variant import BATCH, CLUSTER_AUTOSCALER_BATCH, GKE_BATCH
from gpukit.components.addons.inference.variant import INFERENCE
from gpukit.components.addons.interconnect.variant import INTERCONNECT
from gpukit.components.addons.pod_security.variant import POD_SECURITY, LabelledNamespaces
from gpukit.components.addons.storage.variant import STORAGE
from gpukit.components.autoscaler.fallback import spot_fallback_findings
from gpukit.components.catalog.fabrics import FabricKind
from gpukit.components.errors import Problem
from gpukit.components.findings import Finding
from gpukit.components.k3s_substrates import K3sCloudSubstrate
from gpukit.components.node_software import GpuNodeSoftware
from gpukit.components.plan_fakes import PlanFakes
from gpukit.components.pools import PoolFacts, settle_fabric
from gpukit.components.pricing import Charge
from gpukit.components.spec import (
    ClusterConfig,
    DriverMode,
    GkeDriverVersion,
    GpuOperatorSpec,
    NodePoolSpec,
    Platform,
    Provider,
)
from gpukit.components.substrate import ResolvedCluster, Substrate
from gpukit.components.validate.k3s import machine_arches, validate_k3s_cloud, validate_k3s_versions
from gpukit.providers.gcp.catalog import GCP_CATALOG
from gpukit.providers.gcp.charges import gke_charges, k3s_gce_charges
from gpukit.providers.gcp.config import (
    GCP_PROJECT,
    GCP_REGION,
    GCP_SDK,
    GKE_KEYS,
    K3S_GCE_KEYS,
    REQUIRED_KEYS,
)
from gpukit.providers.gcp.fakes import GcpFakes
from gpukit.providers.gcp.gke.gpu_software import (
    GKE_DRIVER_BRANCH_FLOOR,
    gke_driver_version,
    gke_gpu_node_software,
)
from gpukit.providers.gcp.gke.inference_variant import GkeInference
from gpukit.providers.gcp.gke.interconnect_variant import GkeInterconnect
from gpukit.providers.gcp.gke.queued_provisioning import queued_pool_facts, queued_pool_findings
from gpukit.providers.gcp.gke.shared_storage.variant import GkeSharedStorageVariant
from gpukit.providers.gcp.gke.sharing_rules import operator_sharing_findings, validate_gke_sharing
from gpukit.providers.gcp.k3s.autoscaler import gpu_label
from gpukit.providers.gcp.k3s.images import DLVM_DRIVER_BRANCH
from gpukit.providers.gcp.k3s.nfs_variant import GceNfs
from gpukit.providers.gcp.k3s.preemption import preemption_findings
from gpukit.providers.gcp.labels import validate_gcp_labels
from gpukit.providers.gcp.limits import GKE_LIMITS
from gpukit.providers.gcp.placement import cluster_location, pool_zones
from gpukit.providers.gcp.quotas import gke_quota_needs, k3s_quota_needs, quota_findings
from gpukit.providers.gcp.validation import (
    validate_gcp_project,
    validate_gke_cluster,
    validate_gke_operator,
    validate_gke_pool,
    validate_gvnic_image,
    validate_k3s_network,
    validate_server_zones,
)

if TYPE_CHECKING:
    import pulumi

    from gpukit.components.handle import ClusterHandle

# GKE taints GPU nodes nvidia.com/gpu=present:NoSchedule itself; declaring the same value keeps the
# node pool free of drift. k3s on Compute Engine uses the same value, so GPU nodes on Google Cloud
# carry one taint whatever runs them. Tolerations match any value, so pods are unaffected.
GCP_GPU_TAINT_VALUE = "present"


class GkeSubstrate(Substrate):
    platform = Platform.GKE
    provider = Provider.GCP
    name = "gke"
    title = "gke"
    where = "platform gke"
    builds_machines = True
    sdk = GCP_SDK
    settings = (GCP_PROJECT, GCP_REGION)
    accepts = GKE_KEYS
    requires = REQUIRED_KEYS
    catalog = GCP_CATALOG
    gpu_taint_value = GCP_GPU_TAINT_VALUE
    limits = GKE_LIMITS
    fabrics = frozenset({FabricKind.GPUDIRECT_TCPX, FabricKind.GPUDIRECT_TCPXO, FabricKind.GPUDIRECT_RDMA})
    addon_variants = MappingProxyType(
        {
            STORAGE: GkeSharedStorageVariant(),
            BATCH: GKE_BATCH,
            POD_SECURITY: LabelledNamespaces("GKE"),
            INTERCONNECT: GkeInterconnect(),
            INFERENCE: GkeInference(),
        }
    )

    def pool_facts(self, pool: NodePoolSpec) -> PoolFacts:
        # settle_fabric: a pool whose `interconnect` is left out gets its fabric only where it pins one
        # zone, so a stack that planned before GPUDirect keeps its pools as they were.
        return settle_fabric(queued_pool_facts(super().pool_facts(pool)), pool)

    def pool_zones(self, cluster: ResolvedCluster, pool: PoolFacts) -> list[str]:
        return pool_zones(cluster.spec, pool)

    def validate(self, args: ClusterConfig, pools_ok: bool) -> list[Problem]:
        problems: list[Problem] = []
        cluster, pools = args["cluster"], args["node_pools"] if pools_ok else []
        validate_gke_cluster(cluster, pools, problems)
        validate_gcp_labels(cluster, problems)
        for i, pool in enumerate(pools):
            validate_gke_pool(i, pool, cluster, problems)
        driver = args["gpu_operator"]["driver"] if "gpu_operator" in args else DriverMode.PREINSTALLED
        validate_gvnic_image(pools, driver, problems)
        validate_gke_sharing(pools, driver, problems)
        return problems

    def operator_shares_gpus(self, args: ClusterConfig) -> bool:
        """Only with the Operator's driver: otherwise GKE's device plugin shares the GPUs, through the
        node pool's own fields (providers/gcp/gke/node_pool.py)."""
        return args["gpu_operator"]["driver"] == DriverMode.OPERATOR

    def validate_operator(self, operator: GpuOperatorSpec) -> list[Problem]:
        return validate_gke_operator(operator)

    def gpu_node_software(self, cluster: ResolvedCluster) -> GpuNodeSoftware:
        return gke_gpu_node_software(cluster.driver, gke_driver_version(cluster.operator))

    def preinstalled_driver_branch(self, cluster: ResolvedCluster, pool: PoolFacts) -> int | None:
        return GKE_DRIVER_BRANCH_FLOOR[gke_driver_version(cluster.operator)]

    def newer_driver_setting(self, cluster: ResolvedCluster) -> str | None:
        if (
            cluster.driver == DriverMode.PREINSTALLED
            and gke_driver_version(cluster.operator) != GkeDriverVersion.LATEST
        ):
            return "set gpukit:gpuOperator.gkeDriverVersion to latest (the newest driver GKE offers)"
        return None

    def charges(self, cluster: ResolvedCluster) -> list[Charge]:
        return gke_charges(cluster)

    def findings(self, cluster: ResolvedCluster) -> list[Finding]:
        """Queued pools' prices, GKE's own GPU sharing, and the GPU quotas `pulumi up` reads."""
        return [
            *queued_pool_findings(cluster.pools),
            *operator_sharing_findings(cluster.pools, cluster.driver),
            *quota_findings(cluster, gke_quota_needs(cluster)),
        ]

    def next_steps(self, cluster: ResolvedCluster) -> list[str]:
        spec = cluster.spec
        return [
            f"# or: gcloud container clusters get-credentials {cluster.name} --location "
            f"{cluster_location(spec)} --project {spec.get('project', '')}"
        ]

    def plan_fakes(self, config: Mapping[str, Any]) -> PlanFakes:
        return GcpFakes(config)

    def build(self, name: str, cluster: ResolvedCluster, parent: "pulumi.Resource") -> "ClusterHandle":
        from gpukit.providers.gcp.gke.cluster import build_gke

        return build_gke(name, cluster, parent)


class K3sGceSubstrate(K3sCloudSubstrate):
    provider = Provider.GCP
    name = "k3s-gcp"
    autoscaler_provider = "gce"
    title = "k3s on gcp"
    where = "k3s on gcp"
    sdk = GCP_SDK
    settings = (GCP_PROJECT, GCP_REGION)
    accepts = K3S_GCE_KEYS
    catalog = GCP_CATALOG
    addon_variants = MappingProxyType({STORAGE: GceNfs(), BATCH: CLUSTER_AUTOSCALER_BATCH})
    gpu_taint_value = GCP_GPU_TAINT_VALUE

    def pool_zones(self, cluster: ResolvedCluster, pool: PoolFacts) -> list[str]:
        from gpukit.providers.gcp.k3s.servers import server_zones

        return server_zones(cluster.spec, pool)

    def validate(self, args: ClusterConfig, pools_ok: bool) -> list[Problem]:
        problems: list[Problem] = []
        cluster, pools = args["cluster"], args["node_pools"] if pools_ok else None
        validate_k3s_versions(cluster, problems, machine_arches(pools, self.catalog))
        validate_gcp_project(cluster, problems)
        validate_gcp_labels(cluster, problems)
        validate_k3s_network(cluster, problems)
        validate_k3s_cloud(cluster, pools, self.catalog, problems)
        for i, pool in enumerate(pools or []):
            validate_gke_pool(i, pool, cluster, problems, gke=False)
            validate_server_zones(i, pool, cluster, problems)
        return problems

    def pool_facts(self, pool: NodePoolSpec) -> PoolFacts:
        """GPU pools carry the Cluster Autoscaler's GCE GPU label, on the nodes and in the groups'
        template nodes (providers/gcp/k3s/autoscaler.py)."""
        base = super().pool_facts(pool)
        return replace(base, labels={**base.labels, **gpu_label(base)})

    def preinstalled_driver_branch(self, cluster: ResolvedCluster, pool: PoolFacts) -> int | None:
        return DLVM_DRIVER_BRANCH

    def findings(self, cluster: ResolvedCluster) -> list[Finding]:
        return [
            *super().findings(cluster),
            *preemption_findings(cluster.pools),
            *spot_fallback_findings(cluster.pools),
            *quota_findings(cluster, k3s_quota_needs(cluster)),
        ]

    def charges(self, cluster: ResolvedCluster) -> list[Charge]:
        return k3s_gce_charges(cluster)

    def plan_fakes(self, config: Mapping[str, Any]) -> PlanFakes:
        return GcpFakes(config)

    def build(self, name: str, cluster: ResolvedCluster, parent: "pulumi.Resource") -> "ClusterHandle":
        from gpukit.providers.gcp.k3s.cluster import build_k3s_gce

        return build_k3s_gce(name, cluster, parent)
