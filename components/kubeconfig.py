"""Kubeconfig documents, rendered from plain values (called inside `.apply`, never formatted there)."""

import base64
from typing import Any

import yaml

EXEC_API_VERSION = "client.authentication.k8s.io/v1beta1"


def _kubeconfig(name: str, server: str, ca_data: str, exec_config: dict[str, Any]) -> str:
    doc = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": name, "cluster": {"server": server, "certificate-authority-data": ca_data}}],
        "contexts": [{"name": name, "context": {"cluster": name, "user": name}}],
        "current-context": name,
        "preferences": {},
        "users": [{"name": name, "user": {"exec": {"apiVersion": EXEC_API_VERSION, **exec_config}}}],
    }
    return yaml.safe_dump(doc, sort_keys=False)


def eks_kubeconfig(cluster_name: str, endpoint: str, ca_data: str, region: str) -> str:
    """A kubeconfig that authenticates with `aws eks get-token` (no static credentials inside)."""
    return _kubeconfig(
        cluster_name,
        endpoint,
        ca_data,
        {
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
    )


def gke_kubeconfig(context: str, endpoint: str, ca_data: str) -> str:
    """A kubeconfig that authenticates with gke-gcloud-auth-plugin (the caller's gcloud identity)."""
    return _kubeconfig(
        context,
        f"https://{endpoint}",
        ca_data,
        {
            "command": "gke-gcloud-auth-plugin",
            "installHint": "Install gke-gcloud-auth-plugin for kubectl: "
            "https://cloud.google.com/kubernetes-engine/docs/how-to/cluster-access-for-kubectl#install_plugin",
            "provideClusterInfo": True,
            "interactiveMode": "Never",
        },
    )


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
