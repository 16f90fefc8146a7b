"""The Cluster Autoscaler on k3s on EC2 and Compute Engine: what the mock engine recorded for the
release, the identity it runs with, the groups' scale-from-zero hints and the provider IDs machines
register with."""

import copy
import json
from typing import Any

import pytest
import yaml
from component.test_k3s_aws import all_user_data, user_data_files
from component.test_k3s_aws import run as run_aws
from component.test_k3s_aws import stack_config as aws_config
from component.test_k3s_gcp import k3s_gcp_config, server_instances, startup_script
from component.test_k3s_gcp import run as run_gcp

from gpukit.plan.fakes import Recorded
from harness import Recording, unsecret
from tools import script_input

RELEASE = "kubernetes:helm.sh/v3:Release"
AWS_READ_ONLY = {"Describe", "ScaleOwnGroupsOnly"}
GCE_GROUP = "gcp:compute/instanceGroupManager:InstanceGroupManager"
GCE_TEMPLATE = "gcp:compute/instanceTemplate:InstanceTemplate"
IAM_MEMBER = "gcp:projects/iAMMember:IAMMember"
CUSTOM_ROLE = "gcp:projects/iAMCustomRole:IAMCustomRole"
SERVER_SELECTOR = {"node-role.kubernetes.io/control-plane": "true"}
SERVER_TOLERATIONS = [
    {"key": "CriticalAddonsOnly", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node-role.kubernetes.io/control-plane", "operator": "Exists", "effect": "NoSchedule"},
]


def release(rec: Recording) -> Recorded:
    return rec.one(RELEASE, next(r.name for r in rec.of_type(RELEASE) if "cluster-autoscaler" in r.name))


@pytest.fixture(scope="module")
def aws() -> Recording:
    return run_aws(aws_config()).rec


@pytest.fixture(scope="module")
def gce() -> Recording:
    return run_gcp(k3s_gcp_config())


def assert_runs_on_the_servers_with_their_identity(values: dict[str, Any]) -> None:
    # On the servers (agent pools may all be at zero), in the host's network: the metadata service
    # (the machine's identity) is out of reach from the pod network.
    assert values["nodeSelector"] == SERVER_SELECTOR
    assert values["tolerations"] == SERVER_TOLERATIONS
    assert values["hostNetwork"] is True
    assert values["dnsPolicy"] == "Default"
    # No static credentials of any kind.
    assert not {"awsAccessKeyID", "awsSecretAccessKey", "extraEnvSecrets", "envFromSecret"} & set(values)


# --- EC2


def test_ec2_release_is_the_pinned_chart_with_the_aws_provider_over_the_clusters_groups(
    aws: Recording,
) -> None:
    found = release(aws)
    inputs = found.inputs
    assert (inputs["chart"], inputs["version"], inputs["namespace"]) == (
        "cluster-autoscaler",
        "9.59.0",
        "kube-system",
    )
    assert inputs["repositoryOpts"] == {"repo": "https://kubernetes.github.io/autoscaler"}
    values = inputs["values"]
    assert values["cloudProvider"] == "aws"
    assert values["awsRegion"] == "us-east-1"
    # The chart's default discovery tags, `enabled` and `<cluster>`: the ones the groups carry.
    assert values["autoDiscovery"] == {"clusterName": "k3s-aws"}
    assert values["image"] == {"tag": "v1.36.1"}  # the cluster's minor (1.36)
    assert values["extraArgs"]["expander"] == "least-waste"  # one spot pool: nothing to prefer
    assert "expanderPriorities" not in values
    assert_runs_on_the_servers_with_their_identity(values)
    # Installed through the cluster's own provider, which waits until the API answers.
    access = aws.one("pulumi:providers:kubernetes", "k3s-aws-access-k8s")
    assert found.provider.startswith(access.urn)
    assert any(u.endswith("k3s-aws-access-wait-for-api") for u in access.dependencies)


def test_ec2_servers_may_resize_only_this_clusters_groups(aws: Recording) -> None:
    policy = json.loads(
        aws.one("aws:iam/rolePolicy:RolePolicy", "k3s-aws-server-cluster-autoscaler").inputs["policy"]
    )
    describe, scale = policy["Statement"]
    assert describe["Sid"] == "Describe" and all(
        a.split(":")[1].startswith(("Describe", "Get")) for a in describe["Action"]
    )
    assert "eks:DescribeNodegroup" not in describe["Action"]  # plain groups: their own node-template tags
    assert scale["Action"] == [
        "autoscaling:SetDesiredCapacity",
        "autoscaling:TerminateInstanceInAutoScalingGroup",
    ]
    assert scale["Condition"] == {
        "StringEquals": {
            "aws:ResourceTag/k8s.io/cluster-autoscaler/enabled": "true",
            "aws:ResourceTag/k8s.io/cluster-autoscaler/k3s-aws": "owned",
        }
    }
    cleanup = json.loads(
        aws.one("aws:iam/rolePolicy:RolePolicy", "k3s-aws-server-node-cleanup").inputs["policy"]
    )
    assert [(st["Action"], st["Resource"]) for st in cleanup["Statement"]] == [("ec2:DescribeInstances", "*")]
    # The agents' role gets none of it.
    agent_policies = [
        r.name for r in aws.of_type("aws:iam/rolePolicy:RolePolicy") if r.name.startswith("k3s-aws-agent")
    ]
    assert agent_policies == ["k3s-aws-agent-read-secret"]


def test_ec2_machines_register_with_their_provider_id_and_servers_keep_their_identity(aws: Recording) -> None:
    files = {name: user_data_files(value) for name, value in all_user_data(aws).items()}
    server, agent = files["k3s-aws-control-0"], files["k3s-aws-l4-lt"]
    for scripts in (server, agent):
        assert "aws:///$zone/$instance" in scripts["provider-id.sh"]
    # The autoscaler runs with the servers' instance profile: they do not detach it once joined.
    assert "release-identity.sh" not in server
    assert "release-identity.sh" in agent


def test_ec2_spot_pool_is_preferred_over_an_on_demand_pool_of_the_same_gpus() -> None:
    config = aws_config()
    on_demand = copy.deepcopy(next(p for p in config["gpukit:nodePools"] if p["name"] == "l4"))
    on_demand.update(name="l4-od", capacity="on-demand", minNodes=0, maxNodes=2)
    on_demand.pop("alternativeInstanceTypes", None)
    config["gpukit:nodePools"].append(on_demand)
    values = release(run_aws(config).rec).inputs["values"]
    assert values["extraArgs"]["expander"] == "priority,least-waste"
    # The pool `l4`'s pattern matches its own group only, not `l4-od`'s (k3s-aws-l4-od-<26 digits>).
    assert values["expanderPriorities"] == {"20": [r"^k3s\-aws\-l4\-[0-9]{26}$"], "10": [".*"]}


# --- Compute Engine


def gce_groups(rec: Recording) -> dict[str, Recorded]:
    return {r.inputs["zone"]: r for r in rec.of_type(GCE_GROUP)}


def test_gce_release_names_each_zonal_group_with_its_bounds(gce: Recording) -> None:
    values = release(gce).inputs["values"]
    assert values["cloudProvider"] == "gce"
    assert values["image"] == {"tag": "v1.36.1"}
    base = "https://www.googleapis.com/compute/v1/projects/acme-ml-dev/zones"
    assert values["autoscalingGroups"] == [
        {"name": f"{base}/us-central1-a/instanceGroups/k3s-gcp-l4-a", "minSize": 0, "maxSize": 2},
        {"name": f"{base}/us-central1-b/instanceGroups/k3s-gcp-l4-b", "minSize": 0, "maxSize": 1},
        {"name": f"{base}/us-central1-c/instanceGroups/k3s-gcp-l4-c", "minSize": 0, "maxSize": 1},
    ]
    assert sum(g["maxSize"] for g in values["autoscalingGroups"]) == 4  # the pool's maxNodes
    assert "autoDiscovery" not in values
    assert_runs_on_the_servers_with_their_identity(values)


def kube_env_vars(template: Recorded) -> dict[str, str]:
    kube_env = yaml.safe_load(template.inputs["metadata"]["kube-env"])
    return dict(item.split("=", 1) for item in kube_env["AUTOSCALER_ENV_VARS"].split(";"))


def test_gce_template_tells_the_autoscaler_what_a_node_at_zero_would_be(gce: Recording) -> None:
    found = kube_env_vars(gce.one(GCE_TEMPLATE))
    labels = dict(pair.split("=", 1) for pair in found["node_labels"].split(","))
    assert labels["gpukit.dev/pool"] == "l4"
    assert labels["cloud.google.com/gke-accelerator"] == "nvidia-l4"  # the GCE provider's GPU label
    assert found["node_taints"] == "nvidia.com/gpu=present:NoSchedule"
    # G2 brings its L4 without guest accelerators: the GPU count comes from here.
    assert found["extended_resources"] == "nvidia.com/gpu=1"
    assert (found["os"], found["os_distribution"], found["arch"]) == ("linux", "ubuntu", "amd64")


def test_gce_template_advertises_time_sliced_replicas() -> None:
    config = k3s_gcp_config()
    config["gpukit:nodePools"][1]["sharing"] = {"mode": "time-slicing", "replicas": 4}
    found = kube_env_vars(run_gcp(config).one(GCE_TEMPLATE))
    assert found["extended_resources"] == "nvidia.com/gpu=4"


def test_gce_nodes_carry_the_gpu_label_the_template_promises(gce: Recording) -> None:
    script = startup_script(gce.one(GCE_TEMPLATE).inputs)
    assert "cloud.google.com/gke-accelerator=nvidia-l4" in script
    assert "gce://$project/$zone/$name" in script  # and register under their provider ID
    for server in server_instances(gce):
        assert "gce://$project/$zone/$name" in startup_script(server.inputs)


def test_gce_servers_may_resize_only_this_clusters_groups(gce: Recording) -> None:
    roles = {r.inputs["roleId"]: r.inputs["permissions"] for r in gce.of_type(CUSTOM_ROLE)}
    assert roles["gpukit_k3s_gcp_autoscaler_resize"] == ["compute.instanceGroupManagers.update"]
    reads = roles["gpukit_k3s_gcp_autoscaler_read"]
    assert all(p.rsplit(".", 1)[1] in ("get", "list") for p in reads)
    bindings = {
        r.inputs["role"].rsplit("/", 1)[1]: r.inputs
        for r in gce.of_type(IAM_MEMBER)
        if "autoscaler" in r.name
    }
    server = "serviceAccount:k3s-gcp-k3s-server@acme-ml-dev.iam.gserviceaccount.com"
    assert {b["member"] for b in bindings.values()} == {server}
    assert "condition" not in bindings["gpukit_k3s_gcp_autoscaler_read"]
    condition = unsecret(bindings["gpukit_k3s_gcp_autoscaler_resize"]["condition"])
    ids = sorted(r.id for r in gce.of_type(GCE_GROUP))
    assert ids == [
        f"projects/acme-ml-dev/zones/us-central1-{z}/instanceGroupManagers/k3s-gcp-l4-{z}" for z in "abc"
    ]
    assert condition["expression"] == " || ".join(f'resource.name == "{i}"' for i in ids)


def test_servers_node_sync_asks_the_cloud_whether_a_nodes_machine_is_gone(
    aws: Recording, gce: Recording
) -> None:
    server = user_data_files(all_user_data(aws)["k3s-aws-control-0"])
    node_sync = script_input(server["install.sh"], "NODE_SYNC_SCRIPT")
    assert "Action=DescribeInstances" in node_sync and script_input(node_sync, "REGION") == "us-east-1"
    agent = user_data_files(all_user_data(aws)["k3s-aws-l4-lt"])
    assert script_input(agent["install.sh"], "NODE_SYNC_SCRIPT") == ""  # servers only
    for instance in server_instances(gce):
        assert "https://compute.googleapis.com/compute/v1/projects/" in startup_script(instance.inputs)


def test_gce_servers_read_only_this_clusters_instance_templates(gce: Recording) -> None:
    """A template holds its machines' metadata (in a shared project, other teams' startup scripts):
    the servers may read this cluster's agent templates by name, and list none."""
    roles = {r.inputs["roleId"]: r.inputs["permissions"] for r in gce.of_type(CUSTOM_ROLE)}
    assert roles["gpukit_k3s_gcp_autoscaler_templates"] == ["compute.instanceTemplates.get"]
    assert not any("instanceTemplates" in p for p in roles["gpukit_k3s_gcp_autoscaler_read"])
    binding = next(
        r.inputs
        for r in gce.of_type(IAM_MEMBER)
        if r.inputs["role"].endswith("/gpukit_k3s_gcp_autoscaler_templates")
    )
    templates = sorted(r.id for r in gce.of_type(GCE_TEMPLATE))
    assert templates and all(
        t.startswith("projects/acme-ml-dev/global/instanceTemplates/") for t in templates
    )
    expression = unsecret(binding["condition"])["expression"]
    assert expression == " || ".join(f'resource.name == "{t}"' for t in templates)
