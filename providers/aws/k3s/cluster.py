"""K3sEc2Cluster: k3s on EC2 GPU instances (platform k3s, provider aws), for GpuCluster.

The shared k3s-on-cloud flow (components/k3s/cloud_flow.py) with the EC2 adapter (adapter.py), and
aws-node-termination-handler where a pool is spot (spot_drain.py).
"""

from typing import Optional, TypedDict

import pulumi

from gpukit.components.handle import ClusterHandle
from gpukit.components.k3s.cloud_flow import build_k3s_on_cloud
from gpukit.components.substrate import ResolvedCluster
from gpukit.providers.aws.k3s.adapter import Ec2Adapter
from gpukit.providers.aws.k3s.spot_drain import NodeTerminationHandler
from gpukit.providers.aws.k3s.spot_drain_values import spot_pools
from gpukit.providers.aws.provider import cluster_provider

TYPE_TOKEN = "gpukit:index:K3sEc2Cluster"


class K3sEc2ClusterArgs(TypedDict):
    cluster: ResolvedCluster
    """The validated cluster (Python-only: this component is built by GpuCluster)."""


class K3sEc2Cluster(pulumi.ComponentResource):
    kubeconfig: pulumi.Output[str]
    """Secret: admin kubeconfig with a client certificate, for https://<load balancer>:6443."""
    api_url: pulumi.Output[str]
    handle: ClusterHandle

    def __init__(self, name: str, args: K3sEc2ClusterArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        cluster = args["cluster"]
        adapter = Ec2Adapter(self, name, cluster, cluster_provider(name, cluster.spec, self))
        self.handle, self.api_url = build_k3s_on_cloud(self, name, cluster, adapter)
        if spot := spot_pools(cluster.pools):
            NodeTerminationHandler(
                f"{name}-nth",
                {"spot_pools": spot},
                opts=pulumi.ResourceOptions(
                    parent=self,
                    providers={"kubernetes": self.handle.kubernetes},
                    depends_on=self.handle.system_ready,
                ),
            )
        self.kubeconfig = self.handle.kubeconfig
        self.register_outputs({"kubeconfig": self.kubeconfig, "api_url": self.api_url})


def build_k3s_ec2(name: str, cluster: ResolvedCluster, parent: pulumi.Resource) -> ClusterHandle:
    """K3sEc2Substrate.build."""
    return K3sEc2Cluster(name, {"cluster": cluster}, opts=pulumi.ResourceOptions(parent=parent)).handle
