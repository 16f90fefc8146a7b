"""GkeStoragePrivateAccess: the private services access range, its peering with Google's service network,
and one firewall rule per storage backend the cluster uses, letting that backend's servers in the range
reach the cluster's nodes on that backend's ports only (tables.FIREWALL_ALLOWS, with sources).

Filestore (connect-mode PRIVATE_SERVICE_ACCESS) and Managed Lustre place their servers in a range of the
cluster's VPC that Google's service producer network peers into: they get private addresses only,
reachable from the VPC and nothing outside it (Managed Lustre "Configure a VPC network"; GKE Filestore
CSI driver, Shared VPC StorageClass with `connect-mode: PRIVATE_SERVICE_ACCESS`). gpukit allocates that
range itself, so it knows the source of the firewall rule: every other ingress to the nodes stays
denied (Google Cloud's implied deny-ingress rule).
"""

from typing import Optional, TypedDict

import pulumi
import pulumi_gcp as gcp

from gpukit.components.names import fit_name
from gpukit.providers.gcp.gke.shared_storage.tables import FIREWALL_ALLOWS, PRIVATE_ACCESS_KINDS

TYPE_TOKEN = "gpukit:index:GkeStoragePrivateAccess"
# Managed Lustre "Configure a VPC network": `gcloud compute addresses create ... --global
# --purpose=VPC_PEERING --prefix-length=20`, a range large enough for several instances; each instance
# takes a /24 of it. Filestore's share the same range (a /26 per zonal, regional or enterprise instance,
# a /29 per basic one: gcp-filestore-csi-driver controller.go reserveIPRange).
PEERING_PREFIX_LENGTH = 20
SERVICE_NETWORKING = "servicenetworking.googleapis.com"
GCE_NAME_MAX = 63


class GkeStoragePrivateAccessArgs(TypedDict):
    cluster_name: str
    network_id: pulumi.Input[str]
    node_service_account: pulumi.Input[str]
    """The nodes' service account email: the firewall rule's only target."""
    kinds: list[str]
    """The backends that use the range (filestore, managed-lustre): one firewall rule each."""


def peering_range_name(cluster_name: str) -> str:
    return fit_name(cluster_name, "-storage-psa", GCE_NAME_MAX)


class GkeStoragePrivateAccess(pulumi.ComponentResource):
    """Needs `opts.providers` with the stack's gcp provider."""

    range_name: pulumi.Output[str]
    connection: gcp.servicenetworking.Connection

    def __init__(
        self, name: str, args: GkeStoragePrivateAccessArgs, opts: Optional[pulumi.ResourceOptions] = None
    ):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        child = pulumi.ResourceOptions(parent=self)
        cluster = args["cluster_name"]
        peering_range = gcp.compute.GlobalAddress(
            f"{name}-range",
            name=peering_range_name(cluster),
            purpose="VPC_PEERING",
            address_type="INTERNAL",
            prefix_length=PEERING_PREFIX_LENGTH,
            network=args["network_id"],
            description=f"Private services access for the shared storage of {cluster} (gpukit)",
            opts=child,
        )
        self.connection = gcp.servicenetworking.Connection(
            f"{name}-peering",
            network=args["network_id"],
            service=SERVICE_NETWORKING,
            reserved_peering_ranges=[peering_range.name],
            # Built only on a network gpukit creates (validation.py refuses Filestore and Lustre on a
            # reused one), so the default deletion policy (DELETE) is right: the API refuses to delete a
            # connection other services' instances still use, and destroy stops there instead of cutting
            # them. ABANDON would leave the peering, which "will block deletion of the network" on every
            # destroy (pulumi-gcp servicenetworking.Connection deletion_policy, "Deleting a connection").
            opts=child,
        )
        cidr = pulumi.Output.all(peering_range.address, peering_range.prefix_length).apply(
            lambda a: f"{a[0]}/{a[1]}"
        )
        for kind in PRIVATE_ACCESS_KINDS:
            if kind not in args["kinds"]:
                continue
            gcp.compute.Firewall(
                f"{name}-{kind}-to-nodes",
                name=fit_name(cluster, f"-{kind}-to-nodes", GCE_NAME_MAX),
                network=args["network_id"],
                direction="INGRESS",
                source_ranges=[cidr],
                # Only the cluster's nodes, by their service account: no other VM of the VPC is opened.
                target_service_accounts=[args["node_service_account"]],
                allows=[
                    gcp.compute.FirewallAllowArgs(protocol=protocol, ports=list(ports) or None)
                    for protocol, ports in FIREWALL_ALLOWS[kind]
                ],
                description=f"{kind} of {cluster}: private services range to its nodes only (gpukit)",
                opts=child,
            )
        self.range_name = peering_range.name
        self.register_outputs({"range_name": self.range_name})
