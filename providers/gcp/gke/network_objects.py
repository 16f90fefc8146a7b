"""GkeNetworkObjects: the Kubernetes side of the GPU NICs' networks, a GKENetworkParamSet and a Network
per GPU subnet (gpu_networks.network_objects renders them), which pods name in their
`networking.gke.io/interfaces` annotation."""

from collections.abc import Sequence
from typing import Any, Optional, TypedDict

import pulumi
import pulumi_kubernetes as k8s

TYPE_TOKEN = "gpukit:index:GkeNetworkObjects"


class GkeNetworkObjectsArgs(TypedDict):
    objects: Sequence[dict[str, Any]]
    """From gpu_networks.network_objects: each ParamSet before the Network that refers to it."""


class GkeNetworkObjects(pulumi.ComponentResource):
    """Needs `opts.providers` with the cluster's kubernetes provider, and `opts.depends_on` with the GPU
    VPCs (a ParamSet names a VPC and subnet GKE checks exist) and the cluster (its multi-networking
    brings the CRDs)."""

    def __init__(self, name: str, args: GkeNetworkObjectsArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        param_sets: dict[str, pulumi.Resource] = {}
        for obj in args["objects"]:
            kind, object_name = obj["kind"], obj["metadata"]["name"]
            waits = [param_sets[object_name]] if kind == "Network" and object_name in param_sets else []
            made = k8s.apiextensions.CustomResource(
                f"{name}-{object_name}-{kind.lower()}",
                api_version=obj["apiVersion"],
                kind=kind,
                metadata=obj["metadata"],
                spec=obj["spec"],
                opts=pulumi.ResourceOptions(parent=self, depends_on=waits),
            )
            if kind == "GKENetworkParamSet":
                param_sets[object_name] = made
        self.register_outputs({})
