"""The names AWS accepts for the resources gpukit creates on AWS, for the plan's fakes (fakes.py): a
name AWS or the provider would refuse fails `gpukit plan`, as it would fail `pulumi up`.

Every resource type gpukit creates with a name, or that Pulumi auto-names, has a rule here; the
others (subnets, routes, rules, attachments, tags) carry only a Name tag.
"""

import re

from gpukit.components.name_rules import NameRule

_IAM = re.compile(r"[\w+=,.@-]+")
_IAM_SHAPE = "letters, digits and +=,.@_-"
# ELBv2: alphanumerics and hyphens, not starting or ending with a hyphen; load balancers also not
# starting with "internal-". A name prefix takes at most 6 characters (the provider appends a 26-character
# id to fill the 32). terraform-provider-aws internal/service/elbv2/validate.go (validName,
# validNamePrefix, validTargetGroupName, validTargetGroupNamePrefix); ELBv2 API CreateLoadBalancer and
# CreateTargetGroup, Name.
_ELB = re.compile(r"[0-9A-Za-z](?:[0-9A-Za-z-]*[0-9A-Za-z])?")
_ELB_SOURCE = "ELBv2 API reference, CreateLoadBalancer / CreateTargetGroup Name"
_EKS = re.compile(r"[0-9A-Za-z][0-9A-Za-z_-]*")
_EKS_SHAPE = "letters, digits, '-' and '_', starting with a letter or digit"

AWS_NAME_RULES: dict[str, tuple[NameRule, ...]] = {
    "aws:iam/role:Role": (
        NameRule("name", 64, _IAM, _IAM_SHAPE, "IAM API CreateRole RoleName", prefix_field="namePrefix"),
    ),
    "aws:iam/rolePolicy:RolePolicy": (
        NameRule(
            "name", 128, _IAM, _IAM_SHAPE, "IAM API PutRolePolicy PolicyName", prefix_field="namePrefix"
        ),
    ),
    "aws:iam/instanceProfile:InstanceProfile": (
        NameRule(
            "name",
            128,
            _IAM,
            _IAM_SHAPE,
            "IAM API CreateInstanceProfile InstanceProfileName",
            prefix_field="namePrefix",
        ),
    ),
    "aws:ec2/securityGroup:SecurityGroup": (
        NameRule(
            "name",
            255,
            re.compile(r"(?!sg-)[\w .:/()#,@\[\]+=&;{}!$*-]+"),
            "letters, digits, spaces and ._-:/()#,@[]+=&;{}!$*, not starting with sg-",
            "EC2 API CreateSecurityGroup GroupName",
            prefix_field="namePrefix",
        ),
    ),
    "aws:ec2/placementGroup:PlacementGroup": (
        NameRule(
            "name",
            255,
            re.compile(r"[\x20-\x7e]+"),
            "ASCII characters",
            'EC2 API CreatePlacementGroup GroupName ("Up to 255 ASCII characters")',
        ),
    ),
    "aws:ec2/launchTemplate:LaunchTemplate": (
        NameRule(
            "name",
            128,
            re.compile(r"[a-zA-Z0-9().\-/_]+"),
            "letters, digits and ().-/_",
            "EC2 API CreateLaunchTemplate LaunchTemplateName",
            min_length=3,
            prefix_field="namePrefix",
        ),
    ),
    "aws:lb/loadBalancer:LoadBalancer": (
        NameRule(
            "name",
            32,
            re.compile(rf"(?!internal-){_ELB.pattern}"),
            "letters, digits and '-', not starting or ending with '-', not starting with internal-",
            _ELB_SOURCE,
            prefix_field="namePrefix",
            prefix_max=6,
        ),
    ),
    "aws:lb/targetGroup:TargetGroup": (
        NameRule(
            "name",
            32,
            _ELB,
            "letters, digits and '-', not starting or ending with '-'",
            _ELB_SOURCE,
            prefix_field="namePrefix",
            prefix_max=6,
        ),
    ),
    "aws:autoscaling/group:Group": (
        NameRule(
            "name",
            255,
            re.compile(r"[^\x00-\x1f]+"),
            "printable characters",
            "Auto Scaling API CreateAutoScalingGroup AutoScalingGroupName",
            prefix_field="namePrefix",
        ),
    ),
    "aws:secretsmanager/secret:Secret": (
        NameRule(
            "name",
            512,
            re.compile(r"[A-Za-z0-9/_+=.@-]+"),
            "letters, digits and /_+=.@-",
            "Secrets Manager API CreateSecret Name",
            prefix_field="namePrefix",
        ),
    ),
    "aws:eks/cluster:Cluster": (NameRule("name", 100, _EKS, _EKS_SHAPE, "EKS API CreateCluster name"),),
    "aws:eks/nodeGroup:NodeGroup": (
        NameRule(
            "nodeGroupName",
            63,
            _EKS,
            _EKS_SHAPE,
            "EKS API CreateNodegroup nodegroupName",
            prefix_field="nodeGroupNamePrefix",
            auto_named=False,
        ),
    ),
    "aws:cloudwatch/logGroup:LogGroup": (
        NameRule(
            "name",
            512,
            re.compile(r"[.\-_/#A-Za-z0-9]+"),
            "letters, digits and ._-/#",
            "CloudWatch Logs API CreateLogGroup logGroupName",
            prefix_field="namePrefix",
        ),
    ),
    "aws:sqs/queue:Queue": (
        NameRule(
            "name",
            80,
            re.compile(r"[A-Za-z0-9_-]+"),
            "letters, digits, '-' and '_'",
            "SQS API CreateQueue QueueName",
            prefix_field="namePrefix",
        ),
    ),
    "aws:cloudwatch/eventRule:EventRule": (
        NameRule(
            "name",
            64,
            re.compile(r"[.\-_A-Za-z0-9]+"),
            "letters, digits and .-_",
            "EventBridge API PutRule Name",
            prefix_field="namePrefix",
        ),
    ),
    # EFS: "a string of up to 64 ASCII characters" (EFS API CreateFileSystem CreationToken). Pulumi
    # auto-names it up to 255 (pulumi-aws resources.go), so a long auto-name would fail at `pulumi up`.
    "aws:efs/fileSystem:FileSystem": (
        NameRule(
            "creationToken",
            64,
            re.compile(r"[\x20-\x7e]+"),
            "printable ASCII characters",
            "EFS API CreateFileSystem CreationToken",
        ),
    ),
    # KMS: 1-256 characters of [a-zA-Z0-9:/_-], beginning with alias/; never alias/aws/, which is
    # reserved for AWS managed keys (KMS API CreateAlias AliasName).
    "aws:kms/alias:Alias": (
        NameRule(
            "name",
            256,
            re.compile(r"alias/(?!aws/)[a-zA-Z0-9:/_-]+"),
            "alias/ then letters, digits and :/_-, not alias/aws/",
            "KMS API CreateAlias AliasName",
            prefix_field="namePrefix",
            auto_named=False,
        ),
    ),
}
