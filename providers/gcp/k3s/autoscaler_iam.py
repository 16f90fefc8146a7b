"""K3sGceAutoscalerAccess: what the servers' service account may do for the Cluster Autoscaler's GCE
provider, and nothing more.

Compute Engine has no IAM policy on a managed instance group, so access is granted on the project,
in two custom roles (no predefined role is this narrow: roles/compute.instanceAdmin.v1 could create
and delete any machine in the project):
- read: the get/list calls the provider makes (kubernetes/autoscaler cloudprovider/gce
  autoscaling_gce_client.go: machine types, instance group managers and their managed instances,
  instance groups, instance templates, zones and regions, zone operations; newer releases also list
  instances, reservations and disk types for their caches). Unconditioned, project-wide: this is the
  trade-off. These calls return names, sizes and templates (templates include their metadata, such as
  other teams' startup scripts), never disk contents or secrets in Secret Manager.
- resize: compute.instanceGroupManagers.update (instanceGroupManagers.resize and .deleteInstances),
  only on this cluster's groups: an IAM condition on the resource name (Compute Engine supports the
  resource name attribute in allow-policy bindings: https://cloud.google.com/iam/docs/conditions-
  attribute-reference), listing each group's full name.
"""

import re
from collections.abc import Sequence
from typing import Optional, TypedDict

import pulumi
import pulumi_gcp as gcp

TYPE_TOKEN = "gpukit:index:K3sGceAutoscalerAccess"
READ_PERMISSIONS = (
    "compute.diskTypes.get",
    "compute.diskTypes.list",
    "compute.instanceGroupManagers.get",
    "compute.instanceGroupManagers.list",
    "compute.instanceGroups.get",
    "compute.instanceGroups.list",
    "compute.instanceTemplates.get",
    "compute.instanceTemplates.list",
    "compute.instances.get",
    "compute.instances.list",
    "compute.machineTypes.get",
    "compute.machineTypes.list",
    "compute.regions.get",
    "compute.regions.list",
    "compute.reservations.list",
    "compute.zoneOperations.get",
    "compute.zones.get",
    "compute.zones.list",
)
RESIZE_PERMISSIONS = ("compute.instanceGroupManagers.update",)
# IAM custom role ids: letters, digits, `_` and `.`, 3 to 64 characters (IAM API roles.create roleId).
ROLE_ID_MAX = 64


def role_id(cluster_name: str, kind: str) -> str:
    """`gpukit_<cluster>_autoscaler_<kind>`: one pair of roles per cluster (a project may hold several)."""
    base = re.sub(r"[^a-zA-Z0-9_]", "_", cluster_name)
    suffix = f"_autoscaler_{kind}"
    return f"gpukit_{base}"[: ROLE_ID_MAX - len(suffix)] + suffix


def own_groups_condition(group_ids: Sequence[str]) -> str:
    """A CEL expression true only for the given instance group managers (`projects/P/zones/Z/
    instanceGroupManagers/N`, their resource ids)."""
    return " || ".join(f'resource.name == "{group_id}"' for group_id in sorted(group_ids))


class K3sGceAutoscalerAccessArgs(TypedDict):
    cluster_name: str
    project: str
    member: pulumi.Input[str]
    """The servers' service account (`serviceAccount:<email>`)."""
    group_ids: pulumi.Input[list[str]]
    """The agent pools' instance group managers, by resource id."""


class K3sGceAutoscalerAccess(pulumi.ComponentResource):
    def __init__(
        self, name: str, args: K3sGceAutoscalerAccessArgs, opts: Optional[pulumi.ResourceOptions] = None
    ):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        child = pulumi.ResourceOptions(parent=self)
        cluster, project = args["cluster_name"], args["project"]
        for kind, permissions in (("read", READ_PERMISSIONS), ("resize", RESIZE_PERMISSIONS)):
            role = gcp.projects.IAMCustomRole(
                f"{name}-{kind}",
                role_id=role_id(cluster, kind),
                title=f"gpukit {cluster} cluster autoscaler ({kind})",
                description=f"Cluster Autoscaler of k3s cluster {cluster} on its servers (gpukit)",
                permissions=list(permissions),
                project=project or None,
                opts=child,
            )
            condition: Optional[gcp.projects.IAMMemberConditionArgsDict] = None
            if kind == "resize":
                condition = {
                    "title": f"{cluster} groups only",
                    "description": "the k3s agent pools' managed instance groups of this cluster",
                    "expression": pulumi.Output.from_input(args["group_ids"]).apply(own_groups_condition),
                }
            gcp.projects.IAMMember(
                f"{name}-{kind}-server",
                project=project,
                role=role.name,
                member=args["member"],
                condition=condition,
                opts=child,
            )
        self.register_outputs({})
