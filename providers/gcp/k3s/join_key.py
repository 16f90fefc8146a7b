"""K3sGceJoinKey: the Cloud KMS key that encrypts the k3s servers' join bundle before it is stored in
Secret Manager (envelope, client-side encryption), the one identity allowed to decrypt it, and the
bundle's ciphertext.

The servers' join bundle holds every private key of the cluster's CAs. Reading the Secret Manager
secret alone is not enough to read the bundle: the secret holds the bundle's Cloud KMS ciphertext,
and a server decrypts it with Cloud KMS itself (scripts/fetch-secrets-gcp.sh). So the key's policy,
not only the secret's, decides who reads it. Customer-managed encryption of the secret (CMEK) would
not: Secret Manager decrypts a CMEK secret for anyone allowed to access it, so every holder of
`secretmanager.versions.access` on the project (roles/secretmanager.secretAccessor or
roles/secretmanager.admin granted project-wide) would read every CA key.

- Encryption: `pulumi up` encrypts the bundle with the key (kms.SecretCiphertext: Cloud KMS
  cryptoKeys.encrypt, the bundle as its plaintext; the provider sends the plaintext base64-encoded
  and keeps the returned base64 ciphertext). It encrypts again only when the bundle or the key changes
  (every argument forces a new one; its read never calls encrypt), so a teammate's `pulumi up` with
  the same PKI encrypts nothing. Cloud KMS takes at most 64 KiB of plaintext with a SOFTWARE key
  (EncryptRequest.plaintext); the bundle is about 10 KiB (tests/component/test_k3s_gcp.py checks the
  margin).
- Who decrypts: the servers' service account, with roles/cloudkms.cryptoKeyDecrypter on this key and
  nowhere else (it can decrypt, never encrypt, and only with this key). Agents are named nowhere.
- Who encrypts: the deployer, with `cloudkms.cryptoKeyVersions.useToEncrypt` on the key. Nothing is
  granted for it here, on purpose: roles/owner already holds it (as it holds useToDecrypt and
  secretmanager.versions.access: no key policy keeps a project owner out; roles/editor holds none of
  the three; the predefined roles' permissions as iann0036/iam-dataset gcp/roles/*.json lists them),
  and a deployer who is not an owner needs cloudkms.cryptoKeys.setIamPolicy on this key for the
  servers' grant anyway (roles/cloudkms.admin, which has no useToEncrypt). Granting the caller
  roles/cloudkms.cryptoKeyEncrypter on the key (organizations.get_client_open_id_user_info, `user:` or
  `serviceAccount:` by the e-mail's domain) would make the plan depend on who runs `pulumi up` (each
  teammate or CI account would replace the previous one's grant), fail for a Workload Identity
  Federation principal, which has no e-mail to name (the look-up answers empty:
  hashicorp/terraform-provider-google#23467), and still race IAM propagation on the first encrypt.
  So a deployer with roles/cloudkms.admin but no owner role also needs
  roles/cloudkms.cryptoKeyEncrypter (encrypt only: it reads nothing) on the project or the key ring
  (docs/k3s-security.md); without it `pulumi up` stops at the encrypt, before any k3s machine.
- Location: the key ring is in the cluster's region, next to the servers that call it.
- Rotation: a new key version every 90 days (providers/gcp/kms.py, as GKE's secrets key); a
  ciphertext names the key version that made it, and Cloud KMS decrypts with that one, which
  rotation leaves enabled.
- Names and destroy: key rings and keys cannot be deleted in Google Cloud, and "the names of deleted
  CryptoKeys can't be reused" (Cloud KMS docs, "Delete Cloud KMS resources"); destroying them removes
  them from the stack and schedules the key's versions for destruction (pulumi-gcp kms.KeyRing and
  kms.CryptoKey). So both are auto-named (the resource name and Pulumi's random suffix): a stack
  destroyed and made again gets a new key ring instead of failing on, or reusing, the old one. A kept key
  ring costs nothing. Destroying a SecretCiphertext only forgets it (pulumi-gcp: it cannot be deleted).
- Cost: $0.06 a month per active key version (software protection level), destroyed versions free,
  $0.03 per 10,000 operations (Cloud KMS pricing, effective 2025-03-17): one version more every
  90 days, one encrypt per changed bundle, one decrypt per server's first boot. Too small for the plan's
  hourly costs, which list no Secret Manager charge either.
- API: Cloud KMS (cloudkms.googleapis.com, providers/gcp/apis.py CLOUD_KMS) is enabled here, next to the
  key that needs it, and never disabled on destroy (providers/gcp/apis.py says why).
"""

from typing import Optional, TypedDict

import pulumi
import pulumi_gcp as gcp

from gpukit.providers.gcp.apis import CLOUD_KMS
from gpukit.providers.gcp.kms import rotated_key

TYPE_TOKEN = "gpukit:index:K3sGceJoinKey"
DECRYPTER = "roles/cloudkms.cryptoKeyDecrypter"


class K3sGceJoinKeyArgs(TypedDict):
    region: str
    """Where the key ring lives: the cluster's region."""
    decrypter: pulumi.Input[str]
    """The IAM member that may decrypt the bundle: the servers' service account."""
    plaintext: pulumi.Input[str]
    """Secret: the servers' join bundle (host_scripts.secrets_bundle)."""


class K3sGceJoinKey(pulumi.ComponentResource):
    key_id: pulumi.Output[str]
    """`projects/P/locations/L/keyRings/R/cryptoKeys/K`: what the servers decrypt with."""
    ciphertext: pulumi.Output[str]
    """The bundle's Cloud KMS ciphertext, base64 (as cryptoKeys.encrypt returns it)."""
    grant: gcp.kms.CryptoKeyIAMMember
    """The servers' account may decrypt with the key: the servers are created after it."""

    def __init__(self, name: str, args: K3sGceJoinKeyArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        child = pulumi.ResourceOptions(parent=self)
        # The stack's project, as the secrets' (the provider's; iam.py).
        api = gcp.projects.Service(
            f"{name}-cloudkms-api", service=CLOUD_KMS, disable_on_destroy=False, opts=child
        )
        after_api = pulumi.ResourceOptions(parent=self, depends_on=[api])
        key = rotated_key(name, args["region"], after_api, child)
        self.grant = gcp.kms.CryptoKeyIAMMember(
            f"{name}-decrypter",
            crypto_key_id=key.id,
            role=DECRYPTER,
            member=args["decrypter"],
            opts=child,
        )
        # The deployer's own right encrypts (see above); the plaintext stays a secret in the state.
        bundle = gcp.kms.SecretCiphertext(
            f"{name}-bundle",
            crypto_key=key.id,
            plaintext=pulumi.Output.secret(args["plaintext"]),
            opts=child,
        )
        self.key_id = key.id
        self.ciphertext = bundle.ciphertext
        self.register_outputs({"key_id": self.key_id})
