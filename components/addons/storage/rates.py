"""List prices of shared-storage backends per region, as data, for backends whose price differs by region
and was sourced for some regions only.

A (backend, tier) listed here is priced ONLY in the regions listed under it: a price sourced in one region
is never carried to another (the plan says "no sourced price in <region>" instead). A (backend, tier) not
listed here keeps the single `Tier.usd_per_gb_month` of its table row (backends.py).

Each rate names its source and the date it reflects. Prices are per GiB-month (the pages' "GB" is 2^30
bytes); an hourly list price becomes monthly over HOURS_PER_MONTH (730) hours, the month both Google
Cloud pages bill over. The disks of volume servers (k3s NFS VMs) are priced the same way, per disk type
and region (SERVER_DISK_RATES).
"""

from dataclasses import dataclass

from gpukit.components.pricing import HOURS_PER_MONTH
from gpukit.components.spec import StorageKind


@dataclass(frozen=True)
class Rate:
    usd_per_gb_month: float
    source: str
    as_of: str
    """The date the figure reflects (or when its source was read, where the page is undated)."""


# Filestore Basic HDD in us-west1 (Oregon): "$0.000274 per GiB-hour", the Filestore pricing page's own
# worked example ("Pricing examples": a 1 TiB Basic HDD instance in us-west1-b; read on
# https://cloud.google.com/filestore/pricing?hl=pl, "Koszt jednostki dla instancji warstwy Basic HDD w
# regionie Oregon wynosi 0,000274 USD"). The page's per-region table renders in the browser and could not
# be read, so no other tier or region of Filestore has a sourced price (the zonal tier gke-train uses
# among them). 0.000274 * 730 = $0.2000 per GiB-month.
FILESTORE_BASIC_HDD_US_WEST1 = Rate(
    0.000274 * HOURS_PER_MONTH,
    "https://cloud.google.com/filestore/pricing (Pricing examples: Basic HDD, us-west1, $0.000274/GiB-hour)",
    "undated page, crawled 2025 or later",
)

# Cloud Storage Standard storage, single region, per GB(=GiB)-month: "Iowa (us-central1) $0.020",
# "South Carolina (us-east1) $0.020", "Oregon (us-west1) $0.020" in the Data storage table of
# https://cloud.google.com/storage/pricing as archived on 2022-12-30
# (https://web.archive.org/web/20221230183146/https://cloud.google.com/storage/pricing). Unchanged later:
# a transcription of the same page read 2026-09-20 gives Standard storage (us-central1)
# "$0.000027397 / 1 gibibyte hour" (api-evangelist/gcp-cloud-storage@013caa28c7a3b15d2c48095b6ddefabad6011feb:
# plans/gcp-cloud-storage-plans-pricing.yml), and 0.000027397 * 730 = $0.0200. Only us-central1 is
# confirmed by both; us-east1 and us-west1 by the 2022 table alone, so they are not listed.
GCS_STANDARD_US_CENTRAL1 = Rate(
    0.020,
    "https://cloud.google.com/storage/pricing (Standard storage, us-central1; "
    "web.archive.org snapshot 2022-12-30, same figure on the page read 2026-09-20)",
    "2026-09-20",
)

# Amazon EFS Standard storage, Regional: "$0.30/GB-month" in US East (N. Virginia)
# (https://aws.amazon.com/efs/pricing/); us-west-2: the pricing page's lifecycle example gives both regions
# the same effective Standard price (0.08 USD = 20% x 0.30 + 80% x 0.025, aws.amazon.com/cn/efs/pricing/).
# No other region was sourced. Elastic throughput's per-GB read/write charges depend on traffic: not here.
EFS_STANDARD = {
    region: Rate(0.30, "https://aws.amazon.com/efs/pricing/ (Standard, Regional)", "undated page, read 2025")
    for region in ("us-east-1", "us-west-2")
}

# Amazon EBS gp3: "$0.08 per GB-month" in US East (N. Virginia) (https://aws.amazon.com/ebs/pricing/, as
# quoted by saisci.com "gp2 vs gp3 Cost Comparison - EBS Volumes", 2021-02). The data disk of the NFS VM
# gpukit runs on k3s on AWS (providers/aws/k3s/nfs_vm_facts.py); its 3,000 IOPS / 125 MiB/s baseline is
# included. No other region was sourced.
EBS_GP3_US_EAST_1 = Rate(0.08, "https://aws.amazon.com/ebs/pricing/ (gp3, us-east-1)", "2021-02")

SERVER_DISK_RATES: dict[str, dict[str, Rate]] = {"gp3": {"us-east-1": EBS_GP3_US_EAST_1}}
"""The data disk of a server gpukit runs for a volume (plan.VolumeServer), by disk type then region."""

REGIONAL_RATES: dict[tuple[StorageKind, str], dict[str, Rate]] = {
    (StorageKind.EFS, "elastic"): EFS_STANDARD,
    (StorageKind.FILESTORE, "basic-hdd"): {"us-west1": FILESTORE_BASIC_HDD_US_WEST1},
    (StorageKind.FILESTORE, "basic-ssd"): {},
    (StorageKind.FILESTORE, "zonal"): {},
    (StorageKind.FILESTORE, "zonal-large"): {},
    (StorageKind.FILESTORE, "regional"): {},
    (StorageKind.FILESTORE, "regional-large"): {},
    (StorageKind.FILESTORE, "enterprise"): {},
    (StorageKind.GCS_FUSE, "standard"): {"us-central1": GCS_STANDARD_US_CENTRAL1},
    # Managed Lustre: no price per GiB-month for any perUnitStorageThroughput tier was found in a source
    # gpukit could read (https://cloud.google.com/managed-lustre/pricing renders in the browser).
    (StorageKind.MANAGED_LUSTRE, "125"): {},
    (StorageKind.MANAGED_LUSTRE, "250"): {},
    (StorageKind.MANAGED_LUSTRE, "500"): {},
    (StorageKind.MANAGED_LUSTRE, "1000"): {},
}


def is_regional(kind: StorageKind, tier: str) -> bool:
    """Whether this backend tier is priced per region (here) rather than by its table row."""
    return (kind, tier) in REGIONAL_RATES


def regional_rate(kind: StorageKind, tier: str, region: str) -> Rate | None:
    """The sourced list price of a tier in `region`; None where none was sourced for that region."""
    return REGIONAL_RATES.get((kind, tier), {}).get(region)


def server_disk_rate(disk: str, region: str) -> Rate | None:
    """The sourced list price of a volume server's data disk type in `region`; None where none was."""
    return SERVER_DISK_RATES.get(disk, {}).get(region)
