"""Facts about GKE's shared-storage backends, as tables and pure functions (no Pulumi here)."""

import re
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


# What each backend's servers may open towards the nodes, from the private services access range (the
# firewall rule of private_access.py; one rule per backend, only for the backends a cluster uses).
# - Managed Lustre: TCP port 988 only. Managed Lustre CSI driver guides ("Lustre communication ports",
#   https://cloud.google.com/managed-lustre/docs/lustre-csi-driver-new-volume): "for new GKE clusters
#   running version 1.33.2-gke.4780000 or later, the driver uses port 988 for Lustre communication by
#   default"; the legacy port 6988 (the cluster's `enable_legacy_lustre_port`) is needed only on older
#   nodes (gpukit creates 1.34+ clusters) or to mount an instance created with `gke-support-enabled`;
#   gpukit sets neither (storage_addons gives the add-on `enabled` only). Whether the CSI driver's own
#   dynamically made instances carry `gke-support-enabled` is not documented there: if a mount times out,
#   that is the first thing to check.
# - Filestore (NFSv3): still every TCP and UDP port. The server calls back to the client for NFSv3 locks
#   (Filestore "About supported file system protocols": NFSv3 "supports bidirectional communication
#   between the client and server, uses multiple ports"; NLM locking). The client-side ports those
#   callbacks reach (rpc.statd, nlockmgr) are not fixed on a GKE node, and the port list of Filestore's
#   "Configuring firewall rules" page for this ingress rule could not be sourced here (only its egress
#   list, client to server: TCP 111, 2046, 2049, 2050, 4045, which the VPC's default allow-egress already
#   covers). So the Filestore rule stays broad, from the private range to the nodes only; narrowing it
#   needs that page's ingress ports and nodes pinned to them.
# (protocol, ports) pairs; no ports: every port of that protocol.
FIREWALL_ALLOWS: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    FILESTORE: (("tcp", ()), ("udp", ())),
    MANAGED_LUSTRE: (("tcp", ("988",)),),
}
PRIVATE_ACCESS_KINDS = (FILESTORE, MANAGED_LUSTRE)

# The Filestore API `tier` of each gpukit Filestore tier (pulumi-gcp filestore.Instance `tier`: "Possible
# values include: STANDARD, PREMIUM, BASIC_HDD, BASIC_SSD, HIGH_SCALE_SSD, ZONAL, REGIONAL and
# ENTERPRISE"). Sizes, steps, throughput and availability per tier live in one place,
# components/addons/storage/backends.py (BACKENDS[FILESTORE].tiers, with their sources), which validation
# and the plan read; this is only what the GKE build needs on top. The -large tiers are the same service
# tier at 10-100 TiB (Filestore "Service tiers").
FILESTORE_API_TIER = {
    "basic-hdd": "BASIC_HDD",
    "basic-ssd": "BASIC_SSD",
    "zonal": "ZONAL",
    "zonal-large": "ZONAL",
    "regional": "REGIONAL",
    "regional-large": "REGIONAL",
    "enterprise": "ENTERPRISE",
}
# Tiers whose instance lives in one zone (its `location` is a zone); regional and enterprise instances
# replicate across the region's zones and take the region as `location` (pulumi-gcp filestore.Instance
# `location`: "This can be a region for ENTERPRISE tier instances"; the Filestore CSI driver likewise
# creates "enterprise" and "regional" instances in the region, every other tier in a zone:
# gcp-filestore-csi-driver pkg/csi_driver/controller.go generateNewFileInstance).
FILESTORE_ZONAL_TIERS = frozenset({"basic-hdd", "basic-ssd", "zonal", "zonal-large"})
# The one file share of each instance gpukit makes (pulumi-gcp filestore.Instance file_shares `name`:
# "The name of the fileshare (16 characters or less)"). Fixed: a new share name would replace the
# instance, and its data with it.
FILESTORE_SHARE = "shared"


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
