"""GpuCluster on k3s over EC2 (stacks/Pulumi.k3s-aws.yaml and variants) under the mocks: assertions
on the recorded inputs, after the program ran."""

import base64
import copy
import fnmatch
import gzip
import json
from dataclasses import dataclass
from typing import Any

import pytest
import yaml

from gpukit.plan.fakes import Recorded
from gpukit.program import build
from gpukit.providers.aws.fakes import AwsFakes
from harness import Recording, example_config, is_secret, record, unknown_argument_names, unsecret
from tools import bundle_files, script_input

STACK: dict[str, Any] = example_config("k3s-aws")
# The k3s machines alone: the example's shared volume adds an NFS VM, a machine of another kind
# (tests/component/test_k3s_aws_nfs.py).
STACK.pop("gpukit:storage")
CANONICAL = "resolve:ssm:/aws/service/canonical/ubuntu/server/24.04/stable/current/amd64/hvm/ebs-gp3/ami-id"
DLAMI = (
    "resolve:ssm:/aws/service/deeplearning/ami/x86_64/base-oss-nvidia-driver-gpu-ubuntu-24.04/latest/ami-id"
)
LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
GROUP = "aws:autoscaling/group:Group"
INSTANCE = "aws:ec2/instance:Instance"
ENI = "aws:ec2/networkInterface:NetworkInterface"
INGRESS = "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule"
LB = "aws:lb/loadBalancer:LoadBalancer"


@dataclass
class Run:
    rec: Recording
    region: str

    @property
    def ignore_changes(self) -> dict[str, list[str]]:
        """Resource name -> the ignoreChanges it was registered with."""
        return {r.name: r.ignore_changes for r in self.rec.resources}

    def outputs(self, resource: Recorded) -> dict[str, Any]:
        """The fake outputs the mocks gave `resource` (deterministic from its name and inputs)."""
        _, outputs = AwsFakes({"aws:region": self.region}).resource(
            resource.type, resource.name, dict(resource.inputs)
        )
        return outputs


def run(config: dict[str, Any]) -> Run:
    region = config["aws:region"]
    return Run(record(lambda: build(config), config=config, region=region), region)


def stack_config(**cluster: Any) -> dict[str, Any]:
    config = copy.deepcopy(STACK)
    config["gpukit:cluster"].update(cluster)
    return config


@pytest.fixture(scope="module")
def stack() -> Run:
    return run(stack_config())


@pytest.fixture(scope="module")
def ha() -> Run:
    """3 servers over 3 zones, driver preinstalled, an on-demand CPU pool, private API access (in a
    reused VPC the deployer routes into: nothing could reach a private API in a new one)."""
    config = stack_config(apiAccessCidrs=["10.20.0.0/16"], network=ROUTED_VPC)
    config["gpukit:nodePools"][0].update(minNodes=3, maxNodes=3)
    config["gpukit:nodePools"].append(
        {"name": "cpu", "instanceType": "m7i.large", "minNodes": 0, "maxNodes": 3}
    )
    config["gpukit:gpuOperator"]["driver"] = "preinstalled"
    return run(config)


def user_data_text(value: str) -> str:
    raw = base64.b64decode(value)
    return (gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw).decode()


def user_data_files(value: str) -> dict[str, str]:
    document = yaml.safe_load(user_data_text(value))
    return {f["path"].rsplit("/", 1)[-1]: f["content"] for f in document["write_files"]}


def k3s_config(value: str) -> dict[str, Any]:
    config: dict[str, Any] = yaml.safe_load(script_input(user_data_files(value)["install.sh"], "K3S_CONFIG"))
    return config


def all_user_data(rec: Recording) -> dict[str, str]:
    found = {r.name: r.inputs["userData"] for r in rec.of_type(LAUNCH_TEMPLATE) if "userData" in r.inputs}
    found.update({r.name: r.inputs["userDataBase64"] for r in rec.of_type(INSTANCE)})
    return found


# A reused VPC the deployer routes into, with a subnet in each of three zones (of the fake account).
ROUTED_VPC = {
    "vpcId": "vpc-0123456789abcdef0",
    "subnetIds": ["subnet-00000000000000000", "subnet-00000000000000001", "subnet-00000000000000002"],
}


def subnet_ids(rec: Recording, kind: str) -> list[str]:
    """In zone order, as AwsNetwork hands them out (the engine records resources in any order); a
    reused VPC's private subnets where the stack made none."""
    made = [
        r.id
        for r in sorted(rec.of_type("aws:ec2/subnet:Subnet"), key=lambda r: r.name)
        if f"-{kind}-" in r.name
    ]
    return made or (list(ROUTED_VPC["subnetIds"]) if kind == "private" else [])


# --- agent pools


def test_agent_group_is_created_at_min_size_and_the_autoscaler_owns_desired_capacity(stack: Run) -> None:
    asg = stack.rec.one(GROUP, "k3s-aws-l4-asg").inputs
    assert (asg["minSize"], asg["maxSize"], asg["desiredCapacity"]) == (0, 4, 0)  # idles at zero
    assert stack.ignore_changes["k3s-aws-l4-asg"] == ["desiredCapacity"]
    assert asg["waitForCapacityTimeout"] == "0"
    assert asg["namePrefix"] == "k3s-aws-l4-"
    assert asg["vpcZoneIdentifiers"] == subnet_ids(stack.rec, "private")


def test_agent_group_carries_autoscaler_discovery_and_scale_from_zero_tags(stack: Run) -> None:
    tags = {t["key"]: (t["value"], t["propagateAtLaunch"]) for t in stack.rec.one(GROUP).inputs["tags"]}
    assert tags["k8s.io/cluster-autoscaler/enabled"] == ("true", False)
    assert tags["k8s.io/cluster-autoscaler/k3s-aws"] == ("owned", False)
    assert tags["k8s.io/cluster-autoscaler/node-template/taint/nvidia.com/gpu"] == ("true:NoSchedule", False)
    assert tags["k8s.io/cluster-autoscaler/node-template/resources/nvidia.com/gpu"] == ("1", False)
    assert tags["Name"] == ("k3s-aws-l4", True)


def test_spot_pool_rebalances_over_every_listed_type_and_never_buys_on_demand(stack: Run) -> None:
    asg = stack.rec.one(GROUP, "k3s-aws-l4-asg").inputs
    assert asg["capacityRebalance"] is True
    assert "launchTemplate" not in asg
    policy = asg["mixedInstancesPolicy"]
    assert policy["instancesDistribution"] == {
        "onDemandBaseCapacity": 0,
        "onDemandPercentageAboveBaseCapacity": 0,
        "spotAllocationStrategy": "price-capacity-optimized",
    }
    assert [o["instanceType"] for o in policy["launchTemplate"]["overrides"]] == ["g6.xlarge", "g6.2xlarge"]
    spec = policy["launchTemplate"]["launchTemplateSpecification"]
    assert spec["launchTemplateId"] == stack.rec.one(LAUNCH_TEMPLATE, "k3s-aws-l4-lt").id
    assert spec["version"] == "1"


def test_on_demand_pool_uses_its_launch_template_directly(ha: Run) -> None:
    asg = ha.rec.one(GROUP, "k3s-aws-cpu-asg").inputs
    assert asg["launchTemplate"] == {"id": ha.rec.one(LAUNCH_TEMPLATE, "k3s-aws-cpu-lt").id, "version": "1"}
    assert "mixedInstancesPolicy" not in asg
    assert "capacityRebalance" not in asg
    assert (asg["minSize"], asg["maxSize"], asg["desiredCapacity"]) == (0, 3, 0)
    assert ha.rec.one(LAUNCH_TEMPLATE, "k3s-aws-cpu-lt").inputs["instanceType"] == "m7i.large"


def test_agents_join_through_the_servers_with_their_labels_taints_and_gpu_checks(stack: Run) -> None:
    (server_eni,) = stack.rec.of_type(ENI)
    first_ip = stack.outputs(server_eni)["privateIp"]
    user_data = stack.rec.one(LAUNCH_TEMPLATE, "k3s-aws-l4-lt").inputs["userData"]
    config = k3s_config(user_data)
    install = user_data_files(user_data)["install.sh"]
    assert script_input(install, "JOIN_URLS") == f"https://{first_ip}:6443"
    assert config["with-node-id"] is True  # a replacement reusing a hostname still joins
    assert config["node-label"] == [
        "gpukit.dev/gpu-model=L4",
        "gpukit.dev/pool=l4",
        "k8s.amazonaws.com/accelerator=nvidia-l4",  # the Cluster Autoscaler's GPU label, as on EKS
        "nvidia.com/gpu.present=true",
    ]
    assert config["node-taint"] == ["nvidia.com/gpu=true:NoSchedule"]
    preflight = user_data_files(user_data)["preflight.sh"]
    assert script_input(preflight, "EXPECT_GPUS") == "1"
    assert script_input(preflight, "GPU_MODEL") == "L4"
    assert script_input(preflight, "DRIVER_MODE") == "operator"
    assert script_input(preflight, "CUDA_VERSION") == "12.8"
    assert script_input(user_data_files(user_data)["install.sh"], "K3S_VERSION") == "v1.36.4+k3s1"


# --- every machine


@pytest.mark.parametrize("fixture", ["stack", "ha"])
def test_every_launch_template_requires_imdsv2_one_hop_and_encrypts_its_root_volume(
    fixture: str, request: pytest.FixtureRequest
) -> None:
    rec: Recording = request.getfixturevalue(fixture).rec
    templates = rec.of_type(LAUNCH_TEMPLATE)
    assert len(templates) == (2 if fixture == "stack" else 3)
    for lt in templates:
        inputs = lt.inputs
        assert inputs["metadataOptions"] == {
            "httpEndpoint": "enabled",
            "httpTokens": "required",
            "httpPutResponseHopLimit": 1,
        }, lt.name
        (device,) = inputs["blockDeviceMappings"]
        assert device["deviceName"] == "/dev/sda1"
        assert device["ebs"]["encrypted"] == "true"
        assert device["ebs"]["volumeType"] == "gp3"
        assert device["ebs"]["deleteOnTermination"] == "true"
        assert inputs["iamInstanceProfile"]["arn"].startswith("arn:aws:iam::")
        assert inputs["updateDefaultVersion"] is True


def test_disk_sizes_follow_the_pool(stack: Run) -> None:
    size = {
        lt.name: lt.inputs["blockDeviceMappings"][0]["ebs"]["volumeSize"]
        for lt in stack.rec.of_type(LAUNCH_TEMPLATE)
    }
    assert size == {"k3s-aws-control-lt": 50, "k3s-aws-l4-lt": 100}


def test_operator_driver_boots_plain_ubuntu_everywhere(stack: Run) -> None:
    assert {lt.name: lt.inputs["imageId"] for lt in stack.rec.of_type(LAUNCH_TEMPLATE)} == {
        "k3s-aws-control-lt": CANONICAL,
        "k3s-aws-l4-lt": CANONICAL,
    }


def test_preinstalled_driver_boots_the_dlami_on_gpu_pools_only(ha: Run) -> None:
    assert {lt.name: lt.inputs["imageId"] for lt in ha.rec.of_type(LAUNCH_TEMPLATE)} == {
        "k3s-aws-control-lt": CANONICAL,
        "k3s-aws-l4-lt": DLAMI,
        "k3s-aws-cpu-lt": CANONICAL,
    }
    preflight = user_data_files(ha.rec.one(LAUNCH_TEMPLATE, "k3s-aws-l4-lt").inputs["userData"])[
        "preflight.sh"
    ]
    assert script_input(preflight, "DRIVER_MODE") == "preinstalled"


@pytest.mark.parametrize("fixture", ["stack", "ha"])
def test_machines_sit_in_private_subnets_without_public_addresses(
    fixture: str, request: pytest.FixtureRequest
) -> None:
    rec: Recording = request.getfixturevalue(fixture).rec
    private = subnet_ids(rec, "private")
    for eni in rec.of_type(ENI):
        assert eni.inputs["subnetId"] in private
    for asg in rec.of_type(GROUP):
        assert asg.inputs["vpcZoneIdentifiers"] == private
    for lt in rec.of_type(LAUNCH_TEMPLATE):
        assert "networkInterfaces" not in lt.inputs  # so no associatePublicIpAddress anywhere
    for instance in rec.of_type(INSTANCE):
        assert "associatePublicIpAddress" not in instance.inputs
        assert "subnetId" not in instance.inputs


# --- security groups


def ingress(run_: Run) -> set[tuple[str, str, int, int, str]]:
    groups = {
        sg.id: sg.name.removeprefix("k3s-aws-sg-")
        for sg in run_.rec.of_type("aws:ec2/securityGroup:SecurityGroup")
    }
    return {
        (
            groups[r.inputs["securityGroupId"]],
            r.inputs["ipProtocol"],
            r.inputs["fromPort"],
            r.inputs["toPort"],
            groups[r.inputs["referencedSecurityGroupId"]]
            if "referencedSecurityGroupId" in r.inputs
            else r.inputs["cidrIpv4"],
        )
        for r in run_.rec.of_type(INGRESS)
    }


def test_security_group_rules_are_exactly_the_table(stack: Run) -> None:
    assert ingress(stack) == {
        ("nodes", "udp", 8472, 8472, "nodes"),
        ("nodes", "tcp", 10250, 10250, "nodes"),
        ("servers", "tcp", 6443, 6443, "nodes"),
        ("servers", "tcp", 6443, 6443, "api-lb"),
        ("servers", "tcp", 2379, 2380, "servers"),
        ("api-lb", "tcp", 6443, 6443, "203.0.113.0/24"),
    }
    assert len(stack.rec.of_type(INGRESS)) == 6
    for sg in stack.rec.of_type("aws:ec2/securityGroup:SecurityGroup"):
        assert "ingress" not in sg.inputs and "egress" not in sg.inputs, sg.name  # rules are resources


@pytest.mark.parametrize("fixture", ["stack", "ha"])
def test_nothing_is_open_to_the_world(fixture: str, request: pytest.FixtureRequest) -> None:
    rec: Recording = request.getfixturevalue(fixture).rec
    for rule in rec.of_type(INGRESS):
        assert rule.inputs.get("cidrIpv4") != "0.0.0.0/0", rule.name
        assert "cidrIpv6" not in rule.inputs, rule.name


def test_servers_carry_both_groups_agents_the_node_group(stack: Run) -> None:
    ids = {
        sg.name.removeprefix("k3s-aws-sg-"): sg.id
        for sg in stack.rec.of_type("aws:ec2/securityGroup:SecurityGroup")
    }
    (eni,) = stack.rec.of_type(ENI)
    assert eni.inputs["securityGroups"] == [ids["nodes"], ids["servers"]]
    assert stack.rec.one(LAUNCH_TEMPLATE, "k3s-aws-l4-lt").inputs["vpcSecurityGroupIds"] == [ids["nodes"]]
    # The server's own interface carries its groups; a template with groups too would be refused.
    assert "vpcSecurityGroupIds" not in stack.rec.one(LAUNCH_TEMPLATE, "k3s-aws-control-lt").inputs
    nlb = stack.rec.one(LB).inputs
    assert nlb["securityGroups"] == [ids["api-lb"]]


# --- API load balancer


def test_public_access_ranges_make_the_api_load_balancer_internet_facing(stack: Run) -> None:
    nlb = stack.rec.one(LB).inputs
    assert nlb["loadBalancerType"] == "network"
    assert nlb["internal"] is False
    assert nlb["subnets"] == subnet_ids(stack.rec, "public")
    assert nlb["enableCrossZoneLoadBalancing"] is True
    tg = stack.rec.one("aws:lb/targetGroup:TargetGroup").inputs
    assert (tg["port"], tg["protocol"], tg["targetType"], tg["preserveClientIp"]) == (
        6443,
        "TCP",
        "instance",
        "false",
    )
    assert tg["healthCheck"]["protocol"] == "TCP"
    listener = stack.rec.one("aws:lb/listener:Listener").inputs
    assert (listener["port"], listener["protocol"]) == (6443, "TCP")
    (attachment,) = stack.rec.of_type("aws:lb/targetGroupAttachment:TargetGroupAttachment")
    assert attachment.inputs["targetId"] == stack.rec.one(INSTANCE).id
    assert attachment.inputs["port"] == 6443


@pytest.mark.parametrize("cidrs", [["10.0.0.0/8"], ["10.0.0.0/8", "192.168.10.0/24"]])
def test_private_access_ranges_make_it_internal(cidrs: list[str]) -> None:
    rec = run(stack_config(apiAccessCidrs=cidrs, network=ROUTED_VPC)).rec
    nlb = rec.one(LB).inputs
    assert nlb["internal"] is True
    assert nlb["subnets"] == subnet_ids(rec, "private")
    assert sorted(r.inputs["cidrIpv4"] for r in rec.of_type(INGRESS) if "cidrIpv4" in r.inputs) == sorted(
        cidrs
    )


def test_an_existing_vpc_is_reused_with_its_public_subnets_for_the_api() -> None:
    network = {
        "vpcId": "vpc-0123456789abcdef0",
        "subnetIds": ["subnet-0aaa0000000000001", "subnet-0aaa0000000000002"],
        "publicSubnetIds": ["subnet-0bbb0000000000001", "subnet-0bbb0000000000002"],
    }
    rec = run(stack_config(network=network)).rec
    assert rec.of_type("aws:ec2/vpc:Vpc") == []
    assert rec.one(LB).inputs["subnets"] == network["publicSubnetIds"]
    assert rec.one(GROUP).inputs["vpcZoneIdentifiers"] == network["subnetIds"]
    assert rec.one("aws:lb/targetGroup:TargetGroup").inputs["vpcId"] == network["vpcId"]
    for sg in rec.of_type("aws:ec2/securityGroup:SecurityGroup"):
        assert sg.inputs["vpcId"] == network["vpcId"]


# --- join secrets and IAM


def test_join_secrets_are_stored_as_secrets_servers_get_the_cas_agents_the_token(stack: Run) -> None:
    versions = {v.name: v.inputs for v in stack.rec.of_type("aws:secretsmanager/secretVersion:SecretVersion")}
    assert set(versions) == {"k3s-aws-server-secret-version", "k3s-aws-agent-secret-version"}
    for inputs in versions.values():
        assert is_secret(inputs["secretString"])
    server = unsecret(versions["k3s-aws-server-secret-version"]["secretString"])
    assert "/var/lib/rancher/k3s/server/tls/server-ca.key\t" in server
    agent = unsecret(versions["k3s-aws-agent-secret-version"]["secretString"])
    assert [line.split("\t")[0] for line in agent.splitlines()] == ["/etc/rancher/k3s/gpukit-token"]
    for secret in stack.rec.of_type("aws:secretsmanager/secret:Secret"):
        assert secret.inputs["recoveryWindowInDays"] == 7
        assert secret.inputs["namePrefix"].startswith("gpukit/k3s-aws/k3s-")


def test_each_node_role_reads_only_its_own_secret(stack: Run) -> None:
    secrets = {s.name: stack.outputs(s)["arn"] for s in stack.rec.of_type("aws:secretsmanager/secret:Secret")}
    policies = {
        p.name: json.loads(p.inputs["policy"]) for p in stack.rec.of_type("aws:iam/rolePolicy:RolePolicy")
    }
    assert set(policies) == {
        "k3s-aws-server-read-secret",
        "k3s-aws-agent-read-secret",
        "k3s-aws-server-cluster-autoscaler",  # the servers' role also runs the autoscaler
        "k3s-aws-server-node-cleanup",  # and asks EC2 whether a node's instance is gone
    }
    profiles = {
        p.name: stack.outputs(p)["arn"] for p in stack.rec.of_type("aws:iam/instanceProfile:InstanceProfile")
    }
    for role in ("server", "agent"):
        read, *_ = policies[f"k3s-aws-{role}-read-secret"]["Statement"]
        assert read == {
            "Sid": "ReadOwnJoinSecret",
            "Effect": "Allow",
            "Action": "secretsmanager:GetSecretValue",
            "Resource": secrets[f"k3s-aws-{role}-secret"],
        }
    # Servers keep their profile (the autoscaler runs with it): they may detach none.
    assert len(policies["k3s-aws-server-read-secret"]["Statement"]) == 1
    _, find, detach = policies["k3s-aws-agent-read-secret"]["Statement"]
    # Read-only, no resource level: in the cluster's region only.
    assert find["Action"] == "ec2:DescribeIamInstanceProfileAssociations"
    assert (find["Resource"], find["Condition"]) == (
        "*",
        {"StringEquals": {"aws:RequestedRegion": "us-east-1"}},
    )
    # Detach a profile: only the agents' own, only from the cluster's instances, only the caller's own.
    assert detach["Action"] == "ec2:DisassociateIamInstanceProfile"
    assert detach["Resource"] == "arn:aws:ec2:us-east-1:*:instance/*"
    assert detach["Condition"] == {
        "ArnLike": {"ec2:SourceInstanceARN": "arn:aws:ec2:us-east-1:*:instance/${ec2:InstanceId}"},
        "ArnEquals": {"ec2:InstanceProfile": profiles["k3s-aws-agent-profile"]},
        "StringEquals": {"aws:ResourceTag/gpukit:cluster": "k3s-aws"},
    }
    for iam_role in stack.rec.of_type("aws:iam/role:Role"):
        trust = json.loads(iam_role.inputs["assumeRolePolicy"])
        assert trust["Statement"][0]["Principal"] == {"Service": "ec2.amazonaws.com"}
    assert stack.rec.of_type("aws:iam/rolePolicyAttachment:RolePolicyAttachment") == []
    # ... and each machine asks for the secret its role may read.
    fetch = {
        name: script_input(user_data_files(value)["fetch-secrets.sh"], "SECRET_ID")
        for name, value in all_user_data(stack.rec).items()
    }
    assert fetch == {
        "k3s-aws-l4-lt": secrets["k3s-aws-agent-secret"],
        "k3s-aws-control-0": secrets["k3s-aws-server-secret"],
    }


KEY = "aws:kms/key:Key"


def key_policy(rec: Recording) -> dict[str, dict[str, Any]]:
    """The servers' join key's policy, statement by Sid."""
    statements = json.loads(rec.one(KEY).inputs["policy"])["Statement"]
    return {s["Sid"]: s for s in statements}


def test_the_servers_secret_is_encrypted_with_a_key_of_its_own_the_agents_with_the_default(
    stack: Run,
) -> None:
    key = stack.rec.one(KEY)
    secrets = {s.name: s.inputs for s in stack.rec.of_type("aws:secretsmanager/secret:Secret")}
    assert secrets["k3s-aws-server-secret"]["kmsKeyId"] == stack.outputs(key)["arn"]
    assert "kmsKeyId" not in secrets["k3s-aws-agent-secret"]  # aws/secretsmanager: the agent token only
    assert key.inputs["enableKeyRotation"] is True
    assert key.inputs["deletionWindowInDays"] == 30
    (alias,) = stack.rec.of_type("aws:kms/alias:Alias")
    assert alias.inputs["name"] == "alias/gpukit/k3s-aws/k3s-server-join"
    assert alias.inputs["targetKeyId"] == stack.outputs(key)["keyId"]


def test_only_the_servers_decrypt_the_bundle_and_the_deployer_administers_the_key(stack: Run) -> None:
    roles = {r.name: stack.outputs(r)["arn"] for r in stack.rec.of_type("aws:iam/role:Role")}
    server_secret = stack.outputs(stack.rec.one("aws:secretsmanager/secret:Secret", "k3s-aws-server-secret"))
    deployer = "arn:aws:iam::123456789012:user/gpukit-plan"  # the plan's caller (AwsFakes)
    policy = key_policy(stack.rec)
    assert set(policy) == {
        "AccountAdministersOnly",
        "DeployerAdministers",
        "DeployerWritesThroughSecretsManager",
        "ServersDecryptThroughSecretsManager",
    }
    principals = {sid: s["Principal"]["AWS"] for sid, s in policy.items()}
    assert principals == {
        "AccountAdministersOnly": "arn:aws:iam::123456789012:root",
        "DeployerAdministers": deployer,
        "DeployerWritesThroughSecretsManager": deployer,
        "ServersDecryptThroughSecretsManager": roles["k3s-aws-server-role"],
    }
    assert roles["k3s-aws-agent-role"] not in json.dumps(policy)  # agents cannot decrypt it

    def actions(sid: str) -> set[str]:
        action = policy[sid]["Action"]
        return {action} if isinstance(action, str) else set(action)

    cryptographic = {"kms:Decrypt", "kms:Encrypt", "kms:GenerateDataKey", "kms:ReEncrypt*", "kms:*"}
    # Decrypting is the servers' and the deployer's, through Secrets Manager only, this secret only.
    assert actions("ServersDecryptThroughSecretsManager") == {"kms:Decrypt"}
    assert actions("DeployerWritesThroughSecretsManager") == {"kms:GenerateDataKey", "kms:Decrypt"}
    for sid in ("ServersDecryptThroughSecretsManager", "DeployerWritesThroughSecretsManager"):
        condition = policy[sid]["Condition"]
        assert condition["StringEquals"] == {"kms:ViaService": "secretsmanager.us-east-1.amazonaws.com"}
        pattern = condition["StringLike"]["kms:EncryptionContext:SecretARN"]
        assert (
            pattern == "arn:aws:secretsmanager:us-east-1:123456789012:secret:gpukit/k3s-aws/k3s-server-join-*"
        )
        assert fnmatch.fnmatchcase(server_secret["arn"], pattern)
        assert not fnmatch.fnmatchcase(
            stack.outputs(stack.rec.one("aws:secretsmanager/secret:Secret", "k3s-aws-agent-secret"))["arn"],
            pattern,
        )
    # Administering is no decrypting: neither the account (through IAM) nor the deployer's admin
    # statement holds a cryptographic action, or a grant that could hand one out (the account's).
    assert not actions("AccountAdministersOnly") & cryptographic
    assert "kms:Create*" not in actions("AccountAdministersOnly")
    assert not actions("DeployerAdministers") & cryptographic
    assert {"kms:Put*", "kms:ScheduleKeyDeletion", "kms:Create*"} <= actions("DeployerAdministers")
    assert all(s["Effect"] == "Allow" and s["Resource"] == "*" for s in policy.values())


def test_an_assumed_role_deployer_is_named_by_its_role(monkeypatch: pytest.MonkeyPatch) -> None:
    """A key policy cannot name an STS session (it changes with every sign-in): its role it can."""
    answer = AwsFakes.invoke

    def invoke(self: AwsFakes, token: str, args: dict[str, Any]) -> dict[str, Any] | None:
        found = answer(self, token, args)
        if token == "aws:index/getCallerIdentity:getCallerIdentity" and found is not None:
            return {**found, "arn": "arn:aws:sts::123456789012:assumed-role/Deployer/jane@example.com"}
        return found

    monkeypatch.setattr(AwsFakes, "invoke", invoke)
    policy = key_policy(run(stack_config()).rec)
    for sid in ("DeployerAdministers", "DeployerWritesThroughSecretsManager"):
        assert policy[sid]["Principal"] == {"AWS": "arn:aws:iam::123456789012:role/Deployer"}


def test_the_servers_describe_calls_stay_in_the_clusters_region(stack: Run) -> None:
    """Describe calls take no resource-level permission (`*`): what narrows them is the region."""
    for name in ("k3s-aws-server-cluster-autoscaler", "k3s-aws-server-node-cleanup"):
        policy = json.loads(stack.rec.one("aws:iam/rolePolicy:RolePolicy", name).inputs["policy"])
        describe = policy["Statement"][0]
        assert describe["Resource"] == "*"
        assert describe["Condition"] == {"StringEquals": {"aws:RequestedRegion": "us-east-1"}}
        actions = [describe["Action"]] if isinstance(describe["Action"], str) else describe["Action"]
        # The autoscaler reads a group's launch template for its node at zero.
        assert ("ec2:DescribeLaunchTemplateVersions" in actions) == (
            name == "k3s-aws-server-cluster-autoscaler"
        )


@pytest.mark.parametrize("fixture", ["stack", "ha"])
def test_no_user_data_holds_the_token_or_a_private_key(fixture: str, request: pytest.FixtureRequest) -> None:
    rec: Recording = request.getfixturevalue(fixture).rec
    server = unsecret(
        rec.one("aws:secretsmanager/secretVersion:SecretVersion", "k3s-aws-server-secret-version").inputs[
            "secretString"
        ]
    )
    files = bundle_files(server)
    secrets = list(files.values())
    token = files["/etc/rancher/k3s/gpukit-token"]
    assert token.startswith("K10") and "::server:plan-fake-" in token
    user_data = all_user_data(rec)
    assert len(user_data) == (2 if fixture == "stack" else 5)
    for name, value in user_data.items():
        text = user_data_text(value)
        assert text.startswith("#cloud-config\n"), name
        assert token not in text and token not in value, name
        assert "PRIVATE KEY" not in text, name
        for secret in secrets:
            assert secret not in text, name


# --- servers


def test_single_server_starts_the_cluster_without_etcd_and_keeps_its_user_data(stack: Run) -> None:
    (instance,) = stack.rec.of_type(INSTANCE)
    (eni,) = stack.rec.of_type(ENI)
    assert instance.inputs["primaryNetworkInterface"] == {"networkInterfaceId": eni.id}
    assert instance.inputs["instanceType"] == "m7i.large"
    assert instance.inputs["launchTemplate"]["id"] == stack.rec.one(LAUNCH_TEMPLATE, "k3s-aws-control-lt").id
    assert set(stack.ignore_changes[instance.name]) == {"userDataBase64", "launchTemplate"}
    config = k3s_config(instance.inputs["userDataBase64"])
    assert "server" not in config and "cluster-init" not in config
    dns_name = stack.outputs(stack.rec.one(LB))["dnsName"]
    assert config["tls-san"] == [dns_name, stack.outputs(eni)["privateIp"]]
    assert config["disable"] == ["traefik", "servicelb"]


def test_three_servers_join_through_each_other_all_in_the_certificate(ha: Run) -> None:
    instances = {i.name: i.inputs for i in ha.rec.of_type(INSTANCE)}
    assert sorted(instances) == ["k3s-aws-control-0", "k3s-aws-control-1", "k3s-aws-control-2"]
    enis = {e.name: e for e in ha.rec.of_type(ENI)}
    ips = [ha.outputs(enis[f"k3s-aws-control-{i}-eni"])["privateIp"] for i in range(3)]
    assert len(set(ips)) == 3
    assert len({e.inputs["subnetId"] for e in enis.values()}) == 3  # one zone each
    dns_name = ha.outputs(ha.rec.one(LB))["dnsName"]
    configs = [k3s_config(instances[f"k3s-aws-control-{i}"]["userDataBase64"]) for i in range(3)]
    installs = [
        user_data_files(instances[f"k3s-aws-control-{i}"]["userDataBase64"])["install.sh"] for i in range(3)
    ]
    urls = [f"https://{ip}:6443" for ip in ips]
    for i, install in enumerate(installs):
        # Through the others' network interfaces, which outlive the instances; the first alone may
        # start the cluster, with embedded etcd, when none of them answers.
        assert script_input(install, "JOIN_URLS").split() == [u for j, u in enumerate(urls) if j != i]
        assert script_input(install, "MAY_INIT") == ("true" if i == 0 else "false")
        assert script_input(install, "CLUSTER_INIT") == "true"
    for config in configs:
        assert config["tls-san"] == [dns_name, *ips]
        assert config["node-taint"] == ["CriticalAddonsOnly=true:NoExecute"]
        assert "server" not in config and "cluster-init" not in config
    attachments = ha.rec.of_type("aws:lb/targetGroupAttachment:TargetGroupAttachment")
    assert sorted(a.inputs["targetId"] for a in attachments) == sorted(i.id for i in ha.rec.of_type(INSTANCE))
    for name in instances:
        assert "userDataBase64" in ha.ignore_changes[name]


def test_private_access_ranges_keep_the_ha_api_internal(ha: Run) -> None:
    assert ha.rec.one(LB).inputs["internal"] is True


# --- access and the resource tree


def test_kubeconfig_and_api_wait_go_through_the_load_balancer(stack: Run) -> None:
    api_url = f"https://{stack.outputs(stack.rec.one(LB))['dnsName']}:6443"
    kubeconfig = yaml.safe_load(unsecret(stack.rec.one("pulumi:providers:kubernetes").inputs["kubeconfig"]))
    assert kubeconfig["clusters"][0]["cluster"]["server"] == api_url
    wait = stack.rec.one("command:local:Command").inputs
    assert api_url in wait["create"]
    # It checks as gpukit's admin (the binding may lag the API): the credentials only on stdin, secret.
    assert is_secret(wait["stdin"])
    names = [line.split("\t")[0] for line in unsecret(wait["stdin"]).splitlines()]
    assert names == ["ca.crt", "admin.crt", "admin.key"]
    assert "PRIVATE KEY" not in wait["create"]


def test_aws_resources_use_the_explicit_regional_provider(stack: Run) -> None:
    provider = stack.rec.one("pulumi:providers:aws")
    assert provider.inputs["region"] == "us-east-1"
    assert json.loads(provider.inputs["defaultTags"])["tags"]["gpukit:cluster"] == "k3s-aws"
    for r in stack.rec.resources:
        if r.custom and r.type.startswith("aws:"):
            assert r.provider.startswith(provider.urn), f"{r.name} uses a default provider"


def test_every_resource_but_the_root_has_a_parent_in_the_tree(stack: Run) -> None:
    urns = {r.urn for r in stack.rec.resources}
    roots = [r for r in stack.rec.resources if r.parent not in urns]
    assert [(r.type, r.name) for r in roots] == [("gpukit:index:GpuCluster", "k3s-aws")]
    assert {r.type for r in stack.rec.resources if not r.custom} == {
        "gpukit:index:GpuCluster",
        "gpukit:index:K3sEc2Cluster",
        "gpukit:index:AwsNetwork",
        "gpukit:index:K3sEc2SecurityGroups",
        "gpukit:index:K3sEc2ApiLoadBalancer",
        "gpukit:index:K3sPki",
        "gpukit:index:K3sEc2NodeRole",
        "gpukit:index:K3sEc2JoinKey",
        "gpukit:index:K3sEc2Servers",
        "gpukit:index:K3sEc2AgentPool",
        "gpukit:index:K3sCloudAccess",
        "gpukit:index:K3sPoolSync",
        "gpukit:index:K3sClusterAutoscaler",
        "gpukit:index:NodeTerminationHandler",
        "gpukit:index:GpuOperator",
    }


@pytest.mark.parametrize("fixture", ["stack", "ha"])
def test_every_resource_argument_is_one_the_provider_schema_knows(
    fixture: str, request: pytest.FixtureRequest
) -> None:
    rec: Recording = request.getfixturevalue(fixture).rec
    unknown = {
        r.name: names for r in rec.resources if r.custom and (names := unknown_argument_names(r.inputs))
    }
    assert unknown == {}


def test_the_agents_secret_holds_the_agent_token_only(stack: Run) -> None:
    """The server token joins servers and decrypts the bootstrap data: agents never get it."""

    def files(name: str) -> dict[str, str]:
        bundle = unsecret(
            stack.rec.one("aws:secretsmanager/secretVersion:SecretVersion", name).inputs["secretString"]
        )
        return bundle_files(bundle)

    server, agent = files("k3s-aws-server-secret-version"), files("k3s-aws-agent-secret-version")
    assert list(agent) == ["/etc/rancher/k3s/gpukit-token"]
    agent_token = agent["/etc/rancher/k3s/gpukit-token"]
    assert agent_token.startswith("K10") and "::node:" in agent_token
    assert agent_token.rsplit(":", 1)[1] == server["/etc/rancher/k3s/gpukit-agent-token"]
    assert server["/etc/rancher/k3s/gpukit-token"].rsplit(":", 1)[1] not in agent_token


def test_time_sliced_agent_pool_scales_from_zero_for_its_replicas() -> None:
    config = stack_config()
    gpu_pool = next(p for p in config["gpukit:nodePools"] if p["name"] == "l4")
    gpu_pool["sharing"] = {"mode": "time-slicing", "replicas": 3}
    rec = run(config).rec
    tags = {t["key"]: t["value"] for t in rec.one(GROUP).inputs["tags"]}
    assert tags["k8s.io/cluster-autoscaler/node-template/resources/nvidia.com/gpu"] == "3"
    assert tags["k8s.io/cluster-autoscaler/node-template/label/nvidia.com/device-plugin.config"] == (
        "time-slicing-3"
    )


# --- spot that drains


def test_spot_pools_get_the_termination_handler_on_their_nodes_only(stack: Run) -> None:
    handler = stack.rec.one("gpukit:index:NodeTerminationHandler")
    release = stack.rec.one("kubernetes:helm.sh/v3:Release", "k3s-aws-nth-release")
    assert stack.rec.parent_of(release) == handler
    assert stack.rec.parent_of(handler) == stack.rec.one("gpukit:index:K3sEc2Cluster")
    inputs = release.inputs
    assert (inputs["chart"], inputs["version"], inputs["namespace"], inputs["name"]) == (
        "oci://public.ecr.aws/aws-ec2/helm/aws-node-termination-handler",
        "0.27.6",
        "kube-system",
        "aws-node-termination-handler",
    )
    values = inputs["values"]
    term = values["daemonsetAffinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert term["nodeSelectorTerms"][0]["matchExpressions"] == [
        {"key": "gpukit.dev/pool", "operator": "In", "values": ["l4"]}
    ]
    assert values["enableSqsTerminationDraining"] is False and values["enableRebalanceDraining"] is True
    # Installed through the cluster's own provider, once the API answers.
    k8s_provider = stack.rec.one("pulumi:providers:kubernetes")
    assert release.provider.startswith(k8s_provider.urn)
    # The node side: spot machines keep the kubelet's graceful shutdown for a power-off without notice.
    files = user_data_files(stack.rec.one(LAUNCH_TEMPLATE, "k3s-aws-l4-lt").inputs["userData"])
    kubelet = yaml.safe_load(script_input(files["install.sh"], "KUBELET_CONFIG"))
    assert kubelet["shutdownGracePeriod"] == "60s"


def test_no_spot_pool_no_termination_handler() -> None:
    config = stack_config()
    config["gpukit:nodePools"][1] = {
        "name": "l4",
        "instanceType": "g6.xlarge",
        "minNodes": 0,
        "maxNodes": 2,
    }
    rec = run(config).rec
    assert rec.of_type("gpukit:index:NodeTerminationHandler") == []
    assert "aws-node-termination-handler" not in {
        r.inputs.get("name") for r in rec.of_type("kubernetes:helm.sh/v3:Release")
    }


def test_spot_agents_install_and_enable_the_spot_notice_backstop_and_no_other_machine_does(ha: Run) -> None:
    """The l4 pool is spot, cpu on-demand, the three servers on-demand: only l4's machines power off
    ahead of an interruption, in time for the kubelet's graceful shutdown (spot_notice.py)."""
    user_data = all_user_data(ha.rec)
    assert sorted(user_data) == [
        "k3s-aws-control-0",
        "k3s-aws-control-1",
        "k3s-aws-control-2",
        "k3s-aws-cpu-lt",
        "k3s-aws-l4-lt",
    ]
    for name, value in user_data.items():
        document = yaml.safe_load(user_data_text(value))
        paths = {f["path"]: f for f in document["write_files"]}
        enable = ["systemctl", "enable", "--now", "--no-block", "gpukit-spot-notice.service"]
        if name == "k3s-aws-l4-lt":
            unit = paths["/etc/systemd/system/gpukit-spot-notice.service"]
            script = paths["/usr/local/lib/gpukit/spot-notice.sh"]
            assert "ExecStart=/usr/local/lib/gpukit/spot-notice.sh" in unit["content"]
            assert "WantedBy=multi-user.target" in unit["content"]  # enabled: it runs at every boot
            assert (unit["permissions"], script["permissions"]) == ("0644", "0700")
            assert enable in document["runcmd"]
            # Sized to the kubelet's window that this very machine's install writes.
            kubelet = yaml.safe_load(script_input(user_data_files(value)["install.sh"], "KUBELET_CONFIG"))
            assert (
                f"SHUTDOWN_GRACE_SECONDS={kubelet['shutdownGracePeriod'].removesuffix('s')}\n"
                in (script["content"])
            )
        else:
            assert not any("spot-notice" in path for path in paths), name
            assert enable not in document["runcmd"], name


def test_a_spot_machine_that_powers_itself_off_is_terminated_not_stopped(ha: Run) -> None:
    """The backstop powers a spot machine off ahead of EC2: EC2's default for an OS power-off is to
    stop the instance; the spot pool's template says terminate, so the group replaces it at once."""
    templates = {r.name: r.inputs for r in ha.rec.of_type("aws:ec2/launchTemplate:LaunchTemplate")}
    assert templates["k3s-aws-l4-lt"]["instanceInitiatedShutdownBehavior"] == "terminate"
    assert "instanceInitiatedShutdownBehavior" not in templates["k3s-aws-cpu-lt"]
