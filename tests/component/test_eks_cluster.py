"""GpuCluster on EKS under the mocks: assertions on the inputs the engine recorded."""

import json
from typing import Any

import pytest

from gpukit.program import build
from harness import Recording, eks_config, is_secret, record, unknown_argument_names, unsecret

GPU_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}


def run(config: dict[str, Any]) -> Recording:
    return record(lambda: build(config))


@pytest.fixture(scope="module")
def dev() -> Recording:
    return run(eks_config())


@pytest.fixture(scope="module")
def train() -> Recording:
    config = eks_config()
    config["gpukit:nodePools"].append(
        {"name": "h100", "instanceType": "p5.48xlarge", "minNodes": 0, "maxNodes": 2, "diskSizeGb": 500}
    )
    config["gpukit:nodePools"].append(
        {
            "name": "br",
            "instanceType": "g6e.xlarge",
            "minNodes": 0,
            "maxNodes": 2,
            "nodeImage": "bottlerocket",
        }
    )
    config["gpukit:cluster"]["adminPrincipalArns"] = ["arn:aws:iam::123456789012:role/platform-admins"]
    return run(config)


def node_group(rec: Recording, pool: str) -> dict[str, Any]:
    return rec.one("aws:eks/nodeGroup:NodeGroup", f"unit-{pool}-ng").inputs


def test_gpu_pool_scales_from_zero_and_autoscaler_owns_desired_size(dev: Recording) -> None:
    ng = node_group(dev, "l4")
    assert ng["scalingConfig"] == {"minSize": 0, "maxSize": 8, "desiredSize": 0}
    system = node_group(dev, "system")
    assert system["scalingConfig"] == {"minSize": 1, "maxSize": 3, "desiredSize": 1}


def test_gpu_pool_image_capacity_taint_and_labels(dev: Recording) -> None:
    ng = node_group(dev, "l4")
    assert ng["amiType"] == "AL2023_x86_64_NVIDIA"
    assert ng["capacityType"] == "SPOT"
    assert ng["instanceTypes"] == ["g6.xlarge"]
    assert ng["taints"] == [{"key": "nvidia.com/gpu", "value": "true", "effect": "NO_SCHEDULE"}]
    assert ng["labels"] == {
        "gpukit.dev/pool": "l4",
        "gpukit.dev/gpu-model": "L4",
        "nvidia.com/gpu.present": "true",
    }
    system = node_group(dev, "system")
    assert system["amiType"] == "AL2023_x86_64_STANDARD"
    assert system["capacityType"] == "ON_DEMAND"
    assert "taints" not in system or system["taints"] == []


def test_bottlerocket_gpu_pool_keeps_operator_device_plugin_off(train: Recording) -> None:
    ng = node_group(train, "br")
    assert ng["amiType"] == "BOTTLEROCKET_x86_64_NVIDIA"
    assert ng["labels"]["nvidia.com/gpu.deploy.device-plugin"] == "false"
    lt = train.one("aws:ec2/launchTemplate:LaunchTemplate", "unit-br-lt").inputs
    assert lt["blockDeviceMappings"][0]["deviceName"] == "/dev/xvdb"


@pytest.mark.parametrize("pool", ["system", "l4"])
def test_launch_templates_require_imdsv2_and_encrypt_the_root_volume(dev: Recording, pool: str) -> None:
    lt = dev.one("aws:ec2/launchTemplate:LaunchTemplate", f"unit-{pool}-lt").inputs
    assert lt["metadataOptions"]["httpTokens"] == "required"
    assert lt["metadataOptions"]["httpPutResponseHopLimit"] == 1
    (device,) = lt["blockDeviceMappings"]
    assert device["ebs"]["encrypted"] == "true"
    assert device["ebs"]["volumeType"] == "gp3"
    assert device["ebs"]["volumeSize"] == (100 if pool == "l4" else 50)
    ng = node_group(dev, pool)
    assert ng["launchTemplate"]["version"] == "1"


def test_disk_size_from_config(train: Recording) -> None:
    lt = train.one("aws:ec2/launchTemplate:LaunchTemplate", "unit-h100-lt").inputs
    assert lt["blockDeviceMappings"][0]["ebs"]["volumeSize"] == 500


def test_gpu_autoscaling_group_carries_scale_from_zero_templates(train: Recording) -> None:
    tags = {
        t.inputs["tag"]["key"]: t.inputs["tag"]["value"]
        for t in train.of_type("aws:autoscaling/tag:Tag")
        if t.name.startswith("unit-h100-")
    }
    prefix = "k8s.io/cluster-autoscaler/node-template"
    assert tags == {
        "k8s.io/cluster-autoscaler/enabled": "true",  # discovery, and the autoscaler role's IAM condition
        "k8s.io/cluster-autoscaler/unit": "owned",
        f"{prefix}/label/gpukit.dev/pool": "h100",
        f"{prefix}/label/gpukit.dev/gpu-model": "H100",
        f"{prefix}/label/nvidia.com/gpu.present": "true",
        f"{prefix}/taint/nvidia.com/gpu": "true:NoSchedule",
        f"{prefix}/resources/nvidia.com/gpu": "8",
    }
    # The tags land on the node group's own autoscaling group (EKS reports its name after creation).
    asg_names = {
        t.inputs["autoscalingGroupName"]
        for t in train.of_type("aws:autoscaling/tag:Tag")
        if "-h100-" in t.name
    }
    assert len(asg_names) == 1
    assert next(iter(asg_names)).startswith("eks-h100-")


def test_control_plane_is_private_with_limited_public_access_logs_and_kms(dev: Recording) -> None:
    cluster = dev.one("aws:eks/cluster:Cluster").inputs
    assert cluster["name"] == "unit"
    assert cluster["version"] == "1.35"
    vpc = cluster["vpcConfig"]
    assert vpc["endpointPrivateAccess"] is True
    assert vpc["endpointPublicAccess"] is True
    assert vpc["publicAccessCidrs"] == ["203.0.113.0/24"]
    assert cluster["accessConfig"]["authenticationMode"] == "API"
    assert set(cluster["enabledClusterLogTypes"]) == {
        "api",
        "audit",
        "authenticator",
        "controllerManager",
        "scheduler",
    }
    key = dev.one("aws:kms/key:Key")
    assert key.inputs["enableKeyRotation"] is True
    assert cluster["encryptionConfig"]["resources"] == ["secrets"]
    assert cluster["encryptionConfig"]["provider"]["keyArn"].startswith("arn:aws:kms:us-west-2:")


def test_empty_api_access_list_makes_the_endpoint_private_only() -> None:
    config = eks_config()
    config["gpukit:cluster"]["apiAccessCidrs"] = []
    cluster = run(config).one("aws:eks/cluster:Cluster").inputs
    assert cluster["vpcConfig"]["endpointPublicAccess"] is False
    assert "publicAccessCidrs" not in cluster["vpcConfig"]


def test_nodes_sit_in_private_subnets_routed_through_nat(dev: Recording) -> None:
    subnets = dev.of_type("aws:ec2/subnet:Subnet")
    private = {s.id for s in subnets if "-private-" in s.name}
    public = {s.id for s in subnets if "-public-" in s.name}
    assert len(private) == len(public) == 3  # one of each per zone, zoneCount defaults to 3
    assert set(node_group(dev, "l4")["subnetIds"]) == private
    assert set(dev.one("aws:eks/cluster:Cluster").inputs["vpcConfig"]["subnetIds"]) == private
    assert all(s.inputs.get("mapPublicIpOnLaunch") is not True for s in subnets)
    nat = dev.one("aws:ec2/natGateway:NatGateway")
    assert nat.inputs["subnetId"] in public
    private_routes = [
        rt.inputs["routes"] for rt in dev.of_type("aws:ec2/routeTable:RouteTable") if "private" in rt.name
    ]
    assert private_routes == [[{"cidrBlock": "0.0.0.0/0", "natGatewayId": nat.id}]] * 3


def test_existing_vpc_is_reused_without_creating_a_network() -> None:
    config = eks_config()
    config["gpukit:cluster"]["network"] = {
        "vpcId": "vpc-0123456789abcdef0",
        "subnetIds": ["subnet-0123456789abcdef0", "subnet-0123456789abcdef1"],
    }
    rec = run(config)
    assert rec.of_type("aws:ec2/vpc:Vpc") == []
    assert rec.of_type("aws:ec2/natGateway:NatGateway") == []
    assert node_group(rec, "l4")["subnetIds"] == ["subnet-0123456789abcdef0", "subnet-0123456789abcdef1"]


def test_iam_roles_are_least_privilege(dev: Recording) -> None:
    attached = {
        a.name.removeprefix("unit-"): a.inputs["policyArn"]
        for a in dev.of_type("aws:iam/rolePolicyAttachment:RolePolicyAttachment")
    }
    assert attached["node-AmazonEC2ContainerRegistryPullOnly"].endswith("/AmazonEC2ContainerRegistryPullOnly")
    assert not any("FullAccess" in arn or "AdministratorAccess" in arn for arn in attached.values())
    autoscaler = json.loads(
        dev.one("aws:iam/rolePolicy:RolePolicy", "unit-autoscaler-policy").inputs["policy"]
    )
    mutating = [s for s in autoscaler["Statement"] if "autoscaling:SetDesiredCapacity" in s["Action"]]
    assert (
        mutating[0]["Condition"]["StringEquals"]["aws:ResourceTag/k8s.io/cluster-autoscaler/unit"] == "owned"
    )
    trust = json.loads(dev.one("aws:iam/role:Role", "unit-autoscaler-role").inputs["assumeRolePolicy"])
    assert trust["Statement"][0]["Principal"] == {"Service": "pods.eks.amazonaws.com"}


def test_admin_principals_get_access_entries(train: Recording) -> None:
    entry = train.one("aws:eks/accessEntry:AccessEntry").inputs
    assert entry["principalArn"] == "arn:aws:iam::123456789012:role/platform-admins"
    association = train.one("aws:eks/accessPolicyAssociation:AccessPolicyAssociation").inputs
    assert association["policyArn"].endswith("/AmazonEKSClusterAdminPolicy")
    assert association["accessScope"] == {"type": "cluster"}


def test_ebs_csi_addon_uses_pod_identity_and_gp3_is_the_default_class(dev: Recording) -> None:
    addon = dev.one("aws:eks/addon:Addon", "unit-storage-ebs-csi").inputs
    assert addon["addonName"] == "aws-ebs-csi-driver"
    (association,) = addon["podIdentityAssociations"]
    assert association["serviceAccount"] == "ebs-csi-controller-sa"
    assert association["roleArn"].startswith("arn:aws:iam::123456789012:role/")
    sc = dev.one("kubernetes:storage.k8s.io/v1:StorageClass").inputs
    assert sc["metadata"]["annotations"]["storageclass.kubernetes.io/is-default-class"] == "true"
    assert sc["provisioner"] == "ebs.csi.aws.com"
    assert sc["parameters"]["type"] == "gp3"
    assert sc["parameters"]["encrypted"] == "true"
    assert sc["volumeBindingMode"] == "WaitForFirstConsumer"
    dev.one("aws:eks/addon:Addon", "unit-pod-identity-agent")


def test_gpu_operator_release_is_pinned_and_matches_the_image(dev: Recording) -> None:
    release = dev.one("kubernetes:helm.sh/v3:Release", "unit-gpu-operator-release").inputs
    assert release["chart"] == "gpu-operator"
    assert release["version"] == "v26.7.0"
    assert release["name"] == "gpu-operator"
    assert release["namespace"] == "gpu-operator"
    assert release["repositoryOpts"] == {"repo": "https://helm.ngc.nvidia.com/nvidia"}
    values = release["values"]
    assert values["driver"] == {"enabled": False}
    assert values["toolkit"] == {"enabled": False}
    assert values["daemonsets"]["tolerations"] == [GPU_TOLERATION]
    ns = dev.one("kubernetes:core/v1:Namespace").inputs
    assert ns["metadata"]["name"] == "gpu-operator"
    assert ns["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "privileged"


def test_cluster_autoscaler_release_discovers_this_cluster(dev: Recording) -> None:
    release = dev.one("kubernetes:helm.sh/v3:Release", "unit-autoscaler-release").inputs
    assert release["chart"] == "cluster-autoscaler"
    assert release["version"] == "9.59.0"
    assert release["values"]["autoDiscovery"] == {"clusterName": "unit"}
    assert release["values"]["awsRegion"] == "us-west-2"
    assert release["values"]["image"]["tag"].startswith("v1.35.")
    identity = dev.one("aws:eks/podIdentityAssociation:PodIdentityAssociation").inputs
    assert (identity["namespace"], identity["serviceAccount"]) == (
        "kube-system",
        release["values"]["rbac"]["serviceAccount"]["name"],
    )


def test_kubeconfig_is_secret_and_uses_aws_eks_get_token(dev: Recording) -> None:
    provider = dev.one("pulumi:providers:kubernetes")
    kubeconfig = provider.inputs["kubeconfig"]
    assert is_secret(kubeconfig)
    text = unsecret(kubeconfig)
    assert "get-token" in text
    assert "--cluster-name" in text
    assert "unit" in text


def test_in_cluster_resources_use_the_cluster_provider_not_an_ambient_kubeconfig(dev: Recording) -> None:
    provider = dev.one("pulumi:providers:kubernetes")
    for r in dev.resources:
        if r.custom and r.type.startswith("kubernetes:"):
            assert r.provider.startswith(provider.urn), f"{r.name} does not use the cluster's provider"


def test_aws_resources_use_the_explicit_regional_provider(dev: Recording) -> None:
    aws_provider = dev.one("pulumi:providers:aws")
    assert aws_provider.inputs["region"] == "us-west-2"
    assert json.loads(aws_provider.inputs["defaultTags"])["tags"]["gpukit:cluster"] == "unit"
    for r in dev.resources:
        if r.custom and r.type.startswith("aws:"):
            assert r.provider.startswith(aws_provider.urn), f"{r.name} uses a default provider"


def test_every_resource_but_the_root_has_a_parent_in_the_tree(dev: Recording) -> None:
    urns = {r.urn for r in dev.resources}
    roots = [r for r in dev.resources if r.parent not in urns]
    assert [(r.type, r.name) for r in roots] == [("gpukit:index:GpuCluster", "unit")]
    components = {r.type for r in dev.resources if not r.custom}
    assert components == {
        "gpukit:index:GpuCluster",
        "gpukit:index:EksCluster",
        "gpukit:index:AwsNetwork",
        "gpukit:index:EksNodePool",
        "gpukit:index:EksStorage",
        "gpukit:index:ClusterAutoscaler",
        "gpukit:index:GpuOperator",
    }


def test_every_resource_argument_is_one_the_provider_schema_knows(train: Recording) -> None:
    unknown = {
        r.name: names for r in train.resources if r.custom and (names := unknown_argument_names(r.inputs))
    }
    assert unknown == {}


def test_the_schema_check_catches_a_misspelt_nested_argument() -> None:
    assert unknown_argument_names({"metadataOptions": {"http_tokenz": "required"}}) == [
        "metadataOptions.http_tokenz"
    ]
    assert unknown_argument_names({"tags": {"my_tag": "x"}}) == []
