"""Nodes whose machines are gone leave the cluster within one node sync: the servers ask the cloud,
with their own identity, about each node that is not Ready (run against stubbed k3s and curl)."""

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from scripts.stubs import FakeHost
from scripts.test_host_scripts import NODE_SYNC_K3S, _sync_calls

from gpukit.components.k3s.host_scripts import (
    CLOUD_REAP_AFTER_SECONDS,
    MachineCheck,
    node_sync_script,
    render_script,
)
from gpukit.providers.aws.k3s.iam import machine_check as aws_machine_check
from gpukit.providers.gcp.k3s.iam import MACHINE_CHECK as GCE_MACHINE_CHECK
from tools import shellcheck_problems

EC2_GONE = "aws:///us-east-1b/i-0aaaaaaaaaaaaaaa1"
EC2_RUNNING = "aws:///us-east-1b/i-0bbbbbbbbbbbbbbb2"
EC2_UNKNOWN = "aws:///us-east-1b/i-0ccccccccccccccc3"
GCE_GONE = "gce://acme-ml-dev/us-central1-b/k3s-gcp-l4-b-x7k2"
GCE_THERE = "gce://acme-ml-dev/us-central1-b/k3s-gcp-l4-b-q9w3"


@pytest.fixture
def host(tmp_path: Path) -> FakeHost:
    return FakeHost(tmp_path)


def _since(seconds: int) -> str:
    return (datetime.now(UTC) - timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")


def test_a_not_ready_node_whose_machine_is_gone_goes_at_once(host: FakeHost, tmp_path: Path) -> None:
    check = tmp_path / "machine-gone-fake.sh"
    check.write_text('machine_gone() { echo "asked $1" >> "$STATE/asked"; [ "$1" = fake://gone ]; }\n')
    host.stub("k3s", NODE_SYNC_K3S)
    (host.state / "pools").write_text("")
    (host.state / "readiness").write_text(
        f"reclaimed\tUnknown\t{_since(300)}\tfake://gone\n"  # 5 minutes: its machine is gone
        f"rebooting\tUnknown\t{_since(300)}\tfake://there\n"  # 5 minutes, its machine still there
        f"blip\tFalse\t{_since(30)}\tfake://gone\n"  # not Ready only just now: not asked yet
        f"fine\tTrue\t{_since(3000)}\tfake://gone\n"
        f"no-id\tUnknown\t{_since(300)}\t\n"  # registered without a provider ID: the 30-minute rule
    )
    result = host.run(node_sync_script(CLOUD_REAP_AFTER_SECONDS, MachineCheck((check,))))
    assert result.code == 0, result.stderr
    assert _sync_calls(result) == ["k3s kubectl delete node reclaimed --ignore-not-found"]
    assert (host.state / "asked").read_text().splitlines() == ["asked fake://gone", "asked fake://there"]
    assert "node reclaimed is not Ready and its machine fake://gone is gone" in result.stdout


def test_without_a_cloud_to_ask_only_the_30_minute_rule_applies(host: FakeHost) -> None:
    host.stub("k3s", NODE_SYNC_K3S)
    (host.state / "pools").write_text("")
    (host.state / "readiness").write_text(f"reclaimed\tUnknown\t{_since(300)}\tfake://gone\n")
    result = host.run(node_sync_script(CLOUD_REAP_AFTER_SECONDS))
    assert result.code == 0, result.stderr
    assert _sync_calls(result) == []


# EC2: IMDSv2 for the role's credentials, then DescribeInstances signed with them.
EC2_CURL = r"""
echo "curl $*" >> "$STATE/calls.log"
case "$*" in
  *"-X PUT"*/latest/api/token*) echo imds-token ;;
  *meta-data/iam/security-credentials/) echo k3s-aws-server-role ;;
  *meta-data/iam/security-credentials/k3s-aws-server-role)
    echo '{"AccessKeyId": "ASIAFAKE", "SecretAccessKey": "fake/secret+key", "Token": "fake-session"}' ;;
  *https://ec2.us-east-1.amazonaws.com/*)
    cat > "$STATE/curl-config"
    [ ! -e "$STATE/ec2-refuses" ] || exit 22
    echo '<?xml version="1.0"?><DescribeInstancesResponse><reservationSet>'
    case "$*" in
      *i-0aaaaaaaaaaaaaaa1*) echo '<item><instancesSet><item><instanceId>i-0aaaaaaaaaaaaaaa1</instanceId>
        <instanceState>
          <code>48</code>
          <name>terminated</name>
        </instanceState></item></instancesSet></item>' ;;
      *i-0ddddddddddddddd4*) echo '<item><instancesSet><item><instanceId>i-0ddddddddddddddd4</instanceId>
        <instanceState><name>running</name></instanceState></item></instancesSet></item>' ;;
      *i-0bbbbbbbbbbbbbbb2*) echo '<item><instancesSet><item><instanceState><code>16</code>
        <name>running</name></instanceState></item></instancesSet></item>' ;;
    esac
    echo '</reservationSet></DescribeInstancesResponse>' ;;
  *) exit 22 ;;
esac
"""


def _ask(check: MachineCheck, provider_id: str, node_created: str = "2026-05-01T17:02:00Z") -> str:
    return render_script(*check.templates, **dict(check.inputs)) + (
        f'if machine_gone "{provider_id}" "{node_created}"; then echo GONE; else echo KEPT; fi\n'
    )


@pytest.mark.parametrize(
    ("provider_id", "answer"),
    [
        (EC2_GONE, "GONE"),
        (EC2_RUNNING, "KEPT"),
        (EC2_UNKNOWN, "GONE"),
        # EC2 lists the instance but its state cannot be read (no code): never taken for gone.
        ("aws:///us-east-1b/i-0ddddddddddddddd4", "KEPT"),
        ("aws:///us-east-1b/../x", "KEPT"),
    ],
)
def test_ec2_servers_ask_ec2_with_their_role(host: FakeHost, provider_id: str, answer: str) -> None:
    host.stub("curl", EC2_CURL)
    result = host.run(_ask(aws_machine_check("us-east-1"), provider_id))
    assert result.code == 0, result.stderr
    assert result.stdout.strip() == answer
    ec2 = [c for c in result.calls if "https://ec2.us-east-1.amazonaws.com/" in c]
    if provider_id.endswith("/../x"):
        assert ec2 == []  # an odd provider ID is never sent anywhere
        return
    (call,) = ec2
    assert f"Filter.1.Name=instance-id&Filter.1.Value.1={provider_id.rsplit('/', 1)[1]}" in call
    assert "--aws-sigv4 aws:amz:us-east-1:ec2" in call
    assert "fake/secret+key" not in " ".join(result.calls)  # credentials on curl's stdin only
    assert 'user = "ASIAFAKE:fake/secret+key"' in (host.state / "curl-config").read_text()


def test_an_ec2_server_that_cannot_ask_keeps_the_node(host: FakeHost) -> None:
    host.stub("curl", EC2_CURL)
    (host.state / "ec2-refuses").touch()
    result = host.run(_ask(aws_machine_check("us-east-1"), EC2_GONE))
    assert result.stdout.strip() == "KEPT"


GCE_CURL = r"""
echo "curl $*" >> "$STATE/calls.log"
case "$*" in
  *"Metadata-Flavor: Google"*/service-accounts/default/token)
    [ ! -e "$STATE/no-token" ] || exit 22
    echo '{"access_token": "ya29.fake", "expires_in": 3599}' ;;
  *https://compute.googleapis.com/compute/v1/projects/acme-ml-dev/zones/us-central1-b/instances/*)
    cat > "$STATE/curl-config"
    case "$*" in
      *x7k2*) printf '{"error": {"code": 404}}\n404' ;;
      *) printf '{"name": "k3s-gcp-l4-b-q9w3", "creationTimestamp": "2026-05-01T10:00:00.000-07:00"}\n200' ;;
    esac ;;
  *) exit 22 ;;
esac
"""


@pytest.mark.parametrize(("provider_id", "answer"), [(GCE_GONE, "GONE"), (GCE_THERE, "KEPT")])
def test_gce_servers_ask_compute_engine_with_their_service_account(
    host: FakeHost, provider_id: str, answer: str
) -> None:
    host.stub("curl", GCE_CURL)
    result = host.run(_ask(GCE_MACHINE_CHECK, provider_id))
    assert result.code == 0, result.stderr
    assert result.stdout.strip() == answer
    assert "ya29.fake" not in " ".join(result.calls)
    assert (host.state / "curl-config").read_text() == 'header = "Authorization: Bearer ya29.fake"\n'


@pytest.mark.parametrize(
    ("node_created", "answer"),
    [
        ("2026-05-01T16:59:00Z", "GONE"),  # registered before its instance was made: on another machine
        ("2026-05-01T17:02:00Z", "KEPT"),  # registered two minutes after its instance started
        ("", "KEPT"),  # no creation time to compare: never taken for gone
    ],
)
def test_gce_servers_take_a_recreated_instance_of_the_same_name_for_another_machine(
    host: FakeHost, node_created: str, answer: str
) -> None:
    """A recreated server, or a group's repaired VM, keeps its name and so its provider ID: only the
    times tell that the node was on the machine before it."""
    host.stub("curl", GCE_CURL)
    result = host.run(_ask(GCE_MACHINE_CHECK, GCE_THERE, node_created))
    assert result.code == 0, result.stderr
    assert result.stdout.strip() == answer


def test_a_gce_server_without_a_token_keeps_the_node(host: FakeHost) -> None:
    host.stub("curl", GCE_CURL)
    (host.state / "no-token").touch()
    result = host.run(_ask(GCE_MACHINE_CHECK, GCE_GONE))
    assert result.stdout.strip() == "KEPT"
    assert not [c for c in result.calls if "compute.googleapis.com" in c]


@pytest.mark.parametrize("check", [aws_machine_check("us-east-1"), GCE_MACHINE_CHECK], ids=["aws", "gcp"])
def test_cloud_node_syncs_are_shellcheck_clean(check: MachineCheck, tmp_path: Path) -> None:
    path = tmp_path / "node-sync.sh"
    path.write_text(node_sync_script(CLOUD_REAP_AFTER_SECONDS, check))
    assert shellcheck_problems(path) == ""
