"""What k3s cloud machines run at first boot: golden files, `cloud-init schema`, shellcheck, and the
bootstrap, secret-fetch and API-wait scripts executed against stub commands."""

import base64
import json
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from scripts.stubs import FakeHost

from gpukit.components.k3s import cloud_config
from gpukit.components.k3s.cloud_init import (
    BOOTSTRAP_DIR,
    DONE_MARKER,
    MISMATCH_EXIT,
    CloudNode,
    api_wait_script,
    credentials_bundle,
    node_scripts,
)
from gpukit.components.k3s.host_scripts import agent_join, k3s_download, render_script, server_join
from gpukit.components.spec import DriverMode, NodePoolSpec, NodeRole
from gpukit.providers.aws.k3s.iam import fetch_secrets_script as aws_fetch_secrets_script
from gpukit.providers.aws.k3s.iam import provider_id_script as aws_provider_id_script
from gpukit.providers.aws.k3s.iam import release_identity_script
from gpukit.providers.aws.k3s.spot_notice import (
    SCRIPT_PATH,
    UNIT_NAME,
    spot_notice_script,
    spot_notice_services,
)
from gpukit.providers.aws.k3s.user_data import EC2_USER_DATA_LIMIT, ec2_user_data, node_user_data
from gpukit.providers.gcp.k3s.iam import fetch_secrets_script as gcp_fetch_secrets_script
from gpukit.providers.gcp.k3s.iam import provider_id_script as gcp_provider_id_script
from gpukit.providers.gcp.k3s.startup_script import gce_startup_script
from harness import substrate
from tools import cloud_init_schema_problems, script_input, shellcheck_problems

VERSION = "v1.36.4+k3s1"
DOWNLOAD = k3s_download(VERSION)
SECRET_ARN = "arn:aws:secretsmanager:us-east-1:123456789012:secret:k3s-aws-agents-AbCdEf"
SECRET_VERSION_ID = "3f1c2a9e-6b0d-4c5e-9a7f-2d8e1b4c6a01"
SECRET_VERSION = "projects/acme-ml-dev/secrets/k3s-gcp-agents/versions/3"
SERVER_SECRET_VERSION = "projects/acme-ml-dev/secrets/k3s-gcp-k3s-server-join/versions/2"
JOIN_KEY = (
    "projects/acme-ml-dev/locations/us-central1/keyRings/k3s-gcp-ring-1a2b3c4/cryptoKeys/k3s-gcp-key-5d6e7f8"
)
AWS_SERVERS = ["https://10.50.1.10:6443", "https://10.50.2.10:6443", "https://10.50.3.10:6443"]
GCE_SERVERS = ["https://10.70.0.10:6443", "https://10.70.0.11:6443", "https://10.70.0.12:6443"]
L4_AGENT = CloudNode(
    NodeRole.AGENT,
    DOWNLOAD,
    DriverMode.OPERATOR,
    labels={"gpukit.dev/pool": "l4", "gpukit.dev/gpu-model": "L4", "nvidia.com/gpu.present": "true"},
    taints=("nvidia.com/gpu=true:NoSchedule",),
    expect_gpus=1,
    gpu_model="L4",
    min_driver_branch=570,
    cuda_version="12.8",
    join=agent_join(AWS_SERVERS[:1]),
)
FIRST_HA_SERVER = CloudNode(
    NodeRole.SERVER,
    DOWNLOAD,
    DriverMode.PREINSTALLED,
    labels={"gpukit.dev/pool": "control"},
    taints=("CriticalAddonsOnly=true:NoExecute",),
    join=server_join(0, GCE_SERVERS),
    tls_sans=("10.70.0.10", "10.70.0.11", "10.70.0.12", "34.120.10.11"),
)
JOINING_SERVER = CloudNode(
    NodeRole.SERVER,
    DOWNLOAD,
    DriverMode.OPERATOR,
    labels={"gpukit.dev/pool": "control"},
    taints=("CriticalAddonsOnly=true:NoExecute",),
    join=server_join(1, AWS_SERVERS),
    tls_sans=("k3s-aws-api-0123456789abcdef.elb.us-east-1.amazonaws.com", *(u[8:-5] for u in AWS_SERVERS)),
)
AWS_FETCH = aws_fetch_secrets_script("us-east-1", SECRET_ARN, SECRET_VERSION_ID)
RELEASE = release_identity_script("us-east-1")
_SPOT_SPEC = {"name": "l4", "instance_type": "g6.xlarge", "min_nodes": 0, "max_nodes": 4, "capacity": "spot"}
SPOT_POOL: NodePoolSpec = _SPOT_SPEC  # type: ignore[assignment]
SPOT_L4 = substrate("k3s-aws").pool_facts(SPOT_POOL)
GCP_FETCH = gcp_fetch_secrets_script(SECRET_VERSION)
GCP_SERVER_FETCH = gcp_fetch_secrets_script(SERVER_SECRET_VERSION, JOIN_KEY)

USER_DATA: dict[str, Callable[[], str]] = {
    "aws-agent-l4-operator": lambda: node_user_data(
        L4_AGENT, AWS_FETCH, provider_id=aws_provider_id_script()
    ),
    "aws-agent-l4-spot": lambda: node_user_data(
        L4_AGENT,
        AWS_FETCH,
        RELEASE,
        aws_provider_id_script(),
        spot_notice_services(SPOT_L4, L4_AGENT.shutdown),
    ),
    "aws-server-first": lambda: node_user_data(
        CloudNode(
            NodeRole.SERVER,
            DOWNLOAD,
            DriverMode.OPERATOR,
            join=server_join(0, AWS_SERVERS[:1]),
            tls_sans=JOINING_SERVER.tls_sans[:2],
        ),
        AWS_FETCH,
    ),
    "aws-server-joining": lambda: node_user_data(JOINING_SERVER, AWS_FETCH),
}
STARTUP_SCRIPTS: dict[str, Callable[[], str]] = {
    "gce-server-first-ha": lambda: gce_startup_script(FIRST_HA_SERVER, GCP_SERVER_FETCH),
    "gce-agent-l4-preinstalled": lambda: gce_startup_script(
        CloudNode(
            NodeRole.AGENT,
            DOWNLOAD,
            DriverMode.PREINSTALLED,
            labels={"gpukit.dev/pool": "l4"},
            taints=("nvidia.com/gpu=present:NoSchedule",),
            expect_gpus=1,
            gpu_model="L4",
            join=agent_join(GCE_SERVERS),
        ),
        GCP_FETCH,
        gcp_provider_id_script(),
    ),
}
SCRIPTS: dict[str, Callable[[], str]] = {
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
    "bootstrap": lambda: render_script("bootstrap.sh", BOOTSTRAP_DIR=BOOTSTRAP_DIR, DONE_MARKER=DONE_MARKER),
    "fetch-secrets-aws": lambda: AWS_FETCH,
    "release-identity-aws": lambda: RELEASE,
    "fetch-secrets-gcp": lambda: GCP_FETCH,
    "fetch-secrets-gcp-server": lambda: GCP_SERVER_FETCH,
    "provider-id-aws": aws_provider_id_script,
    "provider-id-gcp": gcp_provider_id_script,
    "spot-notice-aws": spot_notice_script,
    "wait-for-api": lambda: api_wait_script("https://k3s.example.com:6443"),
}


# --- static checks


@pytest.mark.parametrize("name", sorted(USER_DATA))
def test_user_data_is_valid_cloud_config(name: str, tmp_path: Path) -> None:
    path = tmp_path / f"{name}.yaml"
    path.write_text(USER_DATA[name]())
    assert cloud_init_schema_problems(path) == ""


@pytest.mark.parametrize("name", sorted(USER_DATA))
def test_user_data_is_the_same_from_either_yaml_emitter(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """libyaml's emitter writes it where PyYAML has one (components/k3s/cloud_config.py): the bytes
    PyYAML's own emitter writes, so a PyYAML without libyaml renders the same user data."""
    text = USER_DATA[name]()
    monkeypatch.setattr(cloud_config, "DUMPER", cloud_config.PythonDumper)
    assert USER_DATA[name]() == text


@pytest.mark.parametrize("name", sorted(USER_DATA))
def test_user_data_fits_ec2_and_carries_no_secret(name: str) -> None:
    text = USER_DATA[name]()
    # Over EC2's limit as text, so it goes gzipped (cloud-init reads gzip): what EC2 gets must fit.
    assert len(base64.b64decode(ec2_user_data(text))) <= EC2_USER_DATA_LIMIT
    for marker in ("PRIVATE KEY", "BEGIN CERTIFICATE", "gpukit-token\t"):
        assert marker not in text


@pytest.mark.parametrize("name", sorted(USER_DATA))
def test_every_file_in_user_data_is_shellcheck_clean(name: str, tmp_path: Path) -> None:
    document = yaml.safe_load(USER_DATA[name]())
    written = {Path(f["path"]).name: f for f in document["write_files"]}
    unit = written.pop("gpukit-bootstrap.service")
    assert (unit["path"], unit["permissions"]) == ("/etc/systemd/system/gpukit-bootstrap.service", "0644")
    scripts = ["bootstrap.sh", "fetch-secrets.sh", "install.sh", "preflight.sh"]
    # Agents register under their provider ID (the Cluster Autoscaler's key for their group).
    scripts += ["provider-id.sh"] if "agent" in name else []
    enabled = ["gpukit-bootstrap.service"]
    if "spot" in name:  # the spot-notice backstop: its script and its unit, enabled at first boot
        spot_unit = written.pop(UNIT_NAME)
        assert (spot_unit["path"], spot_unit["permissions"]) == (f"/etc/systemd/system/{UNIT_NAME}", "0644")
        assert f"ExecStart={SCRIPT_PATH}" in spot_unit["content"]
        assert written["spot-notice.sh"]["path"] == SCRIPT_PATH
        scripts += ["release-identity.sh", "spot-notice.sh"]
        enabled.append(UNIT_NAME)
    assert sorted(written) == sorted(scripts)
    for file in written.values():
        assert (file["owner"], file["permissions"]) == ("root:root", "0700")
        path = tmp_path / Path(file["path"]).name
        path.write_text(file["content"])
        assert shellcheck_problems(path) == "", file["path"]
    # systemd runs the bootstrap until it succeeds once (a failure retries a minute later).
    assert document["runcmd"] == [
        ["systemctl", "daemon-reload"],
        *(["systemctl", "enable", "--now", "--no-block", unit] for unit in enabled),
    ]
    assert "Restart=on-failure" in unit["content"] and "RestartPreventExitStatus=3" in unit["content"]
    assert f"ExecStart={BOOTSTRAP_DIR}/bootstrap.sh" in unit["content"]


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
    scripts = node_scripts(L4_AGENT, GCP_FETCH)
    startup = gce_startup_script(L4_AGENT, GCP_FETCH)
    for text in scripts.values():
        assert text.rstrip("\n") in startup


def test_servers_join_through_the_others_and_only_the_first_may_start_the_cluster() -> None:
    first = node_scripts(FIRST_HA_SERVER, GCP_FETCH)["install.sh"]
    joining = node_scripts(JOINING_SERVER, AWS_FETCH)["install.sh"]
    assert script_input(first, "JOIN_URLS").split() == GCE_SERVERS[1:]
    assert (script_input(first, "MAY_INIT"), script_input(first, "CLUSTER_INIT")) == ("true", "true")
    assert script_input(joining, "JOIN_URLS").split() == [AWS_SERVERS[0], AWS_SERVERS[2]]
    assert script_input(joining, "MAY_INIT") == "false"
    for install in (first, joining):
        config = yaml.safe_load(script_input(install, "K3S_CONFIG"))
        assert "node-name" not in config and config["with-node-id"] is True  # replaceable machines
        assert "server" not in config and "cluster-init" not in config  # decided on the machine, once
        assert config["node-taint"] == ["CriticalAddonsOnly=true:NoExecute"]


def test_every_cloud_machine_blocks_pods_from_the_metadata_server() -> None:
    for text in [*(f() for f in USER_DATA.values()), *(f() for f in STARTUP_SCRIPTS.values())]:
        assert "169.254.169.254" in text and "gpukit-metadata-guard.service" in text


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
    assert (host.root / DONE_MARKER.lstrip("/")).exists()  # systemd runs it no more


def test_a_failed_bootstrap_leaves_no_marker_so_systemd_retries_it(host: FakeHost) -> None:
    folder = _boot_dir(host)
    (folder / "install.sh").write_text("#!/usr/bin/env bash\ncat > /dev/null; exit 1\n")
    result = host.run(SCRIPTS["bootstrap"]())
    assert result.code == 1  # gpukit-bootstrap.service: Restart=on-failure, a minute later
    assert not (host.root / DONE_MARKER.lstrip("/")).exists()


def test_bootstrap_stops_when_the_preflight_fails(host: FakeHost) -> None:
    _boot_dir(host, preflight="echo 'check\tfail\tno NVIDIA GPU found'; exit 1")
    result = host.run(SCRIPTS["bootstrap"]())
    assert result.code == MISMATCH_EXIT  # RestartPreventExitStatus: a mismatching machine stays out
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


AWS_RELEASE_CURL = f"""
echo "curl $*" >> "$STATE/calls.log"
case "$*" in
  *latest/api/token*) echo imds-token ;;
  *meta-data/instance-id*) echo i-0123456789abcdef0 ;;
  *security-credentials/k3s-agent-role) echo '{json.dumps(CREDENTIALS)}' ;;
  *security-credentials/) echo k3s-agent-role ;;
  *Action=DescribeIamInstanceProfileAssociations*)
    cat > "$STATE/curl-config"
    [ ! -e "$STATE/ec2-refuses" ] || exit 22
    echo '<r><iamInstanceProfileAssociationSet><item>'
    echo '<associationId>iip-assoc-0a1b2c3d4e5f</associationId><instanceId>i-0123456789abcdef0</instanceId>'
    echo '</item></iamInstanceProfileAssociationSet></r>' ;;
  *Action=DisassociateIamInstanceProfile*) cat > /dev/null; echo '<ok/>' ;;
  *) exit 22 ;;
esac
"""


def test_an_ec2_machine_detaches_its_instance_profile_once_joined(host: FakeHost) -> None:
    host.stub("curl", AWS_RELEASE_CURL)
    result = host.run(RELEASE)
    assert result.code == 0, result.stderr
    ec2 = [c for c in result.calls if "https://ec2.us-east-1.amazonaws.com/" in c]
    assert len(ec2) == 2
    assert "Filter.1.Value.1=i-0123456789abcdef0" in ec2[0] and "--aws-sigv4 aws:amz:us-east-1:ec2" in ec2[0]
    assert "Action=DisassociateIamInstanceProfile&AssociationId=iip-assoc-0a1b2c3d4e5f" in ec2[1]
    for secret in ("fake/secret+key", "fake-session"):
        assert secret not in " ".join(result.calls)  # credentials on curl's stdin only
    assert 'user = "ASIAFAKE:fake/secret+key"' in (host.state / "curl-config").read_text()
    assert "instance profile detached" in result.stdout


def test_a_machine_that_cannot_detach_its_profile_still_counts_as_joined(host: FakeHost) -> None:
    host.stub("curl", AWS_RELEASE_CURL)
    (host.state / "ec2-refuses").touch()
    result = host.run(RELEASE)
    assert result.code == 0
    assert "warning: EC2 refused to list" in result.stderr and "keeps its role" in result.stderr


def test_bootstrap_releases_the_identity_after_the_install_and_before_the_marker(host: FakeHost) -> None:
    folder = _boot_dir(host)
    (folder / "release-identity.sh").write_text(
        "#!/usr/bin/env bash\n"
        '[ -e "$STATE/install-stdin" ] && [ ! -e "$GPUKIT_ROOT/var/lib/gpukit/bootstrapped" ]'
        ' && touch "$STATE/released"\n'
    )
    (folder / "release-identity.sh").chmod(0o700)
    result = host.run(SCRIPTS["bootstrap"]())
    assert result.code == 0, result.stderr
    assert (host.state / "released").exists()
    assert (host.root / DONE_MARKER.lstrip("/")).exists()


def test_every_ec2_machine_gives_up_its_identity_and_no_gce_machine_pretends_to() -> None:
    aws = yaml.safe_load(node_user_data(L4_AGENT, AWS_FETCH, RELEASE))
    assert "/opt/gpukit/release-identity.sh" in {f["path"] for f in aws["write_files"]}
    # Compute Engine cannot take a running VM's service account away: nothing to run there.
    assert "cat > /opt/gpukit/release-identity.sh" not in gce_startup_script(L4_AGENT, GCP_FETCH)


# Compute Engine's metadata server, Secret Manager and Cloud KMS: the payload Secret Manager returns is
# in $STATE/payload, what Cloud KMS decrypts it to in $STATE/plaintext (both base64, as the APIs send
# them); each API call's curl config (read on stdin, -K -) is kept; $STATE/kms-refuses: a 403.
GCP_CURL = """
echo "curl $*" >> "$STATE/calls.log"
case "${*: -1}" in
  */service-accounts/default/token) echo '{"access_token": "ya29.fake", "expires_in": 3599}' ;;
  https://secretmanager.googleapis.com/*)
    cat > "$STATE/curl-config"
    printf '{"payload": {"data": "%s"}}' "$(cat "$STATE/payload")" ;;
  https://cloudkms.googleapis.com/*)
    cat > "$STATE/kms-config"
    [ ! -e "$STATE/kms-refuses" ] || exit 22
    printf '{"plaintext": "%s", "usedPrimary": true, "protectionLevel": "SOFTWARE"}' \
      "$(cat "$STATE/plaintext")" ;;
  *) exit 22 ;;
esac
"""
TOKEN_HEADER = 'header = "Authorization: Bearer ya29.fake"\n'
SERVER_BUNDLE = "/var/lib/rancher/k3s/server/tls/server-ca.key\tS0VZ\n"
# What Cloud KMS returns for it: opaque bytes, base64 (a stand-in: nothing of the bundle in it).
CIPHERTEXT = base64.b64encode(b"\n$\x00kms-ciphertext-of-the-bundle\x00\xff").decode()


def _gcp_apis(host: FakeHost, payload: str, plaintext: str = "") -> None:
    (host.state / "payload").write_text(payload)
    (host.state / "plaintext").write_text(plaintext)
    host.stub("curl", GCP_CURL)


def test_gcp_fetch_uses_the_vm_service_account_token(host: FakeHost) -> None:
    _gcp_apis(host, base64.b64encode(b"path\tYmFzZTY0\n").decode())
    result = host.run(GCP_FETCH)
    assert result.code == 0, result.stderr
    assert result.stdout == "path\tYmFzZTY0\n\n"
    assert f"https://secretmanager.googleapis.com/v1/{SECRET_VERSION}:access" in " ".join(result.calls)
    assert "ya29.fake" not in " ".join(result.calls)
    assert (host.state / "curl-config").read_text() == TOKEN_HEADER
    # The agents' secret holds their token as it is: no key to ask.
    assert "cloudkms" not in " ".join(result.calls)


def test_gcp_server_fetch_decrypts_the_bundle_with_the_join_key(host: FakeHost) -> None:
    """Secret Manager holds the bundle's Cloud KMS ciphertext: reading the secret is not enough."""
    _gcp_apis(host, CIPHERTEXT, base64.b64encode(SERVER_BUNDLE.encode()).decode())
    result = host.run(GCP_SERVER_FETCH)
    assert result.code == 0, result.stderr
    assert result.stdout == SERVER_BUNDLE + "\n"
    assert [c.split()[-1] for c in result.calls] == [
        "http://metadata.google.internal/computeMetadata/v1/instance/service-accounts/default/token",
        f"https://secretmanager.googleapis.com/v1/{SERVER_SECRET_VERSION}:access",
        f"https://cloudkms.googleapis.com/v1/{JOIN_KEY}:decrypt",
    ]
    # The token and the ciphertext go to curl on stdin only, never on a command line.
    calls = " ".join(result.calls)
    assert "ya29.fake" not in calls and CIPHERTEXT not in calls
    assert (host.state / "curl-config").read_text() == TOKEN_HEADER
    config = (host.state / "kms-config").read_text().splitlines(keepends=True)
    assert config[:2] == [TOKEN_HEADER, 'header = "Content-Type: application/json"\n']
    (body,) = config[2:]
    assert body.startswith('data-binary = "') and body.endswith('"\n')
    # curl's config unescapes \" inside a quoted value: the body is Cloud KMS's DecryptRequest.
    assert json.loads(body[len('data-binary = "') : -2].replace('\\"', '"')) == {"ciphertext": CIPHERTEXT}


def test_gcp_server_fetch_fails_clearly_when_cloud_kms_refuses(host: FakeHost) -> None:
    _gcp_apis(host, CIPHERTEXT, base64.b64encode(SERVER_BUNDLE.encode()).decode())
    (host.state / "kms-refuses").touch()
    result = host.run(GCP_SERVER_FETCH)
    assert result.code == 1
    assert result.stdout == ""
    assert result.stderr == (
        f"gpukit: Cloud KMS refused to decrypt {SERVER_SECRET_VERSION} with {JOIN_KEY}: the servers' service "
        "account needs roles/cloudkms.cryptoKeyDecrypter on that key, and the key version that encrypted "
        "it must be enabled\n"
    )


def test_gcp_fetch_refuses_a_payload_that_is_not_base64(host: FakeHost) -> None:
    """It goes into curl's config: a quote in it would end the value there."""
    _gcp_apis(host, 'AAAA\\", "x": \\"')
    result = host.run(GCP_SERVER_FETCH)
    assert result.code != 0
    assert "cloudkms" not in " ".join(result.calls)


def test_fetch_fails_clearly_without_an_instance_role(host: FakeHost) -> None:
    host.stub(
        "curl", 'echo "curl $*" >> "$STATE/calls.log"; case "$*" in *api/token*) echo t ;; *) exit 22 ;; esac'
    )
    result = host.run(AWS_FETCH)
    assert result.code == 1
    assert "no instance role" in result.stderr


CREDENTIALS_BUNDLE = credentials_bundle("CA PEM\n", "CERT PEM\n", "KEY PEM s3cret\n")


def test_wait_for_api_waits_until_gpukits_admin_is_let_in(host: FakeHost) -> None:
    """Connection refused, then 403 (the API is up, the admin's binding not applied yet), then 200."""
    (host.state / "codes").write_text("000\n403\n200\n")
    host.stub(
        "curl",
        'echo "curl $*" >> "$STATE/calls.log"; '
        'for a in "$@"; do case "$a" in */admin.key) cp "$a" "$STATE/key-seen" ;; esac; done; '
        'code=$(head -n 1 "$STATE/codes"); sed -i 1d "$STATE/codes"; printf %s "$code"',
    )
    result = host.run(api_wait_script("https://k3s.example.com:6443"), stdin=CREDENTIALS_BUNDLE)
    assert result.code == 0, result.stderr
    assert "gpukit's admin may use it" in result.stdout
    calls = [c for c in result.calls if c.startswith("curl")]
    assert len(calls) == 3
    for call in calls:
        assert " -k " not in f" {call} " and "--cacert" in call  # the server proves it holds the CA
        assert call.endswith(
            "https://k3s.example.com:6443/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/gpukit-admin"
        )
    assert (host.state / "key-seen").read_text() == "KEY PEM s3cret\n"
    assert "s3cret" not in result.stdout + result.stderr + "\n".join(result.calls)


def test_wait_for_api_gives_up_with_a_hint(host: FakeHost) -> None:
    host.stub("curl", 'echo "curl $*" >> "$STATE/calls.log"; printf 000; exit 7')
    result = host.run(
        api_wait_script("https://k3s.example.com:6443", timeout_seconds=30), stdin=CREDENTIALS_BUNDLE
    )
    assert result.code == 1
    assert "did not let gpukit's admin in within 30s (last answer: HTTP 000)" in result.stderr
    assert "apiAccessCidrs" in result.stderr
