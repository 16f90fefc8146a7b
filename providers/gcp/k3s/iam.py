"""K3sGceJoinSecrets: the service accounts of a k3s cluster's machines, and the join secrets each
kind of machine (servers, agents) reads at first boot with its own account, and only its own.

The secrets (token; for servers also the cluster CAs) live in Secret Manager, never in instance
metadata, which every process on a machine can read. Servers and agents get separate accounts and
separate secrets: an agent's account can read the agent token only, never the CA keys. The servers'
secret holds their bundle encrypted with a Cloud KMS key of the stack's own (join_key.py), which only
the servers' account may decrypt with: reading the secret alone does not read the CA keys. Both secrets
keep automatic replication and Google's default encryption (a CMEK on the secret would add nothing: the
bundle is ciphertext already, and Secret Manager decrypts a CMEK secret for whoever may read it).
"""

from pathlib import Path
from typing import Optional, TypedDict

import pulumi
import pulumi_gcp as gcp

from gpukit.components.k3s.cloud_init import provider_id_script as provider_id_script_for
from gpukit.components.k3s.host_scripts import MachineCheck, render_script, secrets_bundle
from gpukit.components.names import fit_name
from gpukit.components.spec import NodeRole
from gpukit.providers.gcp.gke.iam import ACCOUNT_ID_MAX
from gpukit.providers.gcp.k3s.join_key import K3sGceJoinKey

TYPE_TOKEN = "gpukit:index:K3sGceJoinSecrets"
FETCH_SECRETS = Path(__file__).parent / "scripts" / "fetch-secrets-gcp.sh"
PROVIDER_ID = Path(__file__).parent / "scripts" / "provider-id-gcp.sh"
MACHINE_GONE = Path(__file__).parent / "scripts" / "machine-gone-gcp.sh"
MACHINE_CHECK = MachineCheck((MACHINE_GONE,))
"""The servers' node sync asks Compute Engine whether a not-Ready node's instance is gone."""
SECRET_ACCESSOR = "roles/secretmanager.secretAccessor"
# What the machines' own agents write: the guest agent sends the startup script's output (gpukit's
# bootstrap log) to Cloud Logging, and the Ops Agent, where installed, logs and metrics. Nothing else:
# k3s pulls public images, so no Artifact Registry role (add one with the registry you use).
NODE_ROLES = ("roles/logging.logWriter", "roles/monitoring.metricWriter")
# Enabled once and left on: disabling an API on `pulumi destroy` would break whatever else in the
# project uses it. Compute Engine itself must be on already (it is, in any project that runs VMs).
SECRET_MANAGER_API = "secretmanager.googleapis.com"
_KIND = {NodeRole.SERVER: "server", NodeRole.AGENT: "agent"}


def account_id(cluster_name: str, role: NodeRole) -> str:
    """`<cluster>-k3s-server|agent`; a cluster name too long for 30 characters is cut and hashed (never
    cut alone: two clusters in one project would share the accounts, and each other's secrets)."""
    return fit_name(cluster_name, f"-k3s-{_KIND[role]}", ACCOUNT_ID_MAX)


def secret_id(cluster_name: str, role: NodeRole) -> str:
    return f"{cluster_name}-k3s-{_KIND[role]}-join"


def fetch_secrets_script(secret_version: str, kms_key: str = "") -> str:
    """What a machine runs at first boot to read its join secret with its service account, through the
    metadata server's token: scripts/fetch-secrets-gcp.sh next to this file. `kms_key`: the servers'
    join key (join_key.py), which the script decrypts the secret's data with; empty for the agents',
    whose secret holds their token as it is."""
    return render_script(FETCH_SECRETS, SECRET_VERSION=secret_version, KMS_KEY=kms_key)


def provider_id_script() -> str:
    """What a machine runs before k3s starts: register its node as gce://<project>/<zone>/<name>."""
    return provider_id_script_for(PROVIDER_ID)


class K3sGceJoinSecretsArgs(TypedDict):
    cluster_name: str
    project: str
    region: str
    """Where the servers' join key lives."""
    server_files: pulumi.Input[dict[str, str]]
    """Secret: K3sPki.server_files."""
    agent_files: pulumi.Input[dict[str, str]]
    """Secret: K3sPki.agent_files."""


class K3sGceJoinSecrets(pulumi.ComponentResource):
    service_accounts: dict[NodeRole, pulumi.Output[str]]
    """Role -> the email of the account its machines run as."""
    secret_versions: dict[NodeRole, pulumi.Output[str]]
    """Role -> `projects/P/secrets/S/versions/N`, the version the stack wrote: what its machines
    fetch (never `latest`, which a later write, or someone else's, would change under them)."""
    server_key: pulumi.Output[str]
    """`projects/P/locations/L/keyRings/R/cryptoKeys/K`: what the servers decrypt their bundle with."""
    ready: list[pulumi.Resource]
    """Secret versions, read grants and the servers' decrypt grant: machines are created after them, so
    the first fetch works."""

    def __init__(self, name: str, args: K3sGceJoinSecretsArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        child = pulumi.ResourceOptions(parent=self)
        cluster, project = args["cluster_name"], args["project"]
        api = gcp.projects.Service(
            f"{name}-secretmanager-api", service=SECRET_MANAGER_API, disable_on_destroy=False, opts=child
        )
        files = {NodeRole.SERVER: args["server_files"], NodeRole.AGENT: args["agent_files"]}
        self.service_accounts, self.secret_versions, self.ready = {}, {}, []
        for role, role_files in files.items():
            kind = _KIND[role]
            account = gcp.serviceaccount.Account(
                f"{name}-{kind}",
                account_id=account_id(cluster, role),
                display_name=f"k3s {kind}s of {cluster} (gpukit)",
                opts=child,
            )
            for node_role in NODE_ROLES:
                gcp.projects.IAMMember(
                    f"{name}-{kind}-{node_role.rsplit('/', 1)[-1].replace('.', '-')}",
                    project=project,
                    role=node_role,
                    member=account.member,
                    opts=child,
                )
            secret = gcp.secretmanager.Secret(
                f"{name}-{kind}-secret",
                secret_id=secret_id(cluster, role),
                replication={"auto": {}},
                # A fixed id: a replacement (a new replication policy) must delete the old one first.
                opts=pulumi.ResourceOptions(parent=self, depends_on=[api], delete_before_replace=True),
            )
            bundle: pulumi.Output[str] = pulumi.Output.from_input(role_files).apply(secrets_bundle)
            data: pulumi.Output[str] = pulumi.Output.secret(bundle)
            encoded: bool | None = None
            if role == NodeRole.SERVER:
                # Stored as its Cloud KMS ciphertext, which only the servers' account may decrypt
                # (join_key.py). Its bytes, not its base64 text: Secret Manager hands a payload back
                # base64-encoded, which is then the ciphertext as cryptoKeys.decrypt takes it, and the
                # payload is no third larger than the ciphertext (Secret Manager takes 64 KiB).
                key = K3sGceJoinKey(
                    f"{name}-server-key",
                    {"region": args["region"], "decrypter": account.member, "plaintext": data},
                    opts=child,
                )
                data, encoded = key.ciphertext, True
                self.server_key = key.key_id
                self.ready.append(key.grant)
            version = gcp.secretmanager.SecretVersion(
                f"{name}-{kind}-version",
                secret=secret.id,
                secret_data=data,
                is_secret_data_base64=encoded,
                opts=child,
            )
            # On the secret, not the project: each account reads its own secret and nothing else.
            grant = gcp.secretmanager.SecretIamMember(
                f"{name}-{kind}-reader",
                secret_id=secret.id,
                role=SECRET_ACCESSOR,
                member=account.member,
                opts=child,
            )
            self.service_accounts[role] = account.email
            self.secret_versions[role] = version.name
            self.ready += [version, grant]
        self.register_outputs({})
