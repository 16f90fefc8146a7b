"""GKE's shared storage, the storage add-on's variant there (Substrate.addon_variants): Filestore,
Managed Lustre and Cloud Storage FUSE, through GKE's own CSI add-ons, in the cluster's network
(GkeStorageState, what the GKE build keeps for it)."""

from typing import Any

from gpukit.components.addons.base import BuildContext, ValidationScope
from gpukit.components.addons.storage.built import BuiltVolume
from gpukit.components.addons.storage.plan import volume_choice
from gpukit.components.addons.storage.variant import StorageVariant
from gpukit.components.addons.storage.volume import PlannedVolume
from gpukit.components.errors import Problem
from gpukit.components.findings import Finding
from gpukit.components.spec import StorageKind
from gpukit.components.substrate import ResolvedCluster, Substrate
from gpukit.providers.gcp.gke.shared_storage.filestore_zone import (
    filestore_zone,
    filestore_zone_findings,
    validate_filestore_zones,
)
from gpukit.providers.gcp.gke.shared_storage.findings import outliving_instance_findings
from gpukit.providers.gcp.gke.shared_storage.state import GkeStorageState
from gpukit.providers.gcp.gke.shared_storage.tables import FILESTORE_ZONAL_TIERS
from gpukit.providers.gcp.gke.shared_storage.validation import (
    validate_gke_private_access,
    validate_gke_shared,
)


class GkeSharedStorageVariant(StorageVariant):
    kinds = frozenset({StorageKind.FILESTORE, StorageKind.GCS_FUSE, StorageKind.MANAGED_LUSTRE})
    # gpukit's GKE clusters run Dataplane V2 (gke/cluster.py datapath_provider), which enforces
    # NetworkPolicy with no add-on to enable (GKE docs, "About GKE Dataplane V2").
    network_policy = "GKE Dataplane V2"
    # Pods reach the GKE metadata server (Workload Identity) through these, which GKE's network policy
    # guide says an egress policy must allow (GKE docs, "Control communication between Pods and
    # Services using network policies", requirements: 169.254.169.252/32 port 988 since 1.21.0-gke.1000,
    # and 169.254.169.254/32 port 80 on Dataplane V2). Dataplane V2 is Cilium, whose ipBlock 0.0.0.0/0
    # does not select node addresses (cilium/cilium#20550), so they are named rather than assumed.
    network_policy_allows = (("169.254.169.254/32", 80), ("169.254.169.252/32", 988))
    pod_access = (
        "gcs-fuse: the bucket admits the volume's own Kubernetes service account only (Workload Identity); "
        "managed-lustre: a Lustre client is a kernel mount, which only a privileged pod can make "
        "(refused by Pod Security baseline, gpukit's default level)"
    )

    def problems(self, scope: ValidationScope) -> list[Problem]:
        substrate = scope.substrate
        assert substrate is not None  # the storage add-on asks only where the substrate is known
        cluster = scope.args["cluster"]
        shared = scope.args.get("storage", {}).get("shared", [])
        problems: list[Problem] = []
        validate_gke_shared(shared, problems)
        validate_gke_private_access(cluster.get("network", {}), _kinds(shared, cluster, substrate), problems)
        tiers = _filestore_tiers(shared, cluster, substrate)
        # Zones come from the pools' facts (their machines), which only pools without problems have.
        if scope.pools is not None and not problems and any(tiers):
            validate_filestore_zones(shared, tiers, cluster, list(scope.pools), problems)
        return problems

    def volume_zones(self, cluster: ResolvedCluster, volume: PlannedVolume) -> list[str]:
        """A basic or zonal Filestore instance lives in one zone (filestore_zone.py); every other volume
        serves every zone of the region."""
        if volume.kind is not StorageKind.FILESTORE or volume.tier.name not in FILESTORE_ZONAL_TIERS:
            return []
        zone = filestore_zone(volume.spec, cluster.spec, cluster.pools)
        return [zone] if zone else []

    def findings(self, cluster: ResolvedCluster, volumes: list[PlannedVolume]) -> list[Finding]:
        configured = cluster.args.get("storage", {}).get("shared", [])
        return [*outliving_instance_findings(volumes), *filestore_zone_findings(volumes, configured)]

    def build(self, ctx: BuildContext, volumes: list[PlannedVolume]) -> list[BuiltVolume]:
        """Under the GkeCluster component, on the stack's gcp provider, where they always were."""
        # Lazy: building imports pulumi_gcp, which planning another cloud's stack never needs.
        import pulumi

        from gpukit.providers.gcp.gke.shared_storage.volumes import GkeSharedStorage, gke_shared_volumes

        state = ctx.handle.substrate_state
        if not isinstance(state, GkeStorageState):
            raise TypeError(f"the GKE build keeps a GkeStorageState; got {type(state).__name__}")
        storage = GkeSharedStorage(
            f"{ctx.name}-shared",
            {
                "cluster_name": state.cluster_name,
                "project": state.project,
                "region": state.region,
                "network_id": state.network_id,
                "node_service_account": state.node_service_account,
                "volumes": gke_shared_volumes(ctx.cluster),
                "after": state.after,
            },
            opts=pulumi.ResourceOptions(
                parent=state.component,
                providers={"gcp": state.gcp_provider, "kubernetes": ctx.handle.kubernetes},
            ),
        )
        return storage.built


def _filestore_tiers(shared: list[Any], cluster: Any, substrate: Substrate) -> list[str | None]:
    """Each Filestore volume's tier, chosen as the plan chooses it (None: another kind, or refused)."""
    region = cluster.get("region", "")
    chosen = [volume_choice(v, substrate, region) for v in shared]
    return [
        c.tier.name
        if c.backend is not None and c.tier is not None and c.backend.kind is StorageKind.FILESTORE
        else None
        for c in chosen
    ]


def _kinds(shared: list[Any], cluster: Any, substrate: Substrate) -> list[str | None]:
    """Each volume's kind, `auto` resolved as the plan resolves it (None: none fits, refused by
    components/addons/storage/validate.py)."""
    region = cluster.get("region", "")
    chosen = [volume_choice(v, substrate, region).backend for v in shared]
    return [b.kind.value if b is not None else None for b in chosen]
