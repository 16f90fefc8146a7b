"""SSH hosts that gpukit cannot trust or reach: host keys missing or wrong, addresses that cannot work,
one host written twice. Each is refused like every bad config (exit 2 naming the key, no traceback,
nothing built); the opt-out `gpukit:cluster.insecureIgnoreHostKeys` plans, and says so loudly.

The cases start from stacks/Pulumi.k3s-ssh.yaml, as test_bad_configs_k3s.py's do.
"""

from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from gpukit.cli import main
from gpukit.components.errors import ConfigError
from gpukit.components.resolve.config import resolve_config
from tests.program.test_bad_configs import (
    CLUSTER,
    POOLS,
    Config,
    Mutation,
    assert_refused,
    broken,
    cluster_set,
    eks_config,
    has_problem,
    plan_stderr,
    pool_set,
    steps,
)
from tests.program.test_bad_configs_k3s import (
    HOST,
    for_program,
    host,
    host_set,
    k3s_config,
    plan_ok,
)
from tests.ssh_host_keys import ED25519_11, ED25519_OTHER, HASHED_11, HASHED_198_51_100_5, RSA_3072

BASTION = {"address": "198.51.100.5", "user": "jump", "hostKey": ED25519_OTHER}
ZONED = "fe80::1%x *(rw,no_root_squash,insecure) y"
"""An IPv6 address with a zone id that, written into /etc/exports as it is, adds a world-writable export."""
INSECURE = f"{CLUSTER}.insecureIgnoreHostKeys"


def host_drop(pool: int, index: int, key: str) -> Mutation:
    def mutate(config: Config) -> None:
        del config[POOLS][pool]["hosts"][index][key]

    return mutate


def bastion_drop(key: str) -> Mutation:
    """The first GPU host behind BASTION, without the bastion's `key`."""

    def mutate(config: Config) -> None:
        bastion = {k: v for k, v in BASTION.items() if k != key}
        config[POOLS][1]["hosts"][0]["bastion"] = bastion

    return mutate


# (case id, base config, mutation, exact key, fragment of its message)
CASES: list[tuple[str, Callable[[], Config], Mutation, str, str]] = [
    (
        "host-without-host-key",
        k3s_config,
        host_drop(1, 0, "hostKey"),
        f"{HOST}.hostKey",
        "required: the host's SSH public key, so that gpukit sends the cluster's CA keys and token to "
        "this machine and no other. Get it with `ssh-keyscan -t ed25519 192.0.2.11`, compare its "
        "fingerprint (`ssh-keyscan -t ed25519 192.0.2.11 | ssh-keygen -lf -`) with the one the host's own "
        "console shows (`ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub`)",
    ),
    (
        "host-without-host-key-names-the-opt-out",
        k3s_config,
        host_drop(1, 0, "hostKey"),
        f"{HOST}.hostKey",
        f"or set {INSECURE}: true to connect without checking (insecure)",
    ),
    (
        "server-without-host-key",
        k3s_config,
        host_drop(0, 0, "hostKey"),
        f"{POOLS}[0].hosts[0].hostKey",
        "`ssh-keyscan -t ed25519 192.0.2.10`",
    ),
    (
        "host-off-port-22-without-host-key",
        k3s_config,
        steps(host_set(1, 0, port=2222), host_drop(1, 0, "hostKey")),
        f"{HOST}.hostKey",
        "`ssh-keyscan -p 2222 -t ed25519 192.0.2.11`",
    ),
    (
        "host-behind-a-bastion-without-host-key",
        k3s_config,
        steps(host_set(1, 0, bastion=dict(BASTION)), host_drop(1, 0, "hostKey")),
        f"{HOST}.hostKey",
        "Get it with `ssh-keyscan -t ed25519 192.0.2.11` on the bastion 198.51.100.5",
    ),
    (
        "bastion-without-host-key",
        k3s_config,
        bastion_drop("hostKey"),
        f"{HOST}.bastion.hostKey",
        "required: the host's SSH public key",
    ),
    (
        "bastion-host-key-for-another-host",
        k3s_config,
        host_set(1, 0, bastion={**BASTION, "hostKey": f"192.0.2.11 {ED25519_OTHER}"}),
        f"{HOST}.bastion.hostKey",
        "is a known_hosts line for '192.0.2.11', not for 198.51.100.5",
    ),
    (
        "host-key-line-for-another-host",
        k3s_config,
        host_set(1, 0, hostKey=f"192.0.2.12 {ED25519_11}"),
        f"{HOST}.hostKey",
        "is a known_hosts line for '192.0.2.12', not for 192.0.2.11; give the line `ssh-keyscan` prints",
    ),
    (
        "host-key-hashed-line-for-another-host",
        k3s_config,
        host_set(1, 0, hostKey=HASHED_198_51_100_5),
        f"{HOST}.hostKey",
        "is a known_hosts line for another (hashed) host, not for 192.0.2.11",
    ),
    (
        "host-key-of-unknown-type",
        k3s_config,
        host_set(1, 0, hostKey="ssh-dss AAAAB3NzaC1kc3MAAACBAP"),
        f"{HOST}.hostKey",
        "unknown key type 'ssh-dss'; known types: ssh-ed25519, ecdsa-sha2-nistp256",
    ),
    (
        "host-key-type-differs-from-its-blob",
        k3s_config,
        host_set(1, 0, hostKey=f"ecdsa-sha2-nistp256 {ED25519_11.split()[1]}"),
        f"{HOST}.hostKey",
        "it says ecdsa-sha2-nistp256 but its base64 holds a ssh-ed25519 key",
    ),
    (
        "host-key-not-base64",
        k3s_config,
        host_set(1, 0, hostKey="ssh-ed25519 AAAA#not-base64"),
        f"{HOST}.hostKey",
        "the ssh-ed25519 key's base64 does not decode",
    ),
    (
        "host-key-not-a-string",
        k3s_config,
        host_set(1, 0, hostKey=["ssh-ed25519", ED25519_11.split()[1]]),
        f"{HOST}.hostKey",
        "must be a string",
    ),
    (
        "opt-out-not-a-bool",
        k3s_config,
        cluster_set(insecureIgnoreHostKeys="yes"),
        INSECURE,
        "must be true or false, got 'yes'",
    ),
    (
        "opt-out-on-eks",
        eks_config,
        cluster_set(insecureIgnoreHostKeys=True),
        INSECURE,
        "only for k3s on existing hosts (provider ssh); this cluster is eks",
    ),
    # addresses that cannot work
    *(
        (
            f"host-address-{case}",
            k3s_config,
            host_set(1, 0, address=address),
            f"{HOST}.address",
            f"{address!r} {reason}: it must be the address the other hosts (and, for a server, kubectl "
            "and Pulumi) reach this host at",
        )
        for case, address, reason in [
            ("loopback", "127.0.0.1", "is a loopback address"),
            ("loopback-elsewhere-in-127", "127.1.2.3", "is a loopback address"),
            ("ipv6-loopback", "::1", "is a loopback address"),
            ("ipv4-mapped-loopback", "::ffff:127.0.0.1", "is a loopback address"),
            ("unspecified", "0.0.0.0", "is the unspecified address"),
            ("ipv6-unspecified", "::", "is the unspecified address"),
            ("localhost", "localhost", "names the local machine (localhost)"),
            ("localhost-subdomain", "gpu1.LOCALHOST", "names the local machine (localhost)"),
        ]
    ),
    (
        "server-address-loopback",
        k3s_config,
        host_set(0, 0, address="127.0.0.1"),
        f"{POOLS}[0].hosts[0].address",
        "'127.0.0.1' is a loopback address",
    ),
    *(
        (
            f"api-address-{case}",
            k3s_config,
            cluster_set(apiAddress=address),
            f"{CLUSTER}.apiAddress",
            f"{address!r} {reason}: kubectl, Pulumi and the certificate need the address a server",
        )
        for case, address, reason in [
            ("loopback", "127.0.0.1", "is a loopback address"),
            ("ipv6-loopback", "::1", "is a loopback address"),
            ("unspecified", "0.0.0.0", "is the unspecified address"),
            ("ipv6-unspecified", "::", "is the unspecified address"),
            ("localhost", "localhost", "names the local machine (localhost)"),
        ]
    ),
    # an IPv6 zone id: Python reads any text after the `%` as one, spaces and parentheses included
    *(
        (
            f"{case}-with-an-ipv6-zone-id",
            k3s_config,
            mutation,
            key,
            f"must be an IP address or DNS name; got {address!r}, which has an IPv6 zone (scope) id, the "
            "part after '%': a zone id is local to one host",
        )
        for case, address, mutation, key in [
            (
                "host-address",
                ZONED,
                host_set(1, 1, address=ZONED, hostKey=ED25519_OTHER),
                f"{POOLS}[1].hosts[1].address",
            ),
            (
                "server-address",
                "fe80::10%eth0",
                host_set(0, 0, address="fe80::10%eth0"),
                f"{POOLS}[0].hosts[0].address",
            ),
            (
                "bastion-address",
                ZONED,
                host_set(1, 0, bastion={**BASTION, "address": ZONED}),
                f"{HOST}.bastion.address",
            ),
            ("api-address", ZONED, cluster_set(apiAddress=ZONED), f"{CLUSTER}.apiAddress"),
        ]
    ),
    # one host in two spellings
    (
        "same-ipv6-host-in-two-spellings",
        k3s_config,
        pool_set(1, hosts=[host("2001:db8::1"), host("2001:DB8:0::1")]),
        f"{POOLS}[1].hosts[1].address",
        f"'2001:DB8:0::1' is the host {POOLS}[1].hosts[0].address lists ('2001:db8::1'); "
        "each host joins once",
    ),
    (
        "same-ipv6-host-in-two-pools",
        k3s_config,
        steps(
            host_set(0, 0, address="2001:db8::10"),
            cluster_set(apiAddress="2001:db8::10"),
            host_set(1, 1, address="2001:0db8:0000:0000:0000:0000:0000:0010"),
        ),
        f"{POOLS}[1].hosts[1].address",
        f"is the host {POOLS}[0].hosts[0].address lists ('2001:db8::10')",
    ),
    (
        "same-host-as-ipv4-mapped-ipv6",
        k3s_config,
        host_set(1, 1, address="::ffff:192.0.2.11"),
        f"{POOLS}[1].hosts[1].address",
        f"'::ffff:192.0.2.11' is the host {POOLS}[1].hosts[0].address lists ('192.0.2.11')",
    ),
]


@pytest.mark.parametrize(
    ("make", "key", "fragment"),
    [
        pytest.param(broken(base, mutation), key, fragment, id=case)
        for case, base, mutation, key, fragment in CASES
    ],
)
def test_untrusted_or_unreachable_host_is_refused(
    make: Callable[[], Config],
    key: str,
    fragment: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    config = make()
    assert_refused(config, key, fragment, tmp_path, capsys, program=for_program(config))


def test_case_ids_are_unique() -> None:
    ids = [case[0] for case in CASES]
    assert len(ids) == len(set(ids))


def test_every_host_and_bastion_without_a_key_is_named_in_one_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = k3s_config()
    for pool in config[POOLS]:
        for entry in pool["hosts"]:
            del entry["hostKey"]
    config[POOLS][1]["hosts"][1]["bastion"] = {"address": "198.51.100.5", "user": "jump"}
    stderr = plan_stderr(config, tmp_path, capsys)
    missing = sorted(
        line.strip().split(": ", 1)[0] for line in stderr.splitlines() if "hostKey: required" in line
    )
    assert missing == [
        f"{POOLS}[0].hosts[0].hostKey",
        f"{POOLS}[1].hosts[0].hostKey",
        f"{POOLS}[1].hosts[1].bastion.hostKey",
        f"{POOLS}[1].hosts[1].hostKey",
    ]


# --- accepted ---------------------------------------------------------------------------------------


def test_every_accepted_form_plans(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = k3s_config()
    gpu_hosts = config[POOLS][1]["hosts"]
    gpu_hosts[0]["hostKey"] = HASHED_11  # as `ssh-keyscan -H` prints it
    gpu_hosts[1]["hostKey"] = f"{ED25519_OTHER} root@gpu2"  # as the host's .pub file has it
    gpu_hosts[1]["port"] = 2222
    gpu_hosts[1]["bastion"] = {**BASTION, "hostKey": f"198.51.100.5 {ED25519_OTHER}"}
    # Two more servers (three in all): known_hosts lines that spell the address another way.
    config[POOLS][0]["hosts"].append(host("2001:db8::20", hostKey=f"2001:DB8::20 {ED25519_11}"))
    config[POOLS][0]["hosts"].append(host("gpu3.lab", hostKey=f"GPU3.lab {ED25519_11}"))
    doc = plan_ok(config, tmp_path, capsys)
    assert doc["platform"] == "k3s"


def test_opt_out_plans_and_says_loudly_which_hosts_are_unchecked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = k3s_config()
    del config[POOLS][1]["hosts"][1]["hostKey"]
    config[POOLS][1]["hosts"][1]["bastion"] = {"address": "198.51.100.5", "user": "jump"}
    config[CLUSTER]["insecureIgnoreHostKeys"] = True
    plan_ok(config, tmp_path, capsys)
    path = tmp_path / "Pulumi.good.yaml"  # plan_ok wrote it: the text report of the same stack
    assert main(["plan", "--config", str(path)]) == 0
    report = capsys.readouterr().out
    assert (
        f"warning: {INSECURE}: SSH HOST KEYS ARE NOT CHECKED for 192.0.2.12, bastion 198.51.100.5: whoever "
        "answers at those addresses is sent the cluster's CA keys and join token"
    ) in report
    assert (
        "fix: give each of 192.0.2.12, bastion 198.51.100.5 a hostKey (`ssh-keyscan -t ed25519 <address>`, "
        f"checked against the host), then remove {INSECURE}"
    ) in report
    hosts = {line.split()[0]: line for line in report.splitlines() if line.startswith(("control-", "l40s-"))}
    assert "NOT CHECKED" in hosts["l40s-192-0-2-12"]
    assert "ssh-ed25519 SHA256:WFiBJDzgcbg03si9DtmFwQRvHzY2qPBKOg5ec0u1bU0" in hosts["l40s-192-0-2-11"]


def test_opt_out_with_every_key_given_changes_nothing_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = k3s_config()
    config[CLUSTER]["insecureIgnoreHostKeys"] = True
    path = tmp_path / "Pulumi.good.yaml"
    path.write_text(yaml.safe_dump({"config": config}))
    assert main(["plan", "--config", str(path)]) == 0
    report = capsys.readouterr().out
    assert f"info: {INSECURE}: set, but every host and bastion has a hostKey, and each is checked" in report
    assert "NOT CHECKED" not in report


def test_rsa_host_key_plans_with_a_warning_that_modern_openssh_refuses_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = k3s_config()
    config[POOLS][1]["hosts"][0]["hostKey"] = RSA_3072
    path = tmp_path / "Pulumi.good.yaml"
    path.write_text(yaml.safe_dump({"config": config}))
    assert main(["plan", "--config", str(path)]) == 0
    report = capsys.readouterr().out
    assert has_problem(
        report.replace("warning: ", ""),
        f"{HOST}.hostKey",
        "an ssh-rsa key: pulumi-command then asks 192.0.2.11 for SHA-1 `ssh-rsa` signatures, which OpenSSH "
        "8.8 and newer refuse by default",
    ), report
    assert "fix: set gpukit:nodePools[1].hosts[0].hostKey to the host's ed25519 key" in report


# --- config text never drives the terminal ----------------------------------------------------------

OSC52 = "\x1b]52;c;SGVsbG8=\x07"
"""OSC 52: a terminal that honours it puts `Hello` on the clipboard of whoever reads the text."""
UNSAFE = "\x1b\x07\x9b\u202e\u2066\u2069"


@pytest.mark.parametrize(
    "payload",
    [OSC52, "\n  gpukit:cluster.name: forged line", "\u202e\u2066evil\u2069\x9b31m"],
    ids=["osc52", "newline", "bidi-and-c1"],
)
def test_escapes_in_a_stack_reach_the_terminal_as_visible_text(
    payload: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = k3s_config()
    # The third host keeps its known_hosts line for 192.0.2.12: its message names the address given.
    config[POOLS][1]["hosts"][1]["address"] = f"192.0.2.12{payload}"
    config[POOLS][1]["name"] = f"l40s{payload}"
    path = tmp_path / "Pulumi.bad.yaml"
    path.write_text(yaml.safe_dump({"config": config}))
    shown = []
    for argv in (["plan", "--config", str(path)], ["plan", "--json", "--config", str(path)]):
        assert main(argv) == 2
        shown.append("".join(capsys.readouterr()))
    for text in shown:
        assert not set(text) & set(UNSAFE), text
        assert not any(line.lstrip().startswith("gpukit:cluster.name") for line in text.splitlines()), text
    assert (
        f"{POOLS}[1].hosts[1].hostKey: is a known_hosts line for '192.0.2.12', not for 192.0.2.12" in shown[0]
    )
    # Under `pulumi up` the same problems are the ConfigError's text.
    program_config, secret_keys = for_program(config)
    with pytest.raises(ConfigError) as raised:
        resolve_config(program_config, secret_keys)
    text = str(raised.value)
    assert len(text.splitlines()) == len(raised.value.problems)
    assert not set(text) & set(UNSAFE), text
