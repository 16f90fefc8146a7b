"""Provider IDs at node registration: the scripts that compute them from the metadata service, run
against a stubbed curl, and the k3s config drop-in they leave for the kubelet."""

from pathlib import Path

import pytest
import yaml
from scripts.stubs import FakeHost

from gpukit.components.k3s.cloud_init import BOOTSTRAP_DIR, PROVIDER_ID_FILE
from gpukit.components.k3s.host_scripts import render_script
from gpukit.providers.aws.k3s.iam import provider_id_script as aws_provider_id
from gpukit.providers.gcp.k3s.iam import provider_id_script as gcp_provider_id

# EC2's metadata service (IMDSv2): a PUT for the token, then GETs that must carry it.
IMDS_CURL = """
echo "curl $*" >> "$STATE/calls.log"
case "$*" in
  *"-X PUT"*/latest/api/token*) echo imds-token ;;
  *"X-aws-ec2-metadata-token: imds-token"*/meta-data/placement/availability-zone)
    cat "$STATE/zone" 2>/dev/null || echo us-east-1b ;;
  *"X-aws-ec2-metadata-token: imds-token"*/meta-data/instance-id) echo i-0123456789abcdef0 ;;
  *) exit 22 ;;
esac
"""
# Compute Engine's metadata server: every request must say Metadata-Flavor: Google.
GCE_CURL = """
echo "curl $*" >> "$STATE/calls.log"
case "$*" in
  *"Metadata-Flavor: Google"*/computeMetadata/v1/project/project-id) echo acme-ml-dev ;;
  *"Metadata-Flavor: Google"*/computeMetadata/v1/instance/zone)
    echo projects/123456789012/zones/us-central1-b ;;
  *"Metadata-Flavor: Google"*/computeMetadata/v1/instance/name)
    cat "$STATE/name" 2>/dev/null || echo k3s-gcp-l4-b-x7k2 ;;
  *) exit 22 ;;
esac
"""


@pytest.fixture
def host(tmp_path: Path) -> FakeHost:
    return FakeHost(tmp_path)


def _drop_in(host: FakeHost) -> dict[str, list[str]]:
    path = host.root / PROVIDER_ID_FILE.lstrip("/")
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    loaded: dict[str, list[str]] = yaml.safe_load(path.read_text())
    return loaded


def test_an_ec2_node_registers_as_aws_zone_and_instance(host: FakeHost) -> None:
    host.stub("curl", IMDS_CURL)
    result = host.run(aws_provider_id())
    assert result.code == 0, result.stderr
    # Appended to the kubelet's arguments (`+`), never replacing any another file sets.
    assert _drop_in(host) == {"kubelet-arg+": ["provider-id=aws:///us-east-1b/i-0123456789abcdef0"]}
    assert all("X-aws-ec2-metadata-token: imds-token" in c for c in result.calls if "meta-data" in c)


def test_an_ec2_node_refuses_metadata_it_does_not_understand(host: FakeHost) -> None:
    host.stub("curl", IMDS_CURL)
    (host.state / "zone").write_text("us-east-1b/../x\n")
    result = host.run(aws_provider_id())
    assert result.code == 1
    assert "unexpected availability zone" in result.stderr
    assert not (host.root / PROVIDER_ID_FILE.lstrip("/")).exists()


def test_an_ec2_node_without_metadata_fails_clearly(host: FakeHost) -> None:
    host.stub("curl", 'echo "curl $*" >> "$STATE/calls.log"; exit 7')
    result = host.run(aws_provider_id())
    assert result.code == 1
    assert "metadata service did not answer" in result.stderr


def test_a_gce_node_registers_as_project_zone_and_instance_name(host: FakeHost) -> None:
    host.stub("curl", GCE_CURL)
    result = host.run(gcp_provider_id())
    assert result.code == 0, result.stderr
    assert _drop_in(host) == {
        "kubelet-arg+": ["provider-id=gce://acme-ml-dev/us-central1-b/k3s-gcp-l4-b-x7k2"]
    }


def test_a_gce_node_refuses_an_odd_instance_name(host: FakeHost) -> None:
    host.stub("curl", GCE_CURL)
    (host.state / "name").write_text("Bad/Name\n")
    result = host.run(gcp_provider_id())
    assert result.code == 1
    assert "unexpected instance name" in result.stderr


def test_bootstrap_writes_the_provider_id_before_k3s_is_installed(host: FakeHost) -> None:
    folder = host.root / BOOTSTRAP_DIR.lstrip("/")
    folder.mkdir(parents=True)
    drop_in = host.root / PROVIDER_ID_FILE.lstrip("/")
    scripts = {
        "preflight.sh": "exit 0",
        "fetch-secrets.sh": "echo bundle-line",
        "provider-id.sh": f'mkdir -p "{drop_in.parent}"; echo id > "{drop_in}"',
        # k3s reads its config when it starts: the drop-in must be there by then.
        "install.sh": f'cat > /dev/null; [ -e "{drop_in}" ] && touch "$STATE/installed-with-id"',
    }
    for name, body in scripts.items():
        (folder / name).write_text(f"#!/usr/bin/env bash\n{body}\n")
        (folder / name).chmod(0o700)
    boot = render_script(
        "bootstrap.sh", BOOTSTRAP_DIR=BOOTSTRAP_DIR, DONE_MARKER="/var/lib/gpukit/bootstrapped"
    )
    result = host.run(boot)
    assert result.code == 0, result.stderr
    assert (host.state / "installed-with-id").exists()


def test_bootstrap_stops_without_a_provider_id(host: FakeHost) -> None:
    """A node registered without its provider ID would never be matched to its group: the autoscaler
    could not scale it in. Bootstrap fails (systemd retries it) instead of joining."""
    folder = host.root / BOOTSTRAP_DIR.lstrip("/")
    folder.mkdir(parents=True)
    for name, body in {
        "preflight.sh": "exit 0",
        "fetch-secrets.sh": "echo bundle-line",
        "provider-id.sh": "exit 1",
        "install.sh": 'touch "$STATE/installed"',
    }.items():
        (folder / name).write_text(f"#!/usr/bin/env bash\n{body}\n")
        (folder / name).chmod(0o700)
    boot = render_script(
        "bootstrap.sh", BOOTSTRAP_DIR=BOOTSTRAP_DIR, DONE_MARKER="/var/lib/gpukit/bootstrapped"
    )
    result = host.run(boot)
    assert result.code == 1
    assert "provider ID" in result.stderr
    assert not (host.state / "installed").exists()
