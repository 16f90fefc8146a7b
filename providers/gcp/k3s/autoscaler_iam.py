"""K3sGceAutoscalerAccess: what the servers' service account may do for the Cluster Autoscaler's GCE
provider, and nothing more.

Compute Engine has no IAM policy on a managed instance group, so access is granted on the project,
in two custom roles (no predefined role is this narrow: roles/compute.instanceAdmin.v1 could create
and delete any machine in the project):
- read: the get/list calls the provider makes (kubernetes/autoscaler cloudprovider/gce
  autoscaling_gce_client.go: machine types, instance group managers and their managed instances,
  instance groups, zones and regions, zone operations; newer releases also list reservations and disk
  types for their caches). Unconditioned, project-wide (IAM conditions do not narrow list calls): this
  is the trade-off. These calls return names, sizes and states, never disk contents, instance metadata
  of templates, or secrets in Secret Manager. Not instances: the provider lists them only with
  `--bulk-mig-instances-listing-enabled` (autoscaling_gce_client.go FetchAllInstances, called from
  mig_info_provider.go bulkListMigInstances; off by default, and gpukit does not set it) and never
  gets one, and an instance's metadata holds its startup script. The servers' node sync gets
  this cluster's own machines only (machine_read_iam.py).
- templates: compute.instanceTemplates.get, only on this cluster's agent templates (the provider
  reads a group's template by name, FetchMigTemplate, to build its node at zero; it never lists
  templates). A template carries its machines' metadata, and in a shared project other teams' startup
  scripts may hold secrets: project-wide it would hand them to whoever holds a server.
- resize: compute.instanceGroupManagers.update (instanceGroupManagers.resize and .deleteInstances),
  only on this cluster's groups.
The last two are IAM conditions on the resource name (Compute Engine supports the resource name
attribute in allow-policy bindings: https://cloud.google.com/iam/docs/conditions-attribute-reference),
listing each resource's full name.

What is left: a managed instance group has no size ceiling of its own (`maxNodes` lives in the
autoscaler's flags), so whoever holds a server (root there is the whole cluster anyway) can resize
this cluster's groups up to the project's quota. Set a GPU quota for the region to bound the bill.
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
TEMPLATE_PERMISSIONS = ("compute.instanceTemplates.get",)
# IAM custom role ids: letters, digits, `_` and `.`, 3 to 64 characters (IAM API roles.create roleId).
ROLE_ID_MAX = 64


def role_id(cluster_name: str, kind: str) -> str:
    """`gpukit_<cluster>_autoscaler_<kind>`: one pair of roles per cluster (a project may hold several)."""
    base = re.sub(r"[^a-zA-Z0-9_]", "_", cluster_name)
    suffix = f"_autoscaler_{kind}"
    return f"gpukit_{base}"[: ROLE_ID_MAX - len(suffix)] + suffix


def only_these_condition(resource_ids: Sequence[str]) -> str:
    """A CEL expression true only for the given resources, by their full resource names (instance
    group managers `projects/P/zones/Z/instanceGroupManagers/N`, instance templates
    `projects/P/global/instanceTemplates/N`: their Pulumi ids)."""
    return " || ".join(f'resource.name == "{resource_id}"' for resource_id in sorted(resource_ids))


class K3sGceAutoscalerAccessArgs(TypedDict):
    cluster_name: str
    project: str
    member: pulumi.Input[str]
    """The servers' service account (`serviceAccount:<email>`)."""
    group_ids: pulumi.Input[list[str]]
    """The agent pools' instance group managers, by resource id."""
    template_ids: pulumi.Input[list[str]]
    """The agent pools' instance templates, by resource id."""


class K3sGceAutoscalerAccess(pulumi.ComponentResource):
    def __init__(
        self, name: str, args: K3sGceAutoscalerAccessArgs, opts: Optional[pulumi.ResourceOptions] = None
    ):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        child = pulumi.ResourceOptions(parent=self)
        cluster, project = args["cluster_name"], args["project"]
        own: dict[str, tuple[str, pulumi.Input[list[str]]]] = {
            "resize": ("groups", args["group_ids"]),
            "templates": ("agent templates", args["template_ids"]),
        }
        for kind, permissions in (
            ("read", READ_PERMISSIONS),
            ("templates", TEMPLATE_PERMISSIONS),
            ("resize", RESIZE_PERMISSIONS),
        ):
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
            if kind in own:
                what, ids = own[kind]
                condition = {
                    "title": f"{cluster} {what} only",
                    "description": f"the k3s agent pools' {what} of this cluster",
                    "expression": pulumi.Output.from_input(ids).apply(only_these_condition),
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
