"""Google Cloud regions and their zones, for checking `gcp:region`, `gpukit:cluster.zone` and each
pool's `zones`, and for spreading k3s servers over a region.

Source: skypilot-org/skypilot-catalog `catalogs/v8/gcp/vms.csv` @006059e0 (machine-generated from the
Compute Engine API; the catalog providers/gcp/catalog.py already cites): the zones listing
`e2-standard-32`, a machine type Compute Engine offers in every zone of every public region. Google's
own "Regions and zones" table was not readable here. `us-south1-ai1b` (a special-purpose AI zone in
that data) is left out: it is not a general zone a cluster's pools spread over.

To update: list the (Region, AvailabilityZone) pairs of e2-standard-32 in the newest vms.csv (or
`gcloud compute zones list`), and update the commit above. A region or zone missing here is refused
with did-you-mean, never guessed at.
"""

GCP_REGIONS_SOURCE = "skypilot-catalog catalogs/v8/gcp/vms.csv @006059e0"

# Region -> the letters of its zones.
_ZONE_LETTERS: dict[str, str] = {
    "africa-south1": "abc",
    "asia-east1": "abc",
    "asia-east2": "abc",
    "asia-northeast1": "abc",
    "asia-northeast2": "abc",
    "asia-northeast3": "abc",
    "asia-south1": "abc",
    "asia-south2": "abc",
    "asia-southeast1": "abc",
    "asia-southeast2": "abc",
    "australia-southeast1": "abc",
    "australia-southeast2": "abc",
    "europe-central2": "abc",
    "europe-north1": "abc",
    "europe-north2": "abc",
    "europe-southwest1": "abc",
    "europe-west1": "bcd",
    "europe-west10": "abc",
    "europe-west12": "abc",
    "europe-west2": "abc",
    "europe-west3": "abc",
    "europe-west4": "abc",
    "europe-west6": "abc",
    "europe-west8": "abc",
    "europe-west9": "abc",
    "me-central1": "abc",
    "me-central2": "abc",
    "me-west1": "abc",
    "northamerica-northeast1": "abc",
    "northamerica-northeast2": "abc",
    "northamerica-south1": "abc",
    "southamerica-east1": "abc",
    "southamerica-west1": "abc",
    "us-central1": "abcf",
    "us-east1": "bcd",
    "us-east4": "abc",
    "us-east5": "abc",
    "us-south1": "abc",
    "us-west1": "abc",
    "us-west2": "abc",
    "us-west3": "abc",
    "us-west4": "abc",
}

GCP_REGION_ZONES: dict[str, tuple[str, ...]] = {
    region: tuple(f"{region}-{letter}" for letter in letters) for region, letters in _ZONE_LETTERS.items()
}
GCP_REGIONS: frozenset[str] = frozenset(GCP_REGION_ZONES)
GCP_ZONES: frozenset[str] = frozenset(z for zones in GCP_REGION_ZONES.values() for z in zones)


def region_zones(region: str) -> list[str]:
    """The zones of `region` ([] for a region gpukit does not know)."""
    return list(GCP_REGION_ZONES.get(region, ()))
