"""K3sGceMachineReadAccess: what the servers' service account may read of Compute Engine instances for
their node sync, and nothing more: compute.instances.get on this cluster's own machines.

Why it exists: the servers' node sync deletes the Node of an agent or server whose machine is gone, and
asks Compute Engine first (scripts/machine-gone-gcp.sh: instances.get on the machine behind the node's
provider ID; 404, or a creation time after the node registered, is gone). Nothing else on a server
calls the instances API: the Cluster Autoscaler's GCE provider reads its groups' machines through
instanceGroupManagers.listManagedInstances and calls instances.list only with
`--bulk-mig-instances-listing-enabled` (kubernetes/autoscaler cloudprovider/gce
mig_info_provider.go RegenerateMigInstancesCache / bulkListMigInstances, autoscaling_gce_client.go
FetchAllInstances; the flag defaults to false and gpukit does not set it), so no list permission is
granted at all.

Why narrowed: instances.get returns a machine's metadata, its startup script included, and in a shared
project other teams' VMs may keep secrets there. Project-wide it would hand every VM's metadata to
whoever holds a server. Compute Engine has no IAM policy on an instance that a stack could bind to
ahead of the machines a group will create, so the grant is a custom role on the project under an IAM
condition on the resource name (Compute Engine supports the resource name attribute in allow-policy
bindings: https://cloud.google.com/iam/docs/conditions-attribute-reference), true only for:
- each server, by its instance name;
- each zonal group's machines, by the group's base instance name and `-` (the group names its machines
  `<base>-<4 random characters>`, agent_pool.py).
The names are those the builders give (servers.py `server_name`, agent_pool.py `base_instance_name`),
known before any machine exists, so the grant is made with the servers and covers agent pools made
later in the same run (and clusters without agent pools, whose servers the node sync also checks).

What is left: names are matched, not zones (`resource.name.extract("/instances/{name}")`, the project's
being the binding's): a VM of the project in another zone named like one of this cluster's machines
would be readable too; only someone who may create VMs in the project can make one. A list call cannot
be narrowed this way (instances.list names a zone, not an instance: there is no instance name for the
condition to hold for), which is one more reason none is granted.
"""

import re
from collections.abc import Sequence
from typing import Optional, TypedDict

import pulumi
import pulumi_gcp as gcp

from gpukit.providers.gcp.k3s.autoscaler_iam import ROLE_ID_MAX

TYPE_TOKEN = "gpukit:index:K3sGceMachineReadAccess"
PERMISSIONS = ("compute.instances.get",)
INSTANCE_NAME = 'resource.name.extract("/instances/{name}")'


def role_id(cluster_name: str) -> str:
    """`gpukit_<cluster>_machine_read`: one role per cluster (a project may hold several)."""
    base = re.sub(r"[^a-zA-Z0-9_]", "_", cluster_name)
    suffix = "_machine_read"
    return f"gpukit_{base}"[: ROLE_ID_MAX - len(suffix)] + suffix


def own_machines_condition(names: Sequence[str], prefixes: Sequence[str]) -> str:
    """A CEL expression true only for instances named one of `names` or starting with one of
    `prefixes` (each ending in `-`), in a stable order."""
    exact = [f'{INSTANCE_NAME} == "{name}"' for name in sorted(set(names))]
    grouped = [f'{INSTANCE_NAME}.startsWith("{prefix}")' for prefix in sorted(set(prefixes))]
    return " || ".join(exact + grouped)


class K3sGceMachineReadAccessArgs(TypedDict):
    cluster_name: str
    project: str
    member: pulumi.Input[str]
    """The servers' service account (`serviceAccount:<email>`)."""
    server_names: list[str]
    """Every server's instance name."""
    group_prefixes: list[str]
    """`<base instance name>-` of every agent group."""


class K3sGceMachineReadAccess(pulumi.ComponentResource):
    def __init__(
        self, name: str, args: K3sGceMachineReadAccessArgs, opts: Optional[pulumi.ResourceOptions] = None
    ):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        child = pulumi.ResourceOptions(parent=self)
        cluster, project = args["cluster_name"], args["project"]
        role = gcp.projects.IAMCustomRole(
            f"{name}-role",
            role_id=role_id(cluster),
            title=f"gpukit {cluster} node sync (machines)",
            description=f"k3s servers of {cluster} ask whether a node's machine is gone (gpukit)",
            permissions=list(PERMISSIONS),
            project=project or None,
            opts=child,
        )
        gcp.projects.IAMMember(
            f"{name}-server",
            project=project,
            role=role.name,
            member=args["member"],
            condition={
                "title": f"{cluster} machines only",
                "description": f"the k3s servers and agent groups' machines of {cluster}",
                "expression": own_machines_condition(args["server_names"], args["group_prefixes"]),
            },
            opts=child,
        )
        self.register_outputs({})
