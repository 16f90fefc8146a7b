"""The names Google Cloud accepts for the resources gpukit creates there, for the plan's fakes (fakes.py):
a name Google or the provider would refuse fails `gpukit plan`, as it would fail `pulumi up`.

Every resource type gpukit creates with a name has a rule here; IAM members, secret versions and
enabled services have none.
"""

import re

from gpukit.components.name_rules import NameRule
from gpukit.providers.gcp.gke.shared_storage.tables import BUCKET_NAME

# Compute Engine names: RFC 1035, `[a-z]([-a-z0-9]*[a-z0-9])?`, 1-63 characters (Compute Engine API
# reference, `name` of every resource; pulumi-gcp compute docs, e.g. compute.Address.name). Pulumi
# auto-names them lowercased, at most 63 (pulumi-gcp provider/resources.go lowercaseAutoName).
_RFC1035 = re.compile(r"[a-z](?:[-a-z0-9]*[a-z0-9])?")
_RFC1035_SHAPE = "lowercase letters, digits and '-', starting with a letter, not ending with '-'"


def _compute(
    source: str, prefix_max: int | None = None, short_after: int | None = None
) -> tuple[NameRule, ...]:
    """A Compute Engine `name`; with `prefix_max`, also its `namePrefix`."""
    prefix = "namePrefix" if prefix_max is not None else None
    rule = NameRule(
        "name",
        63,
        _RFC1035,
        _RFC1035_SHAPE,
        source,
        lowercase=True,
        prefix_field=prefix,
        prefix_max=prefix_max,
        short_suffix_after=short_after,
    )
    return (rule,)


GCP_NAME_RULES: dict[str, tuple[NameRule, ...]] = {
    "gcp:compute/network:Network": _compute("Compute Engine API networks.insert name"),
    "gcp:compute/subnetwork:Subnetwork": _compute("Compute Engine API subnetworks.insert name"),
    "gcp:compute/router:Router": _compute("Compute Engine API routers.insert name"),
    "gcp:compute/routerNat:RouterNat": _compute("Compute Engine API routers nats[].name"),
    "gcp:compute/firewall:Firewall": _compute("Compute Engine API firewalls.insert name"),
    "gcp:compute/address:Address": _compute("Compute Engine API addresses.insert name"),
    "gcp:compute/globalAddress:GlobalAddress": _compute("Compute Engine API globalAddresses.insert name"),
    # Filestore REST v1beta1 instances.create `instanceId`: "[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?".
    "gcp:filestore/instance:Instance": _compute("Filestore API instances.create instanceId"),
    "gcp:compute/instance:Instance": _compute("Compute Engine API instances.insert name"),
    "gcp:compute/disk:Disk": _compute("Compute Engine API disks.insert name"),
    # name_prefix: at most 54; up to 37 the provider appends a 26-character id, beyond that a 9-character
    # one (pulumi-gcp compute.InstanceTemplate.name_prefix).
    "gcp:compute/instanceTemplate:InstanceTemplate": _compute(
        "Compute Engine API instanceTemplates.insert name", prefix_max=54, short_after=37
    ),
    # Custom role ids: letters, digits, `_` and `.`, 3 to 64 characters (IAM API projects.roles.create,
    # roleId; pulumi-gcp projects.IAMCustomRole.role_id: "Cannot contain `-` characters").
    "gcp:projects/iAMCustomRole:IAMCustomRole": (
        NameRule(
            "roleId",
            64,
            re.compile(r"[a-zA-Z0-9_.]+"),
            "letters, digits, '_' and '.'",
            "IAM API projects.roles.create roleId",
            min_length=3,
            auto_named=False,
        ),
    ),
    "gcp:compute/instanceGroupManager:InstanceGroupManager": (
        *_compute("Compute Engine API instanceGroupManagers.insert name"),
        # The group names its machines `<base>-<4 random characters>`, so the base leaves room for them.
        NameRule(
            "baseInstanceName",
            58,
            _RFC1035,
            _RFC1035_SHAPE,
            "Compute Engine API instanceGroupManagers baseInstanceName",
            auto_named=False,
        ),
    ),
    # GKE: "up to 40 characters", lowercase letters, digits and '-', starting with a letter and ending
    # with a letter or digit (GKE API projects.locations.clusters Cluster.name); node pools the same 40
    # (pulumi-gcp container.NodePool.name_prefix: up to 14 characters and a 26-character id, or up to 31
    # and a shorter one).
    "gcp:container/cluster:Cluster": (
        NameRule("name", 40, _RFC1035, _RFC1035_SHAPE, "GKE API Cluster.name", auto_named=False),
    ),
    "gcp:container/nodePool:NodePool": (
        NameRule(
            "name",
            40,
            _RFC1035,
            _RFC1035_SHAPE,
            "GKE API NodePool.name",
            prefix_field="namePrefix",
            prefix_max=31,
            short_suffix_after=14,
            auto_named=False,
        ),
    ),
    "gcp:serviceaccount/account:Account": (
        NameRule(
            "accountId",
            30,
            re.compile(r"[a-z](?:[-a-z0-9]{4,28}[a-z0-9])"),
            "lowercase letters, digits and '-', starting with a letter, not ending with '-'",
            "IAM API projects.serviceAccounts.create accountId",
            min_length=6,
            auto_named=False,
        ),
    ),
    # Cloud KMS ids: "[a-zA-Z0-9_-]{1,63}" (Cloud KMS API projects.locations.keyRings.create keyRingId,
    # keyRings.cryptoKeys.create cryptoKeyId); gpukit lets Pulumi auto-name both (secrets_key.py).
    "gcp:kms/keyRing:KeyRing": (
        NameRule(
            "name",
            63,
            re.compile(r"[a-zA-Z0-9_-]+"),
            "letters, digits, '-' and '_'",
            "Cloud KMS API keyRings.create keyRingId",
            lowercase=True,
        ),
    ),
    "gcp:kms/cryptoKey:CryptoKey": (
        NameRule(
            "name",
            63,
            re.compile(r"[a-zA-Z0-9_-]+"),
            "letters, digits, '-' and '_'",
            "Cloud KMS API cryptoKeys.create cryptoKeyId",
            lowercase=True,
        ),
    ),
    # Bucket names gpukit creates: no dots (a dotted name needs a verified domain), 3-63 characters,
    # lowercase letters, digits, '-' and '_', starting and ending with a letter or digit, not starting
    # with "goog", not containing "google" (Cloud Storage "Bucket naming",
    # https://cloud.google.com/storage/docs/buckets#naming; shared_storage/tables.py BUCKET_NAME).
    "gcp:storage/bucket:Bucket": (
        NameRule(
            "name",
            63,
            BUCKET_NAME,
            "lowercase letters, digits, '-' and '_', starting and ending with a letter or digit, not "
            "starting with 'goog', not containing 'google'",
            "Cloud Storage bucket naming",
            min_length=3,
            auto_named=False,
        ),
    ),
    "gcp:secretmanager/secret:Secret": (
        NameRule(
            "secretId",
            255,
            re.compile(r"[a-zA-Z0-9_-]+"),
            "letters, digits, '-' and '_'",
            "Secret Manager API projects.secrets.create secretId",
            auto_named=False,
        ),
    ),
}
