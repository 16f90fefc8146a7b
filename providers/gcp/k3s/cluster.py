"""K3sGceCluster: k3s on Compute Engine GPU VMs (platform k3s, provider gcp), for GpuCluster.

The shared k3s-on-cloud flow (components/k3s/cloud_flow.py) with the Compute Engine adapter
(adapter.py). Every machine bootstraps itself from its startup script; nothing is run on a machine by
Pulumi.
"""

from typing import Optional, TypedDict

import pulumi

from gpukit.components.handle import ClusterHandle
from gpukit.components.k3s.cloud_flow import build_k3s_on_cloud
from gpukit.components.substrate import ResolvedCluster
from gpukit.providers.gcp.apis import K3S_GCE_APIS
from gpukit.providers.gcp.k3s.adapter import GceAdapter
from gpukit.providers.gcp.provider import cluster_provider

TYPE_TOKEN = "gpukit:index:K3sGceCluster"


class K3sGceClusterArgs(TypedDict):
    cluster: ResolvedCluster
    """The validated cluster (Python-only: this component is built by GpuCluster)."""


class K3sGceCluster(pulumi.ComponentResource):
    kubeconfig: pulumi.Output[str]
    """Secret: admin kubeconfig with a client certificate."""
    api_url: pulumi.Output[str]
    handle: ClusterHandle

    def __init__(self, name: str, args: K3sGceClusterArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        cluster = args["cluster"]
        provider, _ = cluster_provider(name, cluster.spec, self, K3S_GCE_APIS)
        adapter = GceAdapter(self, name, cluster, provider)
        self.handle, self.api_url = build_k3s_on_cloud(self, name, cluster, adapter)
        self.kubeconfig = self.handle.kubeconfig
        self.register_outputs({"kubeconfig": self.kubeconfig, "api_url": self.api_url})


def build_k3s_gce(name: str, cluster: ResolvedCluster, parent: pulumi.Resource) -> ClusterHandle:
    """K3sGceSubstrate.build."""
    return K3sGceCluster(name, {"cluster": cluster}, opts=pulumi.ResourceOptions(parent=parent)).handle
