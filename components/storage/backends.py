"""What each shared-storage backend is, as data: where it can be used, its size range and step per tier,
the throughput each tier gives per size, encryption, availability, access modes, its CSI driver and
StorageClass provisioner, and its list price.

Every figure carries its source. Where none was found yet the field is None ("not sourced"): gpukit then
promises nothing from it (a throughput it cannot show is never assumed to be met, a volume without a
price is listed unpriced). The backend helpers of issue 15 fill and correct the rows of their cloud.
"""

from dataclasses import dataclass

from gpukit.components.spec import StorageKind, StorageRole

GIB_PER_TIB = 1024


@dataclass(frozen=True)
class Tier:
    """One performance tier of a backend: its sizes, its throughput at a size, its price."""

    name: str
    """How `tier:` names it in the config."""
    min_gb: int
    max_gb: int | None
    """None: no sourced maximum (an account quota, or elastic)."""
    step_gb: int = 1
    """Sizes go up in this step from `min_gb`, except where `first_sizes` lists sizes below it."""
    mbps_per_tib: float | None = None
    """Throughput that grows with size (Lustre): MB/s per TiB; None where not sourced."""
    max_mbps: float | None = None
    """A fixed ceiling of throughput for any size (elastic backends); None where not sourced."""
    highly_available: bool = False
    """Survives the loss of one zone."""
    usd_per_gb_month: float | None = None
    """List price per GiB-month in the backend's price region; None where not sourced."""
    first_sizes: tuple[int, ...] = ()
    """Allowed sizes below the stepped range (FSx for Lustre: 1200, then steps of 2400)."""

    def holds(self, size_gb: int) -> bool:
        """Whether `size_gb` is a size this tier creates."""
        if size_gb in self.first_sizes:
            return True
        if size_gb < self.min_gb or (self.max_gb is not None and size_gb > self.max_gb):
            return False
        return (size_gb - self.min_gb) % self.step_gb == 0

    def sizes_in_words(self) -> str:
        first = "".join(f"{s}, " for s in self.first_sizes)
        top = f"{self.max_gb}" if self.max_gb is not None else "no sourced maximum"
        step = f" in steps of {self.step_gb}" if self.step_gb > 1 else ""
        return f"{first}{self.min_gb} to {top} GiB{step}"

    def throughput_mbps(self, size_gb: int) -> float | None:
        """The throughput this tier gives at `size_gb`, MB/s (None: no sourced figure)."""
        if self.mbps_per_tib is not None:
            scaled = self.mbps_per_tib * size_gb / GIB_PER_TIB
            return scaled if self.max_mbps is None else min(scaled, self.max_mbps)
        return self.max_mbps


@dataclass(frozen=True)
class Backend:
    kind: StorageKind
    title: str
    substrates: frozenset[str]
    """Substrate names (Substrate.name) the backend can serve. A substrate builds it once it also lists
    the kind in its `shared_storage_kinds`."""
    roles: frozenset[StorageRole]
    """The roles it serves: `kind: auto` picks among these, and a volume naming the kind for another role
    is refused (validate.py: a bucket never holds checkpoints, it takes no appends or random writes)."""
    tiers: tuple[Tier, ...]
    """In the order `auto` and a missing `tier` try them: cheapest first."""
    access_modes: tuple[str, ...]
    csi_driver: str
    """The CSI driver name, which is the StorageClass provisioner of dynamically provisioned backends."""
    provisioner: str | None
    """The StorageClass provisioner; None where gpukit provisions statically (a PersistentVolume)."""
    encrypted_at_rest: bool | None
    encrypted_in_transit: bool | None
    needs_bucket: bool = False
    regions: frozenset[str] | None = None
    """Regions that offer it; None: every region of its substrates (or not sourced yet)."""
    price_region: str = ""
    """The region `usd_per_gb_month` is a list price of."""
    price_source: str = ""

    def tier(self, name: str) -> Tier | None:
        return next((t for t in self.tiers if t.name == name), None)


# Kubernetes access mode names: https://kubernetes.io/docs/concepts/storage/persistent-volumes/#access-modes
RWX = "ReadWriteMany"
ROX = "ReadOnlyMany"

CLOUD_K3S = frozenset({"k3s-aws", "k3s-gcp", "k3s-ssh"})

BACKENDS: dict[StorageKind, Backend] = {
    b.kind: b
    for b in (
        Backend(
            StorageKind.EFS,
            "Amazon EFS",
            frozenset({"eks"}),
            frozenset({StorageRole.DATASETS, StorageRole.CHECKPOINTS, StorageRole.MODEL_CACHE}),
            # Elastic throughput, Regional (multi-AZ): no size is provisioned; sizeGb only prices the volume.
            # Throughput: writes 1-5 GiBps per file system by region, reads 20-60 GiBps, 1,500 MiBps per
            # client (EFS guide, performance.html): the promise is the lowest write figure, 1 GiBps =
            # 1,073 MB/s. Price: Standard storage $0.30/GB-month in us-east-1 and us-west-2
            # (https://aws.amazon.com/efs/pricing/; providers/aws/eks/shared_storage/facts.py); Elastic
            # reads $0.03/GB and writes $0.06/GB come on top, with the traffic (not in the hourly figure).
            (Tier("elastic", 1, None, highly_available=True, max_mbps=1073, usd_per_gb_month=0.30),),
            (RWX,),
            # Driver name: kubernetes-sigs/aws-efs-csi-driver, deploy/kubernetes/base/csidriver.yaml
            "efs.csi.aws.com",
            "efs.csi.aws.com",
            # At rest: gpukit creates the file system with `encrypted`; in transit: TLS, the driver's
            # default (aws-efs-csi-driver pkg/driver/node.go `encryptInTransit := true`, docs/parameters.md).
            encrypted_at_rest=True,
            encrypted_in_transit=True,
            price_region="us-east-1",
            price_source="https://aws.amazon.com/efs/pricing/ (Standard, Regional)",
        ),
        Backend(
            StorageKind.FSX_LUSTRE,
            "Amazon FSx for Lustre (PERSISTENT_2)",
            frozenset({"eks"}),
            frozenset({StorageRole.DATASETS, StorageRole.CHECKPOINTS, StorageRole.MODEL_CACHE}),
            # PERSISTENT_2 per-unit throughput 125, 250, 500, 1000 MB/s/TiB: FSx Lustre guide, "Managing
            # throughput capacity" (https://docs.aws.amazon.com/fsx/latest/LustreGuide/managing-throughput-capacity.html).
            # SSD sizes 1200 GiB, 2400 GiB and steps of 2400 GiB: FSx API CreateFileSystem StorageCapacity.
            # One file system lives in one AZ (single-AZ deployment): not highly available.
            tuple(
                Tier(str(rate), 2400, None, 2400, mbps_per_tib=rate, first_sizes=(1200,))
                for rate in (125, 250, 500, 1000)
            ),
            (RWX,),
            # kubernetes-sigs/aws-fsx-csi-driver; EKS user guide fsx-csi-create.html
            "fsx.csi.aws.com",
            "fsx.csi.aws.com",
            # At rest: "automatically enabled" (FSx Lustre guide, encryption-at-rest.html). In transit:
            # persistent and SCRATCH_2 file systems encrypt automatically when the client EC2 instance
            # type supports encryption in transit (encryption-in-transit-fsxl.html; the list is the EC2
            # user guide's, data-protection.html#encryption-transit): it depends on the node, so not
            # promised. Price: not sourced (https://aws.amazon.com/fsx/lustre/pricing/ could not be read
            # with its figures): listed unpriced.
            encrypted_at_rest=True,
            encrypted_in_transit=None,
        ),
        Backend(
            StorageKind.S3,
            "Mountpoint for Amazon S3",
            frozenset({"eks"}),
            frozenset({StorageRole.DATASETS, StorageRole.MODEL_CACHE}),
            (Tier("standard", 1, None, highly_available=True),),
            (RWX, ROX),
            # awslabs/mountpoint-s3-csi-driver: driver s3.csi.aws.com, static provisioning only.
            "s3.csi.aws.com",
            None,
            # S3 encrypts new objects with SSE-S3 by default since 2023-01-05 (S3 user guide,
            # default-encryption-faq); Mountpoint talks HTTPS.
            encrypted_at_rest=True,
            encrypted_in_transit=True,
            needs_bucket=True,
        ),
        Backend(
            StorageKind.FILESTORE,
            "Filestore",
            frozenset({"gke"}),
            frozenset({StorageRole.DATASETS, StorageRole.CHECKPOINTS, StorageRole.MODEL_CACHE}),
            # The GKE backend's table (providers/gcp/gke/shared_storage/tables.py FILESTORE_TIERS) with its
            # sources: sizes from the Filestore CSI driver's ranges (kubernetes-sigs/gcp-filestore-csi-driver
            # controller.go) and Filestore "Service tiers" steps; read throughput per Filestore
            # "Performance" (https://cloud.google.com/filestore/docs/performance) in MiB/s, which gives at
            # least as many MB/s. Prices: per region, in rates.py (REGIONAL_RATES), priced only where sourced.
            (
                Tier("basic-hdd", 100, 65433, max_mbps=100),
                Tier("basic-ssd", 2560, 65433, max_mbps=1200),
                Tier("zonal", 1024, 9984, 256, mbps_per_tib=260, max_mbps=2535),
                Tier("zonal-large", 10240, 102400, 2560, mbps_per_tib=260, max_mbps=26000),
                Tier("regional", 1024, 9984, 256, mbps_per_tib=120, max_mbps=1170, highly_available=True),
                Tier(
                    "regional-large",
                    10240,
                    102400,
                    2560,
                    mbps_per_tib=260,
                    max_mbps=26000,
                    highly_available=True,
                ),
                Tier("enterprise", 1024, 10240, 256, mbps_per_tib=120, max_mbps=1200, highly_available=True),
            ),
            (RWX,),
            # GKE Filestore CSI driver (GoogleCloudPlatform/gcp-filestore-csi-driver)
            "filestore.csi.storage.gke.io",
            "filestore.csi.storage.gke.io",
            # Google encrypts data at rest by default (Google Cloud default encryption); NFSv3 carries
            # no in-transit encryption (Filestore "Supported protocols": only NFSv4.1 with Kerberos krb5p
            # encrypts in transit, which needs Managed Microsoft AD; gpukit mounts NFSv3).
            encrypted_at_rest=True,
            encrypted_in_transit=False,
        ),
        Backend(
            StorageKind.GCS_FUSE,
            "Cloud Storage FUSE",
            frozenset({"gke"}),
            frozenset({StorageRole.DATASETS, StorageRole.MODEL_CACHE}),
            (Tier("standard", 1, None, highly_available=True),),
            (RWX, ROX),
            # GoogleCloudPlatform/gcs-fuse-csi-driver: driver gcsfuse.csi.storage.gke.io (static volumes).
            # Price: Standard storage per stored GiB-month, per region in rates.py.
            "gcsfuse.csi.storage.gke.io",
            None,
            encrypted_at_rest=True,
            encrypted_in_transit=True,
            needs_bucket=True,
        ),
        Backend(
            StorageKind.MANAGED_LUSTRE,
            "Google Cloud Managed Lustre",
            frozenset({"gke"}),
            frozenset({StorageRole.DATASETS, StorageRole.CHECKPOINTS, StorageRole.MODEL_CACHE}),
            # Tiers, minimum, maximum and step (the smaller-step range): Managed Lustre "Performance
            # tiers" (docs.cloud.google.com/managed-lustre/docs/performance-tiers). Zonal.
            (
                Tier("125", 72000, 12240000, 72000, mbps_per_tib=125),
                Tier("250", 36000, 6120000, 36000, mbps_per_tib=250),
                Tier("500", 18000, 3060000, 18000, mbps_per_tib=500),
                Tier("1000", 9000, 1530000, 9000, mbps_per_tib=1000),
            ),
            (RWX,),
            # GKE Managed Lustre CSI driver (lustre_csi_driver_config add-on)
            "lustre.csi.storage.gke.io",
            "lustre.csi.storage.gke.io",
            encrypted_at_rest=True,
            encrypted_in_transit=None,
            # Managed Lustre "Locations" (providers/gcp/gke/shared_storage/tables.py LUSTRE_REGIONS).
            # Price: per region in rates.py (none sourced yet).
            regions=frozenset(
                {
                    "africa-south1",
                    "asia-east1",
                    "asia-east2",
                    "asia-northeast1",
                    "asia-northeast2",
                    "asia-northeast3",
                    "asia-south1",
                    "asia-south2",
                    "asia-southeast1",
                    "asia-southeast2",
                    "australia-southeast1",
                    "europe-west1",
                    "europe-west2",
                    "europe-west3",
                    "europe-west4",
                    "europe-west9",
                    "me-central2",
                    "me-west1",
                    "northamerica-northeast1",
                    "us-central1",
                }
            ),
        ),
        Backend(
            StorageKind.NFS,
            "NFS (NFS CSI driver)",
            CLOUD_K3S,
            frozenset({StorageRole.DATASETS, StorageRole.CHECKPOINTS, StorageRole.MODEL_CACHE}),
            # One server: never highly available. Size and throughput are the server's (its NIC and
            # disk: docs/shared-storage.md, k3s). $0 per GiB here: the CSI driver costs nothing, a host
            # or export of the user's has no charge gpukit knows, and the small VM gpukit makes on EC2 or
            # Compute Engine is priced on its own (VolumeServer: its machine per hour, its disk per
            # GiB-month; providers/*/k3s/nfs_vm_facts.py).
            (Tier("standard", 1, None, usd_per_gb_month=0.0),),
            (RWX,),
            # kubernetes-csi/csi-driver-nfs: driver nfs.csi.k8s.io
            "nfs.csi.k8s.io",
            "nfs.csi.k8s.io",
            encrypted_at_rest=None,
            encrypted_in_transit=False,
        ),
    )
}


def backend(kind: StorageKind) -> Backend:
    """The table row of a concrete kind (never AUTO: resolve it with choose_backend first)."""
    return BACKENDS[kind]


def kinds_for(substrate_name: str) -> list[StorageKind]:
    """The backends that can serve a substrate, in table order."""
    return [k for k, b in BACKENDS.items() if substrate_name in b.substrates]
