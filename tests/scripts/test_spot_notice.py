"""The EC2 spot-notice backstop (providers/aws/k3s/spot_notice.py) executed against stub commands: the
metadata service answers 404 (no notice) and then a notice; `date` reads a fake clock for "now";
`sleep` records how long the script waits; `systemctl` records the power-off."""

import json
from pathlib import Path

import pytest
from scripts.stubs import FakeHost

from gpukit.providers.aws.k3s.spot_notice import spot_notice_script
from tools import shellcheck_problems

SCRIPT = spot_notice_script()
DEADLINE = "2026-05-04T17:11:44Z"
DEADLINE_EPOCH = 1777914704  # date -u -d 2026-05-04T17:11:44Z +%s
TOKEN = "imds-t0ken"

# IMDSv2: a token for a PUT to api/token (unless $STATE/imds-down says how many to refuse); then each
# GET of spot/instance-action takes the next line of $STATE/answers ("404", or a notice body), 404
# once they run out.
IMDS_CURL = f"""
echo "curl $*" >> "$STATE/calls.log"
case "$*" in
  *"-X PUT http://169.254.169.254/latest/api/token"*)
    down=$(cat "$STATE/imds-down" 2>/dev/null || echo 0)
    if [ "$down" -gt 0 ]; then echo $((down - 1)) > "$STATE/imds-down"; exit 7; fi
    echo {TOKEN} ;;
  *"-H X-aws-ec2-metadata-token: {TOKEN} http://169.254.169.254/latest/meta-data/spot/instance-action")
    answer=$(head -n 1 "$STATE/answers" 2>/dev/null || true)
    sed -i 1d "$STATE/answers" 2>/dev/null || true
    if [ -z "$answer" ] || [ "$answer" = 404 ]; then exit 22; fi
    printf '%s' "$answer" ;;
  *) exit 22 ;;
esac
"""
# "now" from $STATE/now; a date to parse goes to the real GNU date.
CLOCK_DATE = """
echo "date $*" >> "$STATE/calls.log"
case " $* " in
  *" -d "*) exec /usr/bin/date "$@" ;;
  *) cat "$STATE/now" ;;
esac
"""
# Records each wait; after $STATE/sleeps-left waits it fails, which ends a script that would poll forever.
COUNTED_SLEEP = """
echo "sleep $*" >> "$STATE/calls.log"
if [ -e "$STATE/sleeps-left" ]; then
  left=$(cat "$STATE/sleeps-left")
  [ "$left" -gt 0 ] || exit 99
  echo $((left - 1)) > "$STATE/sleeps-left"
fi
"""


def notice(action: str = "terminate", time: str = DEADLINE) -> str:
    return json.dumps({"action": action, "time": time})


def ec2(
    host: FakeHost, answers: list[str], now: int, imds_down: int = 0, sleeps_left: int | None = None
) -> None:
    host.stub("curl", IMDS_CURL)
    host.stub("date", CLOCK_DATE)
    host.stub("sleep", COUNTED_SLEEP)
    (host.state / "answers").write_text("".join(f"{a}\n" for a in answers))
    (host.state / "now").write_text(f"{now}\n")
    (host.state / "imds-down").write_text(f"{imds_down}\n")
    if sleeps_left is not None:
        (host.state / "sleeps-left").write_text(f"{sleeps_left}\n")


def after_notice(calls: list[str]) -> list[str]:
    """The sleeps and systemctl calls after the last metadata request (the one that found the notice)."""
    last = max(i for i, c in enumerate(calls) if c.endswith("spot/instance-action"))
    return [c for c in calls[last + 1 :] if c.startswith(("sleep", "systemctl"))]


@pytest.fixture
def host(tmp_path: Path) -> FakeHost:
    return FakeHost(tmp_path)


def test_the_script_is_shellcheck_clean(tmp_path: Path) -> None:
    path = tmp_path / "spot-notice.sh"
    path.write_text(SCRIPT)
    assert shellcheck_problems(path) == ""


def test_no_notice_no_power_off_polling_every_5_seconds_with_an_imdsv2_token(host: FakeHost) -> None:
    ec2(host, ["404"] * 10, now=DEADLINE_EPOCH - 600, sleeps_left=5)
    result = host.run(SCRIPT)
    assert result.code == 99  # the sleep stub ended it: the script itself never stops polling
    assert not [c for c in result.calls if c.startswith("systemctl")]
    polls = [c for c in result.calls if c.endswith("spot/instance-action")]
    tokens = [c for c in result.calls if "api/token" in c]
    assert len(polls) == len(tokens) == 6
    assert all(f"-H X-aws-ec2-metadata-token: {TOKEN} " in c for c in polls)
    assert all("-X PUT" in c and "X-aws-ec2-metadata-token-ttl-seconds: 60" in c for c in tokens)
    assert [c for c in result.calls if c.startswith("sleep")] == ["sleep 5"] * 6
    assert "spot interruption notice" not in result.stdout


def test_a_notice_powers_off_in_time_for_the_kubelets_graceful_shutdown(host: FakeHost) -> None:
    """Seen two minutes ahead: the power-off comes 60 s (the kubelet's window) + 10 s before EC2's
    deadline, so 50 s after the notice, not before."""
    ec2(host, ["404", "404", notice()], now=DEADLINE_EPOCH - 120)
    result = host.run(SCRIPT)
    assert result.code == 0, result.stderr
    assert [c for c in result.calls if c.startswith("sleep")] == ["sleep 5", "sleep 5", "sleep 50"]
    assert after_notice(result.calls) == ["sleep 50", "systemctl poweroff"]
    assert result.calls[-1] == "systemctl poweroff"
    assert f"spot interruption notice: {notice()}" in result.stdout
    assert f"EC2 will terminate this machine at {DEADLINE}: powering off in 50s" in result.stdout


def test_a_notice_seen_late_waits_only_what_is_left(host: FakeHost) -> None:
    ec2(host, [notice(action="stop")], now=DEADLINE_EPOCH - 95)
    result = host.run(SCRIPT)
    assert result.code == 0, result.stderr
    assert after_notice(result.calls) == ["sleep 25", "systemctl poweroff"]
    assert "EC2 will stop this machine" in result.stdout


@pytest.mark.parametrize("left", [70, 40, 0, -30])
def test_a_notice_too_close_to_its_deadline_powers_off_at_once(host: FakeHost, left: int) -> None:
    ec2(host, ["404", notice()], now=DEADLINE_EPOCH - left)
    result = host.run(SCRIPT)
    assert result.code == 0, result.stderr
    assert after_notice(result.calls) == ["systemctl poweroff"]
    assert "powering off now" in result.stdout


def test_a_lagging_clock_never_waits_longer_than_the_notice_leaves(host: FakeHost) -> None:
    ec2(host, [notice()], now=DEADLINE_EPOCH - 3600)
    result = host.run(SCRIPT)
    assert result.code == 0, result.stderr
    assert after_notice(result.calls) == ["sleep 50", "systemctl poweroff"]


@pytest.mark.parametrize(
    "body",
    [
        notice(time="soon"),
        notice(time="2026-13-45T99:00:00Z"),  # the shape of a time, but no date GNU date reads
        '{"action": "terminate"}',
        "<html>not json</html>",
        "{}",
    ],
)
def test_a_notice_whose_time_cannot_be_read_powers_off_at_once(host: FakeHost, body: str) -> None:
    ec2(host, ["404", body], now=DEADLINE_EPOCH - 120)
    result = host.run(SCRIPT)
    assert result.code == 0, result.stderr
    assert after_notice(result.calls) == ["systemctl poweroff"]
    assert "could not read the time in the notice: powering off now" in result.stdout


def test_metadata_errors_keep_it_polling_and_are_logged_once(host: FakeHost) -> None:
    ec2(host, ["404", notice()], now=DEADLINE_EPOCH - 120, imds_down=3)
    result = host.run(SCRIPT)
    assert result.code == 0, result.stderr
    assert result.stdout.count("does not answer: still polling every 5s") == 1
    assert "answers again" in result.stdout
    assert [c for c in result.calls if c.startswith("sleep")] == ["sleep 5"] * 4 + ["sleep 50"]
    assert result.calls[-1] == "systemctl poweroff"


def test_a_failed_power_off_fails_the_service_so_systemd_runs_it_again(host: FakeHost) -> None:
    ec2(host, [notice()], now=DEADLINE_EPOCH - 30)
    host.stub("systemctl", 'echo "systemctl $*" >> "$STATE/calls.log"; exit 1')
    result = host.run(SCRIPT)
    assert result.code == 1  # gpukit-spot-notice.service: Restart=on-failure, 5 s later
    assert result.calls[-1] == "systemctl poweroff"
