"""Config errors never print a secret value: the SSH private key (even when it is wrongly in plain text)
or any value a stack gives as `secure:`. The messages still name the key, and say the type given.

Each case feeds a recognisable secret and looks for it in everything a user sees: `gpukit plan`'s
stdout and stderr (where a secure value is a placeholder: neither it nor the ciphertext may show), and
the ConfigError `build` raises as under `pulumi up`, where the CLI hands the program the decrypted
value and marks its top-level key secret.
"""

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpukit.cli import EXIT_INVALID, main
from gpukit.components.cluster import GpuCluster
from gpukit.components.errors import ConfigError
from gpukit.program import build
from harness import eks_config, record
from tests.program.test_bad_configs import CLUSTER, POOLS, has_problem
from tests.program.test_bad_configs_k3s import k3s_config

SECRET = "Recognisable-Secret-7f3a9c"
PRIVATE_KEY = f"-----BEGIN OPENSSH PRIVATE KEY-----\n{SECRET}\n-----END OPENSSH PRIVATE KEY-----\n"
SSH_KEY = "gpukit:sshPrivateKey"
CIPHERTEXT = "v1:UmVjb2duaXNhYmxlLUNpcGhlcnRleHQ="
PLACEHOLDER = "gpukit-plan-secret-placeholder"


def plan_output(config: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """stdout and stderr of `gpukit plan --config`, which must exit 2 without a traceback."""
    path = tmp_path / "Pulumi.secret.yaml"
    path.write_text(yaml.safe_dump({"config": config}))
    code = main(["plan", "--config", str(path)])
    out, err = capsys.readouterr()
    assert code == EXIT_INVALID, f"exit {code}\n{out}\n{err}"
    assert "Traceback" not in out + err
    return out + err


def build_error(config: dict[str, Any], secret_keys: list[str]) -> ConfigError:
    with pytest.raises(ConfigError) as raised:
        record(lambda: build(config, secret_keys))
    return raised.value


def assert_hidden(text: str, *secrets: str) -> None:
    for secret in secrets:
        assert secret not in text, f"{secret!r} shown in:\n{text}"


# --- the SSH private key ----------------------------------------------------------------------------


def test_ssh_key_in_plain_text_is_refused_without_being_shown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = k3s_config()
    config[SSH_KEY] = PRIVATE_KEY
    text = plan_output(config, tmp_path, capsys)
    assert has_problem(text, SSH_KEY, "must be stored encrypted, never in plain text in the stack file")
    assert_hidden(text, SECRET)


@pytest.mark.parametrize(
    ("value", "kind"),
    # (A scalar reaches the program as a string, as from the Pulumi CLI: it is refused as plain text.)
    [([PRIVATE_KEY], "a list"), ({"key": PRIVATE_KEY}, "a mapping")],
    ids=["list", "mapping"],
)
def test_ssh_key_of_a_wrong_type_is_named_by_its_type_only(
    value: Any, kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = k3s_config()
    config[SSH_KEY] = value
    text = plan_output(config, tmp_path, capsys)
    assert has_problem(
        text, SSH_KEY, f"must be a string (from Python: a string or a secret Output), got {kind}"
    )
    assert_hidden(text, SECRET)

    error = build_error({**config, SSH_KEY: value}, [SSH_KEY])
    assert has_problem(str(error), SSH_KEY, f"got {kind}")
    assert_hidden(str(error), SECRET)


def test_ssh_key_through_the_library_is_never_shown() -> None:
    """GpuCluster args with a broken cluster: the key (a plain string here) appears in no line."""
    config = k3s_config()
    args: Any = {
        "cluster": {**config[CLUSTER], "name": "Not A Valid Name"},
        "node_pools": config[POOLS],
        "ssh_private_key": [PRIVATE_KEY],
    }
    with pytest.raises(ConfigError) as raised:
        record(lambda: GpuCluster("lab", args))
    text = str(raised.value)
    assert has_problem(text, SSH_KEY, "got a list")
    assert has_problem(text, f"{CLUSTER}.name", "got 'Not A Valid Name'")  # plain values still shown
    assert_hidden(text, SECRET)


# --- `secure:` values in other keys -----------------------------------------------------------------


def secure_at(config: dict[str, Any], path: tuple[Any, ...]) -> None:
    """Replace the value at `path` with an encrypted one, as `pulumi config set --secret --path` does."""
    target = config
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = {"secure": CIPHERTEXT}


def decrypted_at(
    config: dict[str, Any], path: tuple[Any, ...], value: str
) -> tuple[dict[str, Any], list[str]]:
    """The config as the Pulumi CLI hands it to the program: the value decrypted, its top key secret."""
    out = copy.deepcopy(config)
    target = out
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    keys = [path[0]]
    if SSH_KEY in out:
        out[SSH_KEY] = PRIVATE_KEY
        keys.append(SSH_KEY)
    return out, keys


# (case id, base config, where the secret goes, the key its message names, a value that is wrong there)
SECURE_CASES = [
    ("cluster-name", k3s_config, (CLUSTER, "name"), f"{CLUSTER}.name", f"{SECRET} not a name"),
    ("api-address", k3s_config, (CLUSTER, "apiAddress"), f"{CLUSTER}.apiAddress", f"{SECRET}!"),
    (
        "host-user",
        k3s_config,
        (POOLS, 1, "hosts", 0, "user"),
        f"{POOLS}[1].hosts[0].user",
        f"{SECRET} user",
    ),
    (
        "host-address",
        k3s_config,
        (POOLS, 1, "hosts", 0, "address"),
        f"{POOLS}[1].hosts[0].address",
        f"{SECRET} host",
    ),
    ("host-port", k3s_config, (POOLS, 1, "hosts", 0, "port"), f"{POOLS}[1].hosts[0].port", SECRET),
    ("aws-region", eks_config, ("aws:region",), "aws:region", f"{SECRET}-1"),
    ("pool-name", eks_config, (POOLS, 0, "name"), f"{POOLS}[0].name", f"{SECRET} pool"),
]


@pytest.mark.parametrize(
    ("base", "path"),
    [pytest.param(base, path, id=case) for case, base, path, _, _ in SECURE_CASES],
)
def test_secure_values_never_show_in_plan_output(
    base: Any, path: tuple[Any, ...], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = base()
    secure_at(config, path)
    text = plan_output(config, tmp_path, capsys)
    # Refused, naming the key that holds the secure value (gpukit keys take none but the SSH key).
    assert any(line.strip().startswith(f"{path[0]}") for line in text.splitlines()[1:]), text
    assert_hidden(text, CIPHERTEXT, PLACEHOLDER)


@pytest.mark.parametrize(
    ("base", "path", "key", "value"),
    [pytest.param(base, path, key, value, id=case) for case, base, path, key, value in SECURE_CASES],
)
def test_decrypted_values_never_show_in_config_errors(
    base: Any, path: tuple[Any, ...], key: str, value: str
) -> None:
    """Under `pulumi up`: each value is wrong where it is, so its key is named, with the type only."""
    config, secret_keys = decrypted_at(base(), path, value)
    text = str(build_error(config, secret_keys))
    assert any(line.startswith(f"{key}: ") for line in text.splitlines()), text
    assert_hidden(text, SECRET, value)
