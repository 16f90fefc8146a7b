"""What k3s cloud machines run at first boot: golden files, `cloud-init schema`, shellcheck, and the
bootstrap, secret-fetch and API-wait scripts executed against stub commands."""

import base64
import json
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from scripts.stubs import FakeHost

from gpukit.components.k3s.cloud_init import BOOTSTRAP_DIR, CloudNode, api_wait_script, node_scripts
from gpukit.components.k3s.host_scripts import render_script
from gpukit.components.spec import DriverMode, NodeRole
from gpukit.providers.aws.k3s.iam import fetch_secrets_script as aws_fetch_secrets_script
from gpukit.providers.aws.k3s.user_data import EC2_USER_DATA_LIMIT, node_user_data
from gpukit.providers.gcp.k3s.iam import fetch_secrets_script as gcp_fetch_secrets_script
from gpukit.providers.gcp.k3s.startup_script import gce_startup_script
from tools import cloud_init_schema_problems, shellcheck_problems

VERSION = "v1.35.8+k3s1"
SECRET_ARN = "arn:aws:secretsmanager:us-east-1:123456789012:secret:k3s-aws-agents-AbCdEf"
SECRET_VERSION = "projects/acme-ml-dev/secrets/k3s-gcp-agents/versions/latest"
L4_AGENT = CloudNode(
    NodeRole.AGENT,
    VERSION,
    DriverMode.OPERATOR,
    labels={"gpukit.dev/pool": "l4", "gpukit.dev/gpu-model": "L4", "nvidia.com/gpu.present": "true"},
    taints=("nvidia.com/gpu=true:NoSchedule",),
    expect_gpus=1,
    gpu_model="L4",
    min_driver_branch=570,
    cuda_version="12.8",
)
FIRST_HA_SERVER = CloudNode(
    NodeRole.SERVER,
    VERSION,
    DriverMode.PREINSTALLED,
    labels={"gpukit.dev/pool": "control"},
    cluster_init=True,
    tls_sans=("10.70.0.10", "10.70.0.11", "10.70.0.12", "34.120.10.11"),
)
JOINING_SERVER = CloudNode(
    NodeRole.SERVER,
    VERSION,
    DriverMode.OPERATOR,
    labels={"gpukit.dev/pool": "control"},
    tls_sans=("k3s-aws-api-0123456789abcdef.elb.us-east-1.amazonaws.com", "10.50.1.10"),
)
AWS_FETCH = aws_fetch_secrets_script("us-east-1", SECRET_ARN)
GCP_FETCH = gcp_fetch_secrets_script(SECRET_VERSION)

USER_DATA: dict[str, Callable[[], str]] = {
    "aws-agent-l4-operator": lambda: node_user_data(L4_AGENT, "https://10.50.1.10:6443", AWS_FETCH),
    "aws-server-first": lambda: node_user_data(
        CloudNode(NodeRole.SERVER, VERSION, DriverMode.OPERATOR, tls_sans=JOINING_SERVER.tls_sans),
        None,
        AWS_FETCH,
    ),
    "aws-server-joining": lambda: node_user_data(JOINING_SERVER, "https://10.50.1.10:6443", AWS_FETCH),
}
STARTUP_SCRIPTS: dict[str, Callable[[], str]] = {
    "gce-server-first-ha": lambda: gce_startup_script(FIRST_HA_SERVER, None, GCP_FETCH),
    "gce-agent-l4-preinstalled": lambda: gce_startup_script(
        CloudNode(
            NodeRole.AGENT,
            VERSION,
            DriverMode.PREINSTALLED,
            labels={"gpukit.dev/pool": "l4"},
            taints=("nvidia.com/gpu=present:NoSchedule",),
            expect_gpus=1,
            gpu_model="L4",
        ),
        "https://10.70.0.10:6443",
        GCP_FETCH,
    ),
}
SCRIPTS: dict[str, Callable[[], str]] = {
    "bootstrap": lambda: render_script("bootstrap.sh", BOOTSTRAP_DIR=BOOTSTRAP_DIR),
    "fetch-secrets-aws": lambda: AWS_FETCH,
    "fetch-secrets-gcp": lambda: GCP_FETCH,
    "wait-for-api": lambda: api_wait_script("https://k3s.example.com:6443"),
}


# --- static checks


@pytest.mark.parametrize("name", sorted(USER_DATA))
def test_user_data_is_valid_cloud_config(name: str, tmp_path: Path) -> None:
    path = tmp_path / f"{name}.yaml"
    path.write_text(USER_DATA[name]())
    assert cloud_init_schema_problems(path) == ""


@pytest.mark.parametrize("name", sorted(USER_DATA))
def test_user_data_fits_ec2_and_carries_no_secret(name: str) -> None:
    text = USER_DATA[name]()
    assert len(text.encode()) < EC2_USER_DATA_LIMIT
    for marker in ("PRIVATE KEY", "BEGIN CERTIFICATE", "gpukit-token\t"):
        assert marker not in text


@pytest.mark.parametrize("name", sorted(USER_DATA))
def test_every_file_in_user_data_is_shellcheck_clean(name: str, tmp_path: Path) -> None:
    document = yaml.safe_load(USER_DATA[name]())
    written = {Path(f["path"]).name: f for f in document["write_files"]}
    assert sorted(written) == ["bootstrap.sh", "fetch-secrets.sh", "install.sh", "preflight.sh"]
    for file in written.values():
        assert (file["owner"], file["permissions"]) == ("root:root", "0700")
        path = tmp_path / Path(file["path"]).name
        path.write_text(file["content"])
        assert shellcheck_problems(path) == "", file["path"]
    assert document["runcmd"] == [[f"{BOOTSTRAP_DIR}/bootstrap.sh"]]


@pytest.mark.parametrize("name", sorted(STARTUP_SCRIPTS) + sorted(SCRIPTS))
def test_boot_scripts_are_shellcheck_clean(name: str, tmp_path: Path) -> None:
    path = tmp_path / f"{name}.sh"
    path.write_text({**STARTUP_SCRIPTS, **SCRIPTS}[name]())
    assert shellcheck_problems(path) == ""


@pytest.mark.parametrize("name", sorted(USER_DATA))
def test_user_data_golden(name: str, golden) -> None:  # type: ignore[no-untyped-def]
    golden(f"boot/{name}.yaml", USER_DATA[name]())


@pytest.mark.parametrize("name", sorted(STARTUP_SCRIPTS) + sorted(SCRIPTS))
def test_boot_scripts_golden(name: str, golden) -> None:  # type: ignore[no-untyped-def]
    golden(f"boot/{name}.sh", {**STARTUP_SCRIPTS, **SCRIPTS}[name]())


def test_the_startup_script_writes_the_same_scripts_as_the_user_data() -> None:
    """GCE and EC2 machines run the same bootstrap: only the delivery differs."""
    scripts = node_scripts(L4_AGENT, "https://10.50.1.10:6443", GCP_FETCH)
    startup = gce_startup_script(L4_AGENT, "https://10.50.1.10:6443", GCP_FETCH)
    for text in scripts.values():
        assert text.rstrip("\n") in startup


def test_first_server_starts_etcd_and_the_others_join_it() -> None:
    installs = {
        "first": node_scripts(FIRST_HA_SERVER, None, GCP_FETCH)["install.sh"],
        "joining": node_scripts(JOINING_SERVER, "https://10.50.1.10:6443", AWS_FETCH)["install.sh"],
    }
    assert "cluster-init: true" in installs["first"] and "server: https://" not in installs["first"]
    assert "server: https://10.50.1.10:6443" in installs["joining"]
    assert "cluster-init" not in installs["joining"]
    assert "node-name" not in installs["first"]  # cloud machines keep their hostname as node name


# --- executed against stubs


@pytest.fixture
def host(tmp_path: Path) -> FakeHost:
    return FakeHost(tmp_path)


def _boot_dir(host: FakeHost, preflight: str = "exit 0", fetch: str = "echo bundle-line") -> Path:
    folder = host.root / BOOTSTRAP_DIR.lstrip("/")
    folder.mkdir(parents=True)
    for name, body in {
        "preflight.sh": preflight,
        "fetch-secrets.sh": fetch,
        "install.sh": 'cat > "$STATE/install-stdin"; echo installed',
    }.items():
        (folder / name).write_text(f"#!/usr/bin/env bash\n{body}\n")
        (folder / name).chmod(0o700)
    return folder


def test_bootstrap_pipes_the_secrets_into_the_install(host: FakeHost) -> None:
    _boot_dir(host)
    result = host.run(SCRIPTS["bootstrap"]())
    assert result.code == 0, result.stderr
    assert (host.state / "install-stdin").read_text() == "bundle-line\n"
    assert "bundle-line" not in result.stdout + result.stderr  # never echoed


def test_bootstrap_stops_when_the_preflight_fails(host: FakeHost) -> None:
    _boot_dir(host, preflight="echo 'check\tfail\tno NVIDIA GPU found'; exit 1")
    result = host.run(SCRIPTS["bootstrap"]())
    assert result.code == 1
    assert "preflight failed" in result.stderr
    assert not (host.state / "install-stdin").exists()


def test_bootstrap_retries_the_secret_store_then_gives_up(host: FakeHost) -> None:
    _boot_dir(host, fetch="exit 1")
    result = host.run(SCRIPTS["bootstrap"]())
    assert result.code == 1
    assert "could not read the join secrets after 8 attempts" in result.stderr
    assert [c for c in result.calls if c.startswith("sleep")] == [f"sleep {5 * i}" for i in range(1, 8)]
    assert not (host.state / "install-stdin").exists()


CREDENTIALS = {"AccessKeyId": "ASIAFAKE", "SecretAccessKey": "fake/secret+key", "Token": "fake-session"}
AWS_CURL = f"""
echo "curl $*" >> "$STATE/calls.log"
case "$*" in
  *latest/api/token*) echo imds-token ;;
  *security-credentials/k3s-agent-role) echo '{json.dumps(CREDENTIALS)}' ;;
  *security-credentials/) echo k3s-agent-role ;;
  *https://secretsmanager.*)
    cat > "$STATE/curl-config"
    echo '{{"ARN": "x", "SecretString": "path\\tYmFzZTY0\\n"}}' ;;
  *) exit 22 ;;
esac
"""


def test_aws_fetch_signs_with_the_instance_role_and_keeps_credentials_off_the_command_line(
    host: FakeHost,
) -> None:
    host.stub("curl", AWS_CURL)
    result = host.run(AWS_FETCH)
    assert result.code == 0, result.stderr
    assert result.stdout == "path\tYmFzZTY0\n\n"
    request = next(c for c in result.calls if "secretsmanager" in c)
    assert "--aws-sigv4 aws:amz:us-east-1:secretsmanager" in request
    assert "X-Amz-Target: secretsmanager.GetSecretValue" in request
    assert SECRET_ARN in request
    assert "X-aws-ec2-metadata-token: imds-token" in " ".join(result.calls)  # IMDSv2
    for secret in ("fake/secret+key", "fake-session"):
        assert secret not in " ".join(result.calls)
    config = (host.state / "curl-config").read_text()
    assert 'user = "ASIAFAKE:fake/secret+key"' in config
    assert 'header = "X-Amz-Security-Token: fake-session"' in config


def test_gcp_fetch_uses_the_vm_service_account_token(host: FakeHost) -> None:
    payload = base64.b64encode(b"path\tYmFzZTY0\n").decode()
    host.stub(
        "curl",
        f"""
echo "curl $*" >> "$STATE/calls.log"
case "${{*: -1}}" in
  */service-accounts/default/token) echo '{{"access_token": "ya29.fake", "expires_in": 3599}}' ;;
  https://secretmanager.googleapis.com/*)
    cat > "$STATE/curl-config"
    echo '{{"payload": {{"data": "{payload}"}}}}' ;;
  *) exit 22 ;;
esac
""",
    )
    result = host.run(GCP_FETCH)
    assert result.code == 0, result.stderr
    assert result.stdout == "path\tYmFzZTY0\n\n"
    assert f"https://secretmanager.googleapis.com/v1/{SECRET_VERSION}:access" in " ".join(result.calls)
    assert "ya29.fake" not in " ".join(result.calls)
    assert (host.state / "curl-config").read_text() == 'header = "Authorization: Bearer ya29.fake"\n'


def test_fetch_fails_clearly_without_an_instance_role(host: FakeHost) -> None:
    host.stub(
        "curl", 'echo "curl $*" >> "$STATE/calls.log"; case "$*" in *api/token*) echo t ;; *) exit 22 ;; esac'
    )
    result = host.run(AWS_FETCH)
    assert result.code == 1
    assert "no instance role" in result.stderr


def test_wait_for_api_accepts_an_unauthenticated_answer(host: FakeHost) -> None:
    (host.state / "codes").write_text("000\n000\n401\n")
    host.stub(
        "curl",
        'echo "curl $*" >> "$STATE/calls.log"; code=$(head -n 1 "$STATE/codes"); '
        'sed -i 1d "$STATE/codes"; printf %s "$code"',
    )
    result = host.run(api_wait_script("https://k3s.example.com:6443"))
    assert result.code == 0, result.stderr
    assert "answers (HTTP 401)" in result.stdout
    assert len([c for c in result.calls if c.startswith("curl")]) == 3
    assert all("--cert" not in c and "Authorization" not in c for c in result.calls)


def test_wait_for_api_gives_up_with_a_hint(host: FakeHost) -> None:
    host.stub("curl", 'echo "curl $*" >> "$STATE/calls.log"; printf 000; exit 7')
    result = host.run(api_wait_script("https://k3s.example.com:6443", timeout_seconds=30))
    assert result.code == 1
    assert "did not answer within 30s" in result.stderr and "apiAccessCidrs" in result.stderr
