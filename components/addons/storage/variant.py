"""What a substrate builds of shared storage: the storage add-on's per-substrate variant.

A substrate declares its variant as `addon_variants = {STORAGE: <a StorageVariant>}` (EKS's in
providers/aws/eks/shared_storage/variant.py, GKE's in providers/gcp/gke/shared_storage/variant.py,
k3s's NFS in components/addons/storage/nfs/variant.py); one without builds no shared volume, and every
volume there is refused ("gpukit does not build <kind> on <substrate> yet").

To add a backend on a substrate: fill its row in backends.py (sizes, tiers, throughput, price, regions,
the substrates it serves) with sources; add its kind to the variant's `kinds`; build it in `build`
(the cloud resources, network rules open only to the nodes, its CSI driver and identity, and a
StorageClass named `volume.storage_class` on the cluster's API, a PersistentVolume where the backend is
static); say its zones and its own checks and findings where it has any; add bad-config cases to
tests/program/test_bad_configs_storage*.py.
"""

from gpukit.components.addons.base import BuildContext, ValidationScope, addon_variant
from gpukit.components.addons.storage.built import BuiltVolume
from gpukit.components.addons.storage.volume import PlannedVolume, VolumeServer
from gpukit.components.errors import Problem
from gpukit.components.findings import Finding
from gpukit.components.spec import StorageKind
from gpukit.components.substrate import ResolvedCluster, Substrate

STORAGE = "storage"
"""The add-on's name: its key in Substrate.addon_variants."""


class StorageVariant:
    """A substrate's shared storage. Subclass it; every hook has a default for a substrate that builds
    none, except `build`, which a variant with `kinds` must implement."""

    kinds: frozenset[StorageKind] = frozenset()
    """The backends gpukit builds here; a volume of any other kind is refused. Each must list this
    substrate in backends.py (a test checks)."""
    zone_notes: frozenset[StorageKind] = frozenset()
    """Single-zone kinds whose cross-zone traffic this variant's own `findings` name, pool by pool: the
    add-on's general note on it (usage.py) leaves them out."""
    cloud_zones: bool = True
    """The machines sit in a cloud's zones, whose traffic between zones is billed (hosts over SSH sit in
    none)."""
    network_policy: str = ""
    """What enforces NetworkPolicy on this substrate's clusters as gpukit builds them, for the report;
    empty where nothing does by default (pods are then not kept off the volumes' servers: isolation.py)."""
    network_policy_allows: tuple[tuple[str, int], ...] = ()
    """(CIDR, TCP port) pairs the platform's docs say an egress policy must allow explicitly."""
    pod_access: str = ""
    """What keeps pods from using the backends directly where no NetworkPolicy is enforced (the report
    says it)."""

    def problems(self, scope: ValidationScope) -> list[Problem]:
        """Checks of `gpukit:storage` only this substrate makes (the neutral ones are validate.py's)."""
        return []

    def volume_zones(self, cluster: ResolvedCluster, volume: PlannedVolume) -> list[str]:
        """The zones a volume serves, for the plan (empty: every zone of the cluster)."""
        return []

    def volume_server(self, cluster: ResolvedCluster, volume: PlannedVolume) -> VolumeServer | None:
        """The machine gpukit runs for a volume (its type, prices, zone), for the plan and costs; None
        where the backend needs none of gpukit's (a managed service, the user's own server)."""
        return None

    def findings(self, cluster: ResolvedCluster, volumes: list[PlannedVolume]) -> list[Finding]:
        """Preflight findings about this substrate's volumes."""
        return []

    def build(self, ctx: BuildContext, volumes: list[PlannedVolume]) -> list[BuiltVolume]:
        """The volumes (file systems, CSI drivers, the StorageClass `volume.storage_class`), one
        BuiltVolume each; called once the cluster exists, with validated volumes of `kinds` only."""
        raise NotImplementedError(f"{type(self).__name__} builds no shared volume")


NO_SHARED_STORAGE = StorageVariant()


def storage_variant(substrate: Substrate) -> StorageVariant:
    """The variant `substrate` declares, or NO_SHARED_STORAGE."""
    return addon_variant(substrate, STORAGE, StorageVariant, NO_SHARED_STORAGE)
