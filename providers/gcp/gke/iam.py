"""IAM for GKE nodes: a dedicated service account with only what nodes need."""

# Google's role for custom node service accounts (GKE docs, "Use least privilege IAM service accounts
# for nodes"): write logs and metrics, read resource metadata. Image pulls from Artifact Registry need
# the reader role on top.
NODE_ROLES = (
    "roles/container.defaultNodeServiceAccount",
    "roles/artifactregistry.reader",
)


def node_service_account_id(cluster_name: str) -> str:
    """A 6-30 character account id: `<cluster>-nodes`, the cluster name cut to fit."""
    return f"{cluster_name[:24]}-nodes"
