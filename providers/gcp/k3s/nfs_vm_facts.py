"""The small VM gpukit makes as an NFS server on k3s over gcp (pure facts, with their sources).

- Machine: e2-standard-2 (2 vCPUs, 8 GiB), the smallest CPU type of the catalog
  (providers/gcp/catalog.py, which prices it per region), on demand (provisioning model STANDARD, never
  Spot: a preempted server stops every pod using the volume).
- Data disk: a zonal Balanced Persistent Disk (pd-balanced), encrypted at rest with a Google-managed key
  by default (no key to configure). Sizes 10 to 65,536 GB: `gcloud compute disk-types list` as exported
  by Cyclenerd/google-cloud-pricing-cost-calculator tools/disktypes.csv @04e5d5f8 (2024-07-03),
  "pd-balanced;10GB-65536GB;Balanced Persistent Disk".
- pd-balanced price, USD per GiB-month, per region: Cyclenerd/google-cloud-pricing-cost-calculator
  pricing.yml @0166a59e (generated 2025-03-06 from the Cloud Billing Catalog API; Apache-2.0),
  `compute.storage.balanced.cost.<region>.month`. A region missing here is unpriced ("no sourced
  price"), never guessed.
"""

NFS_VM_MACHINE_TYPE = "e2-standard-2"
NFS_VM_ROOT_DISK_GB = 20
NFS_VM_ROOT_DISK_TYPE = "pd-balanced"
NFS_DISK_TYPE = "pd-balanced"
NFS_DISK_MIN_GB = 10
NFS_DISK_MAX_GB = 65536
DATA_DEVICE_NAME = "gpukit-data"
"""The attached disk's device name: the VM finds it at /dev/disk/by-id/google-gpukit-data
(components/addons/storage/nfs/vm.py gce_device_path)."""


def nfs_zone(server_zones: list[str]) -> str:
    """Where an NFS VM and its disk live: the servers' first zone (a disk serves one zone's VMs; NFS
    clients reach it from every zone of the region)."""
    return server_zones[0]


PD_BALANCED_USD_PER_GB_MONTH: dict[str, float] = {
    "africa-south1": 0.1308,
    "asia-east1": 0.1,
    "asia-east2": 0.11,
    "asia-northeast1": 0.13,
    "asia-northeast2": 0.13,
    "asia-northeast3": 0.13,
    "asia-south1": 0.12,
    "asia-south2": 0.12,
    "asia-southeast1": 0.11,
    "asia-southeast2": 0.13,
    "australia-southeast1": 0.135,
    "australia-southeast2": 0.135,
    "europe-central2": 0.13,
    "europe-north1": 0.11,
    "europe-north2": 0.1,
    "europe-southwest1": 0.12,
    "europe-west1": 0.1,
    "europe-west10": 0.154,
    "europe-west12": 0.12,
    "europe-west2": 0.12,
    "europe-west3": 0.12,
    "europe-west4": 0.11,
    "europe-west6": 0.13,
    "europe-west8": 0.116,
    "europe-west9": 0.116,
    "me-central1": 0.1215,
    "me-central2": 0.16,
    "me-west1": 0.11,
    "northamerica-northeast1": 0.11,
    "northamerica-northeast2": 0.11,
    "northamerica-south1": 0.109,
    "southamerica-east1": 0.15,
    "southamerica-west1": 0.143,
    "us-central1": 0.1,
    "us-east1": 0.1,
    "us-east4": 0.11,
    "us-east5": 0.1,
    "us-south1": 0.12,
    "us-west1": 0.1,
    "us-west2": 0.12,
    "us-west3": 0.12,
    "us-west4": 0.11,
}
