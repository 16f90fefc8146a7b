"""The launch template every k3s machine on EC2 starts from (servers and agent pools alike)."""

from typing import Optional

import pulumi
import pulumi_aws as aws

from gpukit.providers.aws.k3s.images import Ec2Image


def node_launch_template(
    name: str,
    *,
    description: str,
    image: Ec2Image,
    disk_size_gb: int,
    instance_profile_arn: Optional[pulumi.Input[str]],
    tags: dict[str, str],
    instance_type: Optional[str] = None,
    security_group_ids: Optional[list[pulumi.Input[str]]] = None,
    user_data: Optional[pulumi.Input[str]] = None,
    shutdown_behavior: Optional[str] = None,
    opts: Optional[pulumi.ResourceOptions] = None,
) -> aws.ec2.LaunchTemplate:
    """`security_group_ids` None where the instance brings its own network interface (servers);
    `instance_profile_arn` None for a machine that needs no AWS access at all (the NFS VM)."""
    return aws.ec2.LaunchTemplate(
        name,
        description=description,
        image_id=image.image_id,
        instance_type=instance_type,
        # IMDSv2 only, one hop: containers (one hop further) cannot reach the metadata service, so
        # pods cannot take the instance role's credentials, which can read the cluster's join
        # token. Host-network pods still can; gpukit deploys none that need AWS access.
        metadata_options={
            "http_endpoint": "enabled",
            "http_tokens": "required",
            "http_put_response_hop_limit": 1,
        },
        block_device_mappings=[
            {
                "device_name": image.root_device,
                "ebs": {
                    "volume_size": disk_size_gb,
                    "volume_type": "gp3",
                    "encrypted": "true",
                    "delete_on_termination": "true",
                },
            }
        ],
        iam_instance_profile=None if instance_profile_arn is None else {"arn": instance_profile_arn},
        vpc_security_group_ids=security_group_ids,
        user_data=user_data,
        instance_initiated_shutdown_behavior=shutdown_behavior,
        # The provider's default tags reach the template, not what it launches: tag those here.
        tag_specifications=[
            {"resource_type": "instance", "tags": tags},
            {"resource_type": "volume", "tags": tags},
        ],
        update_default_version=True,
        opts=opts,
    )
