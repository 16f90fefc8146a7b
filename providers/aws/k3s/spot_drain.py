"""NodeTerminationHandler: aws-node-termination-handler in IMDS mode on the spot pools of k3s on EC2
(why and how: spot_drain_values.py). Built only where the cluster has a spot pool."""

from typing import Optional, TypedDict

import pulumi
import pulumi_kubernetes as k8s

from gpukit.providers.aws.k3s.spot_drain_values import (
    CHART,
    CHART_VERSION,
    NAMESPACE,
    RELEASE_NAME,
    termination_handler_values,
)

TYPE_TOKEN = "gpukit:index:NodeTerminationHandler"


class NodeTerminationHandlerArgs(TypedDict):
    spot_pools: list[str]
    """The pools whose nodes it watches (gpukit.dev/pool values)."""


class NodeTerminationHandler(pulumi.ComponentResource):
    """Pass the cluster's Kubernetes provider through `opts.providers`."""

    release_name: pulumi.Output[Optional[str]]

    def __init__(
        self, name: str, args: NodeTerminationHandlerArgs, opts: Optional[pulumi.ResourceOptions] = None
    ):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        release = k8s.helm.v3.Release(
            f"{name}-release",
            name=RELEASE_NAME,
            chart=CHART,
            version=CHART_VERSION,
            namespace=NAMESPACE,
            values=termination_handler_values(args["spot_pools"]),
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.release_name = release.name
        self.register_outputs({"release_name": self.release_name})
