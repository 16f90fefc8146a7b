"""StorageServerIsolation: isolation.py's NetworkPolicy in each workload namespace gpukit knows, and its
admission policy against inline NFS volumes."""

import functools
from collections.abc import Sequence
from typing import Any, NotRequired, Optional, TypedDict

import pulumi
import pulumi_kubernetes as k8s

from gpukit.components.addons.storage.built import StorageServer
from gpukit.components.addons.storage.isolation import inline_nfs_policy, storage_egress_policy

TYPE_TOKEN = "gpukit:index:StorageServerIsolation"


class StorageServerIsolationArgs(TypedDict):
    servers: Sequence[StorageServer]
    """The storage servers (a VM's or a Filestore instance's address is known once it exists)."""
    namespaces: Sequence[tuple[str, Sequence[pulumi.Resource]]]
    """Each namespace, and what it waits for (a namespace another add-on creates)."""
    allows: NotRequired[Sequence[tuple[str, int]]]
    """(CIDR, TCP port) pairs every policy names (StorageVariant.network_policy_allows)."""


def _policy(
    namespace: str, dedicated: list[bool], allows: tuple[tuple[str, int], ...], addresses: list[str]
) -> dict[str, Any]:
    return storage_egress_policy(namespace, list(zip(addresses, dedicated, strict=True)), allows)


class StorageServerIsolation(pulumi.ComponentResource):
    """Pass the cluster's Kubernetes provider through `opts.providers`."""

    def __init__(
        self, name: str, args: StorageServerIsolationArgs, opts: Optional[pulumi.ResourceOptions] = None
    ):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        child = pulumi.ResourceOptions(parent=self)
        policy, binding = inline_nfs_policy()
        admission = k8s.admissionregistration.v1.ValidatingAdmissionPolicy(
            f"{name}-inline-nfs", metadata=policy["metadata"], spec=policy["spec"], opts=child
        )
        k8s.admissionregistration.v1.ValidatingAdmissionPolicyBinding(
            f"{name}-inline-nfs-binding",
            metadata=binding["metadata"],
            spec=binding["spec"],
            opts=pulumi.ResourceOptions(parent=self, depends_on=[admission]),
        )
        dedicated = [server.dedicated for server in args["servers"]]
        addresses = pulumi.Output.all(*(server.address for server in args["servers"]))
        for namespace, waits in args["namespaces"]:
            render = functools.partial(_policy, namespace, dedicated, tuple(args.get("allows", ())))
            manifest = addresses.apply(render)
            k8s.networking.v1.NetworkPolicy(
                f"{name}-{namespace}",
                metadata=manifest["metadata"],
                spec=manifest["spec"],
                opts=pulumi.ResourceOptions(parent=self, depends_on=list(waits)),
            )
        self.register_outputs({})
