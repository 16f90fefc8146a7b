"""K3sCloudAccess: the kubeconfig of a k3s cluster on cloud VMs, and a wait until its API answers.

The kubeconfig is built from the Pulumi-made CA and admin certificate (components/k3s/pki.py), so
nothing is read back from a machine and no SSH access is needed. Cloud machines install k3s at
first boot, minutes after the cloud reports them created: a local command polls the API from where
`pulumi up` runs, as gpukit's admin and checking the server against the cluster's CA, until the admin
may use it (k3s applies its ClusterRoleBinding from the manifests folder), so what is installed next
(the GPU Operator) is let in. The credentials reach the command on stdin only. That needs bash, curl
and base64 on the deployer's machine, and the deployer inside `apiAccessCidrs` (or the VPC).
"""

from typing import Optional, TypedDict

import pulumi
import pulumi_command as command
import pulumi_kubernetes as k8s

from gpukit.components.handle import ClusterHandle
from gpukit.components.k3s.cloud_init import api_wait_script, credentials_bundle
from gpukit.components.k3s.handle import k3s_cluster_handle
from gpukit.components.k3s.pki import K3sPki

TYPE_TOKEN = "gpukit:index:K3sCloudAccess"


class K3sCloudAccessArgs(TypedDict):
    cluster_name: str
    api_url: pulumi.Input[str]
    """https://<stable API address>:6443, an address in every server's TLS SANs."""
    pki: K3sPki
    """The cluster's PKI (Python-only, like the rest of this component: built by the k3s backends)."""
    servers: list[pulumi.Resource]
    """The server machines: the wait starts once they exist (Python-only: built by the providers)."""


class K3sCloudAccess(pulumi.ComponentResource):
    kubeconfig: pulumi.Output[str]
    """Secret: admin kubeconfig with a client certificate."""
    kubernetes: k8s.Provider
    api_ready: command.local.Command
    """Done once the API answers: in-cluster resources depend on it."""
    handle: ClusterHandle
    """What the backend hands GpuCluster."""

    def __init__(self, name: str, args: K3sCloudAccessArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        api_url = pulumi.Output.from_input(args["api_url"])
        pki = args["pki"]
        credentials: pulumi.Output[str] = pulumi.Output.all(
            pki.server_ca_pem, pki.admin_cert_pem, pki.admin_key_pem
        ).apply(lambda pems: credentials_bundle(*pems))
        stdin: pulumi.Output[str] = pulumi.Output.secret(credentials)
        self.api_ready = command.local.Command(
            f"{name}-wait-for-api",
            create=api_url.apply(api_wait_script),
            stdin=stdin,
            interpreter=["/bin/bash", "-c"],
            opts=pulumi.ResourceOptions(parent=self, depends_on=args["servers"]),
        )
        self.kubeconfig = args["pki"].kubeconfig(args["cluster_name"], api_url)
        self.kubernetes = k8s.Provider(
            f"{name}-k8s",
            kubeconfig=self.kubeconfig,
            opts=pulumi.ResourceOptions(parent=self, depends_on=[self.api_ready]),
        )
        self.handle = k3s_cluster_handle(
            args["cluster_name"], self.kubeconfig, self.kubernetes, [self.api_ready]
        )
        self.register_outputs({"kubeconfig": self.kubeconfig})
