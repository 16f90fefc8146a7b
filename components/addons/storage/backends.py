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
    """Substrate names (Substrate.name) the backend can serve. A substrate builds it once its storage
    variant (variant.py) also lists the kind in its `kinds`."""
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
    trusts_addresses: bool = False
    """Its server admits clients by network address alone (an NFS export to the nodes, Filestore's to
    its VPC), so any pod there could use it directly: isolation.py keeps pods off where it can."""
    takes_zone: bool = False
    """A single-zone backend whose zone the config may pin (`zone`): a change of zone replaces it."""
    regions: frozenset[str] | None = None
    """Regions that offer it; None: every region of its substrates (or not sourced yet)."""
    regions_source: str = ""
    """The page that lists `regions`, which a refusal names so the user can check a newer list."""
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
            # 1,073 MB/s. Price: Standard storage, per region in rates.py (us-east-1 and us-west-2 only);
            # Elastic throughput's per-GB read and write charges come on top, with the traffic (not in the
            # hourly figure).
            (Tier("elastic", 1, None, highly_available=True, max_mbps=1073),),
            (RWX,),
            # Driver name: kubernetes-sigs/aws-efs-csi-driver, deploy/kubernetes/base/csidriver.yaml
            "efs.csi.aws.com",
            "efs.csi.aws.com",
            # At rest: gpukit creates the file system with `encrypted`; in transit: TLS, the driver's
            # default (aws-efs-csi-driver pkg/driver/node.go `encryptInTransit := true`, docs/parameters.md).
            encrypted_at_rest=True,
            encrypted_in_transit=True,
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
            takes_zone=True,
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
            # The one table of Filestore tiers (the GKE build reads it; providers/gcp/gke/shared_storage/
            # tables.py adds only each tier's API name). Sizes: the CSI driver's own ranges
            # (kubernetes-sigs/gcp-filestore-csi-driver controller.go: standard/basic_hdd 100 GiB to 63.9
            # TiB, premium/basic_ssd 2.5 to 63.9 TiB, enterprise 1 to 10 TiB, zonal 1 TiB to 9984 GiB and
            # 10 to 100 TiB); steps from Filestore "Service tiers"
            # (https://cloud.google.com/filestore/docs/service-tiers: basic "up only in 1 GiB units";
            # zonal, regional and enterprise 1-9.75 TiB "in 256 GiB units", 10-100 TiB "in 2.5 TiB
            # units"). Regional starts at 1 TiB here: the service-tiers table says 1 TiB, a newer regional
            # page 100 GiB; 1 TiB and up in 256 GiB units is valid under both. Read throughput: Filestore
            # "Performance" (https://cloud.google.com/filestore/docs/performance), estimated limits in
            # MiB/s (which gives at least as many MB/s): BASIC_HDD 100 (1-10 TiB; a share under 1 TiB is
            # given the same figure, no smaller one is published); BASIC_SSD 1,200; ZONAL 260 per TiB up to
            # 2,535 at 9.75 TiB, 26,000 at 100 TiB; REGIONAL 120 per TiB up to 1,170 at 9.75 TiB, then 260
            # per TiB; ENTERPRISE 120 per TiB up to 1,200. Availability: regional and enterprise replicate
            # across zones, basic and zonal live in one zone (service-tiers table, "Availability"). Prices:
            # per region, in rates.py (REGIONAL_RATES), priced only where sourced.
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
            # gpukit sets no nfsExportOptions, so every client on the VPC may mount it read/write as
            # root (Filestore API v1 NfsExportOptions: accessMode READ_WRITE and squashMode
            # NO_ROOT_SQUASH are the defaults).
            trusts_addresses=True,
            # Its basic and zonal tiers live in one zone; GKE refuses `zone` on the regional ones
            # (providers/gcp/gke/shared_storage/filestore_zone.py).
            takes_zone=True,
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
            # Price: per region in rates.py (none sourced yet).
            # Regions: Managed Lustre "Locations", "Supported regions and zones"
            # (https://cloud.google.com/managed-lustre/docs/locations). Every copy gpukit could read is cut
            # off mid-table (after northamerica-northeast1, where one copy continues with "southame..."),
            # so this is a lower bound: the regions those copies list, australia-southeast2 (listed, zones
            # cut off, in the newest copy), and us-central1, where Google's own examples create instances
            # (`gcloud lustre instances create` reference; pulumi-gcp lustre.Instance example, location
            # us-central1-a). A region not listed is refused naming the page, so the user can check it;
            # add a region here with its source. The page lists zones per region too, but not completely
            # in any copy read, so zones are not checked.
            regions_source="https://cloud.google.com/managed-lustre/docs/locations",
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
                    "australia-southeast2",
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
            trusts_addresses=True,  # exports.py: to the nodes' subnet or addresses, sec=sys
        ),
    )
}


def backend(kind: StorageKind) -> Backend:
    """The table row of a concrete kind (never AUTO: resolve it with choose_backend first)."""
    return BACKENDS[kind]


def kinds_for(substrate_name: str) -> list[StorageKind]:
    """The backends that can serve a substrate, in table order."""
    return [k for k, b in BACKENDS.items() if substrate_name in b.substrates]
