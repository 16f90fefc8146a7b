"""Google Cloud machine types gpukit can put in a node pool (GKE or k3s), and where their GPUs are offered.

Sources:
- Prices, vCPU, memory, accelerator rows: skypilot-org/skypilot-catalog `catalogs/v8/gcp/vms.csv`
  @006059e0 (machine-generated from the Cloud Billing Catalog and Compute APIs), us-central1,
  on-demand, USD per hour. GCP bills A2/A3/A4/G2 as host + GPUs: the prices below are their sum.
  Where that data contradicts itself the price is None and `price_note` says why (us-central1 H100
  at $4.20/GPU against $9.80 in us-east4 for the same host; A100 80GB with a spot price above its
  on-demand one; A4 with a $0 host row).
- G4 (RTX PRO 6000): dstackai/dstack#3213 (2025-10-22, `dstack offer` output), the only source.
- Machine -> accelerator type and count: skypilot-org/skypilot `sky/catalog/gcp_catalog.py`
  @00526108 and GoogleCloudPlatform/cluster-toolkit `pkg/config/machine_mappings.json` @10470803.
- Hyperdisk-only families (A3 Ultra, A4): skypilot `sky/clouds/gcp.py` ("a3-ultragpu, n4, and a4
  instances only support hyperdisk-balanced"); G4: nullstone-modules/gcp-gke-gpu-node-pool README
  (third-party; Google's own disk table was not readable).
- Zones per accelerator: the same vms.csv (rows per zone); Google's "GPU regions and zones" page was
  not available. No zone list was found for nvidia-rtx-pro-6000: G4 pools must name their zones.
"""

from gpukit.components.catalog.instances import InstanceType, MachineCatalog, PriceBasis
from gpukit.providers.gcp import regions

PRICE_REGION = "us-central1"
PRICE_SOURCE = "skypilot-org/skypilot-catalog catalogs/v8/gcp/vms.csv @006059e0"
PRICE_DATE = "undated catalog snapshot (2025 or later)"  # the index gives the commit, not its date

# GKE cluster management fee (Standard, zonal or regional): $0.10 per cluster-hour (infracost
# container_cluster golden test; the free tier waives it for one zonal cluster per billing account).
GKE_MANAGEMENT_PER_HOUR = 0.10
# Cloud NAT: $0.0014 per VM-hour for at most 32 VMs per gateway, plus $0.045 per GB processed
# (infracost compute_router_nat golden test, us-central1).
CLOUD_NAT_PER_VM_HOUR = 0.0014
CLOUD_NAT_MAX_BILLED_VMS = 32
# An external IPv4 address in use by a VM: $0.005 per hour (https://cloud.google.com/vpc/network-pricing,
# "IP address pricing"); k3s servers get one each when apiAccessCidrs has public ranges.
EXTERNAL_IP_PER_HOUR = 0.005

_INCONSISTENT = "public price data for it contradicts itself across regions; see providers/gcp/catalog.py"


def _gpu(  # noqa: PLR0917 (one positional row per table line keeps the table scannable)
    name: str,
    vcpu: int,
    mem: int,
    price: float | None,
    model: str,
    count: int,
    accelerator: str,
    *,
    hyperdisk: bool = False,
    note: str = "",
) -> InstanceType:
    return InstanceType(
        name,
        vcpu,
        mem,
        price,
        model,
        count,
        accelerator_type=accelerator,
        hyperdisk_only=hyperdisk,
        price_note=note,
    )


GCP_MACHINE_TYPES: dict[str, InstanceType] = {
    t.name: t
    for t in (
        # --- NVIDIA L4 (G2)
        _gpu("g2-standard-4", 4, 16, 0.70683, "L4", 1, "nvidia-l4"),
        _gpu("g2-standard-8", 8, 32, 0.85362, "L4", 1, "nvidia-l4"),
        _gpu("g2-standard-12", 12, 48, 1.00042, "L4", 1, "nvidia-l4"),
        _gpu("g2-standard-16", 16, 64, 1.14721, "L4", 1, "nvidia-l4"),
        _gpu("g2-standard-24", 24, 96, 2.00083, "L4", 2, "nvidia-l4"),
        _gpu("g2-standard-32", 32, 128, 1.73438, "L4", 1, "nvidia-l4"),
        _gpu("g2-standard-48", 48, 192, 4.00166, "L4", 4, "nvidia-l4"),
        _gpu("g2-standard-96", 96, 384, 8.00333, "L4", 8, "nvidia-l4"),
        # --- NVIDIA A100 40GB (A2 High / Mega) and 80GB (A2 Ultra)
        _gpu("a2-highgpu-1g", 12, 85, 3.67339, "A100-40GB", 1, "nvidia-tesla-a100"),
        _gpu("a2-highgpu-2g", 24, 170, 7.34677, "A100-40GB", 2, "nvidia-tesla-a100"),
        _gpu("a2-highgpu-4g", 48, 340, 14.69354, "A100-40GB", 4, "nvidia-tesla-a100"),
        _gpu("a2-highgpu-8g", 96, 680, 29.38708, "A100-40GB", 8, "nvidia-tesla-a100"),
        _gpu("a2-megagpu-16g", 96, 1360, 55.73951, "A100-40GB", 16, "nvidia-tesla-a100"),
        _gpu("a2-ultragpu-1g", 12, 170, None, "A100-80GB", 1, "nvidia-a100-80gb", note=_INCONSISTENT),
        _gpu("a2-ultragpu-2g", 24, 340, None, "A100-80GB", 2, "nvidia-a100-80gb", note=_INCONSISTENT),
        _gpu("a2-ultragpu-4g", 48, 680, None, "A100-80GB", 4, "nvidia-a100-80gb", note=_INCONSISTENT),
        _gpu("a2-ultragpu-8g", 96, 1360, None, "A100-80GB", 8, "nvidia-a100-80gb", note=_INCONSISTENT),
        # --- NVIDIA H100 (A3 High, A3 Mega), H200 (A3 Ultra), B200 (A4)
        _gpu("a3-highgpu-1g", 26, 234, None, "H100", 1, "nvidia-h100-80gb", note=_INCONSISTENT),
        _gpu("a3-highgpu-2g", 52, 468, None, "H100", 2, "nvidia-h100-80gb", note=_INCONSISTENT),
        _gpu("a3-highgpu-4g", 104, 936, None, "H100", 4, "nvidia-h100-80gb", note=_INCONSISTENT),
        _gpu("a3-highgpu-8g", 208, 1872, None, "H100", 8, "nvidia-h100-80gb", note=_INCONSISTENT),
        _gpu("a3-megagpu-8g", 208, 1872, 92.21427, "H100", 8, "nvidia-h100-mega-80gb"),
        _gpu("a3-ultragpu-8g", 224, 2952, 86.75992, "H200", 8, "nvidia-h200-141gb", hyperdisk=True),
        _gpu("a4-highgpu-8g", 224, 3968, None, "B200", 8, "nvidia-b200", hyperdisk=True, note=_INCONSISTENT),
        # --- NVIDIA RTX PRO 6000 Blackwell (G4)
        _gpu("g4-standard-48", 48, 180, 4.5001, "RTX-PRO-6000", 1, "nvidia-rtx-pro-6000", hyperdisk=True),
        _gpu("g4-standard-96", 96, 360, 9.0002, "RTX-PRO-6000", 2, "nvidia-rtx-pro-6000", hyperdisk=True),
        _gpu("g4-standard-192", 192, 720, 18.0003, "RTX-PRO-6000", 4, "nvidia-rtx-pro-6000", hyperdisk=True),
        _gpu("g4-standard-384", 384, 1440, 36.0006, "RTX-PRO-6000", 8, "nvidia-rtx-pro-6000", hyperdisk=True),
        # --- N1: GPUs are attached per pool (`gpu: {model: T4, count: N}`)
        InstanceType("n1-standard-4", 4, 15, 0.19),
        InstanceType("n1-standard-8", 8, 30, 0.38),
        InstanceType("n1-standard-16", 16, 60, 0.76),
        # --- CPU-only types for system pools
        InstanceType("e2-standard-2", 2, 8, 0.06701),
        InstanceType("e2-standard-4", 4, 16, 0.13402),
        InstanceType("e2-standard-8", 8, 32, 0.26805),
        InstanceType("n2-standard-2", 2, 8, 0.09712),
        InstanceType("n2-standard-4", 4, 16, 0.19424),
        InstanceType("n2-standard-8", 8, 32, 0.38847),
    )
}

# GPUs that attach to N1 machines: model -> (accelerator type, price per GPU-hour in us-central1).
ATTACHABLE_GPUS: dict[str, tuple[str, float]] = {"T4": ("nvidia-tesla-t4", 0.35)}
GPU_ATTACH_FAMILIES = frozenset({"n1-standard"})
# 1, 2 or 4 T4s per N1 machine (8 is not offered: skypilot gcp_catalog.py).
ATTACHABLE_COUNTS = (1, 2, 4)

# Zones offering each accelerator, per region (suffixes of the region name).
ACCELERATOR_ZONES: dict[str, dict[str, str]] = {
    "nvidia-l4": {
        "us-central1": "abc",
        "us-east1": "bcd",
        "us-east4": "ac",
        "us-west1": "abc",
        "us-west4": "ac",
        "europe-west4": "abc",
        "asia-southeast1": "abc",
    },
    "nvidia-tesla-a100": {
        "us-central1": "abcf",
        "us-east1": "b",
        "us-west1": "b",
        "us-west4": "b",
        "europe-west4": "ab",
        "asia-southeast1": "abc",
    },
    "nvidia-a100-80gb": {"us-central1": "ac", "us-east4": "c", "europe-west4": "a", "asia-southeast1": "c"},
    "nvidia-h100-80gb": {
        "us-central1": "abc",
        "us-east4": "abc",
        "us-west1": "ab",
        "us-west4": "a",
        "europe-west4": "bc",
        "asia-southeast1": "bc",
    },
    "nvidia-h100-mega-80gb": {
        "us-central1": "abc",
        "us-east4": "abc",
        "us-west1": "ab",
        "us-west4": "a",
        "europe-west4": "bc",
        "asia-southeast1": "bc",
    },
    "nvidia-h200-141gb": {"us-central1": "b", "us-east4": "b", "us-west1": "c", "europe-west4": "a"},
    "nvidia-b200": {
        "us-central1": "b",
        "us-east1": "b",
        "us-east4": "b",
        "europe-west4": "b",
        "asia-southeast1": "b",
    },
    "nvidia-tesla-t4": {
        "us-central1": "abcf",
        "us-east1": "bcd",
        "us-east4": "abc",
        "us-west1": "ab",
        "us-west4": "ab",
        "europe-west4": "abc",
        "asia-southeast1": "abc",
    },
}
GCP_CATALOG = MachineCatalog(
    cloud="gcp",
    source="providers/gcp/catalog.py",
    price_basis=PriceBasis(PRICE_REGION, PRICE_DATE, PRICE_SOURCE),
    machines=GCP_MACHINE_TYPES,
    attachable_gpus=ATTACHABLE_GPUS,
    attach_families=GPU_ATTACH_FAMILIES,
)

KNOWN_REGIONS = frozenset(r for zones in ACCELERATOR_ZONES.values() for r in zones)


def accelerator_zones(accelerator: str, region: str) -> list[str] | None:
    """Zones of `region` that offer `accelerator`: [] where none do, None where gpukit has no data."""
    if accelerator not in ACCELERATOR_ZONES or region not in KNOWN_REGIONS:
        return None
    return [f"{region}-{z}" for z in ACCELERATOR_ZONES[accelerator].get(region, "")]


def region_zones(region: str) -> list[str]:
    """Zones of `region` ([] for a region gpukit does not know): the sourced region list
    (providers/gcp/regions.py), which holds every zone the accelerator table names."""
    return regions.region_zones(region)


# Machine series that attach their network through gVNIC only: gVNIC "replaces VirtIO-Net as the only
# supported network interface in Compute Engine for all new machine types (Generation 3 and onwards)"
# (Google's gVNIC feature summary, as quoted in GoogleCloudPlatform's GKE platform guides in the public
# index; GKE docs "Increase network traffic speed for GPU nodes" for the node-pool setting). Of gpukit's
# catalog that is A3 (High, Mega, Ultra), A4 and G4; G2, A2, N1, N2 and E2 run either NIC.
GVNIC_REQUIRED_SERIES = frozenset({"a3", "a4", "g4"})


def machine_series(machine: InstanceType) -> str:
    """`a3` for a3-highgpu-8g, `n1` for n1-standard-8+2xT4."""
    return machine.name.split("-", 1)[0]


def requires_gvnic(machine: InstanceType) -> bool:
    return machine_series(machine) in GVNIC_REQUIRED_SERIES
