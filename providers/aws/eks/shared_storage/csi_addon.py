"""EksCsiAddon: a CSI driver as an EKS add-on, its controller authenticated with EKS Pod Identity."""

from typing import NotRequired, Optional, TypedDict

import pulumi
import pulumi_aws as aws

from gpukit.providers.aws.eks.pod_identity_role import pod_identity_role
from gpukit.providers.aws.eks.shared_storage.facts import CsiAddon

TYPE_TOKEN = "gpukit:index:EksCsiAddon"


class EksCsiAddonArgs(TypedDict):
    cluster_name: pulumi.Input[str]
    addon: CsiAddon
    inline_policy: NotRequired[pulumi.Input[str]]
    """A least-privilege policy in place of (or beside) the add-on's managed policies."""
    wait_for: NotRequired[list[pulumi.Resource]]
    """The Pod Identity agent add-on and the nodes the controller runs on."""


class EksCsiAddon(pulumi.ComponentResource):
    """Needs `opts.providers` with the cluster's aws provider. No static keys: the controller's service
    account gets the role through a Pod Identity association the add-on itself makes."""

    addon: aws.eks.Addon

    def __init__(self, name: str, args: EksCsiAddonArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        spec = args["addon"]
        role, grants = pod_identity_role(
            name,
            description=f"{spec.addon} controller (EKS Pod Identity)",
            parent=self,
            managed_policy_arns=spec.managed_policies,
            inline_policy=args.get("inline_policy"),
        )
        self.addon = aws.eks.Addon(
            name,
            cluster_name=args["cluster_name"],
            addon_name=spec.addon,
            # No addon_version, as the EBS CSI add-on (eks/storage.py): EKS installs its default version
            # for the cluster's Kubernetes minor, which AWS tests together, and moves it with the minor.
            pod_identity_associations=[{"role_arn": role.arn, "service_account": spec.service_account}],
            resolve_conflicts_on_create="OVERWRITE",
            resolve_conflicts_on_update="PRESERVE",
            opts=pulumi.ResourceOptions(parent=self, depends_on=[*grants, *args.get("wait_for", [])]),
        )
        self.register_outputs({"addon": self.addon.arn})
