"""GkeSecretsKey: the Cloud KMS key that encrypts the cluster's Kubernetes Secrets in etcd (GKE
application-layer secrets encryption), and GKE's right to use it.

- Location: the key must be in the cluster's location (GKE API DatabaseEncryption.key_name;
  "the key must be located in the same region as the cluster", as Google states for every regional
  CMEK): a regional cluster's region, a zonal cluster's region (key rings are regional).
- Rotation: a new key version every 90 days (CryptoKey.rotation_period); GKE encrypts new writes with
  the primary version and keeps decrypting with the older ones. (EKS keys rotate through KMS's
  automatic yearly rotation.)
- Access: GKE's service agent, service-<project number>@container-engine-robot.iam.gserviceaccount.com,
  needs roles/cloudkms.cryptoKeyEncrypterDecrypter on the key (public Terraform for GKE database
  encryption grants exactly this on the key; e.g. google_kms_crypto_key_iam_member for GKE secrets), and
  the cluster is created only after the grant.
- Names and destroy: key rings and keys cannot be deleted in Google Cloud; destroying them removes them
  from the stack and schedules the key's versions for destruction (pulumi-gcp kms.KeyRing and
  kms.CryptoKey docs), and "the names of deleted CryptoKeys can't be reused" (Cloud KMS docs, "Delete
  Cloud KMS resources"). So both are auto-named (the resource name plus Pulumi's random suffix): a
  stack destroyed and built again gets a new key ring instead of failing on the old name. They are not
  `protect`ed: the cluster depends on the key, so a destroy deletes the cluster (which its own
  deletionProtection guards) before it touches the key, and destroyed versions stay restorable for the
  provider's default 30 days (destroy_scheduled_duration). A kept key ring costs nothing; key versions
  in DESTROYED state are not billed.
"""

from typing import Optional, TypedDict

import pulumi
import pulumi_gcp as gcp

from gpukit.providers.gcp.kms import rotated_key

TYPE_TOKEN = "gpukit:index:GkeSecretsKey"
ENCRYPTER_DECRYPTER = "roles/cloudkms.cryptoKeyEncrypterDecrypter"


def gke_service_agent(project_number: str) -> str:
    """The IAM member of GKE's service agent in a project."""
    return f"serviceAccount:service-{project_number}@container-engine-robot.iam.gserviceaccount.com"


def key_location(region: str) -> str:
    """Key rings are regional; a zonal cluster's key lives in the zone's region, which `region` is
    (validation keeps cluster.zone inside gcp:region)."""
    return region


class GkeSecretsKeyArgs(TypedDict):
    project: str
    region: str
    apis: list[gcp.projects.Service]
    """The project's API services: the project-number look-up waits for them (Resource Manager)."""


class GkeSecretsKey(pulumi.ComponentResource):
    key_id: pulumi.Output[str]
    """`projects/P/locations/L/keyRings/R/cryptoKeys/K`: the cluster's database_encryption key_name."""
    grant: gcp.kms.CryptoKeyIAMMember
    """GKE's service agent may use the key: the cluster depends on it."""

    def __init__(self, name: str, args: GkeSecretsKeyArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        child = pulumi.ResourceOptions(parent=self)
        key = rotated_key(name, key_location(args["region"]), child, child)
        project = gcp.organizations.get_project_output(
            project_id=args["project"], opts=pulumi.InvokeOutputOptions(parent=self, depends_on=args["apis"])
        )
        self.grant = gcp.kms.CryptoKeyIAMMember(
            f"{name}-gke-agent",
            crypto_key_id=key.id,
            role=ENCRYPTER_DECRYPTER,
            member=project.number.apply(gke_service_agent),
            opts=child,
        )
        self.key_id = key.id
        self.register_outputs({"key_id": self.key_id})
