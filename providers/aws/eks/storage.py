"""EksStorage: the EBS CSI driver as an EKS add-on with Pod Identity, and a default gp3 StorageClass."""

from typing import Optional, TypedDict

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s

from gpukit.providers.aws.eks.pod_identity_role import pod_identity_role
from gpukit.providers.aws.iam_policies import EBS_CSI_POLICIES

TYPE_TOKEN = "gpukit:index:EksStorage"
EBS_CSI_ADDON = "aws-ebs-csi-driver"
EBS_CSI_SERVICE_ACCOUNT = "ebs-csi-controller-sa"
EBS_CSI_PROVISIONER = "ebs.csi.aws.com"
DEFAULT_STORAGE_CLASS = "gp3"


# The EBS CSI driver tags each volume it creates with every StorageClass parameter named
# `tagSpecification...` whose value is `key=value` (kubernetes-sigs/aws-ebs-csi-driver docs/tagging.md,
# "StorageClass Tagging"; docs/parameters.md, since v1.6.0). Volumes made for claims are the driver's,
# not Pulumi's: the provider's default tags never reach them, and they can outlive the cluster.
EBS_TAG_PARAMETER = "tagSpecification_{}"


def volume_tag_parameters(tags: dict[str, str]) -> dict[str, str]:
    """StorageClass parameters that tag every volume the class provisions with `tags`."""
    return {EBS_TAG_PARAMETER.format(i): f"{k}={v}" for i, (k, v) in enumerate(sorted(tags.items()), 1)}


class EksStorageArgs(TypedDict):
    cluster_name: pulumi.Input[str]
    volume_tags: dict[str, str]
    """Tags for every volume a claim provisions (an ephemeral stack's expiry; empty otherwise)."""


class EksStorage(pulumi.ComponentResource):
    """Needs `opts.providers` with the cluster's aws and kubernetes providers."""

    storage_class: pulumi.Output[Optional[str]]

    def __init__(self, name: str, args: EksStorageArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        role, grants = pod_identity_role(
            f"{name}-ebs-csi",
            description="EBS CSI controller (EKS Pod Identity)",
            parent=self,
            managed_policy_arns=EBS_CSI_POLICIES,
        )
        addon = aws.eks.Addon(
            f"{name}-ebs-csi",
            cluster_name=args["cluster_name"],
            addon_name=EBS_CSI_ADDON,
            # No addon_version: EKS installs its default version for the cluster's Kubernetes minor,
            # which AWS tests together; an upgrade of the minor moves it along.
            pod_identity_associations=[{"role_arn": role.arn, "service_account": EBS_CSI_SERVICE_ACCOUNT}],
            resolve_conflicts_on_create="OVERWRITE",
            resolve_conflicts_on_update="PRESERVE",
            opts=pulumi.ResourceOptions(parent=self, depends_on=grants),
        )
        # Encrypted gp3, created in the zone of the node the pod lands on (WaitForFirstConsumer: a
        # volume made before scheduling could end up in a zone with no GPU capacity), expandable.
        storage_class = k8s.storage.v1.StorageClass(
            f"{name}-gp3",
            metadata={
                "name": DEFAULT_STORAGE_CLASS,
                "annotations": {"storageclass.kubernetes.io/is-default-class": "true"},
            },
            provisioner=EBS_CSI_PROVISIONER,
            parameters={
                "type": "gp3",
                "encrypted": "true",
                "csi.storage.k8s.io/fstype": "ext4",
                **volume_tag_parameters(args["volume_tags"]),
            },
            reclaim_policy="Delete",
            volume_binding_mode="WaitForFirstConsumer",
            allow_volume_expansion=True,
            opts=pulumi.ResourceOptions(parent=self, depends_on=[addon]),
        )
        self.storage_class = storage_class.metadata["name"]
        self.register_outputs({"storage_class": self.storage_class})
