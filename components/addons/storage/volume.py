"""A shared volume as planned: its backend and tier, what it gives, what it costs and the StorageClass a
claim uses (components/addons/storage/plan.py plans them). Pure: the plan report, plan.json, costs and
the substrates' storage variants all read these facts, computed from the validated config."""

from dataclasses import dataclass

from gpukit.components.addons.storage.backends import Backend, Tier
from gpukit.components.addons.storage.naming import storage_class_name
from gpukit.components.addons.storage.rates import is_regional, regional_rate
from gpukit.components.pricing import HOURS_PER_MONTH
from gpukit.components.spec import SharedVolumeSpec, StorageKind, StorageRole

__all__ = ["HOURS_PER_MONTH", "PlannedVolume", "VolumeServer"]


@dataclass(frozen=True)
class VolumeServer:
    """A machine gpukit runs for one volume (k3s NFS on a small cloud VM): what it is and costs. Its
    data sits on a disk of its own, priced per GiB-month; the machine per hour."""

    machine: str
    """Its machine type, e.g. m7i.large."""
    machine_usd_per_hour: float | None
    """On-demand list price in the cluster's region (None: no sourced price there)."""
    disk: str
    """The data disk's type, e.g. gp3."""
    disk_usd_per_gb_month: float | None
    zone: str = ""
    """Where it runs, where known before `pulumi up` ("" otherwise: the plan says how it is chosen)."""


@dataclass(frozen=True)
class PlannedVolume:
    spec: SharedVolumeSpec
    backend: Backend
    tier: Tier
    reason: str
    """Why `kind: auto` chose this backend; "" where the config names the kind."""
    zones: tuple[str, ...] = ()
    """The zones it serves (the storage variant's volume_zones); empty: every zone of the cluster."""
    region: str = ""
    """The cluster's region: backends priced per region (rates.py) are priced only where sourced."""
    server: VolumeServer | None = None
    """The machine gpukit runs for it (the storage variant's volume_server); its price is the volume's."""

    @property
    def name(self) -> str:
        return self.spec["name"]

    @property
    def role(self) -> StorageRole:
        return self.spec["role"]

    @property
    def kind(self) -> StorageKind:
        return self.backend.kind

    @property
    def size_gb(self) -> int:
        return self.spec["size_gb"]

    @property
    def throughput_mbps(self) -> float | None:
        """What the tier gives at this size (None: no sourced figure)."""
        return self.tier.throughput_mbps(self.size_gb)

    @property
    def storage_class(self) -> str:
        return storage_class_name(self.name)

    @property
    def highly_available(self) -> bool:
        return self.tier.highly_available

    @property
    def priced_per_region(self) -> bool:
        """Whether the price comes from rates.py's per-region table (else from the tier's row)."""
        return is_regional(self.kind, self.tier.name)

    @property
    def usd_per_gb_month(self) -> float | None:
        if self.server is not None:
            return self.server.disk_usd_per_gb_month
        if self.priced_per_region:
            rate = regional_rate(self.kind, self.tier.name, self.region)
            return None if rate is None else rate.usd_per_gb_month
        return self.tier.usd_per_gb_month

    @property
    def bills_stored_bytes(self) -> bool:
        """A bucket the config names (it exists already): it bills the bytes it holds, in its own location
        and storage class, whatever gpukit does; sizeGb is only the claim's nominal capacity. Its rate is
        shown per GiB-month of stored data, never as an hourly charge in the totals."""
        return self.backend.needs_bucket

    @property
    def usd_per_hour(self) -> float | None:
        """The backend's rate for the size, or a server's machine plus its disk (None: either unpriced, or
        a bucket, which bills the bytes it holds)."""
        rate = self.usd_per_gb_month
        if rate is None or self.bills_stored_bytes:
            return None
        storage = rate * self.size_gb / HOURS_PER_MONTH
        if self.server is None:
            return storage
        machine = self.server.machine_usd_per_hour
        return None if machine is None else machine + storage
