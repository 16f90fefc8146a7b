"""Bad k3s-over-SSH stack configs: each is refused with exit 2, names the exact key, and builds nothing.

Every case starts from the `config` of stacks/Pulumi.k3s-ssh.yaml (a valid k3s config on existing
hosts; a fresh deep copy per case), breaks one thing, and is checked like the EKS suite in
test_bad_configs.py: through `gpukit plan --config` (exit status, the message a user reads, no
traceback) and through `gpukit.program.build` under the mock engine (ConfigError raised, zero
resources registered). A few cases start from harness.eks_config() to check that k3s-only keys are
refused on EKS.

gpukit:sshPrivateKey must be encrypted. In the stack file `plan_stderr` writes it stays
`{secure: v1:...}` (the plan turns it into a secret placeholder); `build` gets the config straight,
so `for_program` replaces each secure mapping with a plain string and passes its key as a secret
key, the way the Pulumi CLI hands a decrypted value to the program.
"""

import copy
import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpukit.cli import EXIT_INVALID, EXIT_OK, main
from gpukit.components.errors import ConfigError
from gpukit.program import build
from harness import eks_config, example_config, record
from tests.program.test_bad_configs import (
    CLUSTER,
    POOLS,
    Config,
    Mutation,
    assert_refused,
    broken,
    build_recording,
    cluster_drop,
    cluster_set,
    has_problem,
    network,
    operator_set,
    plan_stderr,
    pool_set,
    steps,
    top_drop,
    top_set,
)
from tests.ssh_host_keys import ED25519_OTHER
from tools import remote_script, script_input

OPERATOR = "gpukit:gpuOperator"
SSH_KEY = "gpukit:sshPrivateKey"
COMMAND = "command:remote:Command"
PLAIN_KEY = "-----BEGIN OPENSSH PRIVATE KEY-----\nnot-a-real-key\n-----END OPENSSH PRIVATE KEY-----\n"


def k3s_config() -> Config:
    return example_config("k3s-ssh")


def for_program(config: Config) -> tuple[Config, list[str]]:
    """The config as `build` sees it under Pulumi: secure values decrypted, their keys marked secret."""
    out: Config = {}
    secret_keys: list[str] = []
    for key, value in copy.deepcopy(config).items():
        if isinstance(value, dict) and set(value) == {"secure"}:
            out[key] = PLAIN_KEY
            secret_keys.append(key)
        else:
            out[key] = value
    return out, secret_keys


# --- mutations: each breaks one thing in a fresh config --------------------------------------------


def host(address: str, user: str = "ubuntu", **values: Any) -> dict[str, Any]:
    """A host to add: with a host key (the key alone, which any address may carry)."""
    return {"address": address, "user": user, "hostKey": ED25519_OTHER, **values}


def host_set(pool: int, index: int, **values: Any) -> Mutation:
    def mutate(config: Config) -> None:
        config[POOLS][pool]["hosts"][index].update(values)

    return mutate


def hosts_add(pool: int, *hosts: dict[str, Any]) -> Mutation:
    def mutate(config: Config) -> None:
        config[POOLS][pool]["hosts"].extend(copy.deepcopy(list(hosts)))

    return mutate


def pool_drop(pool: int, key: str) -> Mutation:
    def mutate(config: Config) -> None:
        del config[POOLS][pool][key]

    return mutate


HOST = f"{POOLS}[1].hosts[0]"  # the first GPU host, 192.0.2.11
CLOUD_ONLY = (
    "only for clusters on cloud machines (eks, gke, k3s on aws, k3s on gcp); "
    "this cluster is k3s on existing hosts"
)

# (case id, base config, mutation, exact key, fragment of its message)
CASES: list[tuple[str, Callable[[], Config], Mutation, str, str]] = [
    # GPU sharing on existing hosts
    (
        "sharing-mig-on-l40s",
        k3s_config,
        pool_set(1, sharing={"mode": "mig", "mig": {"profile": "1g.24gb"}}),
        f"{POOLS}[1].sharing.mode",
        "mig needs a MIG-capable GPU",
    ),
    (
        "sharing-on-server-pool-without-gpus",
        k3s_config,
        pool_set(0, sharing={"mode": "mps", "replicas": 2}),
        f"{POOLS}[0].sharing",
        "only GPU pools share GPUs",
    ),
    (
        "sharing-mps-replicas-over-48",
        k3s_config,
        pool_set(1, sharing={"mode": "mps", "replicas": 64}),
        f"{POOLS}[1].sharing.replicas",
        "must be 2 to 48 pods per GPU; got 64",
    ),
    (
        "sharing-mig-profile-of-h100-on-a100-40gb-hosts",
        k3s_config,
        pool_set(
            1, gpu={"model": "A100-40GB", "count": 2}, sharing={"mode": "mig", "mig": {"profile": "3g.40gb"}}
        ),
        f"{POOLS}[1].sharing.mig.profile",
        "must be a MIG profile of A100-40GB: 1g.5gb, 1g.10gb, 2g.10gb, 3g.20gb, 4g.20gb, 7g.40gb; "
        "got '3g.40gb'",
    ),
    # hosts: addresses, users, ports, bastions
    (
        "duplicate-address-across-pools",
        k3s_config,
        host_set(1, 0, address="192.0.2.10"),
        f"{POOLS}[1].hosts[0].address",
        f"'192.0.2.10' is the host {POOLS}[0].hosts[0].address lists ('192.0.2.10'); each host joins once",
    ),
    (
        "duplicate-address-within-pool",
        k3s_config,
        host_set(1, 1, address="192.0.2.11"),
        f"{POOLS}[1].hosts[1].address",
        f"'192.0.2.11' is the host {POOLS}[1].hosts[0].address lists ('192.0.2.11'); each host joins once",
    ),
    (
        "pool-hosts-empty",
        k3s_config,
        pool_set(1, hosts=[]),
        f"{POOLS}[1].hosts",
        "required for provider ssh: one host or more {address, user}",
    ),
    (
        "pool-without-hosts-key",
        k3s_config,
        pool_drop(1, "hosts"),
        f"{POOLS}[1].hosts",
        "required for provider ssh: one host or more {address, user}",
    ),
    (
        "pool-hosts-not-a-list",
        k3s_config,
        pool_set(1, hosts="192.0.2.11"),
        f"{POOLS}[1].hosts",
        "must be a list of mappings, got '192.0.2.11'",
    ),
    (
        "host-without-address",
        k3s_config,
        lambda config: config[POOLS][1]["hosts"][0].pop("address"),
        f"{HOST}.address",
        "required key is missing (host address reachable over SSH)",
    ),
    (
        "host-address-not-an-address",
        k3s_config,
        host_set(1, 0, address="not an address!"),
        f"{HOST}.address",
        "must be an IP address or DNS name; got 'not an address!'",
    ),
    (
        "host-address-octet-out-of-range",
        k3s_config,
        host_set(1, 0, address="192.0.2.300"),
        f"{HOST}.address",
        "must be an IP address or DNS name; got '192.0.2.300'",
    ),
    (
        "host-user-not-a-unix-name",
        k3s_config,
        host_set(1, 0, user="Ubuntu User"),
        f"{HOST}.user",
        "must be a Unix user name; got 'Ubuntu User'",
    ),
    (
        "host-port-too-large",
        k3s_config,
        host_set(1, 0, port=70000),
        f"{HOST}.port",
        "must be 1 to 65535; got 70000",
    ),
    (
        "host-port-quoted",
        k3s_config,
        host_set(1, 0, port="22"),
        f"{HOST}.port",
        "must be an integer, got '22'",
    ),
    (
        "bastion-without-user",
        k3s_config,
        host_set(1, 0, bastion={"address": "198.51.100.5"}),
        f"{HOST}.bastion.user",
        "required key is missing (jump host SSH user)",
    ),
    (
        "bastion-port-zero",
        k3s_config,
        host_set(1, 0, bastion={"address": "198.51.100.5", "user": "jump", "port": 0}),
        f"{HOST}.bastion.port",
        "must be 1 to 65535; got 0",
    ),
    # servers
    (
        "no-server-host",
        k3s_config,
        pool_drop(0, "role"),
        POOLS,
        "no server host: give one pool role: server (1 host, or 3 for HA)",
    ),
    (
        "two-server-hosts",
        k3s_config,
        hosts_add(0, host("192.0.2.13")),
        POOLS,
        "2 server hosts: embedded etcd needs an odd number (1, or 3 or more for HA)",
    ),
    (
        "role-master",
        k3s_config,
        pool_set(0, role="master"),
        f"{POOLS}[0].role",
        "must be one of server, agent; got 'master'",
    ),
    # the SSH key
    (
        "missing-ssh-private-key",
        k3s_config,
        top_drop(SSH_KEY),
        SSH_KEY,
        "required for provider ssh: the private key gpukit logs in with",
    ),
    (
        "ssh-private-key-in-plain-text",
        k3s_config,
        top_set(SSH_KEY, PLAIN_KEY),
        SSH_KEY,
        "must be stored encrypted, never in plain text in the stack file",
    ),
    # GPUs of a host pool
    (
        "gpu-model-not-in-catalog",
        k3s_config,
        pool_set(1, gpu={"model": "L40X", "count": 2}),
        f"{POOLS}[1].gpu.model",
        "unknown GPU model 'L40X'; did you mean L40",
    ),
    (
        "gpu-count-zero",
        k3s_config,
        pool_set(1, gpu={"model": "L40S", "count": 0}),
        f"{POOLS}[1].gpu.count",
        "must be 1 to 16; got 0",
    ),
    # cloud keys on existing hosts
    (
        "instance-type-on-ssh-pool",
        k3s_config,
        pool_set(1, instanceType="g6e.12xlarge"),
        f"{POOLS}[1].instanceType",
        CLOUD_ONLY,
    ),
    (
        "min-nodes-on-ssh-pool",
        k3s_config,
        pool_set(1, minNodes=1),
        f"{POOLS}[1].minNodes",
        CLOUD_ONLY,
    ),
    (
        "max-nodes-on-ssh-pool",
        k3s_config,
        pool_set(1, maxNodes=2),
        f"{POOLS}[1].maxNodes",
        CLOUD_ONLY,
    ),
    (
        "network-on-k3s",
        k3s_config,
        network(cidr="10.40.0.0/16"),
        f"{CLUSTER}.network",
        CLOUD_ONLY,
    ),
    (
        "api-access-cidrs-on-k3s",
        k3s_config,
        cluster_set(apiAccessCidrs=["203.0.113.0/24"]),
        f"{CLUSTER}.apiAccessCidrs",
        CLOUD_ONLY,
    ),
    # cluster: provider, versions, API address
    (
        "provider-missing",
        k3s_config,
        cluster_drop("provider"),
        f"{CLUSTER}.provider",
        "required for platform k3s: one of aws, gcp, ssh",
    ),
    (
        "hosts-on-k3s-aws",
        k3s_config,
        cluster_set(provider="aws"),
        f"{POOLS}[0].hosts",
        "only for k3s on existing hosts (provider ssh); this cluster is k3s on aws",
    ),
    (
        "k3s-version-other-minor",
        k3s_config,
        cluster_set(k3sVersion="v1.34.11+k3s1"),
        f"{CLUSTER}.k3sVersion",
        "is k3s 1.34, but kubernetesVersion is '1.36'",
    ),
    (
        "k3s-version-malformed",
        k3s_config,
        cluster_set(k3sVersion="1.35.8"),
        f"{CLUSTER}.k3sVersion",
        "must look like v1.35.7+k3s1; got '1.35.8'",
    ),
    (
        "kubernetes-version-unsupported-for-k3s",
        k3s_config,
        cluster_set(kubernetesVersion="1.33"),
        f"{CLUSTER}.kubernetesVersion",
        "must be one of 1.34, 1.35, 1.36 for k3s; got '1.33'",
    ),
    (
        "api-address-not-an-address",
        k3s_config,
        cluster_set(apiAddress="not an address!"),
        f"{CLUSTER}.apiAddress",
        "must be an IP address or DNS name; got 'not an address!'",
    ),
    # keys of the other platforms
    (
        "gke-only-release-channel-on-k3s",
        k3s_config,
        cluster_set(releaseChannel="regular"),
        f"{CLUSTER}.releaseChannel",
        "only for platform gke; this cluster is k3s on existing hosts (provider ssh)",
    ),
    (
        "gke-only-pool-zones-on-k3s",
        k3s_config,
        pool_set(1, zones=["us-central1-a"]),
        f"{POOLS}[1].zones",
        "only for platform eks and platform gke and k3s on gcp; this cluster is k3s on existing hosts "
        "(provider ssh)",
    ),
    (
        "gke-only-driver-version-on-k3s",
        k3s_config,
        operator_set(gkeDriverVersion="latest"),
        f"{OPERATOR}.gkeDriverVersion",
        "only for platform gke; this cluster is k3s on existing hosts (provider ssh)",
    ),
    (
        "eks-only-node-image-on-k3s",
        k3s_config,
        pool_set(1, nodeImage="al2023"),
        f"{POOLS}[1].nodeImage",
        "only for platform eks; this cluster is k3s on existing hosts (provider ssh)",
    ),
    (
        "k3s-only-role-on-eks",
        eks_config,
        pool_set(1, role="server"),
        f"{POOLS}[1].role",
        "only for platform k3s; this cluster is eks",
    ),
    (
        "k3s-only-hosts-on-eks",
        eks_config,
        pool_set(1, hosts=[host("192.0.2.11")]),
        f"{POOLS}[1].hosts",
        "only for k3s on existing hosts (provider ssh); this cluster is eks",
    ),
    (
        "k3s-only-api-address-on-eks",
        eks_config,
        cluster_set(apiAddress="192.0.2.10"),
        f"{CLUSTER}.apiAddress",
        "only for k3s on existing hosts (provider ssh); this cluster is eks",
    ),
    (
        "k3s-only-ssh-key-on-eks",
        eks_config,
        top_set(SSH_KEY, {"secure": "v1:Z3B1a2l0LWV4YW1wbGUtcGxhY2Vob2xkZXI="}),
        SSH_KEY,
        "only for k3s on existing hosts (provider ssh); this cluster is eks",
    ),
]

# Bugs found while writing these cases, fixed since; kept as regression cases.
# (case id, base config, mutation, exact key, fragment of its message, what used to go wrong)
REGRESSIONS: list[tuple[str, Callable[[], Config], Mutation, str, str, str]] = [
    (
        "duplicate-dns-name-differing-in-case",
        k3s_config,
        pool_set(1, hosts=[host("gpu1.lab"), host("GPU1.lab")]),
        f"{POOLS}[1].hosts[1].address",
        f"'GPU1.lab' is the host {POOLS}[1].hosts[0].address lists ('gpu1.lab'); each host joins once",
        "DNS names are case-insensitive, but providers/ssh/validation.py _validate_hosts counts "
        "addresses as exact strings: 'gpu1.lab' and 'GPU1.lab' (the same host) are accepted, plan exits 0 "
        "and registers lab-l40s-gpu1-lab-{preflight,k3s,drain} twice (node_name lower-cases the address)",
    ),
    (
        "capacity-on-ssh-pool",
        k3s_config,
        pool_set(1, capacity="spot"),
        f"{POOLS}[1].capacity",
        "only for clusters on cloud machines",
        "capacity (a cloud purchase option) is accepted on a pool of existing hosts and silently "
        "ignored (the pool's `pools` output even reports capacity 'spot'); plan exits 0",
    ),
    (
        "disk-size-on-ssh-pool",
        k3s_config,
        pool_set(1, diskSizeGb=200),
        f"{POOLS}[1].diskSizeGb",
        "only for clusters on cloud machines",
        "diskSizeGb (a cloud root-volume size) is accepted on a pool of existing hosts and silently "
        "ignored; plan exits 0",
    ),
    (
        "tags-on-k3s-ssh",
        k3s_config,
        cluster_set(tags={"team": "ml"}),
        f"{CLUSTER}.tags",
        "only for clusters on cloud machines (eks, gke, k3s on aws, k3s on gcp)",
        "tags ('extra tags on every cloud resource') are accepted for k3s on existing hosts, which "
        "create no cloud resource, and silently ignored; plan exits 0",
    ),
]


@pytest.mark.parametrize(
    ("make", "key", "fragment"),
    [
        *(
            pytest.param(broken(base, mutation), key, fragment, id=case)
            for case, base, mutation, key, fragment in CASES
        ),
        *(
            pytest.param(broken(base, mutation), key, fragment, id=case)
            for case, base, mutation, key, fragment, _ in REGRESSIONS
        ),
    ],
)
def test_bad_k3s_config_is_refused(
    make: Callable[[], Config],
    key: str,
    fragment: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    config = make()
    assert_refused(config, key, fragment, tmp_path, capsys, program=for_program(config))


def test_case_ids_are_unique_and_enough() -> None:
    ids = [case[0] for case in CASES] + [case[0] for case in REGRESSIONS]
    assert len(ids) == len(set(ids))
    assert len(CASES) >= 12


# --- valid k3s configs ------------------------------------------------------------------------------


def plan_ok(config: Config, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    """Run `gpukit plan --config ... --out`; asserts exit 0 and no traceback, returns plan.json."""
    path = tmp_path / "Pulumi.good.yaml"
    path.write_text(yaml.safe_dump({"config": config}))
    out = tmp_path / "out"
    code = main(["plan", "--config", str(path), "--out", str(out)])
    stdout, stderr = capsys.readouterr()
    assert code == EXIT_OK, f"exit {code}\nstdout:\n{stdout}\nstderr:\n{stderr}"
    assert "Traceback" not in stdout + stderr
    doc: dict[str, Any] = json.loads((out / "plan.json").read_text())
    return doc


def installs(doc: dict[str, Any]) -> dict[str, str]:
    """The k3s install command of each host in a plan.json: resource name -> create command."""
    return {
        r["name"]: r["inputs"]["create"]
        for r in doc["resources"]
        if r["type"] == COMMAND and r["name"].endswith("-k3s")
    }


def test_base_config_plans_and_builds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The cases fail because of their one change: the stack config they start from is valid."""
    doc = plan_ok(k3s_config(), tmp_path, capsys)
    assert doc["platform"] == "k3s"
    assert sorted(installs(doc)) == [
        "lab-control-192-0-2-10-k3s",
        "lab-l40s-192-0-2-11-k3s",
        "lab-l40s-192-0-2-12-k3s",
    ]
    program_config, secret_keys = for_program(k3s_config())
    assert secret_keys == [SSH_KEY]
    assert record(lambda: build(program_config, secret_keys)).resources


def test_three_server_ha_plans_with_one_server_that_may_start_the_cluster(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = k3s_config()
    hosts_add(0, host("192.0.2.13"), host("192.0.2.14"))(config)
    doc = plan_ok(config, tmp_path, capsys)

    urls = {a: f"https://192.0.2.{a}:6443" for a in (10, 13, 14)}
    scripts = {name: remote_script(create) for name, create in installs(doc).items()}
    for address in urls:
        script = scripts[f"lab-control-192-0-2-{address}-k3s"]
        # Each server joins through the others, never itself; only the first may start the cluster
        # (with embedded etcd), and only when none of the others answers.
        assert script_input(script, "JOIN_URLS").split() == [u for a, u in urls.items() if a != address]
        assert script_input(script, "MAY_INIT") == ("true" if address == 10 else "false")
        assert script_input(script, "CLUSTER_INIT") == "true"
        assert "cluster-init" not in script_input(script, "K3S_CONFIG")
    for address in (11, 12):  # agents join through any server
        script = scripts[f"lab-l40s-192-0-2-{address}-k3s"]
        assert script_input(script, "JOIN_URLS").split() == list(urls.values())
        assert script_input(script, "MAY_INIT") == "false"


def test_every_k3s_problem_is_reported_in_one_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = broken(
        k3s_config,
        steps(
            cluster_set(k3sVersion="v1.34.11+k3s1"),
            host_set(1, 0, user="Ubuntu User"),
            host_set(1, 1, address="192.0.2.10"),
            pool_set(1, gpu={"model": "L40X", "count": 2}),
        ),
    )()
    expected = [
        (f"{CLUSTER}.k3sVersion", "is k3s 1.34, but kubernetesVersion is '1.36'"),
        (f"{HOST}.user", "must be a Unix user name"),
        (f"{POOLS}[1].hosts[1].address", f"'192.0.2.10' is the host {POOLS}[0].hosts[0].address lists"),
        (f"{POOLS}[1].gpu.model", "did you mean L40, L40S"),
    ]
    stderr = plan_stderr(config, tmp_path, capsys)
    for key, fragment in expected:
        assert has_problem(stderr, key, fragment), f"no line '{key}: ...{fragment}...' in:\n{stderr}"

    program_config, secret_keys = for_program(config)
    assert build_recording(program_config, secret_keys).recorded == []
    with pytest.raises(ConfigError) as raised:
        record(lambda: build(program_config, secret_keys))
    assert {key for key, _ in expected} <= {problem.key for problem in raised.value.problems}


# --- found while writing these cases, fixed since -----------------------


def test_provider_ssh_on_eks_names_only_the_provider(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = broken(eks_config, cluster_set(provider="ssh"))()
    stderr = plan_stderr(config, tmp_path, capsys)
    assert has_problem(stderr, f"{CLUSTER}.provider", "platform eks implies provider aws")
    named = [line.strip() for line in stderr.splitlines()[1:] if line.strip()]
    assert all(line.startswith(f"{CLUSTER}.provider: ") for line in named), stderr


def test_hosts_with_colliding_node_names_are_told_apart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Either refused naming the second address, or planned with a node (and resources) per host."""
    config = broken(k3s_config, pool_set(1, hosts=[host("gpu1.lab"), host("gpu1-lab")]))()
    path = tmp_path / "Pulumi.collide.yaml"
    path.write_text(yaml.safe_dump({"config": config}))
    out = tmp_path / "out"
    code = main(["plan", "--config", str(path), "--out", str(out)])
    stdout, stderr = capsys.readouterr()
    assert "Traceback" not in stdout + stderr
    if code == EXIT_INVALID:
        assert any(line.strip().startswith(f"{POOLS}[1].hosts[1].address: ") for line in stderr.splitlines())
        return
    assert code == EXIT_OK, stderr
    doc = json.loads((out / "plan.json").read_text())
    names = Counter((r["type"], r["name"]) for r in doc["resources"])
    assert [name for name, count in names.items() if count > 1] == []


def test_ipv6_server_address_is_bracketed_in_the_join_url(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = k3s_config()
    del config["gpukit:storage"]  # its NFS server names the server host by its IPv4 address
    config[POOLS][0]["hosts"] = [host("2001:db8::10")]
    del config[CLUSTER]["apiAddress"]
    doc = plan_ok(config, tmp_path, capsys)
    for name, create in installs(doc).items():
        if name.startswith("lab-l40s-"):
            assert script_input(remote_script(create), "JOIN_URLS") == "https://[2001:db8::10]:6443", name
