"""`gpukit ephemeral up/down/list/reap` and the `gpukit_cluster` fixture against a stub Pulumi CLI
(tests/fixtures/stub_pulumi/pulumi) that records every call and keeps fake stacks: what was asked of
Pulumi, in what order, and what is left afterwards."""

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpukit.cli import main
from gpukit.components.ephemeral import parse_expiry
from gpukit.ephemeral import lifecycle
from gpukit.ephemeral.source import VERIFICATION_KEY
from gpukit.ephemeral.workspace import EphemeralHome
from harness import ROOT

STUB = ROOT / "tests" / "fixtures" / "stub_pulumi"


@dataclass
class Stub:
    state: Path
    home: Path

    def calls(self) -> list[list[str]]:
        """Every CLI call's arguments, without the --non-interactive the Automation API adds."""
        path = self.state / "calls.jsonl"
        if not path.is_file():
            return []
        return [
            [a for a in json.loads(line)["argv"] if a != "--non-interactive"]
            for line in path.read_text().splitlines()
        ]

    def raw_calls(self) -> list[dict[str, Any]]:
        path = self.state / "calls.jsonl"
        return [json.loads(line) for line in path.read_text().splitlines()] if path.is_file() else []

    def commands(self) -> list[str]:
        """`stack init`, `up`, `destroy`, `stack rm`: the first words of each call."""
        out = []
        for argv in self.calls():
            words = [a for a in argv if not a.startswith("-")]
            out.append(" ".join(words[:2]) if words[:1] == ["stack"] else words[0] if words else "")
        return out

    def destroyed_then_removed(self) -> bool:
        """The last calls: `destroy`, (the summary it reads), then `stack rm`."""
        commands = self.commands()
        return (
            "destroy" in commands
            and commands[-1] == "stack rm"
            and "up" not in commands[len(commands) - commands[::-1].index("destroy") :]
        )

    def stacks(self) -> dict[str, dict[str, Any]]:
        folder = self.state / "stacks"
        return (
            {p.stem: json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))}
            if folder.is_dir()
            else {}
        )

    def ephemeral(self, *args: str) -> list[str]:
        return ["ephemeral", *args, "--state-dir", str(self.home)]


@pytest.fixture
def stub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Stub:
    monkeypatch.setenv("PATH", f"{STUB}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("GPUKIT_STUB_PULUMI_STATE", str(tmp_path / "stub"))
    for name in (
        "PULUMI_CONFIG_PASSPHRASE",
        "PULUMI_CONFIG_PASSPHRASE_FILE",
        "GPUKIT_EPHEMERAL_MAX_HOURLY",
        "GPUKIT_STUB_PULUMI_UP",
        "GPUKIT_STUB_PULUMI_DESTROY",
        "GPUKIT_STUB_PULUMI_VERSION",
        "GPUKIT_EPHEMERAL_CANCEL_GRACE_SECONDS",
        "PULUMI_BACKEND_URL",
    ):
        monkeypatch.delenv(name, raising=False)
    return Stub(tmp_path / "stub", tmp_path / "home")


def _up(
    stub: Stub, capsys: pytest.CaptureFixture[str], *extra: str, source: str = "eks-dev"
) -> tuple[int, str, str]:
    code = main(stub.ephemeral("up", "--from", source, "--ttl", "4h", *extra))
    out, err = capsys.readouterr()
    return code, out, err


def test_up_deploys_a_uniquely_named_copy_that_expires(
    stub: Stub, capsys: pytest.CaptureFixture[str]
) -> None:
    before = datetime.now(UTC).replace(microsecond=0)
    code, out, err = _up(stub, capsys)
    assert code == 0, err
    (name,) = stub.stacks()
    assert name.startswith("eph-eks-dev-") and len(name) <= 32
    # stdout is the kubeconfig's path, and only that; the file is the stack's output, mode 0600.
    kubeconfig = Path(out.strip())
    assert kubeconfig == stub.home / "kubeconfigs" / f"{name}.yaml"
    assert stat.S_IMODE(kubeconfig.stat().st_mode) == 0o600
    assert f"current-context: {name}" in kubeconfig.read_text()
    assert f"gpukit ephemeral down {name}" in err

    stack = stub.stacks()[name]
    expires_at = parse_expiry(stack["tags"]["gpukit:expires-at"])
    assert expires_at is not None and timedelta(hours=4) <= expires_at - before <= timedelta(
        hours=4, minutes=1
    )
    assert stack["tags"]["gpukit:ephemeral-from"] == "eks-dev"
    assert stack["resources"] == 42

    doc = yaml.safe_load((stub.home / "project" / f"Pulumi.{name}.yaml").read_text())
    assert doc["encryptionsalt"] == "v1:stub-salt"  # what `stack init` wrote is kept
    config = doc["config"]
    assert config["gpukit:ephemeral"]["expiresAt"] == stack["tags"]["gpukit:expires-at"]
    assert config["gpukit:cluster"]["name"] == name  # two copies never share a cluster name
    assert config["gpukit:budget"] == {"maxHourlyCost": 50.0, "allowUnpriced": False}
    assert config[VERIFICATION_KEY]["enabled"] is True

    assert stub.commands() == [
        "version",
        "stack init",
        "stack tag",
        "stack tag",
        "stack tag",
        "up",
        "stack output",
        "stack output",
        "stack history",
    ]
    # The backend is the state dir's file backend; the passphrase reaches the CLI as a 0600 file only.
    passphrase = stub.home / "passphrase"
    assert stat.S_IMODE(passphrase.stat().st_mode) == 0o600
    for call in stub.raw_calls()[1:]:
        assert call["env"]["PULUMI_BACKEND_URL"] == f"file://{stub.home / 'backend'}"
        assert call["env"]["PULUMI_CONFIG_PASSPHRASE_FILE"] == str(passphrase)
        assert call["cwd"] == str(stub.home / "project")
    secret = passphrase.read_text()
    assert secret not in (stub.state / "calls.jsonl").read_text() and secret not in out + err


@pytest.mark.parametrize("source", ["gke-dev", "k3s-aws"])
def test_a_copy_turns_verification_on_where_the_source_stack_does_not_set_it(
    stub: Stub, capsys: pytest.CaptureFixture[str], source: str
) -> None:
    # These example stacks leave gpukit:verification out, so the project default (enabled: false)
    # fills it in when the stack is read; that default is not the source's choice.
    source_file = yaml.safe_load((ROOT / "stacks" / f"Pulumi.{source}.yaml").read_text())
    assert VERIFICATION_KEY not in source_file["config"]
    code, _, err = _up(stub, capsys, "--allow-unpriced", source=source)
    assert code == 0, err
    (name,) = stub.stacks()
    config = yaml.safe_load((stub.home / "project" / f"Pulumi.{name}.yaml").read_text())["config"]
    assert config[VERIFICATION_KEY]["enabled"] is True
    assert config[VERIFICATION_KEY]["timeoutMinutes"] == 20  # the rest of the default is kept


def test_a_copy_keeps_the_verification_the_source_stack_chose(tmp_path: Path) -> None:
    from gpukit.ephemeral.source import ephemeral_config, load_source

    stack = yaml.safe_load((ROOT / "stacks" / "Pulumi.gke-dev.yaml").read_text())
    stack["config"][VERIFICATION_KEY] = {"enabled": False}
    path = tmp_path / "Pulumi.mine.yaml"
    path.write_text(yaml.safe_dump(stack))
    config = ephemeral_config(
        load_source(str(path)),
        "eph-mine-2612011200-abcd",
        expires_at=datetime(2026, 12, 1, 16, tzinfo=UTC),
        max_hourly_cost=50.0,
        allow_unpriced=True,
        accepts=frozenset(),
    )
    assert config[VERIFICATION_KEY] == {"enabled": False}


def test_a_second_copy_gets_another_stack_and_cluster_name(
    stub: Stub, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _up(stub, capsys)[0] == 0
    assert _up(stub, capsys)[0] == 0
    names = list(stub.stacks())
    assert len(names) == 2 and names[0] != names[1]


def test_a_failed_up_destroys_what_it_created_and_removes_the_stack(
    stub: Stub, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GPUKIT_STUB_PULUMI_UP", "fail")
    code, out, err = _up(stub, capsys)
    assert code == 1
    assert "creating the node group failed (simulated)" in err  # the original error
    assert out == ""
    commands = stub.commands()
    assert commands.index("destroy") > commands.index("up") and stub.destroyed_then_removed()
    assert stub.stacks() == {}
    assert not list((stub.home / "project").glob("Pulumi.eph-*.yaml"))
    assert not (stub.home / "kubeconfigs").exists() or not list((stub.home / "kubeconfigs").iterdir())


def test_the_guard_refuses_an_expensive_stack_before_any_pulumi_call(
    stub: Stub, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _out, err = _up(stub, capsys, source="eks-train")
    assert code == 2
    assert "max $/h guard" in err and "$117.56/h" in err and "$50.00/h" in err
    assert stub.calls() == []  # not even `pulumi version`
    # Raised per run, the guard still cannot prove the limit: eks-train's FSx checkpoints volume has no
    # sourced price, so its cost is a lower bound.
    code, _, err = _up(stub, capsys, "--max-hourly-cost", "150", source="eks-train")
    assert code == 2 and "shared volume(s) checkpoints have no price" in err
    assert stub.calls() == []
    # Accepting the lower bound, the same stack passes the guard.
    code, _, err = _up(stub, capsys, "--max-hourly-cost", "150", "--allow-unpriced", source="eks-train")
    assert code == 0, err


def test_the_limit_comes_from_the_environment_too(
    stub: Stub, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GPUKIT_EPHEMERAL_MAX_HOURLY", "5")
    code, _, err = _up(stub, capsys)
    assert code == 2 and "$6.79/h" in err and "$5.00/h" in err
    assert stub.calls() == []


def test_list_shows_age_expiry_and_cost(stub: Stub, capsys: pytest.CaptureFixture[str]) -> None:
    assert _up(stub, capsys)[0] == 0
    (name,) = stub.stacks()
    assert main(stub.ephemeral("list", "--json")) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["name"] == name and row["source"] == "eks-dev"
    assert row["expired"] is False and 0 <= row["ageSeconds"] < 600
    assert row["expiresAt"] == stub.stacks()[name]["tags"]["gpukit:expires-at"]
    # What `gpukit plan --stack eks-dev` prices: $0.353 idle (EFS model cache, metrics volume and the
    # gateway's NLB included), $6.79 at max nodes.
    assert round(row["hourlyCostIdle"], 3) == 0.353 and round(row["hourlyCostMax"], 2) == 6.79
    assert main(stub.ephemeral("list")) == 0
    text = capsys.readouterr().out
    assert name in text and "$6.79" in text and "EXPIRED" in text


def test_reap_destroys_expired_stacks_only(stub: Stub, capsys: pytest.CaptureFixture[str]) -> None:
    assert _up(stub, capsys)[0] == 0
    code = main(stub.ephemeral("up", "--from", "gke-dev", "--ttl", "7d"))
    assert code == 0, capsys.readouterr().err
    home = EphemeralHome(stub.home)
    soon, late = sorted(stub.stacks(), key=lambda n: stub.stacks()[n]["tags"]["gpukit:expires-at"])
    in_five_hours = datetime.now(UTC) + timedelta(hours=5)
    logged: list[str] = []
    assert lifecycle.reap(home, in_five_hours, dry_run=True, log=logged.append).destroyed == [soon]
    assert set(stub.stacks()) == {soon, late}  # a dry run destroys nothing
    assert "destroy" not in stub.commands()

    result = lifecycle.reap(home, in_five_hours, dry_run=False, log=logged.append)
    assert (result.destroyed, result.failed, result.kept) == ([soon], [], [late])
    assert set(stub.stacks()) == {late}
    assert not (stub.home / "kubeconfigs" / f"{soon}.yaml").exists()
    assert (stub.home / "kubeconfigs" / f"{late}.yaml").exists()


def _expire(stub: Stub, name: str) -> None:
    """Move a stack's recorded expiry into the past, as time would."""
    path = stub.state / "stacks" / f"{name}.json"
    stack = json.loads(path.read_text())
    stack["tags"]["gpukit:expires-at"] = "2020-01-01T00:00:00Z"
    path.write_text(json.dumps(stack))


def test_reap_from_the_command_line_and_a_failed_destroy_exits_non_zero(
    stub: Stub, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _up(stub, capsys)[0] == 0
    assert _up(stub, capsys)[0] == 0
    expired, kept = list(stub.stacks())
    _expire(stub, expired)
    monkeypatch.setenv("GPUKIT_STUB_PULUMI_DESTROY", "fail")
    assert main(stub.ephemeral("reap")) == 1
    assert "deleting the VPC failed" in capsys.readouterr().err
    assert set(stub.stacks()) == {expired, kept}  # kept for the next reap
    monkeypatch.delenv("GPUKIT_STUB_PULUMI_DESTROY")
    assert main(stub.ephemeral("reap")) == 0
    assert set(stub.stacks()) == {kept}


def test_down_destroys_removes_the_stack_and_its_kubeconfig(
    stub: Stub, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _up(stub, capsys)
    assert code == 0
    (name,) = stub.stacks()
    assert main(stub.ephemeral("down", name)) == 0
    assert stub.stacks() == {} and not Path(out.strip()).exists()
    assert stub.destroyed_then_removed(), stub.commands()
    # Never a stack that is not ephemeral, and never one that is not there.
    assert main(stub.ephemeral("down", "production")) == 2
    assert main(stub.ephemeral("down", name)) == 2
    assert "no ephemeral stack" in capsys.readouterr().err


def _assert_lock_recovery(err: str, name: str) -> None:
    """The way out of a locked stack, as commands to run, and no traceback."""
    assert f"pulumi cancel --stack {name} --yes" in err, err
    assert f"pulumi refresh --clear-pending-creates --stack {name} --yes" in err, err
    assert f"gpukit ephemeral down {name}" in err and "Traceback" not in err, err


def test_a_locked_stack_on_down_and_reap_prints_the_way_out_and_exits_non_zero(
    stub: Stub, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _up(stub, capsys)[0] == 0
    (name,) = stub.stacks()
    monkeypatch.setenv("GPUKIT_STUB_PULUMI_DESTROY", "locked")
    assert main(stub.ephemeral("down", name)) == 1
    _assert_lock_recovery(capsys.readouterr().err, name)
    _expire(stub, name)
    assert main(stub.ephemeral("reap")) == 1
    _assert_lock_recovery(capsys.readouterr().err, name)
    assert set(stub.stacks()) == {name}  # kept, for `down` once unlocked
    monkeypatch.delenv("GPUKIT_STUB_PULUMI_DESTROY")
    assert main(stub.ephemeral("down", name)) == 0 and stub.stacks() == {}


def test_a_failed_up_whose_clean_up_finds_the_stack_locked_prints_the_way_out(
    stub: Stub, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GPUKIT_STUB_PULUMI_UP", "fail")
    monkeypatch.setenv("GPUKIT_STUB_PULUMI_DESTROY", "locked")
    code, _, err = _up(stub, capsys)
    (name,) = stub.stacks()
    assert code == 1 and "creating the node group failed" in err
    _assert_lock_recovery(err, name)


def test_a_locked_stack_at_the_fixtures_teardown_fails_it_with_the_way_out(
    stub: Stub, tmp_path: Path
) -> None:
    process = _pytest_session(
        stub,
        tmp_path,
        "--gpukit-stack",
        "eks-dev",
        "--gpukit-state-dir",
        str(stub.home),
        test="def test_uses_the_cluster(gpukit_cluster):\n    pass\n",
        GPUKIT_STUB_PULUMI_DESTROY="locked",
    )
    output = process.communicate(timeout=180)[0]
    assert process.returncode != 0, output
    (name,) = stub.stacks()
    assert "1 passed" in output and "1 error" in output and "teardown failed" in output, output
    _assert_lock_recovery(output, name)


def test_a_cancelled_pulumi_gets_minutes_to_finish_what_is_in_flight(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from gpukit.ephemeral.workspace import CANCEL_GRACE_ENV, cancel_grace_seconds

    monkeypatch.delenv(CANCEL_GRACE_ENV, raising=False)
    assert cancel_grace_seconds() == 20 * 60
    monkeypatch.setenv(CANCEL_GRACE_ENV, "2.5")
    assert cancel_grace_seconds() == 2.5
    for bad in ("soon", "0", "-1"):
        monkeypatch.setenv(CANCEL_GRACE_ENV, bad)
        assert cancel_grace_seconds() == 20 * 60


def test_bad_ttl_and_name_are_refused_before_any_pulumi_call(
    stub: Stub, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(stub.ephemeral("up", "--from", "eks-dev", "--ttl", "4 hours")) == 2
    assert main(stub.ephemeral("up", "--from", "eks-dev", "--ttl", "30d")) == 2
    assert main(stub.ephemeral("up", "--from", "eks-dev", "--ttl", "4h", "--name", "prod")) == 2
    assert main(stub.ephemeral("up", "--from", "no-such-stack", "--ttl", "4h")) == 2
    err = capsys.readouterr().err
    assert "--ttl must be" in err and "'prod'" in err and "Pulumi.no-such-stack.yaml" in err
    assert stub.calls() == []


# --- interruption: a real process, a real signal -------------------------------------------------------


def _env(stub: Stub, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PULUMI_", "GPUKIT_"))}
    return {
        **env,
        "PATH": f"{STUB}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests")]),
        "GPUKIT_STUB_PULUMI_STATE": str(stub.state),
        "GPUKIT_STUB_PULUMI_UP": "hang",
        **extra,
    }


def _wait_for_up(stub: Stub, process: "subprocess.Popen[str]", timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not list(stub.state.glob("*.up-started")):
        if process.poll() is not None:
            raise AssertionError(f"exited {process.returncode} before `up` started: {process.communicate()}")
        assert time.monotonic() < deadline, "`pulumi up` never started"
        time.sleep(0.2)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_an_interrupted_up_cancels_pulumi_then_destroys_and_removes_the_stack(
    stub: Stub, sig: signal.Signals
) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "gpukit.cli", *stub.ephemeral("up", "--from", "eks-dev", "--ttl", "1h")],
        env=_env(stub),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    _wait_for_up(stub, process)
    process.send_signal(sig)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 130, err
    assert "interrupted; destroying what was created" in err and out == ""
    assert stub.destroyed_then_removed(), stub.commands()
    assert ["<stub: up cancelled by SIGINT>"] in stub.calls()  # pulumi up was cancelled, not orphaned
    assert stub.stacks() == {}


SESSION_TEST = """
import time
from pathlib import Path

def test_uses_the_cluster(gpukit_cluster):
    assert gpukit_cluster.kubeconfig.is_file()
    Path("{marker}").write_text(gpukit_cluster.name)
    time.sleep(600)
"""


def _pytest_session(
    stub: Stub, tmp_path: Path, *options: str, test: str = SESSION_TEST, **env: str
) -> "subprocess.Popen[str]":
    tests = tmp_path / "user_tests"
    tests.mkdir(exist_ok=True)
    (tests / "test_cluster.py").write_text(test.format(marker=tmp_path / "in-test"))
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:gpukit",
            "-p",
            "gpukit.testing.pytest_plugin",
            "--rootdir",
            str(tests),
            "-c",
            os.devnull,
            str(tests),
            *options,
        ],
        env=_env(stub, GPUKIT_STUB_PULUMI_UP="ok", **env),
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupted_test_session_still_destroys_its_cluster(
    stub: Stub, tmp_path: Path, sig: signal.Signals
) -> None:
    process = _pytest_session(
        stub, tmp_path, "--gpukit-stack", "eks-dev", "--gpukit-state-dir", str(stub.home)
    )
    marker = tmp_path / "in-test"
    deadline = time.monotonic() + 180
    while not marker.exists():
        assert process.poll() is None, process.communicate()[0]
        assert time.monotonic() < deadline, "the test never ran"
        time.sleep(0.2)
    name = marker.read_text()
    assert name in stub.stacks()
    process.send_signal(sig)
    output = process.communicate(timeout=120)[0]
    assert process.returncode != 0, output
    assert stub.destroyed_then_removed(), output
    assert stub.stacks() == {}
    assert not (stub.home / "kubeconfigs" / f"{name}.yaml").exists()


def test_the_fixture_skips_without_a_stack_and_calls_nothing(stub: Stub, tmp_path: Path) -> None:
    process = _pytest_session(stub, tmp_path, "-rs")
    output = process.communicate(timeout=120)[0]
    assert process.returncode == 0, output
    assert "1 skipped" in output and "--gpukit-stack" in output
    assert stub.calls() == []


def test_a_killed_session_leaves_its_stack_name_for_a_clean_up_step(
    stub: Stub, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A CI runner kills a cancelled step's process tree ~10 s after SIGINT (GitHub Actions: SIGINT, then
    # SIGTERM after 7500 ms, then the tree is killed 2500 ms later), too soon for a destroy. The name,
    # chosen up front or written to a file (such as $GITHUB_ENV) once the stack exists, lets a later
    # `if: always()` step destroy it.
    name_file = tmp_path / "github_env"
    name_file.write_text("OTHER=1\n")
    process = _pytest_session(
        stub,
        tmp_path,
        "--gpukit-stack",
        "eks-dev",
        "--gpukit-state-dir",
        str(stub.home),
        "--gpukit-name",
        "eph-ci-123456789-1",
        "--gpukit-name-file",
        str(name_file),
    )
    marker = tmp_path / "in-test"
    deadline = time.monotonic() + 180
    while not marker.exists():
        assert process.poll() is None, process.communicate()[0]
        assert time.monotonic() < deadline, "the test never ran"
        time.sleep(0.2)
    process.kill()
    process.communicate(timeout=60)
    assert marker.read_text() == "eph-ci-123456789-1"
    assert set(stub.stacks()) == {"eph-ci-123456789-1"}  # the killed session could not tear down
    assert name_file.read_text() == "OTHER=1\nGPUKIT_EPHEMERAL_STACK=eph-ci-123456789-1\n"

    assert main(stub.ephemeral("down", "eph-ci-123456789-1", "--if-exists")) == 0
    assert stub.stacks() == {} and stub.destroyed_then_removed()
    # The clean-up step runs after a session that did tear down too: nothing there is not an error.
    assert main(stub.ephemeral("down", "eph-ci-123456789-1", "--if-exists")) == 0
    assert main(stub.ephemeral("down", "eph-ci-123456789-1")) == 2
    assert "no ephemeral stack" in capsys.readouterr().err


def test_the_fixture_refuses_a_pytest_xdist_worker_and_calls_nothing(stub: Stub, tmp_path: Path) -> None:
    # Each xdist worker is its own session: a session fixture there would deploy one cluster per worker.
    # (pytest-xdist is not installed here; its workers are recognised by what xdist sets on them.)
    process = _pytest_session(
        stub,
        tmp_path,
        "--gpukit-stack",
        "eks-dev",
        "--gpukit-state-dir",
        str(stub.home),
        PYTEST_XDIST_WORKER="gw1",
    )
    output = process.communicate(timeout=120)[0]
    assert process.returncode == 1, output
    assert "refused under pytest-xdist (this is worker gw1)" in output and "without -n" in output
    assert stub.calls() == []


def test_reap_and_list_go_by_the_stack_tags_when_a_local_stack_file_is_unreadable(
    stub: Stub, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for _ in range(3):
        assert _up(stub, capsys)[0] == 0
    broken, odd, fine = list(stub.stacks())
    project = stub.home / "project"
    (project / f"Pulumi.{broken}.yaml").write_text("config: [unclosed\n")  # not YAML
    odd_file = project / f"Pulumi.{odd}.yaml"
    doc = yaml.safe_load(odd_file.read_text())
    doc["config"]["gpukit:ephemeral"] = "not a mapping"
    odd_file.write_text(yaml.safe_dump(doc))

    assert main(stub.ephemeral("list", "--json")) == 0
    rows = {row["name"]: row for row in json.loads(capsys.readouterr().out)}
    assert set(rows) == {broken, odd, fine}
    assert rows[broken]["hourlyCostMax"] is None  # no readable config: no cost, still listed
    assert round(rows[fine]["hourlyCostMax"], 2) == 6.79

    # reap needs no cost: it never plans (a plan per stack costs seconds each).
    def no_plan(*args: object) -> None:
        raise AssertionError("reap planned a stack")

    monkeypatch.setattr(lifecycle, "plan_copy", no_plan)
    _expire(stub, broken)
    _expire(stub, odd)
    assert main(stub.ephemeral("reap")) == 0
    assert set(stub.stacks()) == {fine}


def _untag(stub: Stub, name: str) -> None:
    """Drop gpukit's stack tags, as on an `eph-` stack someone made by hand."""
    path = stub.state / "stacks" / f"{name}.json"
    stack = json.loads(path.read_text())
    stack["tags"] = {}
    path.write_text(json.dumps(stack))


def test_down_and_reap_refuse_an_eph_stack_without_gpukit_tags(
    stub: Stub, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _up(stub, capsys)[0] == 0
    (name,) = stub.stacks()
    # The stacks live in their own project, not beside the user's own `gpukit` project's stacks.
    assert stub.stacks()[name]["project"] == "gpukit-ephemeral"
    _untag(stub, name)
    # reap leaves it alone (no expiry tag: not even an expiry to go by once the local file is gone).
    (stub.home / "project" / f"Pulumi.{name}.yaml").write_text(
        yaml.safe_dump({"config": {"gpukit:ephemeral": {"expiresAt": "2020-01-01T00:00:00Z"}}})
    )
    assert main(stub.ephemeral("reap")) == 0
    assert name in stub.stacks() and "may not be gpukit's" in capsys.readouterr().err
    assert main(stub.ephemeral("down", name)) == 2
    err = capsys.readouterr().err
    assert name in err and "--force" in err
    assert "destroy" not in stub.commands()
    assert main(stub.ephemeral("down", name, "--force")) == 0
    assert stub.stacks() == {}


@pytest.mark.parametrize("command", [["up", "--from", "eks-dev", "--ttl", "4h"], ["reap"], ["list"]])
def test_a_shared_backend_without_a_passphrase_in_the_environment_is_refused(
    stub: Stub, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, command: list[str]
) -> None:
    # Each machine would generate its own passphrase file, and a reaper elsewhere could not decrypt.
    backend = "s3://my-pulumi-state/ephemeral"
    assert main(stub.ephemeral(*command, "--backend", backend)) == 2
    err = capsys.readouterr().err
    assert backend in err and "PULUMI_CONFIG_PASSPHRASE" in err
    assert stub.calls() == [] and not (stub.home / "passphrase").exists()
    # With the passphrase from the environment (a CI secret) it goes ahead.
    monkeypatch.setenv("PULUMI_CONFIG_PASSPHRASE", "shared-by-every-machine")
    assert main(stub.ephemeral(*command, "--backend", backend)) == 0, capsys.readouterr().err
    used = {c["env"]["PULUMI_BACKEND_URL"] for c in stub.raw_calls() if "version" not in c["argv"]}
    assert used <= {backend}


def test_a_backend_url_with_credentials_is_never_echoed_with_them(
    stub: Stub, capsys: pytest.CaptureFixture[str]
) -> None:
    # Refused before any Pulumi call (no shared passphrase): the message names the backend.
    backend = "s3://ci:s3cr3t@my-pulumi-state/ephemeral?region=eu-west-1&secret_key=s3cr3t"
    for command in (["reap"], ["list", "--json"]):
        assert main(stub.ephemeral(*command, "--backend", backend)) == 2
        out, err = capsys.readouterr()
        assert "s3cr3t" not in out + err
        assert "--backend s3://***@my-pulumi-state/ephemeral?***: a shared backend needs" in out + err
    # A stack that is not in a Pulumi Cloud backend given with a user and password.
    cloud = "https://ci:s3cr3t@pulumi.example.com"
    assert main(stub.ephemeral("down", "eph-gone-2612011130-x7k2", "--backend", cloud)) == 2
    err = capsys.readouterr().err
    assert "s3cr3t" not in err and "in https://***@pulumi.example.com" in err, err


def test_a_pulumi_error_is_reported_by_what_the_cli_said_on_stderr() -> None:
    from pulumi.automation import CommandResult
    from pulumi.automation.errors import create_command_error

    result = CommandResult(
        stdout="Updating (eph-x):\n + 40 resources created", stderr="error: boom", code=255
    )
    assert lifecycle.command_error_text(create_command_error(result)) == "error: boom"
    # No stderr: the error as it is.
    assert "code: 1" in lifecycle.command_error_text(create_command_error(CommandResult("", "", 1)))


QUICK_TEST = "def test_uses_the_cluster(gpukit_cluster):\n    assert gpukit_cluster.kubeconfig.is_file()\n"


@pytest.mark.parametrize(
    ("option", "value", "says"),
    [
        ("--gpukit-ttl", "5m", "--gpukit-ttl / gpukit_ttl: --ttl must be between 30m and 7d; got '5m'"),
        ("--gpukit-ttl", "soon", "--gpukit-ttl / gpukit_ttl: --ttl must be a whole number"),
        ("--gpukit-max-hourly-cost", "cheap", "must be a positive number of USD per hour; got 'cheap'"),
        ("--gpukit-max-hourly-cost", "0", "must be a positive number of USD per hour; got '0'"),
    ],
)
def test_a_bad_fixture_option_is_a_usage_error_before_any_pulumi_call(
    stub: Stub, tmp_path: Path, option: str, value: str, says: str
) -> None:
    process = _pytest_session(stub, tmp_path, "--gpukit-stack", "eks-dev", option, value, test=QUICK_TEST)
    output = process.communicate(timeout=120)[0]
    assert process.returncode == 4, output  # pytest's exit code for a usage error
    assert f"ERROR: {option}" in output and says in output and "Traceback" not in output, output
    assert stub.calls() == []


BUDGET_TEST = """
from pathlib import Path
import yaml

def test_reads_the_budget(gpukit_cluster):
    stack = Path("{home}") / "project" / f"Pulumi.{{gpukit_cluster.name}}.yaml"
    budget = yaml.safe_load(stack.read_text())["config"]["gpukit:budget"]
    Path("{marker}").write_text(str(budget["allowUnpriced"]))
"""


@pytest.mark.parametrize(("options", "allowed"), [((), "False"), (("--gpukit-allow-unpriced",), "True")])
def test_the_fixture_passes_allow_unpriced_to_the_copy(
    stub: Stub, tmp_path: Path, options: tuple[str, ...], allowed: str
) -> None:
    test = BUDGET_TEST.replace("{home}", str(stub.home))
    process = _pytest_session(
        stub, tmp_path, "--gpukit-stack", "eks-dev", "--gpukit-state-dir", str(stub.home), *options, test=test
    )
    output = process.communicate(timeout=180)[0]
    assert process.returncode == 0 and "1 passed" in output, output
    assert (tmp_path / "in-test").read_text() == allowed
    assert stub.stacks() == {}


def test_a_pulumi_cli_too_old_to_keep_stack_tags_is_refused_naming_the_minimum(
    stub: Stub, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GPUKIT_STUB_PULUMI_VERSION", "v3.210.0")
    code, _, err = _up(stub, capsys)
    assert code == 2 and "the Pulumi CLI is 3.210.0" in err and "3.211.0 or later" in err, err
    assert main(stub.ephemeral("list")) == 2 and main(stub.ephemeral("reap")) == 2
    assert "up" not in stub.commands() and stub.stacks() == {}


# --- without the Pulumi CLI, and one's own program (--program DIR) -----------------------------------

EXAMPLE_PROGRAM = ROOT / "examples" / "infra-repo"


def _path_without_pulumi() -> str:
    """PATH less every folder that holds a `pulumi` (the stub's included): as on a machine without it."""
    return os.pathsep.join(
        folder
        for folder in os.environ.get("PATH", "").split(os.pathsep)
        if folder and not (Path(folder) / "pulumi").exists()
    )


def test_up_without_the_pulumi_cli_is_one_line_exit_2_and_writes_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PULUMI_", "GPUKIT_"))}
    result = subprocess.run(
        [sys.executable, "-m", "gpukit.cli", "ephemeral", "up", "--from", "eks-dev", "--ttl", "4h"],
        env={**env, "PATH": _path_without_pulumi(), "GPUKIT_EPHEMERAL_STATE_DIR": str(home)},
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr + result.stdout and result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert "Pulumi CLI" in line and "not on PATH" in line and "https://www.pulumi.com/docs/install/" in line
    assert not home.exists()  # no state dir, no passphrase, no project


@pytest.mark.parametrize("command", [["list"], ["reap"], ["down", "eph-x-2612011530-x7k2"]])
def test_every_ephemeral_command_without_the_pulumi_cli_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, command: list[str]
) -> None:
    monkeypatch.setenv("PATH", _path_without_pulumi())
    home = tmp_path / "home"
    assert main(["ephemeral", *command, "--state-dir", str(home)]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert "Pulumi CLI" in line and "not on PATH" in line
    assert not home.exists() and not (home / "passphrase").exists()


def test_the_fixture_skips_without_the_pulumi_cli_and_writes_nothing(stub: Stub, tmp_path: Path) -> None:
    process = _pytest_session(
        stub,
        tmp_path,
        "-rs",
        "--gpukit-stack",
        "eks-dev",
        "--gpukit-state-dir",
        str(stub.home),
        test=QUICK_TEST,
        PATH=_path_without_pulumi(),
    )
    output = process.communicate(timeout=120)[0]
    assert process.returncode == 0, output
    assert "1 skipped" in output and "Pulumi CLI" in output and "not on PATH" in output, output
    assert "Traceback" not in output and not stub.home.exists() and stub.calls() == []


def test_program_must_be_a_pulumi_project(
    stub: Stub, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "no-project"
    empty.mkdir()
    assert main(stub.ephemeral("up", "--program", str(empty), "--from", "dev", "--ttl", "4h")) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert f"--program {empty}" in line and "Pulumi.yaml" in line, line
    assert main(stub.ephemeral("list", "--program", str(tmp_path / "not-there"))) == 2
    assert "--program" in capsys.readouterr().err
    assert stub.calls() == [] and not stub.home.exists()
    # `plan --program` decides the same way (one function).
    assert main(["plan", "--program", str(empty), "--stack", "dev"]) == 2
    assert f"--program {empty}" in capsys.readouterr().err


def test_a_bad_program_and_no_pulumi_cli_are_reported_together(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", _path_without_pulumi())
    home = tmp_path / "home"
    assert main(["ephemeral", "list", "--program", str(tmp_path), "--state-dir", str(home)]) == 2
    err = capsys.readouterr().err
    assert "--program" in err and "Pulumi CLI" in err and not home.exists()


def _own_program(tmp_path: Path) -> Path:
    program = tmp_path / "ml-platform"
    shutil.copytree(EXAMPLE_PROGRAM, program)
    return program


def test_up_list_and_down_run_ones_own_program_in_its_folder(
    stub: Stub, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    program = _own_program(tmp_path)
    code, out, err = _up(stub, capsys, "--program", str(program), source="dev")
    assert code == 0, err
    (name,) = stub.stacks()
    assert name.startswith("eph-dev-")
    assert stub.stacks()[name]["project"] == "ml-platform"  # the program's project, not gpukit's
    assert stub.stacks()[name]["tags"]["gpukit:ephemeral-from"] == "dev"
    # Every CLI call runs in the program's folder: that is what Pulumi deploys.
    assert {c["cwd"] for c in stub.raw_calls() if c["argv"][-1] != "version"} == {str(program)}
    config = yaml.safe_load((program / f"Pulumi.{name}.yaml").read_text())["config"]
    assert config["ml-platform:team"] == "vision" and config["aws:region"] == "us-west-2"
    assert config["gpukit:ephemeral"]["expiresAt"] == stub.stacks()[name]["tags"]["gpukit:expires-at"]
    assert not (stub.home / "project").exists()  # gpukit's own program is not written
    assert Path(out.strip()) == stub.home / "kubeconfigs" / f"{name}.yaml"

    assert main(stub.ephemeral("list", "--json", "--program", str(program))) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["name"] == name and row["hourlyCostMax"] > 0  # priced from the program's offline plan

    assert main(stub.ephemeral("down", name, "--program", str(program))) == 0
    assert stub.stacks() == {} and stub.destroyed_then_removed()
    assert not (program / f"Pulumi.{name}.yaml").exists()
    assert {c["cwd"] for c in stub.raw_calls() if c["argv"][-1] != "version"} == {str(program)}


def test_the_guard_refuses_ones_own_program_over_the_limit_before_any_pulumi_call(
    stub: Stub, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    program = _own_program(tmp_path)
    code, _, err = _up(stub, capsys, "--program", str(program), "--max-hourly-cost", "1", source="dev")
    assert code == 2, err
    assert "max $/h guard" in err and "$1.00/h" in err
    assert stub.calls() == [] and not list(program.glob("Pulumi.eph-*.yaml"))


def test_the_fixture_deploys_ones_own_program(stub: Stub, tmp_path: Path) -> None:
    program = _own_program(tmp_path)
    process = _pytest_session(
        stub,
        tmp_path,
        "--gpukit-stack",
        "dev",
        "--gpukit-program",
        str(program),
        "--gpukit-state-dir",
        str(stub.home),
        test=QUICK_TEST,
    )
    output = process.communicate(timeout=180)[0]
    assert process.returncode == 0 and "1 passed" in output, output
    assert stub.destroyed_then_removed() and stub.stacks() == {}
    assert {c["cwd"] for c in stub.raw_calls() if c["argv"][-1] != "version"} == {str(program)}


def test_a_bad_fixture_program_is_a_usage_error(stub: Stub, tmp_path: Path) -> None:
    process = _pytest_session(
        stub, tmp_path, "--gpukit-stack", "dev", "--gpukit-program", str(tmp_path), test=QUICK_TEST
    )
    output = process.communicate(timeout=120)[0]
    assert process.returncode == 4, output
    assert "ERROR: --gpukit-program / gpukit_program" in output and "Pulumi.yaml" in output, output
    assert "Traceback" not in output and stub.calls() == []
