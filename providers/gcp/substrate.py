"""The Google Cloud substrates: GKE Standard with GPU node pools, and k3s on Compute Engine VMs.

Pure: building (build) imports pulumi_gcp, and nothing else here does, so planning or validating a
stack on another cloud never needs the Google Cloud SDK.
"""

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from gpukit.components.costs import Charge
from gpukit.components.errors import Problem
from gpukit.components.findings import Finding
from gpukit.components.gpu_operator.values import GpuNodeSoftware
from gpukit.components.k3s.substrates import K3sCloudSubstrate
from gpukit.components.plan_fakes import PlanFakes
from gpukit.components.pools import PoolFacts
from gpukit.components.resolved import ResolvedCluster
from gpukit.components.spec import (
    DriverMode,
    GkeDriverVersion,
    GpuOperatorSpec,
    NodePoolSpec,
    NodeRole,
    Platform,
    Provider,
    StorageKind,
)
from gpukit.components.substrate import Substrate
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
from gpukit.providers.gcp.gke.shared_storage.filestore_zone import filestore_zone, validate_filestore_zones
from gpukit.providers.gcp.gke.shared_storage.tables import FILESTORE_ZONAL_TIERS
from gpukit.providers.gcp.gke.shared_storage.validation import (
    validate_gke_private_access,
    validate_gke_shared,
)
from gpukit.providers.gcp.gke.sharing_rules import validate_gke_sharing
from gpukit.providers.gcp.k3s.autoscaler import gpu_label
from gpukit.providers.gcp.k3s.images import DLVM_DRIVER_BRANCH
from gpukit.providers.gcp.k3s.nfs_vm_facts import (
    NFS_DISK_MAX_GB,
    NFS_DISK_MIN_GB,
    NFS_DISK_TYPE,
    NFS_VM_MACHINE_TYPE,
    PD_BALANCED_USD_PER_GB_MONTH,
    nfs_zone,
)
from gpukit.providers.gcp.k3s.preemption import preemption_findings
from gpukit.providers.gcp.labels import validate_gcp_labels
from gpukit.providers.gcp.limits import GKE_LIMITS
from gpukit.providers.gcp.placement import cluster_location, pool_zones
from gpukit.providers.gcp.validation import (
    validate_gcp_project,
    validate_gke_cluster,
    validate_gke_operator,
    validate_gke_pool,
    validate_gvnic_image,
    validate_k3s_network,
    validate_server_zones,
)
from gpukit.providers.ssh.k3s.nfs_validation import VmDisk, shared_nfs_problems

if TYPE_CHECKING:
    import pulumi

    from gpukit.components.cluster import GpuClusterArgs
    from gpukit.components.handle import ClusterHandle
    from gpukit.components.storage.built import BuiltVolume
    from gpukit.components.storage.plan import PlannedVolume, VolumeServer

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
    shared_storage_kinds = frozenset(
        {StorageKind.FILESTORE, StorageKind.GCS_FUSE, StorageKind.MANAGED_LUSTRE}
    )

    def build_shared_storage(
        self,
        name: str,
        cluster: ResolvedCluster,
        volumes: list["PlannedVolume"],
        handle: "ClusterHandle",
        parent: "pulumi.Resource",
    ) -> list["BuiltVolume"]:
        """Built with the cluster (providers/gcp/gke/cluster.py): its CSI add-ons, network and node service
        account are the cluster's own."""
        return handle.built_volumes

    def pool_zones(self, cluster: ResolvedCluster, pool: PoolFacts) -> list[str]:
        return pool_zones(cluster.spec, pool)

    def findings(self, cluster: ResolvedCluster) -> list[Finding]:
        from gpukit.components.storage.plan import planned_volumes
        from gpukit.providers.gcp.gke.shared_storage.filestore_zone import filestore_zone_findings
        from gpukit.providers.gcp.gke.shared_storage.findings import outliving_instance_findings

        planned = planned_volumes(cluster)
        configured = cluster.args.get("storage", {}).get("shared", [])
        return [
            *super().findings(cluster),
            *outliving_instance_findings(planned),
            *filestore_zone_findings(planned, configured),
        ]

    def shared_volume_zones(self, cluster: ResolvedCluster, volume: "PlannedVolume") -> list[str]:
        """A basic or zonal Filestore instance lives in one zone (filestore_zone.py); every other volume
        serves every zone of the region."""
        if volume.kind is not StorageKind.FILESTORE or volume.tier.name not in FILESTORE_ZONAL_TIERS:
            return []
        zone = filestore_zone(volume.spec, cluster.spec, cluster.pools)
        return [zone] if zone else []

    def validate(self, args: "GpuClusterArgs", pools_ok: bool) -> list[Problem]:
        problems: list[Problem] = []
        cluster, pools = args["cluster"], args["node_pools"] if pools_ok else []
        validate_gke_cluster(cluster, pools, problems)
        validate_gcp_labels(cluster, problems)
        for i, pool in enumerate(pools):
            validate_gke_pool(i, pool, cluster, problems)
        driver = args["gpu_operator"]["driver"] if "gpu_operator" in args else DriverMode.PREINSTALLED
        validate_gvnic_image(pools, driver, problems)
        validate_gke_sharing(pools, driver, problems)
        shared = args.get("storage", {}).get("shared", [])
        validate_gke_shared(shared, problems)
        validate_gke_private_access(cluster.get("network", {}), self._shared_kinds(shared, cluster), problems)
        tiers = self._filestore_tiers(shared, cluster)
        # Zones come from the pools' facts (their machines), which only pools without problems have.
        if pools_ok and not problems and any(tiers):
            facts = [self.pool_facts(p) for p in pools]
            validate_filestore_zones(shared, tiers, cluster, facts, problems)
        return problems

    def _filestore_tiers(self, shared: list[Any], cluster: Mapping[str, Any]) -> list[str | None]:
        """Each Filestore volume's tier, chosen as the plan chooses it (None: another kind, or refused)."""
        from gpukit.components.storage.plan import volume_choice

        region = cluster.get("region", "")
        chosen = [volume_choice(v, self, region) for v in shared]
        return [
            c.tier.name
            if c.backend is not None and c.tier is not None and c.backend.kind is StorageKind.FILESTORE
            else None
            for c in chosen
        ]

    def _shared_kinds(self, shared: list[Any], cluster: Mapping[str, Any]) -> list[str | None]:
        """Each volume's kind, `auto` resolved as the plan resolves it (None: none fits, refused by
        components/storage/validate.py)."""
        from gpukit.components.storage.plan import volume_choice

        region = cluster.get("region", "")
        chosen = [volume_choice(v, self, region).backend for v in shared]
        return [b.kind.value if b is not None else None for b in chosen]

    def operator_shares_gpus(self, args: "GpuClusterArgs") -> bool:
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


NFS_VM_DISK = VmDisk(NFS_DISK_TYPE, NFS_DISK_MIN_GB, NFS_DISK_MAX_GB)


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
    gpu_taint_value = GCP_GPU_TAINT_VALUE

    def pool_zones(self, cluster: ResolvedCluster, pool: PoolFacts) -> list[str]:
        from gpukit.providers.gcp.k3s.servers import server_zones

        return server_zones(cluster.spec, pool)

    def validate(self, args: "GpuClusterArgs", pools_ok: bool) -> list[Problem]:
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
        problems.extend(shared_nfs_problems(args.get("storage"), "gcp", [], NFS_VM_DISK))
        return problems

    def pool_facts(self, pool: NodePoolSpec) -> PoolFacts:
        """GPU pools carry the Cluster Autoscaler's GCE GPU label, on the nodes and in the groups'
        template nodes (providers/gcp/k3s/autoscaler.py)."""
        base = super().pool_facts(pool)
        return replace(base, labels={**base.labels, **gpu_label(base)})

    def preinstalled_driver_branch(self, cluster: ResolvedCluster, pool: PoolFacts) -> int | None:
        return DLVM_DRIVER_BRANCH

    def findings(self, cluster: ResolvedCluster) -> list[Finding]:
        return [*super().findings(cluster), *preemption_findings(cluster.pools)]

    def charges(self, cluster: ResolvedCluster) -> list[Charge]:
        return k3s_gce_charges(cluster)

    def shared_volume_server(
        self, cluster: ResolvedCluster, volume: "PlannedVolume"
    ) -> "VolumeServer | None":
        """An NFS volume naming no export is served by a VM gpukit makes (k3s/nfs_server.py), in the
        servers' first zone; its disk is priced where a pd-balanced price is sourced (nfs_vm_facts.py)."""
        from gpukit.components.storage.plan import VolumeServer

        if volume.kind is not StorageKind.NFS or "server" in (volume.spec.get("nfs") or {}):
            return None
        region = cluster.spec["region"]
        servers = [p for p in cluster.pools if p.role is NodeRole.SERVER]
        zones = self.pool_zones(cluster, servers[0]) if servers else []
        return VolumeServer(
            NFS_VM_MACHINE_TYPE,
            self.catalog.quote(self.catalog.machine(NFS_VM_MACHINE_TYPE), region).per_node,
            NFS_DISK_TYPE,
            PD_BALANCED_USD_PER_GB_MONTH.get(region),
            nfs_zone(zones) if zones else "",
        )

    def plan_fakes(self, config: Mapping[str, Any]) -> PlanFakes:
        return GcpFakes(config)

    def build(self, name: str, cluster: ResolvedCluster, parent: "pulumi.Resource") -> "ClusterHandle":
        from gpukit.providers.gcp.k3s.cluster import build_k3s_gce

        return build_k3s_gce(name, cluster, parent)
