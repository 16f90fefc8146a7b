"""Kubeconfig documents, rendered from plain values (called inside `.apply`, never formatted there)."""

import yaml

EXEC_API_VERSION = "client.authentication.k8s.io/v1beta1"


def eks_kubeconfig(cluster_name: str, endpoint: str, ca_data: str, region: str) -> str:
    """A kubeconfig that authenticates with `aws eks get-token` (no static credentials inside)."""
    doc = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {
                "name": cluster_name,
                "cluster": {"server": endpoint, "certificate-authority-data": ca_data},
            }
        ],
        "contexts": [{"name": cluster_name, "context": {"cluster": cluster_name, "user": cluster_name}}],
        "current-context": cluster_name,
        "preferences": {},
        "users": [
            {
                "name": cluster_name,
                "user": {
                    "exec": {
                        "apiVersion": EXEC_API_VERSION,
                        "command": "aws",
                        "args": [
                            "eks",
                            "get-token",
                            "--cluster-name",
                            cluster_name,
                            "--region",
                            region,
                            "--output",
                            "json",
                        ],
                        "interactiveMode": "Never",
                    },
                },
            }
        ],
    }
    return yaml.safe_dump(doc, sort_keys=False)
