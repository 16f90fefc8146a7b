"""GpuCluster with k3s on Compute Engine under the mocks: assertions on the recorded inputs."""

import base64
import copy
import re
import shlex
from typing import Any

import pytest
import yaml

from gpukit.components.k3s.host_scripts import secrets_bundle
from gpukit.components.name_rules import ResourceNameError
from gpukit.plan.fakes import Recorded
from gpukit.program import build
from gpukit.providers.gcp.fakes import KMS_PLAINTEXT_LIMIT, SECRET_PAYLOAD_LIMIT, GcpFakes
from harness import (
    Recording,
    answer_gcp_quotas,
    example_config,
    is_secret,
    record,
    unknown_argument_names,
    unsecret,
)
from tools import script_input

K3S_GCP: dict[str, Any] = example_config("k3s-gcp")
NAME = "k3s-gcp"
INSTANCE = "gcp:compute/instance:Instance"
TEMPLATE = "gcp:compute/instanceTemplate:InstanceTemplate"
GROUP = "gcp:compute/instanceGroupManager:InstanceGroupManager"
ADDRESS = "gcp:compute/address:Address"
FIREWALL = "gcp:compute/firewall:Firewall"
CIPHERTEXT = "gcp:kms/secretCiphertext:SecretCiphertext"
DLVM = "projects/deeplearning-platform-release/global/images/family/common-cu129-ubuntu-2404-nvidia-580"
UBUNTU = "projects/ubuntu-os-cloud/global/images/family/ubuntu-2404-lts-amd64"


def k3s_gcp_config(**cluster: Any) -> dict[str, Any]:
    config = copy.deepcopy(K3S_GCP)
    config["gpukit:cluster"].update(cluster)
    return config


def with_gpu_pool(pool: dict[str, Any], **operator: Any) -> dict[str, Any]:
    config = k3s_gcp_config()
    config["gpukit:nodePools"][1] = pool
    config["gpukit:gpuOperator"].update(operator)
    return config


def run(config: dict[str, Any]) -> Recording:
    return record(lambda: build(config), region=config["gcp:region"], project=config["gcp:project"])


@pytest.fixture(scope="module")
def stack() -> Recording:
    return run(k3s_gcp_config())


def plain(value: Any) -> Any:
    return unsecret(value)


def startup_script(inputs: dict[str, Any]) -> str:
    script = plain(inputs["metadata"]["startup-script"])
    assert isinstance(script, str)
    return script


def k3s_config(script: str) -> dict[str, Any]:
    """The k3s config.yaml in a startup script (install.sh's K3S_CONFIG assignment)."""
    config: dict[str, Any] = yaml.safe_load(script_input(script, "K3S_CONFIG"))
    return config


def server_instances(rec: Recording) -> list[Recorded]:
    """The k3s servers' VMs (the example's NFS VM, K3sGceNfsServer's, is tested in test_k3s_gcp_nfs.py)."""
    return [r for r in rec.of_type(INSTANCE) if "K3sGceServers$" in r.urn]


def servers(rec: Recording) -> dict[str, dict[str, Any]]:
    return {r.name.removeprefix(f"{NAME}-"): r.inputs for r in server_instances(rec)}


def groups(rec: Recording) -> dict[str, dict[str, Any]]:
    return {r.inputs["zone"]: r.inputs for r in rec.of_type(GROUP)}


def test_agent_pool_is_one_zonal_group_per_l4_zone_starting_at_zero(stack: Recording) -> None:
    """The autoscaler's GCE provider scales zonal groups only; maxNodes 4 is split over three zones."""
    found = groups(stack)
    assert {zone: (g["name"], g["targetSize"]) for zone, g in found.items()} == {
        "us-central1-a": ("k3s-gcp-l4-a", 0),
        "us-central1-b": ("k3s-gcp-l4-b", 0),
        "us-central1-c": ("k3s-gcp-l4-c", 0),
    }
    assert "0..2 machines" in found["us-central1-a"]["description"]
    template = stack.one(TEMPLATE)
    for group in found.values():
        assert group["updatePolicy"] == {"type": "OPPORTUNISTIC", "minimalAction": "REPLACE"}
        assert group["versions"][0]["instanceTemplate"].startswith(
            "https://www.googleapis.com/compute/v1/projects/acme-ml-dev/global/instanceTemplates/"
        )
        assert "uniqueId=" in group["versions"][0]["instanceTemplate"]
    assert template.inputs["namePrefix"] == "k3s-gcp-l4-"


def test_l4_template_boots_the_deep_learning_vm_without_attached_gpus(stack: Recording) -> None:
    template = stack.one(TEMPLATE).inputs
    assert template["machineType"] == "g2-standard-8"
    assert template["guestAccelerators"] == []  # G2 comes with its L4
    assert template["scheduling"]["provisioningModel"] == "SPOT"  # the example's pool is spot
    assert template["shieldedInstanceConfig"] == {
        "enableSecureBoot": False,
        "enableVtpm": True,
        "enableIntegrityMonitoring": True,
    }
    (disk,) = template["disks"]
    assert (disk["sourceImage"], disk["diskType"], disk["diskSizeGb"]) == (DLVM, "pd-balanced", 100)
    assert template["networkInterfaces"] == [
        {"subnetwork": "projects/acme-ml-dev/regions/us-central1/subnetworks/k3s-gcp-us-central1"}
    ]
    assert template["tags"] == ["k3s-gcp-k3s-node"]
    assert template["metadata"]["block-project-ssh-keys"] == "true"
    assert template["metadata"]["enable-oslogin"] == "TRUE"
    assert template["serviceAccount"]["email"] == "k3s-gcp-k3s-agent@acme-ml-dev.iam.gserviceaccount.com"


def test_agents_join_through_the_servers_and_check_their_gpu(stack: Recording) -> None:
    script = startup_script(stack.one(TEMPLATE).inputs)
    ips = [servers(stack)[f"control-{i}"]["networkInterfaces"][0]["networkIp"] for i in range(3)]
    agent = k3s_config(script)
    assert "server" not in agent and agent["with-node-id"] is True
    assert f"JOIN_URLS={shlex.quote(' '.join(f'https://{ip}:6443' for ip in ips))}\n" in script
    assert agent["node-taint"] == ["nvidia.com/gpu=present:NoSchedule"]
    assert "gpukit.dev/pool=l4" in agent["node-label"]
    assert "EXPECT_GPUS=1\n" in script
    assert "DRIVER_MODE=preinstalled\n" in script
    # The version the stack wrote, never `latest` (a later write would change it under the machines).
    assert re.search(
        r"\nSECRET_VERSION=projects/acme-ml-dev/secrets/k3s-gcp-k3s-agent-join/versions/\d+\n", script
    )


def test_operator_mode_boots_plain_ubuntu() -> None:
    rec = run(with_gpu_pool(K3S_GCP["gpukit:nodePools"][1], driver="operator"))
    (disk,) = rec.one(TEMPLATE).inputs["disks"]
    assert disk["sourceImage"] == UBUNTU
    assert rec.one(TEMPLATE).inputs["shieldedInstanceConfig"]["enableSecureBoot"] is False


def test_n1_pools_attach_their_t4s() -> None:
    pool = {
        "name": "t4",
        "instanceType": "n1-standard-8",
        "minNodes": 0,
        "maxNodes": 2,
        "gpu": {"model": "T4", "count": 2},
    }
    rec = run(with_gpu_pool(pool))
    template = rec.one(TEMPLATE).inputs
    assert template["machineType"] == "n1-standard-8"
    assert template["guestAccelerators"] == [{"type": "nvidia-tesla-t4", "count": 2}]
    assert template["scheduling"]["onHostMaintenance"] == "TERMINATE"
    # maxNodes 2 over the four T4 zones: groups only where a share of it is left.
    assert {zone: (g["targetSize"], g["description"].split(": ")[1]) for zone, g in groups(rec).items()} == {
        "us-central1-a": (0, "0..1 machines, sized by the Cluster Autoscaler"),
        "us-central1-b": (0, "0..1 machines, sized by the Cluster Autoscaler"),
    }


def test_spot_pools_are_deleted_when_preempted() -> None:
    pool = dict(K3S_GCP["gpukit:nodePools"][1], capacity="spot")
    rec = run(with_gpu_pool(pool))
    assert rec.one(TEMPLATE).inputs["scheduling"] == {
        "provisioningModel": "SPOT",
        "preemptible": True,
        "automaticRestart": False,
        "onHostMaintenance": "TERMINATE",
        "instanceTerminationAction": "DELETE",
    }


def test_firewall_rules_are_exactly_k3s_ports_and_none_from_anywhere(stack: Recording) -> None:
    # The k3s rules (the NFS VM's own rule: test_k3s_gcp_nfs.py).
    rules = {r.inputs["name"]: r.inputs for r in stack.of_type(FIREWALL) if "K3sGceNfsServer$" not in r.urn}
    summary = {
        name: (
            rule["allows"][0]["protocol"],
            tuple(rule["allows"][0]["ports"]),
            tuple(rule.get("sourceRanges") or ()),
            tuple(rule.get("sourceServiceAccounts") or ()),
            tuple(rule["targetServiceAccounts"]),
        )
        for name, rule in rules.items()
    }
    server = ("k3s-gcp-k3s-server@acme-ml-dev.iam.gserviceaccount.com",)
    nodes = (*server, "k3s-gcp-k3s-agent@acme-ml-dev.iam.gserviceaccount.com")
    assert summary == {
        "k3s-gcp-k3s-api-clients": ("tcp", ("6443",), ("203.0.113.0/24",), (), server),
        "k3s-gcp-k3s-api-nodes": ("tcp", ("6443",), (), nodes, server),
        "k3s-gcp-k3s-flannel": ("udp", ("8472",), (), nodes, nodes),
        "k3s-gcp-k3s-kubelet": ("tcp", ("10250",), (), nodes, nodes),
        "k3s-gcp-k3s-etcd": ("tcp", ("2379-2380",), (), server, server),
    }
    # Never by network tag: anyone who may tag a VM of the network could take the cluster's.
    assert not [r for r in rules.values() if r.get("sourceTags") or r.get("targetTags")]
    for rule in rules.values():
        assert rule["network"] == "projects/acme-ml-dev/global/networks/k3s-gcp-vpc"
        assert rule["direction"] == "INGRESS"


def test_join_secrets_are_secret_and_each_account_reads_only_its_own(stack: Recording) -> None:
    versions = {r.name: r.inputs for r in stack.of_type("gcp:secretmanager/secretVersion:SecretVersion")}
    assert sorted(versions) == ["k3s-gcp-join-agent-version", "k3s-gcp-join-server-version"]
    for inputs in versions.values():
        assert is_secret(inputs["secretData"])
    # The servers' bundle reaches Secret Manager as its Cloud KMS ciphertext only (tests below).
    plaintext = stack.one(CIPHERTEXT).inputs["plaintext"]
    assert is_secret(plaintext)
    assert "/var/lib/rancher/k3s/server/tls/server-ca.key" in plain(plaintext)
    assert "tls/" not in plain(versions["k3s-gcp-join-agent-version"]["secretData"])
    readers = {
        r.inputs["member"]: r.inputs
        for r in stack.of_type("gcp:secretmanager/secretIamMember:SecretIamMember")
    }
    assert {member: (r["secretId"], r["role"]) for member, r in readers.items()} == {
        "serviceAccount:k3s-gcp-k3s-server@acme-ml-dev.iam.gserviceaccount.com": (
            "projects/acme-ml-dev/secrets/k3s-gcp-k3s-server-join",
            "roles/secretmanager.secretAccessor",
        ),
        "serviceAccount:k3s-gcp-k3s-agent@acme-ml-dev.iam.gserviceaccount.com": (
            "projects/acme-ml-dev/secrets/k3s-gcp-k3s-agent-join",
            "roles/secretmanager.secretAccessor",
        ),
    }
    project_roles = {r.inputs["role"] for r in stack.of_type("gcp:projects/iAMMember:IAMMember")}
    assert project_roles == {
        "roles/logging.logWriter",
        "roles/monitoring.metricWriter",
        # the servers' Cluster Autoscaler (test_k3s_autoscaler.py)
        "projects/acme-ml-dev/roles/gpukit_k3s_gcp_autoscaler_read",
        "projects/acme-ml-dev/roles/gpukit_k3s_gcp_autoscaler_resize",
        "projects/acme-ml-dev/roles/gpukit_k3s_gcp_autoscaler_templates",
        # the servers' node sync asks about this cluster's machines only (test below)
        "projects/acme-ml-dev/roles/gpukit_k3s_gcp_machine_read",
    }
    api = stack.one("gcp:projects/service:Service", f"{NAME}-join-secretmanager-api").inputs
    assert (api["service"], api["disableOnDestroy"]) == ("secretmanager.googleapis.com", False)


def test_the_token_is_in_no_metadata(stack: Recording) -> None:
    # The agents' bundle is the token alone: `path<TAB>base64(token)`.
    bundle = plain(stack.named("k3s-gcp-join-agent-version").inputs["secretData"])
    value = base64.b64decode(bundle.split("\t", 1)[1]).decode()
    assert value.startswith("K10") and "::node:plan-fake-" in value  # the agent token only
    for r in [*stack.of_type(INSTANCE), *stack.of_type(TEMPLATE)]:
        text = str(plain(r.inputs["metadata"]))
        assert value not in text, r.name
        assert base64.b64encode(value.encode()).decode() not in text, r.name


def test_three_servers_at_static_addresses_join_through_each_other(stack: Recording) -> None:
    by_name = servers(stack)
    assert sorted(by_name) == ["control-0", "control-1", "control-2"]
    ordered = [by_name[f"control-{i}"] for i in range(3)]
    assert [s["zone"] for s in ordered] == ["us-central1-a", "us-central1-b", "us-central1-c"]
    internal = [stack.named(f"{NAME}-control-{i}-internal").inputs for i in range(3)]
    assert {(a["addressType"], a["region"]) for a in internal} == {("INTERNAL", "us-central1")}
    ips = [s["networkInterfaces"][0]["networkIp"] for s in ordered]
    nat_ips = [s["networkInterfaces"][0]["accessConfigs"][0]["natIp"] for s in ordered]
    assert len(set(ips + nat_ips)) == 6
    configs = [k3s_config(startup_script(s)) for s in ordered]
    urls = [f"https://{ip}:6443" for ip in ips]
    for i, s in enumerate(ordered):
        script = startup_script(s)
        others = " ".join(u for j, u in enumerate(urls) if j != i)
        assert f"JOIN_URLS={shlex.quote(others)}\n" in script
        assert f"MAY_INIT={'true' if i == 0 else 'false'}\n" in script
    for config in configs:
        assert "server" not in config and "cluster-init" not in config
        assert sorted(config["tls-san"]) == sorted(ips + nat_ips)
    for inputs in by_name.values():
        assert inputs["bootDisk"]["initializeParams"]["image"] == UBUNTU
        assert inputs["shieldedInstanceConfig"] == {
            "enableSecureBoot": True,
            "enableVtpm": True,
            "enableIntegrityMonitoring": True,
        }
        assert inputs["tags"] == ["k3s-gcp-k3s-node", "k3s-gcp-k3s-server"]
        assert inputs["allowStoppingForUpdate"] is True
        assert inputs["metadata"]["block-project-ssh-keys"] == "true"
        assert inputs["serviceAccount"]["email"] == "k3s-gcp-k3s-server@acme-ml-dev.iam.gserviceaccount.com"
        assert inputs["serviceAccount"]["scopes"] == ["https://www.googleapis.com/auth/cloud-platform"]


def test_kubeconfig_names_the_first_servers_external_address(stack: Recording) -> None:
    nat_ip = servers(stack)["control-0"]["networkInterfaces"][0]["accessConfigs"][0]["natIp"]
    kubeconfig = stack.one("pulumi:providers:kubernetes").inputs["kubeconfig"]
    assert is_secret(kubeconfig)
    assert yaml.safe_load(plain(kubeconfig))["clusters"][0]["cluster"]["server"] == f"https://{nat_ip}:6443"


ROUTED_NETWORK = {
    "networkId": "projects/acme-ml-dev/global/networks/shared",
    "subnetworkId": "projects/acme-ml-dev/regions/us-central1/subnetworks/gpu",
}


@pytest.mark.parametrize("cidrs", [["10.0.0.0/8"], ["172.16.0.0/12", "100.64.0.0/10"]])
def test_private_api_clients_get_no_external_addresses(cidrs: list[str]) -> None:
    # In a reused network the deployer routes into (in a new one, a private API is refused).
    rec = run(k3s_gcp_config(apiAccessCidrs=cidrs, network=ROUTED_NETWORK))
    assert {a.inputs["addressType"] for a in rec.of_type(ADDRESS)} == {"INTERNAL"}
    for inputs in servers(rec).values():
        assert not inputs["networkInterfaces"][0].get("accessConfigs")
    first_ip = servers(rec)["control-0"]["networkInterfaces"][0]["networkIp"]
    kubeconfig = yaml.safe_load(plain(rec.one("pulumi:providers:kubernetes").inputs["kubeconfig"]))
    assert kubeconfig["clusters"][0]["cluster"]["server"] == f"https://{first_ip}:6443"
    rules = {r.inputs["name"] for r in rec.of_type(FIREWALL)}
    assert ("k3s-gcp-k3s-api-clients" in rules) is bool(cidrs)


def test_a_single_server_starts_without_etcd() -> None:
    config = k3s_gcp_config()
    config["gpukit:nodePools"][0].update(minNodes=1, maxNodes=1)
    rec = run(config)
    (server,) = servers(rec).values()
    assert "cluster-init" not in k3s_config(startup_script(server))


def test_a_reused_network_creates_no_vpc_and_takes_the_given_subnet() -> None:
    network = "projects/acme-ml-dev/global/networks/shared"
    subnet = "projects/acme-ml-dev/regions/us-central1/subnetworks/gpu"
    rec = run(k3s_gcp_config(network={"networkId": network, "subnetworkId": subnet}))
    assert rec.of_type("gcp:compute/network:Network") == []
    assert rec.of_type("gcp:compute/routerNat:RouterNat") == []
    assert {r.inputs["network"] for r in rec.of_type(FIREWALL)} == {network}
    assert rec.one(TEMPLATE).inputs["networkInterfaces"] == [{"subnetwork": subnet}]
    internal = [a.inputs for a in rec.of_type(ADDRESS) if a.inputs["addressType"] == "INTERNAL"]
    assert {a["subnetwork"] for a in internal} == {subnet}


def test_new_network_is_one_subnet_without_secondary_ranges(stack: Recording) -> None:
    subnet = stack.one("gcp:compute/subnetwork:Subnetwork").inputs
    assert subnet["ipCidrRange"] == "10.70.0.0/20"
    assert not subnet.get("secondaryIpRanges")
    stack.one("gcp:compute/routerNat:RouterNat")


def test_every_resource_has_a_parent_and_gcp_resources_the_explicit_provider(stack: Recording) -> None:
    provider = stack.one("pulumi:providers:gcp", f"{NAME}-gcp")
    enabler = stack.one("pulumi:providers:gcp", f"{NAME}-gcp-apis")
    assert (provider.inputs["project"], provider.inputs["region"]) == ("acme-ml-dev", "us-central1")
    apis = {r.urn for r in stack.resources if r.provider.startswith(enabler.urn)}
    for r in stack.resources:
        if r.type != "gpukit:index:GpuCluster":
            assert stack.parent_of(r) is not None, r.name
        if r.custom and r.type.startswith("gcp:") and r.urn not in apis:
            assert r.provider.startswith(provider.urn), f"{r.name} uses a default provider"


def test_compute_iam_and_resource_manager_apis_are_enabled_before_the_machines(stack: Recording) -> None:
    services = stack.of_type("gcp:projects/service:Service")
    enabled_first = {s.inputs["service"]: s for s in services if s.name.startswith(f"{NAME}-api-")}
    assert set(enabled_first) == {
        "compute.googleapis.com",
        "iam.googleapis.com",
        "cloudresourcemanager.googleapis.com",
        "cloudquotas.googleapis.com",  # the GPU quotas `pulumi up` reads first (providers/gcp/quotas.py)
    }
    assert all(s.inputs["disableOnDestroy"] is False for s in services)
    provider = stack.one("pulumi:providers:gcp", f"{NAME}-gcp")
    assert set(provider.dependencies) >= {s.urn for s in enabled_first.values()}


def test_tags_become_labels_on_every_resource() -> None:
    rec = run(k3s_gcp_config(tags={"team": "ml"}))
    for p in rec.of_type("pulumi:providers:gcp"):
        assert yaml.safe_load(p.inputs["defaultLabels"]) == {
            "team": "ml",
            "gpukit-cluster": "k3s-gcp",
            "managed-by": "gpukit",
        }
    # Boot disks too: a VM's labels do not reach the disks made with it.
    for server in server_instances(rec):
        labels = server.inputs["bootDisk"]["initializeParams"]["labels"]
        assert {"team": "ml", "gpukit-cluster": "k3s-gcp", "gpukit-role": "server"}.items() <= labels.items()
    for template in rec.of_type("gcp:compute/instanceTemplate:InstanceTemplate"):
        (disk,) = template.inputs["disks"]
        assert {"team": "ml", "gpukit-cluster": "k3s-gcp", "gpukit-role": "agent"}.items() <= disk[
            "labels"
        ].items()


def test_every_resource_argument_is_one_the_provider_schema_knows(stack: Recording) -> None:
    unknown = {r.name: n for r in stack.resources if r.custom and (n := unknown_argument_names(r.inputs))}
    assert unknown == {}


def test_a_new_image_disk_or_zone_never_replaces_a_running_server(stack: Recording) -> None:
    """Servers hold the datastore and are deleted before they are replaced (fixed names): a change that
    would replace them all at once would lose the cluster, so it applies to servers created later."""
    assert len(server_instances(stack)) == 3
    for server in server_instances(stack):
        assert set(server.ignore_changes) == {"bootDisk", "zone"}, server.name


def test_a_machine_the_group_recreates_boots_from_the_current_template() -> None:
    """A preempted spot machine (deleted) or a failed one is repaired by its group, by default from the
    template it was created with (Compute Engine, "Apply configuration updates during repairs"): its
    pool's changed labels, its new join secret version or server addresses would not reach it. Update
    on repair makes the group recreate it from the group's template, as when it scales up."""
    pool = dict(K3S_GCP["gpukit:nodePools"][1], sharing={"mode": "time-slicing", "replicas": 4})
    rec = run(with_gpu_pool(pool))
    groups = rec.of_type(GROUP)
    assert groups
    for group in groups:
        assert group.inputs["instanceLifecyclePolicy"] == {"forceUpdateOnRepair": "YES"}, group.name
    agent = k3s_config(startup_script(rec.one(TEMPLATE).inputs))
    assert "nvidia.com/device-plugin.config=time-slicing-4" in agent["node-label"]  # at registration


# --- spot that drains


def kubelet_config(script: str) -> dict[str, Any]:
    """The kubelet drop-in in a startup script (install.sh's KUBELET_CONFIG assignment)."""
    config: dict[str, Any] = yaml.safe_load(script_input(script, "KUBELET_CONFIG"))
    return config


def test_a_spot_pools_kubelet_stops_its_pods_within_the_preemption_window(stack: Recording) -> None:
    assert K3S_GCP["gpukit:nodePools"][1]["capacity"] == "spot"  # the example's L4 pool
    spot = kubelet_config(startup_script(stack.one(TEMPLATE).inputs))
    assert (spot["shutdownGracePeriod"], spot["shutdownGracePeriodCriticalPods"]) == ("30s", "15s")
    # Servers are never spot: they keep the default window.
    for server in servers(stack).values():
        assert kubelet_config(startup_script(server))["shutdownGracePeriod"] == "60s"
    # No watcher and no drain credentials on GCE: the kubelet's graceful shutdown is the drain.
    assert stack.of_type("gpukit:index:NodeTerminationHandler") == []


def test_an_on_demand_pool_keeps_the_default_window() -> None:
    pool = dict(K3S_GCP["gpukit:nodePools"][1], capacity="on-demand")
    rec = run(with_gpu_pool(pool))
    assert rec.one(TEMPLATE).inputs["scheduling"] == {
        "provisioningModel": "STANDARD",
        "automaticRestart": True,
        "onHostMaintenance": "TERMINATE",
    }
    kubelet = kubelet_config(startup_script(rec.one(TEMPLATE).inputs))
    assert (kubelet["shutdownGracePeriod"], kubelet["shutdownGracePeriodCriticalPods"]) == ("60s", "20s")


def test_a_gpu_quota_too_low_for_what_starts_fails_before_the_network_is_created(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """As on GKE: with no L4s in the project the groups would retry in silence (issue 29, point 3)."""
    asked, registered, _ = answer_gcp_quotas(monkeypatch, {"GPUS-ALL-REGIONS-per-project": "0"})
    config = k3s_gcp_config()
    config["gpukit:nodePools"][1].update(minNodes=1, capacity="on-demand")
    with pytest.raises(
        Exception,
        match=r"^Compute Engine quota GPUS_ALL_REGIONS \(GPUS-ALL-REGIONS-per-project\) in project "
        r"acme-ml-dev \(all regions\) is 0 GPUs; pools l4 start 1 GPUs right away",
    ):
        run(config)
    assert asked == ["GPUS-ALL-REGIONS-per-project"]
    assert set(registered) <= {
        "gpukit:index:GpuCluster",
        "gpukit:index:K3sGceCluster",
        "pulumi:providers:gcp",
        "gcp:projects/service:Service",
    }


# --- the servers' join key and what the servers may read of Compute Engine

SECRET = "gcp:secretmanager/secret:Secret"
KEY_GRANT = "gcp:kms/cryptoKeyIAMMember:CryptoKeyIAMMember"
SERVER_ACCOUNT = "serviceAccount:k3s-gcp-k3s-server@acme-ml-dev.iam.gserviceaccount.com"
AGENT_ACCOUNT = "serviceAccount:k3s-gcp-k3s-agent@acme-ml-dev.iam.gserviceaccount.com"


def server_version(rec: Recording) -> dict[str, Any]:
    return rec.one("gcp:secretmanager/secretVersion:SecretVersion", f"{NAME}-join-server-version").inputs


def test_the_servers_bundle_is_stored_as_its_cloud_kms_ciphertext(stack: Recording) -> None:
    """Secret Manager decrypts a CMEK secret for whoever may read it; a ciphertext only for whoever the
    key lets decrypt."""
    key = stack.one("gcp:kms/cryptoKey:CryptoKey")
    ring = stack.one("gcp:kms/keyRing:KeyRing")
    assert ring.inputs["location"] == "us-central1"
    assert "name" not in ring.inputs and "name" not in key.inputs  # auto-named: a remade stack never collides
    assert key.inputs["keyRing"] == ring.id
    assert (key.inputs["purpose"], key.inputs["rotationPeriod"]) == ("ENCRYPT_DECRYPT", "7776000s")  # 90 days
    ciphertext = stack.one(CIPHERTEXT)
    assert ciphertext.inputs["cryptoKey"] == key.id
    bundle = plain(ciphertext.inputs["plaintext"])
    assert bundle.startswith("/etc/rancher/k3s/gpukit-agent-token\t")  # host_scripts.secrets_bundle
    version = server_version(stack)
    data = plain(version["secretData"])
    # The version holds the ciphertext's bytes (the provider's id is `<key>/<ciphertext>`), so Secret
    # Manager's base64 payload is the ciphertext as Cloud KMS's decrypt takes it.
    assert version["isSecretDataBase64"] is True
    assert ciphertext.id == f"{key.id}/{data}"
    raw = base64.b64decode(data, validate=True)
    for text in (data, raw.decode("latin-1")):
        assert "server-ca.key" not in text and "PRIVATE KEY" not in text
    assert bundle.split("\t", 1)[1][:40] not in data
    # The agents' secret (their token only) is stored as it is; neither secret takes a CMEK.
    agent = stack.one("gcp:secretmanager/secretVersion:SecretVersion", f"{NAME}-join-agent-version").inputs
    assert "isSecretDataBase64" not in agent
    assert {r.name: r.inputs["replication"] for r in stack.of_type(SECRET)} == {
        f"{NAME}-join-server-secret": {"auto": {}},
        f"{NAME}-join-agent-secret": {"auto": {}},
    }
    assert stack.of_type("gcp:projects/serviceIdentity:ServiceIdentity") == []
    api = stack.one("gcp:projects/service:Service", f"{NAME}-join-server-key-cloudkms-api").inputs
    assert (api["service"], api["disableOnDestroy"]) == ("cloudkms.googleapis.com", False)
    assert any(u.endswith(f"{NAME}-join-server-key-cloudkms-api") for u in ring.dependencies)


def test_only_the_servers_account_may_decrypt_with_the_key_and_nothing_is_granted_project_wide(
    stack: Recording,
) -> None:
    key = stack.one("gcp:kms/cryptoKey:CryptoKey")
    grants = [
        (g.inputs["cryptoKeyId"], g.inputs["role"], g.inputs["member"]) for g in stack.of_type(KEY_GRANT)
    ]
    # Decrypt only (never encrypt: only the deployer encrypts, join_key.py), on this key only.
    assert grants == [(key.id, "roles/cloudkms.cryptoKeyDecrypter", SERVER_ACCOUNT)]
    # No other Cloud KMS grant of any kind, and none on the project: the agents' account holds none.
    kms_iam = [r for r in stack.resources if r.type.startswith("gcp:kms/") and "IAM" in r.type]
    assert [r.type for r in kms_iam] == [KEY_GRANT]
    project_roles = {r.inputs["role"] for r in stack.of_type("gcp:projects/iAMMember:IAMMember")}
    assert not [role for role in project_roles if "cloudkms" in role]
    members = {str(plain(r.inputs.get("member"))) for r in stack.resources if r.type.startswith("gcp:kms/")}
    assert AGENT_ACCOUNT not in members
    # Each account reads its own secret.
    (reader,) = [
        r.inputs
        for r in stack.of_type("gcp:secretmanager/secretIamMember:SecretIamMember")
        if r.inputs["secretId"] == stack.one(SECRET, f"{NAME}-join-server-secret").id
    ]
    assert reader["member"] == SERVER_ACCOUNT
    # The servers boot once they may decrypt, so their first fetch works.
    (grant,) = stack.of_type(KEY_GRANT)
    for server in server_instances(stack):
        assert grant.urn in server.dependencies, server.name


def test_servers_decrypt_their_bundle_with_the_join_key_and_agents_call_no_key(stack: Recording) -> None:
    key = stack.one("gcp:kms/cryptoKey:CryptoKey")
    for name, inputs in servers(stack).items():
        script = startup_script(inputs)
        assert f"\nKMS_KEY={key.id}\n" in script, name
        assert re.search(
            r"\nSECRET_VERSION=projects/acme-ml-dev/secrets/k3s-gcp-k3s-server-join/versions/\d+\n", script
        )
    assert "\nKMS_KEY=''\n" in startup_script(stack.one(TEMPLATE).inputs)


# The longest PEM each of the PKI's files can be (components/k3s/pki.py): an EC P-256 CA certificate
# is about 800 bytes (with a cluster name as long as gpukit takes in its common name), an EC P-256 key in
# SEC1 PEM 227, an RSA-2048 key in PKCS#1 PEM 1,675 to 1,679 (measured with OpenSSL 3.0).
_PEM_BOUNDS = {".crt": 1024, ".key": 256, "/service.key": 1800}


def test_the_servers_bundle_fits_cloud_kms_four_times_over(stack: Recording) -> None:
    """Cloud KMS encrypts at most 64 KiB (the plan's fakes refuse more, as Cloud KMS would). The plan's
    PEMs are short fakes: each is counted at the longest its kind of PEM can be."""
    bundle = plain(stack.one(CIPHERTEXT).inputs["plaintext"])
    files = {}
    for line in bundle.splitlines():
        path, encoded = line.split("\t")
        content = base64.b64decode(encoded).decode()
        if "-----BEGIN" in content:
            suffix = "/service.key" if path.endswith("/service.key") else path[path.rindex(".") :]
            content = "x" * _PEM_BOUNDS[suffix]
        else:
            assert content.startswith("K10") or len(content) <= 64, path  # the two tokens
        files[path] = content
    assert len(files) == 13  # 5 CAs (certificate and key), service.key, the two tokens
    longest = len(secrets_bundle(files).encode())
    assert longest <= KMS_PLAINTEXT_LIMIT // 4, longest
    # Its ciphertext fits a Secret Manager version as easily.
    assert len(base64.b64decode(plain(server_version(stack)["secretData"]))) <= SECRET_PAYLOAD_LIMIT // 4


def test_the_plans_fakes_refuse_what_cloud_kms_and_secret_manager_refuse() -> None:
    fakes = GcpFakes({"gcp:project": "acme-ml-dev"})
    key = "projects/acme-ml-dev/locations/us-central1/keyRings/r/cryptoKeys/k"
    token = "gcp:kms/secretCiphertext:SecretCiphertext"
    largest = {"cryptoKey": key, "plaintext": "x" * KMS_PLAINTEXT_LIMIT}
    rid, outputs = fakes.resource(token, "bundle", largest)
    assert rid == f"{key}/{outputs['ciphertext']}"
    # Stable for the same key and plaintext, another for another plaintext.
    assert fakes.resource(token, "b", dict(largest)) == (rid, outputs)
    assert fakes.resource(token, "bundle", {"cryptoKey": key, "plaintext": "y"})[1] != outputs
    with pytest.raises(ResourceNameError, match=r"encrypts 1 to 65536 bytes of plaintext; got 65537"):
        fakes.resource(token, "bundle", {"cryptoKey": key, "plaintext": "x" * (KMS_PLAINTEXT_LIMIT + 1)})
    with pytest.raises(ResourceNameError, match=r"crypto key 'projects/p/keyRings/r' is not"):
        fakes.resource(token, "bundle", {"cryptoKey": "projects/p/keyRings/r", "plaintext": "x"})
    version = "gcp:secretmanager/secretVersion:SecretVersion"
    big = base64.b64encode(b"\0" * (SECRET_PAYLOAD_LIMIT + 1)).decode()
    with pytest.raises(ResourceNameError, match=r"at most 65536 bytes; got 65537"):
        fakes.resource(version, "v", {"secret": "s", "secretData": big, "isSecretDataBase64": True})
    with pytest.raises(ResourceNameError, match=r"its data is not base64"):
        fakes.resource(version, "v", {"secret": "s", "secretData": "not base64!", "isSecretDataBase64": True})


def test_the_servers_may_get_this_clusters_machines_only_and_list_none(stack: Recording) -> None:
    roles = {
        r.inputs["roleId"]: r.inputs["permissions"]
        for r in stack.of_type("gcp:projects/iAMCustomRole:IAMCustomRole")
    }
    assert roles["gpukit_k3s_gcp_machine_read"] == ["compute.instances.get"]
    everything = [p for permissions in roles.values() for p in permissions]
    assert [p for p in everything if p.startswith("compute.instances.")] == ["compute.instances.get"]
    (binding,) = [
        r.inputs
        for r in stack.of_type("gcp:projects/iAMMember:IAMMember")
        if r.inputs["role"].endswith("/gpukit_k3s_gcp_machine_read")
    ]
    assert binding["member"] == "serviceAccount:k3s-gcp-k3s-server@acme-ml-dev.iam.gserviceaccount.com"
    expression = plain(binding["condition"])["expression"]
    name = 'resource.name.extract("/instances/{name}")'
    # Each server by its name, each group's machines by its base name (the group adds -xxxx).
    named = sorted(r.inputs["name"] for r in server_instances(stack))
    bases = sorted(g["baseInstanceName"] for g in groups(stack).values())
    assert named == ["k3s-gcp-control-0", "k3s-gcp-control-1", "k3s-gcp-control-2"]
    assert expression == " || ".join(
        [f'{name} == "{n}"' for n in named] + [f'{name}.startsWith("{base}-")' for base in bases]
    )


def test_a_cluster_without_agent_pools_still_lets_its_servers_check_their_machines() -> None:
    config = k3s_gcp_config()
    config["gpukit:nodePools"] = config["gpukit:nodePools"][:1]  # the servers alone
    rec = run(config)
    (binding,) = [
        r.inputs
        for r in rec.of_type("gcp:projects/iAMMember:IAMMember")
        if r.inputs["role"].endswith("/gpukit_k3s_gcp_machine_read")
    ]
    assert "startsWith" not in plain(binding["condition"])["expression"]
