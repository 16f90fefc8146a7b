"""Kubeconfig documents, rendered from plain values (called inside `.apply`, never formatted there).

The clouds' exec credentials live with their substrate (providers/aws/eks/kubeconfig.py,
providers/gcp/gke/kubeconfig.py); k3s uses the client certificate below.
"""

import base64
from typing import Any

import yaml

EXEC_API_VERSION = "client.authentication.k8s.io/v1beta1"


def exec_kubeconfig(name: str, server: str, ca_data: str | None, exec_config: dict[str, Any]) -> str:
    """A kubeconfig whose user runs a credential plugin (no static credentials inside). `ca_data` None:
    the server's certificate is publicly trusted (GKE's DNS-based endpoint), checked against the
    system's roots."""
    cluster: dict[str, str] = {"server": server}
    if ca_data is not None:
        cluster["certificate-authority-data"] = ca_data
    doc = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": name, "cluster": cluster}],
        "contexts": [{"name": name, "context": {"cluster": name, "user": name}}],
        "current-context": name,
        "preferences": {},
        "users": [{"name": name, "user": {"exec": {"apiVersion": EXEC_API_VERSION, **exec_config}}}],
    }
    return yaml.safe_dump(doc, sort_keys=False)


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def certificate_kubeconfig(
    name: str, server: str, ca_pem: str, client_cert_pem: str, client_key_pem: str
) -> str:
    """A kubeconfig with a client certificate (k3s: signed by the Pulumi-made client CA)."""
    doc = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {"name": name, "cluster": {"server": server, "certificate-authority-data": _b64(ca_pem)}}
        ],
        "contexts": [{"name": name, "context": {"cluster": name, "user": name}}],
        "current-context": name,
        "preferences": {},
        "users": [
            {
                "name": name,
                "user": {
                    "client-certificate-data": _b64(client_cert_pem),
                    "client-key-data": _b64(client_key_pem),
                },
            }
        ],
    }
    return yaml.safe_dump(doc, sort_keys=False)
