"""Facts about GKE's shared-storage backends, as tables and pure functions (no Pulumi here)."""

import re
from dataclasses import dataclass
from typing import Any

FILESTORE = "filestore"
GCS_FUSE = "gcs-fuse"
MANAGED_LUSTRE = "managed-lustre"
GKE_SHARED_KINDS = (FILESTORE, GCS_FUSE, MANAGED_LUSTRE)

# CSI driver names, which are also the StorageClass provisioners: GKE Filestore CSI driver
# (kubernetes-sigs/gcp-filestore-csi-driver, "filestore.csi.storage.gke.io"); Cloud Storage FUSE CSI
# driver (GoogleCloudPlatform/gcs-fuse-csi-driver, PersistentVolume `csi.driver`); Managed Lustre CSI
# driver reference (https://cloud.google.com/managed-lustre/docs/lustre-csi-driver-reference,
# `provisioner: lustre.csi.storage.gke.io`).
FILESTORE_DRIVER = "filestore.csi.storage.gke.io"
GCS_FUSE_DRIVER = "gcsfuse.csi.storage.gke.io"
LUSTRE_DRIVER = "lustre.csi.storage.gke.io"

# The cluster's add-on per backend: pulumi-gcp container.Cluster addons_config (terraform-provider-google
# container_cluster docs: gcp_filestore_csi_driver_config, gcs_fuse_csi_driver_config,
# lustre_csi_driver_config { enabled, enable_legacy_lustre_port }). Each is off by default on GKE
# Standard; turning one on for an existing cluster is an in-place update (`gcloud container clusters
# update --update-addons=GcpFilestoreCsiDriver=ENABLED`, GKE "Access Filestore instances with the
# Filestore CSI driver"), never a new cluster.
ADDON_OF_KIND = {
    FILESTORE: "gcp_filestore_csi_driver_config",
    GCS_FUSE: "gcs_fuse_csi_driver_config",
    MANAGED_LUSTRE: "lustre_csi_driver_config",
}


def cluster_addons(kinds: set[str]) -> Any:
    """The cluster's addons_config: the Persistent Disk CSI driver always, and the shared backends'."""
    return {"gce_persistent_disk_csi_driver_config": {"enabled": True}, **storage_addons(kinds)}


def storage_addons(kinds: set[str]) -> dict[str, dict[str, bool]]:
    """The addons_config entries the declared backends need; none for a cluster without shared volumes,
    so clusters that declare none keep exactly the add-ons they had."""
    return {ADDON_OF_KIND[k]: {"enabled": True} for k in GKE_SHARED_KINDS if k in kinds}


# APIs each backend's resources call (Google API Library names): Filestore instances
# (file.googleapis.com), Managed Lustre instances (lustre.googleapis.com), buckets
# (storage.googleapis.com), the private services access connection (servicenetworking.googleapis.com,
# Managed Lustre "Configure a VPC network": `gcloud services enable servicenetworking.googleapis.com`).
SERVICE_NETWORKING_API = "servicenetworking.googleapis.com"
APIS_OF_KIND = {
    FILESTORE: ("file.googleapis.com", SERVICE_NETWORKING_API),
    GCS_FUSE: ("storage.googleapis.com",),
    MANAGED_LUSTRE: ("lustre.googleapis.com", SERVICE_NETWORKING_API),
}


def storage_apis(kinds: set[str]) -> tuple[str, ...]:
    apis: list[str] = []
    for kind in GKE_SHARED_KINDS:
        if kind in kinds:
            apis += [a for a in APIS_OF_KIND[kind] if a not in apis]
    return tuple(apis)


@dataclass(frozen=True)
class FilestoreTier:
    name: str
    """gpukit's name (`tier:` in the config)."""
    csi_tier: str
    """The StorageClass `tier` parameter. Lowercase: the driver compares "enterprise" and "regional" as
    written to create them in the region rather than a zone (gcp-filestore-csi-driver
    pkg/csi_driver/controller.go generateNewFileInstance)."""
    min_gb: int
    max_gb: int
    step_gb: int
    read_mibps_per_tib: float | None
    """Read throughput that grows with capacity (None: a fixed ceiling, `read_mibps_max`)."""
    read_mibps_max: float
    highly_available: bool

    def holds(self, size_gb: int) -> bool:
        return self.min_gb <= size_gb <= self.max_gb and (size_gb - self.min_gb) % self.step_gb == 0

    def read_mibps(self, size_gb: int) -> float:
        """Estimated read throughput at `size_gb`, MiB/s (Filestore's figures are estimates, not
        guarantees)."""
        if self.read_mibps_per_tib is None:
            return self.read_mibps_max
        return min(self.read_mibps_per_tib * size_gb / 1024, self.read_mibps_max)


# Sizes: the CSI driver's own ranges (gcp-filestore-csi-driver controller.go: standard/basic_hdd 100 GiB
# to 63.9 TiB, premium/basic_ssd 2.5 to 63.9 TiB, enterprise 1 to 10 TiB, zonal 1 TiB to 9984 GiB and 10
# to 100 TiB), the steps from Filestore "Service tiers" (https://cloud.google.com/filestore/docs/service-tiers:
# basic "up only in 1 GiB units"; zonal, regional and enterprise 1-9.75 TiB "in 256 GiB units", 10-100
# TiB "in 2.5 TiB units"). Regional starts at 1 TiB here: the service-tiers table says 1 TiB, a newer
# regional page 100 GiB; 1 TiB and up in 256 GiB units is valid under both.
# Read throughput: Filestore "Performance" (https://cloud.google.com/filestore/docs/performance), table of
# estimated limits: BASIC_HDD 100 MiBps (1-10 TiB); BASIC_SSD 1,200; ZONAL 260 at 1 TiB and 2,535 at
# 9.75 TiB, 2,600 at 10 TiB and 26,000 at 100 TiB (260 per TiB); REGIONAL 120 at 1 TiB to 1,170 at 9.75
# TiB (120 per TiB); ENTERPRISE 120 at 1 TiB to 1,200 at 10 TiB. A basic HDD share under 1 TiB is given
# the 1-10 TiB figure: no smaller one is published.
# Availability: regional and enterprise replicate across zones; basic and zonal live in one zone
# (service-tiers table, "Availability").
FILESTORE_TIERS: tuple[FilestoreTier, ...] = (
    FilestoreTier("basic-hdd", "basic_hdd", 100, 65433, 1, None, 100, False),
    FilestoreTier("basic-ssd", "basic_ssd", 2560, 65433, 1, None, 1200, False),
    FilestoreTier("zonal", "zonal", 1024, 9984, 256, 260, 2535, False),
    FilestoreTier("zonal-large", "zonal", 10240, 102400, 2560, 260, 26000, False),
    FilestoreTier("regional", "regional", 1024, 9984, 256, 120, 1170, True),
    FilestoreTier("regional-large", "regional", 10240, 102400, 2560, 260, 26000, True),
    FilestoreTier("enterprise", "enterprise", 1024, 10240, 256, 120, 1200, True),
)


def filestore_tier(name: str) -> FilestoreTier | None:
    return next((t for t in FILESTORE_TIERS if t.name == name), None)


def choose_filestore_tier(size_gb: int, throughput_mbps: int | None) -> FilestoreTier | None:
    """The first tier (cheapest first, the table's order) that holds `size_gb` and reads at least
    `throughput_mbps` at that size. MiB/s are compared as MB/s: 1 MiB/s is more than 1 MB/s, so a tier
    chosen this way gives at least what was asked."""
    for tier in FILESTORE_TIERS:
        if tier.holds(size_gb) and (throughput_mbps is None or tier.read_mibps(size_gb) >= throughput_mbps):
            return tier
    return None


# Managed Lustre performance tiers: `perUnitStorageThroughput` 125, 250, 500 or 1000 MB/s per TiB
# (Managed Lustre CSI driver reference). Minimum, step and the largest size of the smaller step, per tier
# (Managed Lustre "Performance tiers", https://cloud.google.com/managed-lustre/docs/performance-tiers):
# 1000: 9,000 GiB, steps of 9,000 up to 1,530,000; 500: 18,000, steps of 18,000 up to 3,060,000; 250:
# 36,000, steps of 36,000 up to 6,120,000; 125: 72,000, steps of 72,000 up to 12,240,000. Larger sizes
# use a larger step gpukit does not offer (an instance made in the small-step range cannot grow past it).
@dataclass(frozen=True)
class LustreTier:
    mbps_per_tib: int
    min_gb: int
    max_gb: int

    @property
    def name(self) -> str:
        return str(self.mbps_per_tib)

    def holds(self, size_gb: int) -> bool:
        return self.min_gb <= size_gb <= self.max_gb and size_gb % self.min_gb == 0

    def mbps(self, size_gb: int) -> float:
        return self.mbps_per_tib * size_gb / 1024


LUSTRE_TIERS: tuple[LustreTier, ...] = (
    LustreTier(125, 72000, 12240000),
    LustreTier(250, 36000, 6120000),
    LustreTier(500, 18000, 3060000),
    LustreTier(1000, 9000, 1530000),
)


def lustre_tier(name: str) -> LustreTier | None:
    return next((t for t in LUSTRE_TIERS if t.name == name), None)


def choose_lustre_tier(size_gb: int, throughput_mbps: int | None) -> LustreTier | None:
    """The lowest throughput tier (the cheapest per GiB) that holds `size_gb` and gives
    `throughput_mbps` there."""
    for tier in LUSTRE_TIERS:
        if tier.holds(size_gb) and (throughput_mbps is None or tier.mbps(size_gb) >= throughput_mbps):
            return tier
    return None


# Regions that offer Managed Lustre: Managed Lustre "Locations"
# (https://cloud.google.com/managed-lustre/docs/locations, "Supported regions and zones"), as far as the
# copies gpukit could read list them (the page grows; several copies of different dates agree on these),
# and us-central1, where Google's own examples create instances (`gcloud lustre instances create`
# reference and the pulumi-gcp lustre.Instance example: location us-central1-a). A region not listed is
# refused, naming gpukit:region: gpukit does not guess availability; add a region here with its source.
LUSTRE_REGIONS = frozenset(
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
)
LUSTRE_LOCATIONS_URL = "https://cloud.google.com/managed-lustre/docs/locations"


# Cloud Storage bucket names (https://cloud.google.com/storage/docs/buckets#naming): 3-63 characters
# (up to 222 with dots, each dot-separated part at most 63); lowercase letters, digits, '-', '_' and
# '.'; starting and ending with a letter or digit; not starting with "goog"; not containing "google"
# (nor close misspellings, which gpukit cannot list). gpukit names the buckets it creates without dots
# (a dotted name needs a verified domain).
BUCKET_NAME = re.compile(r"(?!goog)(?!.*google)[a-z0-9](?:[-a-z0-9_]{1,61})[a-z0-9]")
BUCKET_NAME_DOTTED = re.compile(r"(?!goog)(?!.*google)[a-z0-9][-a-z0-9_.]{1,220}[a-z0-9]")
BUCKET_SHAPE = (
    "3-63 characters (222 with dots, 63 between dots): lowercase letters, digits, '-', '_' and '.', "
    "starting and ending with a letter or digit, not starting with 'goog', not containing 'google'"
)


def bucket_name_ok(name: str) -> bool:
    if "." not in name:
        return BUCKET_NAME.fullmatch(name) is not None
    return BUCKET_NAME_DOTTED.fullmatch(name) is not None and all(
        1 <= len(part) <= 63 for part in name.split(".")
    )


# Workload Identity Federation for GKE: GKE grants a Kubernetes service account access by naming it as
# an IAM principal, no Google service account in between (GKE "Authenticate to Google Cloud APIs from GKE
# workloads": principal://iam.googleapis.com/projects/PROJECT_NUMBER/locations/global/workloadIdentityPools/
# PROJECT_ID.svc.id.goog/subject/ns/NAMESPACE/sa/KSA_NAME). Nothing to impersonate, no key to leak.
def workload_principal(project_number: str, project_id: str, namespace: str, service_account: str) -> str:
    return (
        f"principal://iam.googleapis.com/projects/{project_number}/locations/global/workloadIdentityPools/"
        f"{project_id}.svc.id.goog/subject/ns/{namespace}/sa/{service_account}"
    )


# Bucket roles, least privilege on the bucket only: datasets are read (roles/storage.objectViewer: read
# objects and list them); a model cache is written once and read by every replica
# (roles/storage.objectUser: read, create, overwrite and delete objects, no bucket IAM or settings).
# Cloud Storage "IAM roles for Cloud Storage".
READ_ROLE = "roles/storage.objectViewer"
WRITE_ROLE = "roles/storage.objectUser"


def bucket_role(role: str) -> str:
    return READ_ROLE if role == "datasets" else WRITE_ROLE


# The pod annotation the GKE Cloud Storage FUSE sidecar injector looks for: a pod without it gets no
# sidecar and its gcsfuse volume never mounts (GKE "Access Cloud Storage buckets with the Cloud Storage
# FUSE CSI driver": `gke-gcsfuse/volumes: "true"`).
GCSFUSE_POD_ANNOTATION = {"gke-gcsfuse/volumes": "true"}
