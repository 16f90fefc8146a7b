"""GpuCluster on k3s over SSH under the mocks: assertions on the recorded inputs."""

import copy
import hashlib
from typing import Any

import pytest
import yaml

from gpukit.program import build
from harness import Recording, example_config, is_secret, record, unknown_argument_names, unsecret
from tests.ssh_host_keys import ED25519_10, ED25519_11, ED25519_12, ED25519_OTHER, HASHED_11
from tools import bundle_files, remote_script, script_input

K3S: dict[str, Any] = example_config("k3s-ssh")
KEY = "-----BEGIN OPENSSH PRIVATE KEY-----\ntest-only-key\n-----END OPENSSH PRIVATE KEY-----\n"
SECRETS = ["gpukit:sshPrivateKey"]


def k3s_config() -> dict[str, Any]:
    config = copy.deepcopy(K3S)
    config["gpukit:sshPrivateKey"] = KEY
    return config


def run(config: dict[str, Any]) -> Recording:
    return record(lambda: build(config, SECRETS), config=config, secret_keys=SECRETS)


@pytest.fixture(scope="module")
def lab() -> Recording:
    return run(k3s_config())


def commands(rec: Recording) -> dict[str, dict[str, Any]]:
    return {r.name.removeprefix("lab-"): r.inputs for r in rec.of_type("command:remote:Command")}


def test_every_host_is_checked_then_installed_and_every_node_but_the_first_server_drains(
    lab: Recording,
) -> None:
    assert sorted(commands(lab)) == sorted(
        [
            "control-192-0-2-10-preflight",
            "control-192-0-2-10-k3s",
            "l40s-192-0-2-11-preflight",
            "l40s-192-0-2-11-k3s",
            "l40s-192-0-2-11-drain",
            "l40s-192-0-2-12-preflight",
            "l40s-192-0-2-12-k3s",
            "l40s-192-0-2-12-drain",
            # The example's shared checkpoints volume: its NFS server on the k3s server host.
            "nfs-control-192-0-2-10-setup",
        ]
    )


def test_the_ssh_key_and_the_secrets_bundle_stay_secret(lab: Recording) -> None:
    for name, inputs in commands(lab).items():
        assert is_secret(inputs["connection"]), name
        assert KEY not in str(inputs.get("create", "")), name
        if name.endswith("-k3s"):
            assert is_secret(inputs["stdin"]), name
    tokens = lab.of_type("random:index/randomPassword:RandomPassword")
    assert sorted(t.name for t in tokens) == ["lab-pki-agent-token", "lab-pki-token"]
    assert all(t.inputs["length"] == 48 for t in tokens)
    server_bundle = unsecret(commands(lab)["control-192-0-2-10-k3s"]["stdin"])
    paths = {line.split("\t")[0] for line in server_bundle.splitlines()}
    assert paths == {
        "/etc/rancher/k3s/gpukit-token",
        "/etc/rancher/k3s/gpukit-agent-token",
        *(
            f"/var/lib/rancher/k3s/server/tls/{ca}.{ext}"
            for ca in ("server-ca", "client-ca", "request-header-ca", "etcd/peer-ca", "etcd/server-ca")
            for ext in ("crt", "key")
        ),
        "/var/lib/rancher/k3s/server/tls/service.key",
    }
    # Agents hold the agent token only, in the secure format (the CA hash, user `node`): never the
    # server token, which joins servers and decrypts the cluster's bootstrap data.
    agent_bundle = unsecret(commands(lab)["l40s-192-0-2-11-k3s"]["stdin"])
    agent_files = bundle_files(agent_bundle)
    assert list(agent_files) == ["/etc/rancher/k3s/gpukit-token"]
    server_files = bundle_files(server_bundle)
    ca_hash = hashlib.sha256(
        server_files["/var/lib/rancher/k3s/server/tls/server-ca.crt"].encode()
    ).hexdigest()
    agent_password = server_files["/etc/rancher/k3s/gpukit-agent-token"]
    assert agent_files["/etc/rancher/k3s/gpukit-token"] == f"K10{ca_hash}::node:{agent_password}"
    server_token = server_files["/etc/rancher/k3s/gpukit-token"]
    assert server_token.startswith(f"K10{ca_hash}::server:")
    assert server_token.split(":")[-1] not in agent_bundle and server_token.split(":")[-1] != agent_password


def _config_in(create: str) -> dict[str, Any]:
    """The k3s config.yaml an install command writes, as the script's K3S_CONFIG assignment holds it."""
    config: dict[str, Any] = yaml.safe_load(script_input(remote_script(create), "K3S_CONFIG"))
    return config


def test_server_and_agent_flags(lab: Recording) -> None:
    server = _config_in(commands(lab)["control-192-0-2-10-k3s"]["create"])
    assert server["tls-san"] == ["192.0.2.10"]
    assert server["disable"] == [
        "traefik",
        "servicelb",
    ]  # no ServiceLB: its hostPort pods are exempt from PSA
    assert server["write-kubeconfig-mode"] == "0600"
    assert server["secrets-encryption"] is True
    assert server["agent-token-file"] == "/etc/rancher/k3s/gpukit-agent-token"
    assert server["kube-apiserver-arg"] == [
        "admission-control-config-file=/var/lib/rancher/k3s/server/gpukit-pod-security.yaml"
    ]
    assert server["node-taint"] == ["CriticalAddonsOnly=true:NoExecute"]  # the cluster has agents
    assert "server" not in server and "cluster-init" not in server  # decided on the host, once
    agent = _config_in(commands(lab)["l40s-192-0-2-11-k3s"]["create"])
    assert "server" not in agent and "agent-token-file" not in agent
    assert script_input(remote_script(commands(lab)["l40s-192-0-2-11-k3s"]["create"]), "JOIN_URLS") == (
        "https://192.0.2.10:6443"
    )
    assert agent["token-file"] == "/etc/rancher/k3s/gpukit-token"
    assert agent["node-label"] == [
        "gpukit.dev/gpu-model=L40S",
        "gpukit.dev/pool=l40s",
        "nvidia.com/device-plugin.config=mps-4",  # the example's L40S hosts share GPUs with MPS
        "nvidia.com/gpu.present=true",
    ]
    assert agent["node-taint"] == ["nvidia.com/gpu=true:NoSchedule"]
    assert "K3S_VERSION=v1.36.4+k3s1" in commands(lab)["l40s-192-0-2-11-k3s"]["create"]


def test_only_the_preflight_uses_triggers_and_the_install_uninstalls_on_delete(lab: Recording) -> None:
    by_name = commands(lab)
    for name, inputs in by_name.items():
        if name.endswith("-preflight"):
            assert len(inputs["triggers"]) == 1
        else:
            # A trigger change replaces a command: for the install that would mean uninstall + reinstall.
            assert "triggers" not in inputs or not inputs["triggers"], name
    assert "k3s-agent-uninstall.sh" in by_name["l40s-192-0-2-11-k3s"]["delete"]
    assert "k3s-uninstall.sh" in by_name["control-192-0-2-10-k3s"]["delete"]
    assert "EXPECT_GPUS=2" in by_name["l40s-192-0-2-11-preflight"]["create"]
    assert "GPU_MODEL=L40S" in by_name["l40s-192-0-2-11-preflight"]["create"]
    assert "DRIVER_MODE=preinstalled" in by_name["l40s-192-0-2-11-preflight"]["create"]


def test_drains_run_on_the_first_server(lab: Recording) -> None:
    drain = commands(lab)["l40s-192-0-2-11-drain"]
    assert unsecret(drain["connection"])["host"] == "192.0.2.10"
    assert "NODE_NAME=l40s-192-0-2-11" in drain["delete"]
    assert "create" not in drain or not drain["create"]


def test_ha_servers_use_embedded_etcd(tmp_path: Any) -> None:
    config = k3s_config()
    config["gpukit:nodePools"][0]["hosts"] = [
        {"address": f"192.0.2.{i}", "user": "ubuntu", "hostKey": ED25519_OTHER} for i in (10, 20, 30)
    ]
    by_name = commands(run(config))
    first = _config_in(by_name["control-192-0-2-10-k3s"]["create"])
    assert first["tls-san"] == ["192.0.2.10", "192.0.2.20", "192.0.2.30"]
    for address in (10, 20, 30):
        script = remote_script(by_name[f"control-192-0-2-{address}-k3s"]["create"])
        assert script_input(script, "CLUSTER_INIT") == "true"
        assert script_input(script, "MAY_INIT") == ("true" if address == 10 else "false")
        assert f"https://192.0.2.{address}:6443" not in script_input(script, "JOIN_URLS")
    assert "control-192-0-2-20-drain" in by_name


def test_kubeconfig_uses_the_pulumi_made_admin_certificate(lab: Recording) -> None:
    kubeconfig = lab.one("pulumi:providers:kubernetes").inputs["kubeconfig"]
    assert is_secret(kubeconfig)
    doc = yaml.safe_load(unsecret(kubeconfig))
    assert doc["clusters"][0]["cluster"]["server"] == "https://192.0.2.10:6443"
    assert set(doc["users"][0]["user"]) == {"client-certificate-data", "client-key-data"}
    csr = lab.one("tls:index/certRequest:CertRequest").inputs
    # A plain user bound to cluster-admin (revocable), not system:masters (which RBAC cannot revoke).
    assert csr["subject"] == {"commonName": "gpukit-admin", "organization": "gpukit"}
    assert lab.one("tls:index/locallySignedCert:LocallySignedCert").inputs["validityPeriodHours"] == 90 * 24


def test_operator_values_for_k3s_and_no_extra_runtime_class(lab: Recording) -> None:
    values = lab.one("kubernetes:helm.sh/v3:Release", "lab-gpu-operator-release").inputs["values"]
    assert values["toolkit"]["env"] == [
        {"name": "CONTAINERD_SOCKET", "value": "/run/k3s/containerd/containerd.sock"}
    ]
    # Driver on the hosts, the Operator's toolkit on every GPU node (an image may lack one); the
    # chart's CDI default hands GPUs to pods, so no RuntimeClass is needed or made.
    assert values["driver"]["enabled"] is False and values["toolkit"]["enabled"] is True
    assert "cdi" not in values  # the chart default, cdi.enabled: true
    assert lab.of_type("kubernetes:node.k8s.io/v1:RuntimeClass") == []
    # Servers are tainted (the stack has agents): the operator and NFD's controllers tolerate it.
    critical = {"key": "CriticalAddonsOnly", "operator": "Exists", "effect": "NoExecute"}
    assert critical in values["operator"]["tolerations"]
    nfd = values["node-feature-discovery"]
    assert critical in nfd["master"]["tolerations"] and critical in nfd["gc"]["tolerations"]


def test_traefik_stays_only_when_the_stack_asks_for_it() -> None:
    config = k3s_config()
    config["gpukit:cluster"]["traefik"] = True
    config.pop("gpukit:inference", None)  # its Gateway installs the Gateway API CRDs Traefik would
    server = _config_in(commands(run(config))["control-192-0-2-10-k3s"]["create"])
    assert server["disable"] == ["servicelb"]


def test_operator_mode_turns_driver_and_toolkit_on() -> None:
    config = k3s_config()
    config["gpukit:gpuOperator"]["driver"] = "operator"
    rec = run(config)
    values = rec.one("kubernetes:helm.sh/v3:Release", "lab-gpu-operator-release").inputs["values"]
    assert values["driver"]["enabled"] is True and values["toolkit"]["enabled"] is True
    assert "DRIVER_MODE=operator" in commands(rec)["l40s-192-0-2-11-preflight"]["create"]


def test_bastion_hosts_are_reached_through_a_proxy() -> None:
    config = k3s_config()
    config["gpukit:nodePools"][1]["hosts"][0]["bastion"] = {
        "address": "198.51.100.5",
        "user": "jump",
        "hostKey": ED25519_OTHER,
    }
    connection = unsecret(commands(run(config))["l40s-192-0-2-11-k3s"]["connection"])
    assert connection["proxy"]["host"] == "198.51.100.5"
    assert connection["proxy"]["user"] == "jump"


def test_every_connection_and_proxy_checks_its_host_key() -> None:
    """pulumi-command trusts whoever answers unless `hostKey` is set: every command, on every host and
    through every bastion, carries the key of the machine it talks to, as `<type> <base64>`."""
    config = k3s_config()
    agent = config["gpukit:nodePools"][1]["hosts"][0]
    agent["hostKey"] = HASHED_11  # a hashed known_hosts line still hands over the key alone
    agent["bastion"] = {"address": "198.51.100.5", "user": "jump", "hostKey": f"198.51.100.5 {ED25519_OTHER}"}
    expected = {"192.0.2.10": ED25519_10, "192.0.2.11": ED25519_11, "192.0.2.12": ED25519_12}
    connections = {name: unsecret(inputs["connection"]) for name, inputs in commands(run(config)).items()}
    assert len(connections) == 9  # 8 for k3s, 1 for the NFS server on 192.0.2.10
    for name, connection in connections.items():
        assert connection["hostKey"] == expected[connection["host"]], name
        if connection["host"] == "192.0.2.11":
            assert connection["proxy"]["hostKey"] == ED25519_OTHER, name
        else:
            assert "proxy" not in connection, name


def test_without_host_keys_only_the_opt_out_connects_unchecked() -> None:
    config = k3s_config()
    del config["gpukit:nodePools"][1]["hosts"][1]["hostKey"]
    config["gpukit:cluster"]["insecureIgnoreHostKeys"] = True
    connections = {name: unsecret(inputs["connection"]) for name, inputs in commands(run(config)).items()}
    unchecked = sorted(name for name, connection in connections.items() if "hostKey" not in connection)
    assert unchecked == ["l40s-192-0-2-12-k3s", "l40s-192-0-2-12-preflight"]


def test_every_resource_argument_is_one_the_provider_schema_knows(lab: Recording) -> None:
    unknown = {r.name: n for r in lab.resources if r.custom and (n := unknown_argument_names(r.inputs))}
    assert unknown == {}


def test_mps_pool_reaches_its_hosts_through_node_labels_and_the_pools_config_map() -> None:
    config = k3s_config()
    config["gpukit:nodePools"][1]["sharing"] = {"mode": "mps", "replicas": 4}
    rec = run(config)
    agent = _config_in(commands(rec)["l40s-192-0-2-11-k3s"]["create"])
    assert "nvidia.com/device-plugin.config=mps-4" in agent["node-label"]  # at registration
    pools = rec.one("kubernetes:core/v1:ConfigMap", "lab-pool-sync-pools").inputs["data"]["pools"]
    l40s = next(line for line in pools.splitlines() if line.startswith("l40s\t"))
    assert "nvidia.com/device-plugin.config=mps-4" in l40s  # reaches nodes that already joined
    release = rec.one("kubernetes:helm.sh/v3:Release", "lab-gpu-operator-release").inputs
    config_values = release["values"]["devicePlugin"]["config"]
    assert set(config_values["data"]) == {"none", "mps-4"}
    assert yaml.safe_load(config_values["data"]["mps-4"])["sharing"]["mps"]["resources"] == [
        {"name": "nvidia.com/gpu", "replicas": 4}
    ]


def test_pods_are_kept_off_the_nfs_port_of_the_server_host_but_still_reach_its_api(lab: Recording) -> None:
    """Issue 29, point 15: the example's NFS host is its k3s server (192.0.2.10). Pods in `default`
    lose only its NFS port: kubernetes.default goes to that host's :6443, which they still reach."""
    policy = lab.one("kubernetes:networking.k8s.io/v1:NetworkPolicy", "lab-storage-isolation-default")
    egress = policy.inputs["spec"]["egress"]
    assert egress[0] == {"to": [{"ipBlock": {"cidr": "0.0.0.0/0", "except": ["192.0.2.10/32"]}}]}
    (host_rule,) = [r for r in egress if r.get("to") == [{"ipBlock": {"cidr": "192.0.2.10/32"}}]]
    tcp = [(p["port"], p["endPort"]) for p in host_rule["ports"] if p["protocol"] == "TCP"]
    assert any(low <= 6443 <= high for low, high in tcp)
    assert not any(low <= 2049 <= high for low, high in tcp)
