"""GpuCluster on EKS under the mocks: assertions on the inputs the engine recorded."""

import json
import re
from typing import Any

import pytest
import yaml

from gpukit.program import build
from gpukit.providers.aws.eks.creator import CREATOR_TAG
from gpukit.providers.aws.fakes import AwsFakes
from harness import Recording, asg_tags, eks_config, is_secret, record, unknown_argument_names, unsecret

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
        {
            "name": "h100",
            "instanceType": "p5.48xlarge",
            "minNodes": 0,
            "maxNodes": 2,
            "diskSizeGb": 500,
            "zones": ["usw2-az3"],
        }
    )
    config["gpukit:nodePools"].append(
        {
            "name": "br",
            "instanceType": "g6e.xlarge",
            "minNodes": 0,
            "maxNodes": 2,
            "nodeImage": "bottlerocket",
            "zones": ["usw2-az1"],
        }
    )
    config["gpukit:cluster"]["adminPrincipalArns"] = ["arn:aws:iam::123456789012:role/platform-admins"]
    return run(config)


def node_group(rec: Recording, pool: str) -> dict[str, Any]:
    return rec.one("aws:eks/nodeGroup:NodeGroup", f"unit-{pool}-ng").inputs


def test_gpu_pool_scales_from_zero_and_autoscaler_owns_desired_size(dev: Recording) -> None:
    for zone in ("usw2-az1", "usw2-az2"):  # maxNodes 8 is the pool's total, split over its two zones
        ng = dev.one("aws:eks/nodeGroup:NodeGroup", f"unit-l4-{zone}-ng")
        assert ng.inputs["scalingConfig"] == {"minSize": 0, "maxSize": 4, "desiredSize": 0}
        assert ng.ignore_changes == ["scalingConfig.desiredSize"]
    system = node_group(dev, "system")
    assert system["scalingConfig"] == {"minSize": 1, "maxSize": 3, "desiredSize": 1}


def test_gpu_pool_image_capacity_taint_and_labels(dev: Recording) -> None:
    ng = node_group(dev, "l4-usw2-az1")
    assert ng["amiType"] == "AL2023_x86_64_NVIDIA"
    assert ng["capacityType"] == "SPOT"
    assert ng["instanceTypes"] == ["g6.xlarge"]
    assert ng["taints"] == [{"key": "nvidia.com/gpu", "value": "true", "effect": "NO_SCHEDULE"}]
    assert ng["labels"] == {
        "gpukit.dev/pool": "l4",
        "gpukit.dev/gpu-model": "L4",
        "nvidia.com/gpu.present": "true",
        "k8s.amazonaws.com/accelerator": "nvidia-l4",  # the autoscaler's GPU label
    }
    system = node_group(dev, "system")
    assert system["amiType"] == "AL2023_x86_64_STANDARD"
    assert system["capacityType"] == "ON_DEMAND"
    assert "taints" not in system or system["taints"] == []


def test_bottlerocket_gpu_pool_keeps_operator_device_plugin_off(train: Recording) -> None:
    ng = node_group(train, "br-usw2-az1")
    assert ng["amiType"] == "BOTTLEROCKET_x86_64_NVIDIA"
    assert ng["labels"]["nvidia.com/gpu.deploy.device-plugin"] == "false"
    lt = train.one("aws:ec2/launchTemplate:LaunchTemplate", "unit-br-usw2-az1-lt").inputs
    assert lt["blockDeviceMappings"][0]["deviceName"] == "/dev/xvdb"


@pytest.mark.parametrize("pool", ["system", "l4-usw2-az1"])
def test_launch_templates_require_imdsv2_and_encrypt_the_root_volume(dev: Recording, pool: str) -> None:
    lt = dev.one("aws:ec2/launchTemplate:LaunchTemplate", f"unit-{pool}-lt").inputs
    assert lt["metadataOptions"]["httpTokens"] == "required"
    assert lt["metadataOptions"]["httpPutResponseHopLimit"] == 1
    (device,) = lt["blockDeviceMappings"]
    assert device["ebs"]["encrypted"] == "true"
    assert device["ebs"]["volumeType"] == "gp3"
    assert device["ebs"]["volumeSize"] == (100 if pool.startswith("l4") else 50)
    ng = node_group(dev, pool)
    assert ng["launchTemplate"]["version"] == "1"


def test_disk_size_from_config(train: Recording) -> None:
    lt = train.one("aws:ec2/launchTemplate:LaunchTemplate", "unit-h100-usw2-az3-lt").inputs
    assert lt["blockDeviceMappings"][0]["ebs"]["volumeSize"] == 500


def test_gpu_autoscaling_group_carries_scale_from_zero_templates(train: Recording) -> None:
    tags = asg_tags(train, "unit-h100-")
    prefix = "k8s.io/cluster-autoscaler/node-template"
    assert tags == {
        "k8s.io/cluster-autoscaler/enabled": "true",  # discovery, and the autoscaler role's IAM condition
        "k8s.io/cluster-autoscaler/unit": "owned",
        f"{prefix}/label/gpukit.dev/pool": "h100",
        f"{prefix}/label/gpukit.dev/gpu-model": "H100",
        f"{prefix}/label/gpukit.dev/fabric": "efa",  # a one-zone p5 pool gets EFA (interconnect auto)
        f"{prefix}/label/nvidia.com/gpu.present": "true",
        f"{prefix}/label/k8s.amazonaws.com/accelerator": "nvidia-h100",
        f"{prefix}/taint/nvidia.com/gpu": "true:NoSchedule",
        f"{prefix}/resources/nvidia.com/gpu": "8",
        f"{prefix}/resources/vpc.amazonaws.com/efa": "32",
        f"{prefix}/resources/hugepages-2Mi": "10256Mi",
    }
    # The tags land on the node group's own autoscaling group (EKS reports its name after creation).
    asg_names = {
        t.inputs["autoscalingGroupName"]
        for t in train.of_type("aws:autoscaling/tag:Tag")
        if "-h100-" in t.name
    }
    assert len(asg_names) == 1
    assert next(iter(asg_names)).startswith("eks-h100-usw2-az3-")


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
    # A reused VPC the deployer routes into: in a new one, nothing could reach a private API.
    config["gpukit:cluster"]["network"] = {"vpcId": "vpc-0123456789abcdef0", "subnetIds": REUSED}
    config["gpukit:nodePools"][1]["zones"] = [reused_subnet_zone(REUSED[0])]
    cluster = run(config).one("aws:eks/cluster:Cluster").inputs
    assert cluster["vpcConfig"]["endpointPublicAccess"] is False
    assert "publicAccessCidrs" not in cluster["vpcConfig"]


def test_nodes_sit_in_private_subnets_routed_through_nat(dev: Recording) -> None:
    subnets = dev.of_type("aws:ec2/subnet:Subnet")
    private = {s.id for s in subnets if "-private-" in s.name}
    public = {s.id for s in subnets if "-public-" in s.name}
    assert len(private) == len(public) == 3  # one of each per zone, zoneCount defaults to 3
    assert set(node_group(dev, "system")["subnetIds"]) == private
    assert set(dev.one("aws:eks/cluster:Cluster").inputs["vpcConfig"]["subnetIds"]) == private
    assert all(s.inputs.get("mapPublicIpOnLaunch") is not True for s in subnets)
    nat = dev.one("aws:ec2/natGateway:NatGateway")
    assert nat.inputs["subnetId"] in public
    private_routes = [
        rt.inputs["routes"] for rt in dev.of_type("aws:ec2/routeTable:RouteTable") if "private" in rt.name
    ]
    assert private_routes == [[{"cidrBlock": "0.0.0.0/0", "natGatewayId": nat.id}]] * 3


def test_the_vpc_cni_has_its_own_pod_identity_role_and_the_nodes_do_not_hold_its_rights(
    dev: Recording,
) -> None:
    """On the node role, the CNI's EC2 rights would reach every hostNetwork pod through the instance's
    credentials: any of them could re-address any network interface in the region."""
    attachments = dev.of_type("aws:iam/rolePolicyAttachment:RolePolicyAttachment")
    node_policies = [a.inputs["policyArn"] for a in attachments if a.name.startswith("unit-node-")]
    assert node_policies and not [p for p in node_policies if p.endswith("/AmazonEKS_CNI_Policy")]
    cni = dev.one("aws:eks/addon:Addon", "unit-vpc-cni")
    (association,) = cni.inputs["podIdentityAssociations"]
    assert association["serviceAccount"] == "aws-node"
    role = dev.one("aws:iam/role:Role", "unit-vpc-cni-role")
    assert role.urn in cni.dependencies
    assert json.loads(role.inputs["assumeRolePolicy"])["Statement"][0]["Principal"] == {
        "Service": "pods.eks.amazonaws.com"
    }
    cni_grants = [a for a in attachments if role.urn in a.dependencies]
    assert [a.inputs["policyArn"].rsplit("/", 1)[1] for a in cni_grants] == ["AmazonEKS_CNI_Policy"]
    assert all(a.urn in cni.dependencies for a in cni_grants)
    # The agent that hands aws-node its credentials is there before any node, so nodes become Ready.
    agent = dev.one("aws:eks/addon:Addon", "unit-pod-identity-agent")
    assert agent.urn in cni.dependencies
    assert not [g for g in dev.of_type("aws:eks/nodeGroup:NodeGroup") if g.urn in agent.dependencies]


def test_s3_goes_through_a_free_gateway_endpoint_on_the_private_route_tables(dev: Recording) -> None:
    """S3 traffic (mounts, checkpoints, ECR's image layers) would otherwise pay NAT processing per GB."""
    endpoint = dev.one("aws:ec2/vpcEndpoint:VpcEndpoint").inputs
    private = [rt.id for rt in dev.of_type("aws:ec2/routeTable:RouteTable") if "private" in rt.name]
    assert endpoint["serviceName"] == "com.amazonaws.us-west-2.s3"
    assert endpoint["vpcEndpointType"] == "Gateway"
    assert sorted(endpoint["routeTableIds"]) == sorted(private) and len(private) == 3


def test_a_new_vpc_in_us_east_1_skips_the_zone_eks_refuses() -> None:
    """EKS refuses a cluster's subnets in use1-az3; the fake account names it us-east-1c (rotated)."""
    config = eks_config()
    config["aws:region"] = "us-east-1"
    config["gpukit:nodePools"][1]["zones"] = ["use1-az1", "use1-az2"]
    rec = record(lambda: build(config), region="us-east-1")
    zones = {s.inputs["availabilityZone"] for s in rec.of_type("aws:ec2/subnet:Subnet")}
    fake_zones = dict(AwsFakes({"aws:region": "us-east-1"}).zones())
    assert {fake_zones[z] for z in zones} == {"use1-az1", "use1-az2", "use1-az4"}


def test_reused_subnets_in_a_zone_eks_refuses_fail_before_the_cluster_is_made(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    original = AwsFakes.invoke

    def invoke(self: AwsFakes, token: str, args: dict[str, Any]) -> dict[str, Any] | None:
        answer = original(self, token, args)
        if token == "aws:ec2/getSubnet:getSubnet" and args.get("id") == REUSED[0] and answer is not None:
            return {**answer, "availabilityZone": "us-east-1x", "availabilityZoneId": "use1-az3"}
        return answer

    monkeypatch.setattr(AwsFakes, "invoke", invoke)
    config = eks_config()
    config["aws:region"] = "us-east-1"
    config["gpukit:cluster"]["network"] = {"vpcId": "vpc-0123456789abcdef0", "subnetIds": REUSED}
    config["gpukit:nodePools"][1]["zones"] = ["use1-az1"]
    refused = (
        rf"gpukit:cluster\.network\.subnetIds: EKS does not support the zones of {REUSED[0]} \(use1-az3\)"
    )
    with pytest.raises(Exception, match=refused):
        record(lambda: build(config), region="us-east-1")


REUSED = ["subnet-0123456789abcdef0", "subnet-0123456789abcdef1"]


def private_api_config(cidrs: list[str]) -> dict[str, Any]:
    """A private API in a reused VPC the deployer routes into (in a new one nothing could reach it)."""
    config = eks_config()
    config["gpukit:cluster"]["apiAccessCidrs"] = cidrs
    config["gpukit:cluster"]["network"] = {"vpcId": "vpc-0123456789abcdef0", "subnetIds": REUSED}
    config["gpukit:nodePools"][1]["zones"] = [reused_subnet_zone(REUSED[0])]
    return config


def reused_subnet_zone(subnet: str) -> str:
    """The AZ ID EC2 (here the plan's fake) reports for a reused subnet."""
    answer = AwsFakes({"aws:region": "us-west-2"}).invoke("aws:ec2/getSubnet:getSubnet", {"id": subnet})
    assert answer is not None
    return str(answer["availabilityZoneId"])


def test_existing_vpc_is_reused_and_gpu_groups_get_the_subnets_of_their_zones() -> None:
    config = eks_config()
    config["gpukit:cluster"]["network"] = {"vpcId": "vpc-0123456789abcdef0", "subnetIds": REUSED}
    zone = reused_subnet_zone(REUSED[1])
    config["gpukit:nodePools"][1]["zones"] = [zone]
    rec = run(config)
    assert rec.of_type("aws:ec2/vpc:Vpc") == []
    assert rec.of_type("aws:ec2/natGateway:NatGateway") == []
    assert node_group(rec, "system")["subnetIds"] == REUSED
    assert node_group(rec, f"l4-{zone}")["subnetIds"] == [s for s in REUSED if reused_subnet_zone(s) == zone]


def test_a_pinned_zone_without_a_reused_subnet_fails_before_anything_is_created() -> None:
    config = eks_config()
    config["gpukit:cluster"]["network"] = {"vpcId": "vpc-0123456789abcdef0", "subnetIds": REUSED}
    missing = next(
        z
        for z in ("usw2-az1", "usw2-az2", "usw2-az3", "usw2-az4")
        if z not in map(reused_subnet_zone, REUSED)
    )
    config["gpukit:nodePools"][1]["zones"] = [missing]
    with pytest.raises(
        Exception, match=rf"gpukit:nodePools\[1\]\.zones\[0\]: the VPC has no private subnet in {missing}"
    ):
        run(config)


def test_a_pinned_zone_that_does_not_offer_the_type_fails_before_anything_is_created(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """EC2's offerings are asked at `pulumi up` (gpukit has no offline table): a zone without the
    pool's type stops the run, naming the key, before any resource is registered."""
    original = AwsFakes.invoke
    asked: list[dict[str, Any]] = []

    def invoke(self: AwsFakes, token: str, args: dict[str, Any]) -> dict[str, Any] | None:
        if token == "aws:ec2/getInstanceTypeOfferings:getInstanceTypeOfferings":
            asked.append(args)
            return {
                "id": self.region,
                "instanceTypes": ["g6.xlarge", "g6.xlarge"],
                "locations": ["usw2-az1", "usw2-az3"],
                "locationTypes": ["availability-zone-id"] * 2,
            }
        return original(self, token, args)

    monkeypatch.setattr(AwsFakes, "invoke", invoke)
    with pytest.raises(
        Exception,
        match=r"gpukit:nodePools\[1\]\.zones: usw2-az2 does not offer g6\.xlarge "
        r"\(EC2 offers it in usw2-az1, usw2-az3\)",
    ):
        run(eks_config())
    assert asked == [
        {
            "locationType": "availability-zone-id",
            "filters": [{"name": "instance-type", "values": ["g6.xlarge"]}],
        }
    ]


def test_a_gpu_quota_too_low_for_what_starts_fails_before_anything_is_created(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A new account's G and VT quota is often 0: `pulumi up` would create everything, then wait for
    GPU nodes that never come. It reads the quotas first (with the deployer's credentials)."""
    original = AwsFakes.invoke
    asked: list[str] = []

    def invoke(self: AwsFakes, token: str, args: dict[str, Any]) -> dict[str, Any] | None:
        if token == "aws:servicequotas/getServiceQuota:getServiceQuota":
            asked.append(f"{args['serviceCode']}/{args['quotaCode']}")
            return {
                "id": args["quotaCode"],
                "quotaCode": args["quotaCode"],
                "serviceCode": "ec2",
                "value": 0.0,
            }
        return original(self, token, args)

    monkeypatch.setattr(AwsFakes, "invoke", invoke)
    config = eks_config()
    config["gpukit:nodePools"][1]["minNodes"] = 1  # the spot L4 pool starts a node right away
    with pytest.raises(Exception, match=r"EC2 quota All G and VT Spot Instance Requests \(L-3819A6DF\) is 0"):
        run(config)
    assert asked == ["ec2/L-3819A6DF"]


def test_a_gpu_pool_without_zones_gets_a_group_in_each_vpc_zone_ec2_says_offers_its_type(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Zones may be left out: `pulumi up` asks EC2 which of the VPC's zones offer the type, instead of
    the stack naming them; as many groups as maxNodes allows, one node each at least."""
    original = AwsFakes.invoke

    def invoke(self: AwsFakes, token: str, args: dict[str, Any]) -> dict[str, Any] | None:
        if token == "aws:ec2/getInstanceTypeOfferings:getInstanceTypeOfferings":
            return {
                "id": self.region,
                "instanceTypes": ["g6.xlarge", "g6.xlarge", "g6.xlarge"],
                "locations": ["usw2-az2", "usw2-az3", "usw2-az4"],  # not usw2-az1
                "locationTypes": ["availability-zone-id"] * 3,
            }
        return original(self, token, args)

    monkeypatch.setattr(AwsFakes, "invoke", invoke)
    config = eks_config()
    del config["gpukit:nodePools"][1]["zones"]
    rec = run(config)
    vpc_zones = {fake_zone_id(s) for s in rec.of_type("aws:ec2/subnet:Subnet")}
    l4 = sorted(g.name for g in rec.of_type("aws:eks/nodeGroup:NodeGroup") if g.name.startswith("unit-l4-"))
    expected = sorted(z for z in vpc_zones if z != "usw2-az1")
    assert l4 == [f"unit-l4-{zone}-ng" for zone in expected]
    config["gpukit:nodePools"][1]["maxNodes"] = 1
    one = [
        g.name for g in run(config).of_type("aws:eks/nodeGroup:NodeGroup") if g.name.startswith("unit-l4-")
    ]
    assert one == [f"unit-l4-{expected[0]}-ng"]


def fake_zone_id(subnet: Any) -> str:
    return dict(AwsFakes({"aws:region": "us-west-2"}).zones())[subnet.inputs["availabilityZone"]]


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


def test_a_spot_gpu_pool_falls_back_to_an_on_demand_one_by_the_priority_expander() -> None:
    """Spot before on-demand: the expander ranks each spot GPU group (its Auto Scaling group, which EKS
    names) above the rest, so a GPU pod that fits both starts spot, and on-demand once spot fails."""
    config = eks_config()
    config["gpukit:nodePools"].append(
        {"name": "l4-od", "instanceType": "g6.xlarge", "minNodes": 0, "maxNodes": 2, "zones": ["usw2-az1"]}
    )
    rec = run(config)
    values = rec.one("kubernetes:helm.sh/v3:Release", "unit-autoscaler-release").inputs["values"]
    assert values["extraArgs"]["expander"] == "priority,least-waste"
    spot_groups = {  # the spot pool's groups, as its node groups' scale-from-zero tags name them
        tag.inputs["autoscalingGroupName"]
        for tag in rec.of_type("aws:autoscaling/tag:Tag")
        if tag.name.startswith("unit-l4-usw2-")
    }
    assert len(spot_groups) == 2  # one per zone of the spot pool
    assert sorted(values["expanderPriorities"]["20"]) == sorted(f"^{re.escape(n)}$" for n in spot_groups)
    assert values["expanderPriorities"]["10"] == [".*"]


def test_without_an_on_demand_gpu_pool_the_expander_stays_least_waste(dev: Recording) -> None:
    values = dev.one("kubernetes:helm.sh/v3:Release", "unit-autoscaler-release").inputs["values"]
    assert values["extraArgs"]["expander"] == "least-waste"
    assert "expanderPriorities" not in values


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
        "gpukit:index:NamespacePodSecurity",
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


# --- issue 11: zones, support, day-2 operations, API access, admins -------------------------------


def test_the_new_vpc_has_a_private_subnet_in_every_pinned_zone_and_each_gpu_group_uses_its_own(
    dev: Recording,
) -> None:
    names = {zone_id: name for name, zone_id in AwsFakes({"aws:region": "us-west-2"}).zones()}
    subnets = {s.id: s.inputs for s in dev.of_type("aws:ec2/subnet:Subnet") if "-private-" in s.name}
    for zone in ("usw2-az1", "usw2-az2"):
        (subnet,) = node_group(dev, f"l4-{zone}")["subnetIds"]
        assert subnets[subnet]["availabilityZone"] == names[zone]
    assert len(subnets) == 3  # zoneCount: the two pinned zones and one more


def test_gpu_groups_of_a_pool_share_labels_and_taints_so_the_autoscaler_balances_them(dev: Recording) -> None:
    groups = [node_group(dev, f"l4-{zone}") for zone in ("usw2-az1", "usw2-az2")]
    assert groups[0]["labels"] == groups[1]["labels"]
    assert groups[0]["taints"] == groups[1]["taints"]
    assert [g["nodeGroupNamePrefix"] for g in groups] == ["l4-usw2-az1-", "l4-usw2-az2-"]
    assert dev.of_type("aws:eks/nodeGroup:NodeGroup").__len__() == 3  # system, and l4 in two zones


def test_min_nodes_is_spread_over_the_zone_groups_and_sums_to_the_pools() -> None:
    config = eks_config()
    config["gpukit:nodePools"][1].update(minNodes=3, maxNodes=5, zones=["usw2-az1", "usw2-az2"])
    rec = run(config)
    sizes = [node_group(rec, f"l4-{z}")["scalingConfig"] for z in ("usw2-az1", "usw2-az2")]
    assert sizes == [
        {"minSize": 2, "maxSize": 3, "desiredSize": 2},
        {"minSize": 1, "maxSize": 2, "desiredSize": 1},
    ]


def test_scale_from_zero_tags_carry_the_accelerator_label_on_every_zone_group(dev: Recording) -> None:
    for zone in ("usw2-az1", "usw2-az2"):
        tags = asg_tags(dev, f"unit-l4-{zone}-")
        assert (
            tags["k8s.io/cluster-autoscaler/node-template/label/k8s.amazonaws.com/accelerator"] == "nvidia-l4"
        )
    system_tags = [
        t.inputs["tag"]["key"] for t in dev.of_type("aws:autoscaling/tag:Tag") if "-system-" in t.name
    ]
    assert not any("accelerator" in key for key in system_tags)


def test_support_policy_is_explicit_and_standard_by_default(dev: Recording) -> None:
    assert dev.one("aws:eks/cluster:Cluster").inputs["upgradePolicy"] == {"supportType": "STANDARD"}
    config = eks_config()
    config["gpukit:cluster"]["supportType"] = "extended"
    assert run(config).one("aws:eks/cluster:Cluster").inputs["upgradePolicy"] == {"supportType": "EXTENDED"}


def test_control_plane_log_group_is_gpukits_with_a_retention_and_made_before_the_cluster(
    dev: Recording,
) -> None:
    group = dev.one("aws:cloudwatch/logGroup:LogGroup")
    assert group.inputs["name"] == "/aws/eks/unit/cluster"
    assert group.inputs["retentionInDays"] == 30
    assert group.urn in dev.one("aws:eks/cluster:Cluster").dependencies
    config = eks_config()
    config["gpukit:cluster"]["logRetentionDays"] = 365
    assert run(config).one("aws:cloudwatch/logGroup:LogGroup").inputs["retentionInDays"] == 365


def test_core_addons_are_managed_network_ones_before_nodes_and_coredns_after_system_nodes(
    dev: Recording,
) -> None:
    addons = {a.inputs["addonName"]: a for a in dev.of_type("aws:eks/addon:Addon")}
    assert {"vpc-cni", "kube-proxy", "coredns"} <= set(addons)
    for name in ("vpc-cni", "kube-proxy", "coredns"):
        assert addons[name].inputs["addonVersion"] == "default-1.35"  # EKS's default for the minor
        assert addons[name].inputs["resolveConflictsOnCreate"] == "OVERWRITE"
    for group in dev.of_type("aws:eks/nodeGroup:NodeGroup"):
        assert addons["vpc-cni"].urn in group.dependencies
        assert addons["kube-proxy"].urn in group.dependencies
    system = dev.one("aws:eks/nodeGroup:NodeGroup", "unit-system-ng")
    assert system.urn in addons["coredns"].dependencies


def test_private_ranges_only_keep_the_endpoint_private_and_reach_it_over_the_vpc() -> None:
    config = private_api_config(["10.0.0.0/8", "192.168.0.0/16"])
    rec = run(config)
    vpc = rec.one("aws:eks/cluster:Cluster").inputs["vpcConfig"]
    assert vpc["endpointPublicAccess"] is False
    assert "publicAccessCidrs" not in vpc
    rules = rec.of_type("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule")
    assert sorted((r.inputs["cidrIpv4"], r.inputs["fromPort"]) for r in rules) == [
        ("10.0.0.0/8", 443),
        ("192.168.0.0/16", 443),
    ]


def test_private_range_rules_are_named_by_range_so_removing_one_leaves_the_others_alone() -> None:
    # Named by position, dropping the first range would rewrite rule 0 into a copy of rule 1 while
    # rule 1 still exists, which EC2 refuses as a duplicate.
    def rule_names(cidrs: list[str]) -> dict[str, str]:
        config = private_api_config(cidrs)
        rules = run(config).of_type("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule")
        return {r.name: r.inputs["cidrIpv4"] for r in rules}

    before = rule_names(["10.0.0.0/8", "192.168.0.0/16"])
    after = rule_names(["192.168.0.0/16"])
    assert before == {
        "unit-api-private-10.0.0.0-8": "10.0.0.0/8",
        "unit-api-private-192.168.0.0-16": "192.168.0.0/16",
    }
    assert after == {"unit-api-private-192.168.0.0-16": "192.168.0.0/16"}


def test_a_public_range_opens_the_public_endpoint_to_public_ranges_only() -> None:
    config = eks_config()
    config["gpukit:cluster"]["apiAccessCidrs"] = ["10.0.0.0/8", "203.0.113.0/24"]
    vpc = run(config).one("aws:eks/cluster:Cluster").inputs["vpcConfig"]
    assert vpc["endpointPublicAccess"] is True
    assert vpc["publicAccessCidrs"] == ["203.0.113.0/24"]


def test_spot_alternatives_become_instance_types_of_every_zone_group() -> None:
    config = eks_config()
    # The catalog's pair with the same GPUs (8x H200) and the same vCPUs and memory (192, 2048 GiB).
    config["gpukit:nodePools"][1].update(
        instanceType="p5en.48xlarge", alternativeInstanceTypes=["p5e.48xlarge"], maxNodes=2
    )
    rec = run(config)
    for zone in ("usw2-az1", "usw2-az2"):
        assert node_group(rec, f"l4-{zone}")["instanceTypes"] == ["p5en.48xlarge", "p5e.48xlarge"]
        assert node_group(rec, f"l4-{zone}")["capacityType"] == "SPOT"


CALLER = "arn:aws:iam::123456789012:user/gpukit-plan"  # the plan's fake caller


def test_the_deployers_own_principal_gets_no_second_access_entry() -> None:
    config = eks_config()
    config["gpukit:cluster"]["adminPrincipalArns"] = [CALLER, "arn:aws:iam::123456789012:role/ops"]
    entries = run(config).of_type("aws:eks/accessEntry:AccessEntry")
    assert [e.inputs["principalArn"] for e in entries] == ["arn:aws:iam::123456789012:role/ops"]


def test_a_new_cluster_records_its_creator_once(dev: Recording) -> None:
    cluster = dev.one("aws:eks/cluster:Cluster")
    assert cluster.inputs["tags"] == {CREATOR_TAG: CALLER}
    assert cluster.ignore_changes == [f'tags["{CREATOR_TAG}"]']


def test_the_creators_entry_is_skipped_whoever_runs_the_update(monkeypatch: pytest.MonkeyPatch) -> None:
    """CI created the cluster; a listed teammate runs `pulumi up` later: the teammate keeps the entry
    gpukit made, and the creator (whose entry is EKS's own) gets none."""
    ci = "arn:aws:iam::123456789012:role/ci-deployer"
    existing_groups(monkeypatch, {}, creator="arn:aws:sts::123456789012:assumed-role/ci-deployer/run-7")
    config = eks_config()
    config["gpukit:cluster"]["adminPrincipalArns"] = [ci, CALLER]
    entries = run(config).of_type("aws:eks/accessEntry:AccessEntry")
    assert [e.inputs["principalArn"] for e in entries] == [CALLER]


def test_a_cluster_made_before_the_creator_tag_falls_back_to_the_caller(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    existing_groups(monkeypatch, {}, creator=None)
    config = eks_config()
    config["gpukit:cluster"]["adminPrincipalArns"] = [CALLER, "arn:aws:iam::123456789012:role/ops"]
    entries = run(config).of_type("aws:eks/accessEntry:AccessEntry")
    assert [e.inputs["principalArn"] for e in entries] == ["arn:aws:iam::123456789012:role/ops"]


def test_an_assumed_role_caller_is_matched_to_its_role_even_with_a_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    original = AwsFakes.invoke

    def invoke(self: AwsFakes, token: str, args: dict[str, Any]) -> dict[str, Any] | None:
        answer = original(self, token, args)
        if token == "aws:index/getCallerIdentity:getCallerIdentity" and answer is not None:
            answer["arn"] = "arn:aws:sts::123456789012:assumed-role/deployer/ci-session"
        return answer

    monkeypatch.setattr(AwsFakes, "invoke", invoke)
    config = eks_config()
    config["gpukit:cluster"]["adminPrincipalArns"] = [
        "arn:aws:iam::123456789012:role/ci/deployer",
        "arn:aws:iam::123456789012:role/deployer-two",
    ]
    entries = run(config).of_type("aws:eks/accessEntry:AccessEntry")
    assert [e.inputs["principalArn"] for e in entries] == ["arn:aws:iam::123456789012:role/deployer-two"]


def test_access_entries_are_named_by_principal_so_removing_one_leaves_the_others_alone() -> None:
    # By position, removing the first principal would replace entry 0 with one for the principal entry 1
    # still holds, which EKS refuses (ResourceInUseException).
    ops, dev = "arn:aws:iam::123456789012:role/platform/ops", "arn:aws:iam::123456789012:user/dev"

    def entries(principals: list[str]) -> dict[str, str]:
        config = eks_config()
        config["gpukit:cluster"]["adminPrincipalArns"] = principals
        rec = run(config)
        policies = {r.name for r in rec.of_type("aws:eks/accessPolicyAssociation:AccessPolicyAssociation")}
        found = {r.name: r.inputs["principalArn"] for r in rec.of_type("aws:eks/accessEntry:AccessEntry")}
        assert policies == {f"{n}-policy" for n in found}
        return found

    assert entries([ops, dev]) == {
        "unit-admin-123456789012-role-ops": ops,
        "unit-admin-123456789012-user-dev": dev,
    }
    assert entries([dev]) == {"unit-admin-123456789012-user-dev": dev}


def test_access_entries_keep_the_resources_earlier_versions_named_by_position(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import pulumi_aws as aws

    aliases: dict[str, list[str | None]] = {}
    for token in ("AccessEntry", "AccessPolicyAssociation"):
        original = getattr(aws.eks, token)

        def spy(name: str, *args: Any, _original: Any = original, **kwargs: Any) -> Any:
            opts = kwargs.get("opts")
            aliases[name] = [a.name for a in (opts.aliases or [])] if opts else []
            return _original(name, *args, **kwargs)

        monkeypatch.setattr(aws.eks, token, spy)
    config = eks_config()
    config["gpukit:cluster"]["adminPrincipalArns"] = [CALLER, "arn:aws:iam::123456789012:role/ops"]
    run(config)
    assert aliases == {
        "unit-admin-123456789012-role-ops": ["unit-admin-1"],
        "unit-admin-123456789012-role-ops-policy": ["unit-admin-1-policy"],
    }


def existing_groups(
    monkeypatch: pytest.MonkeyPatch, desired: dict[str, int], creator: str | None = CALLER
) -> None:
    """The fakes answer as for a deployed cluster `unit` whose node groups run `desired` nodes, made by
    `creator` (None: before gpukit tagged its creator)."""
    original = AwsFakes.invoke
    names = {prefix: f"{prefix}{20260101000000000000000001 + i}" for i, prefix in enumerate(desired)}

    def invoke(self: AwsFakes, token: str, args: dict[str, Any]) -> dict[str, Any] | None:
        if token == "aws:eks/getClusters:getClusters":
            return {"id": self.region, "names": ["other", "unit"]}
        if token == "aws:eks/getCluster:getCluster":
            assert args["name"] == "unit"
            tags = {"gpukit:cluster": "unit", **({CREATOR_TAG: creator} if creator else {})}
            return {"id": "unit", "name": "unit", "tags": tags}
        if token == "aws:eks/getNodeGroups:getNodeGroups":
            assert args["clusterName"] == "unit"
            return {"id": "unit", "clusterName": "unit", "names": list(names.values())}
        if token == "aws:eks/getNodeGroup:getNodeGroup":
            prefix = next(p for p, n in names.items() if n == args["nodeGroupName"])
            size = desired[prefix]
            return {
                "id": f"unit:{args['nodeGroupName']}",
                "clusterName": "unit",
                "nodeGroupName": args["nodeGroupName"],
                "scalingConfigs": [{"desiredSize": size, "minSize": 0, "maxSize": 8}],
            }
        return original(self, token, args)

    monkeypatch.setattr(AwsFakes, "invoke", invoke)


def test_raising_min_nodes_above_a_groups_current_size_sets_its_desired_size(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    existing_groups(monkeypatch, {"system-": 1, "l4-usw2-az1-": 0, "l4-usw2-az2-": 3})
    config = eks_config()
    config["gpukit:nodePools"][0]["minNodes"] = 2
    config["gpukit:nodePools"][1]["minNodes"] = 2  # one per zone group
    rec = run(config)
    system = rec.one("aws:eks/nodeGroup:NodeGroup", "unit-system-ng")
    assert system.inputs["scalingConfig"] == {"minSize": 2, "maxSize": 3, "desiredSize": 2}
    assert system.ignore_changes == []  # the update carries desiredSize, so EKS accepts the new minSize
    raised = rec.one("aws:eks/nodeGroup:NodeGroup", "unit-l4-usw2-az1-ng")
    assert raised.inputs["scalingConfig"] == {"minSize": 1, "maxSize": 4, "desiredSize": 1}
    assert raised.ignore_changes == []
    # A group already inside its new bounds keeps the autoscaler's size, which stays the autoscaler's.
    kept = rec.one("aws:eks/nodeGroup:NodeGroup", "unit-l4-usw2-az2-ng")
    assert kept.inputs["scalingConfig"] == {"minSize": 1, "maxSize": 4, "desiredSize": 3}
    assert kept.ignore_changes == ["scalingConfig.desiredSize"]


def test_lowering_max_nodes_below_a_groups_current_size_brings_desired_down(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    existing_groups(monkeypatch, {"system-": 3})
    config = eks_config()
    config["gpukit:nodePools"][0]["maxNodes"] = 2
    system = run(config).one("aws:eks/nodeGroup:NodeGroup", "unit-system-ng")
    assert system.inputs["scalingConfig"] == {"minSize": 1, "maxSize": 2, "desiredSize": 2}
    assert system.ignore_changes == []


def test_node_groups_wait_for_the_node_roles_grants(dev: Recording) -> None:
    grants = {
        a.urn for a in dev.of_type("aws:iam/rolePolicyAttachment:RolePolicyAttachment") if "-node-" in a.name
    }
    assert len(grants) == 2
    for group in dev.of_type("aws:eks/nodeGroup:NodeGroup"):
        assert grants <= set(group.dependencies), group.name


@pytest.fixture(scope="module")
def shared() -> Recording:
    config = eks_config()
    config["gpukit:nodePools"][1]["sharing"] = {"mode": "time-slicing", "replicas": 4}
    config["gpukit:nodePools"].append(
        {
            "name": "h100",
            "instanceType": "p5.48xlarge",
            "minNodes": 0,
            "maxNodes": 2,
            "zones": ["usw2-az3"],
            "sharing": {"mode": "mig", "mig": {"profile": "3g.40gb", "strategy": "mixed"}},
        }
    )
    return run(config)


def test_shared_pools_are_labelled_with_their_device_plugin_entry(shared: Recording) -> None:
    release = shared.one("kubernetes:helm.sh/v3:Release", "unit-gpu-operator-release").inputs
    config = release["values"]["devicePlugin"]["config"]
    assert config["default"] == "none"
    assert set(config["data"]) == {"none", "time-slicing-4"}
    assert release["values"]["mig"] == {"strategy": "mixed"}
    labels = shared.one("aws:eks/nodeGroup:NodeGroup", "unit-l4-usw2-az1-ng").inputs["labels"]
    assert labels["nvidia.com/device-plugin.config"] == "time-slicing-4"
    assert labels["nvidia.com/device-plugin.config"] in config["data"]
    h100 = shared.one("aws:eks/nodeGroup:NodeGroup", "unit-h100-usw2-az3-ng").inputs["labels"]
    assert h100["nvidia.com/mig.config"] == "all-3g.40gb"
    system = shared.one("aws:eks/nodeGroup:NodeGroup", "unit-system-ng").inputs.get("labels", {})
    assert "nvidia.com/device-plugin.config" not in system


def test_time_sliced_pool_scales_from_zero_for_its_replicas(shared: Recording) -> None:
    tags = asg_tags(shared, "unit-l4-usw2-az1-")
    prefix = "k8s.io/cluster-autoscaler/node-template"
    assert tags[f"{prefix}/resources/nvidia.com/gpu"] == "4"  # 1 L4 x 4 replicas
    assert tags[f"{prefix}/label/nvidia.com/device-plugin.config"] == "time-slicing-4"


def test_unshared_cluster_sets_no_device_plugin_config(dev: Recording) -> None:
    release = dev.one("kubernetes:helm.sh/v3:Release", "unit-gpu-operator-release").inputs
    assert "devicePlugin" not in release["values"]


def test_mixed_mig_pool_scales_from_zero_for_its_instances(shared: Recording) -> None:
    tags = asg_tags(shared, "unit-h100-usw2-az3-")
    prefix = "k8s.io/cluster-autoscaler/node-template"
    assert tags[f"{prefix}/resources/nvidia.com/mig-3g.40gb"] == "16"  # 8 H100 x 2 instances of 3g.40gb
    # The autoscaler would otherwise take the instance type's 8 GPUs as nvidia.com/gpu: a mixed MIG
    # node offers none, so a whole-GPU pod must not scale this pool up.
    assert tags[f"{prefix}/resources/nvidia.com/gpu"] == "0"
    assert tags[f"{prefix}/label/nvidia.com/mig.config"] == "all-3g.40gb"


def test_a_custom_mig_layout_reaches_the_mig_manager_and_the_autoscaler() -> None:
    config = eks_config()
    config["gpukit:nodePools"].append(
        {
            "name": "h100",
            "instanceType": "p5.48xlarge",
            "minNodes": 0,
            "maxNodes": 2,
            "zones": ["usw2-az3"],
            "sharing": {"mode": "mig", "mig": {"layout": {"3g.40gb": 1, "1g.10gb": 4}, "strategy": "mixed"}},
        }
    )
    rec = run(config)
    labels = rec.one("aws:eks/nodeGroup:NodeGroup", "unit-h100-usw2-az3-ng").inputs["labels"]
    assert labels["nvidia.com/mig.config"] == "gpukit-4x1g.10gb-1x3g.40gb"
    release = rec.one("kubernetes:helm.sh/v3:Release", "unit-gpu-operator-release").inputs
    parted = yaml.safe_load(release["values"]["migManager"]["config"]["data"]["config.yaml"])
    assert labels["nvidia.com/mig.config"] in parted["mig-configs"]
    tags = asg_tags(rec, "unit-h100-usw2-az3-")
    prefix = "k8s.io/cluster-autoscaler/node-template/resources"
    assert tags[f"{prefix}/nvidia.com/mig-1g.10gb"] == "32"  # 8 GPUs x 4
    assert tags[f"{prefix}/nvidia.com/mig-3g.40gb"] == "8"  # 8 GPUs x 1


def test_a_bottlerocket_pool_may_say_it_shares_nothing() -> None:
    """`sharing: {mode: none}` is whole GPUs, which Bottlerocket's own device plugin serves."""
    config = eks_config()
    config["gpukit:nodePools"][1].update(nodeImage="bottlerocket", sharing={"mode": "none"})
    (group, *_) = [g for g in run(config).of_type("aws:eks/nodeGroup:NodeGroup") if "l4" in g.name]
    assert group.inputs["amiType"].startswith("BOTTLEROCKET")
