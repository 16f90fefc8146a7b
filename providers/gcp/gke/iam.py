"""IAM for GKE nodes: a dedicated service account with only what nodes need."""

from gpukit.components.names import fit_name

# Google's role for custom node service accounts (GKE docs, "Use least privilege IAM service accounts
# for nodes"): write logs and metrics, read resource metadata. Image pulls from Artifact Registry need
# the reader role on top.
NODE_ROLES = (
    "roles/container.defaultNodeServiceAccount",
    "roles/artifactregistry.reader",
)


# Service account ids: 6-30 characters (IAM API projects.serviceAccounts.create, accountId).
ACCOUNT_ID_MAX = 30


def node_service_account_id(cluster_name: str) -> str:
    """`<cluster>-nodes`; a cluster name too long for 30 characters is cut and hashed (never cut alone:
    two clusters in one project would share an account)."""
    return fit_name(cluster_name, "-nodes", ACCOUNT_ID_MAX)
