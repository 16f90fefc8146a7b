"""The config keys of the Google Cloud substrates: the provider keys they read, and the gpukit keys they
take. Which gpukit keys are substrate-specific is the schema's (components/config/schema.py); which of
those GKE and k3s on Compute Engine take is declared here."""

import re

from gpukit.components.config.schema import CLOUD_MACHINE_KEYS, CLOUD_MACHINE_REQUIRED, K3S_KEYS
from gpukit.components.substrate import ProviderSetting, SdkExtra
from gpukit.providers.gcp.regions import GCP_REGIONS, GCP_REGIONS_SOURCE

GCP_SDK = SdkExtra(module="pulumi_gcp", extra="gcp")

# The keys the Google provider itself reads. The project's shape is checked with the cluster
# (providers/gcp/validation.py), so that a malformed one is reported next to the other GCP problems.
GCP_PROJECT = ProviderSetting(
    key="gcp:project", attr="project", what="the project to build in", example="my-project"
)
# us-central1, europe-west4.
GCP_REGION = ProviderSetting(
    key="gcp:region",
    attr="region",
    what="the region to build in",
    example="us-central1",
    pattern=re.compile(r"[a-z]+-[a-z]+\d+"),
    shape="a region name like us-central1",
    known=GCP_REGIONS,
    known_source=GCP_REGIONS_SOURCE,
)

_REUSED_NETWORK = frozenset({"cluster.network.networkId", "cluster.network.subnetworkId"})
# `tags` become labels on every resource (providers/gcp/labels.py).
_LABELS = frozenset({"cluster.tags"})

GKE_KEYS = (
    CLOUD_MACHINE_KEYS
    | _REUSED_NETWORK
    | _LABELS
    | {
        "cluster.zone",
        "cluster.releaseChannel",
        "cluster.deletionProtection",
        "cluster.podSecurity",
        "cluster.network.podsCidr",
        "cluster.network.servicesCidr",
        "cluster.network.podsRangeName",
        "cluster.network.servicesRangeName",
        "nodePools.zones",
        "nodePools.compactPlacement",
        "nodePools.interconnect",
        "cluster.network.gpuNetworksCidr",
        "nodePools.sharing",
        "gpuOperator.gkeDriverVersion",
    }
)
K3S_GCE_KEYS = CLOUD_MACHINE_KEYS | K3S_KEYS | _REUSED_NETWORK | _LABELS | {"nodePools.zones"}
REQUIRED_KEYS = CLOUD_MACHINE_REQUIRED
