"""`gpukit verify` against a stub kubectl that records every call and plays a cluster whose Jobs pass,
fail or never finish. No real cluster: the stub answers from files in its state folder."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from gpukit.cli import main
from gpukit.components.addons.verification.addon import VERIFICATION_ADDON
from gpukit.components.addons.verification.jobs import NAMESPACE
from gpukit.components.resolve.config import resolve_config
from gpukit.verify.command import run_verification
from gpukit.verify.kubectl import Kubectl
from harness import ROOT, example_config

# The stub: `apply -f -` stores the objects; `get job NAME -o json` answers with the outcome the test
# set for the Job's pool (state/outcome-<pool>: pass, fail or pending); `logs job/NAME` prints the check
# script's lines for it; `get namespace` says whether the namespace exists (state/namespace-exists).
STUB = r"""#!/usr/bin/env python3
import json, pathlib, sys
state = pathlib.Path(__file__).parent.parent / "state"
args = sys.argv[1:]
with open(state / "calls.log", "a") as log:
    log.write(json.dumps(args) + "\n")
kubeconfig = args[1]
args = args[2:]
def pool_of(name):
    applied = json.loads((state / "applied.json").read_text())
    for item in applied["items"]:
        if item["metadata"]["name"] == name:
            labels = item["metadata"]["labels"]
            # A GPU pool's Job, an NCCL check's, or the inference check's (its name less the run id).
            return (labels.get("gpukit.dev/verify-pool") or labels.get("gpukit.dev/nccl-check")
                    or name.rsplit("-", 1)[0])
    sys.exit(f"Error from server (NotFound): jobs.batch {name!r} not found")
def outcome(pool):
    path = state / f"outcome-{pool}"
    return path.read_text().strip() if path.exists() else "pass"
if args[:2] == ["apply", "-f"]:
    (state / "applied.json").write_text(sys.stdin.read())
    print("applied")
elif args[:2] == ["create", "-f"]:
    (state / "created.json").write_text(sys.stdin.read())
    print("created")
elif args[:2] == ["get", "namespace"]:
    sys.exit(0 if (state / "namespace-exists").exists() else 1)
elif args[:2] == ["get", "jobs"]:  # other runs' Jobs, by label: state/other-jobs
    other = state / "other-jobs"
    print(other.read_text() if other.exists() else "", end="")
elif args[:2] == ["get", "job"]:
    result = outcome(pool_of(args[2]))
    conditions = {
        "pass": [{"type": "Complete", "status": "True"}],
        "fail": [{"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded",
                  "message": "Job has reached the specified backoff limit"}],
        "deadline": [{"type": "Failed", "status": "True", "reason": "DeadlineExceeded",
                      "message": "Job was active longer than specified deadline"}],
        "pending": [],
    }[result]
    print(json.dumps({"status": {"conditions": conditions}}))
elif args[0] == "logs":
    pool = pool_of(args[1].removeprefix("job/"))
    if outcome(pool) == "fail" and not (state / "logs-gone").exists():
        print("gpukit-verify: ok: one GPU visible")
        print(f"gpukit-verify: FAIL: GPU model is 'NVIDIA A10G', but pool {pool} promises L4")
        print(f"gpukit-verify: FAIL pool {pool} (1 check(s) failed)")
elif args[:2] == ["get", "pods"] and "terminated.message" in args[-1]:
    # The termination messages (FallbackToLogsOnError) of the Job's two failed pods, space-separated.
    pool = pool_of(args[args.index("-l") + 1].removeprefix("job-name="))
    if outcome(pool) == "fail":
        message = (f"gpukit-verify: FAIL: GPU model is 'NVIDIA A10G', but pool {pool} promises L4\n"
                   f"gpukit-verify: FAIL pool {pool} (1 check(s) failed)\n")
        print(message + " " + message, end="")
elif args[:2] == ["get", "pods"]:
    print("Pending")
elif args[0] == "delete":
    print("deleted")
else:
    sys.exit(f"stub kubectl: unexpected {args}")
"""


class Cluster:
    """The stub kubectl and its state."""

    def __init__(self, base: Path) -> None:
        self.state = base / "state"
        self.state.mkdir()
        bin_dir = base / "bin"
        bin_dir.mkdir()
        self.kubectl = bin_dir / "kubectl"
        self.kubectl.write_text(STUB)
        self.kubectl.chmod(0o755)
        self.kubeconfig = base / "kubeconfig.yaml"
        self.kubeconfig.write_text("apiVersion: v1\nkind: Config\n")

    def outcome(self, pool: str, result: str) -> None:
        (self.state / f"outcome-{pool}").write_text(result)

    @property
    def calls(self) -> list[list[str]]:
        return [json.loads(line) for line in (self.state / "calls.log").read_text().splitlines()]

    @property
    def created(self) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = json.loads((self.state / "created.json").read_text())["items"]
        return items

    @property
    def applied(self) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = json.loads((self.state / "applied.json").read_text())["items"]
        return items

    def verify(self, *flags: str) -> int:
        return main(
            [
                "verify",
                "--project",
                str(ROOT),
                "--kubeconfig",
                str(self.kubeconfig),
                "--kubectl",
                str(self.kubectl),
                *flags,
            ]
        )


@pytest.fixture
def cluster(tmp_path: Path) -> Cluster:
    return Cluster(tmp_path)


def test_every_pool_passes_exit_0_and_the_jobs_are_cleaned_up(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cluster.verify("--stack", "eks-train") == 0
    out = capsys.readouterr().out
    assert "pool l4: PASS" in out and "pool h100: PASS" in out
    assert "2 of 2 GPU pool(s) passed" in out
    calls = cluster.calls
    assert all(call[:2] == ["--kubeconfig", str(cluster.kubeconfig)] for call in calls)
    kinds = [item["kind"] for item in cluster.applied]
    assert kinds == ["Namespace", "Job", "Job"]  # the namespace was missing: this run made it
    run = cluster.applied[1]["metadata"]["labels"]["gpukit.dev/verify-run"]
    deletes = [call[2:] for call in calls if call[2] == "delete"]
    assert ["delete", "job", "-n", NAMESPACE, "-l", f"gpukit.dev/verify-run={run}"] == deletes[0][:6]
    assert deletes[1][:3] == ["delete", "namespace", NAMESPACE]


def test_the_cli_applies_the_jobs_the_component_renders_valid_under_strict_schema(cluster: Cluster) -> None:
    assert cluster.verify("--stack", "eks-train") == 0
    jobs = [item for item in cluster.applied if item["kind"] == "Job"]
    for job in jobs:
        kubernetes_validate.validate(job, "1.35.0", strict=True)
    h100 = next(j for j in jobs if j["metadata"]["labels"]["gpukit.dev/verify-pool"] == "h100")
    (container,) = h100["spec"]["template"]["spec"]["containers"]
    assert container["resources"]["limits"]["nvidia.com/mig-1g.10gb"] == "1"
    assert h100["spec"]["ttlSecondsAfterFinished"] == 3600
    assert h100["spec"]["template"]["spec"]["nodeSelector"] == {"gpukit.dev/pool": "h100"}


def test_a_failed_pool_exits_1_with_the_failed_check_and_the_pool_named(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    cluster.outcome("h100", "fail")
    assert cluster.verify("--stack", "eks-train") == 1
    out = capsys.readouterr().out
    assert "pool l4: PASS" in out
    assert "pool h100: FAIL: GPU model is 'NVIDIA A10G', but pool h100 promises L4" in out
    assert any(call[2] == "delete" for call in cluster.calls)


def test_a_failed_pool_whose_logs_are_gone_is_explained_by_its_termination_message(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    cluster.outcome("l4", "fail")
    (cluster.state / "logs-gone").touch()  # the scale-to-zero node went, and its logs with it
    assert cluster.verify("--stack", "eks-dev") == 1
    out = capsys.readouterr().out
    assert "pool l4: FAIL: GPU model is 'NVIDIA A10G', but pool l4 promises L4; " in out
    job = next(item for item in cluster.applied if item["kind"] == "Job")
    (container,) = job["spec"]["template"]["spec"]["containers"]
    assert container["terminationMessagePolicy"] == "FallbackToLogsOnError"


def test_a_job_past_its_deadline_fails_with_kubernetes_reason(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    cluster.outcome("l4", "deadline")
    assert cluster.verify("--stack", "eks-dev") == 1
    assert (
        "pool l4: FAIL: DeadlineExceeded: Job was active longer than specified deadline"
        in capsys.readouterr().out
    )


def test_a_job_that_never_finishes_times_out_and_is_still_cleaned_up(cluster: Cluster) -> None:
    cluster.outcome("l4", "pending")
    (cluster.state / "namespace-exists").touch()
    config = example_config("eks-dev")
    suite = VERIFICATION_ADDON.checks(resolve_config(config), 5)
    assert suite is not None
    now = [0.0]

    def sleep(seconds: float) -> None:
        now[0] += seconds

    results = run_verification(
        Kubectl(str(cluster.kubectl), cluster.kubeconfig), [suite], clock=lambda: now[0], sleep=sleep
    )
    assert [(r.label, r.passed) for r in results] == [("pool l4", False)]
    assert results[0].reason == "timed out: the Job did not finish in time (pod Pending)"
    assert 5 * 60 <= now[0] <= 5 * 60 + 120  # waited the Job's deadline plus the margin, then gave up
    assert [item["kind"] for item in cluster.applied] == ["Job"]  # the namespace existed: left alone
    deletes = [call[2:] for call in cluster.calls if call[2] == "delete"]
    assert len(deletes) == 1 and deletes[0][:2] == ["delete", "job"]


def test_an_interrupted_run_still_deletes_its_jobs(cluster: Cluster) -> None:
    cluster.outcome("l4", "pending")
    suite = VERIFICATION_ADDON.checks(resolve_config(example_config("eks-dev")), 5)
    assert suite is not None

    def interrupt(seconds: float) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_verification(Kubectl(str(cluster.kubectl), cluster.kubeconfig), [suite], sleep=interrupt)
    assert any(call[2:4] == ["delete", "job"] for call in cluster.calls)


def test_a_namespace_this_run_made_is_kept_while_another_runs_jobs_are_in_it(cluster: Cluster) -> None:
    (cluster.state / "other-jobs").write_text("job.batch/gpukit-verify-l4-0123abcd-f00d42\n")
    assert cluster.verify("--stack", "eks-train") == 0  # GPU pools only: no inference check
    assert [item["kind"] for item in cluster.applied] == ["Namespace", "Job", "Job"]  # this run made it
    run = cluster.applied[1]["metadata"]["labels"]["gpukit.dev/verify-run"]
    query = ["get", "jobs", "-n", NAMESPACE, "-l", f"gpukit.dev/verify-run!={run}", "-o", "name"]
    assert query in [call[2:] for call in cluster.calls]
    deletes = [call[2:] for call in cluster.calls if call[2] == "delete"]
    assert [d[:2] for d in deletes] == [["delete", "job"]]  # the other run's Jobs keep their namespace


def test_the_inference_check_runs_with_objects_of_its_own_and_leaves_nothing_behind(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    (cluster.state / "namespace-exists").touch()  # pulumi up made both namespaces
    assert cluster.verify("--stack", "eks-dev") == 0
    out = capsys.readouterr().out
    assert "the check (its pod on pool l4): PASS" in out
    assert "1 of 1 inference pipeline(s) passed" in out
    ours = [
        item for item in cluster.applied if item["metadata"].get("namespace") == "gpukit-verify-inference"
    ]
    run = ours[0]["metadata"]["labels"]["gpukit.dev/verify-run"]
    assert all(item["metadata"]["labels"]["gpukit.dev/verify-run"] == run for item in ours)
    assert {item["kind"] for item in ours} == {"Service", "Deployment", "HTTPRoute", "ScaledObject", "Job"}
    for item in ours:
        if item["kind"] in ("Service", "Deployment", "Job"):
            kubernetes_validate.validate(item, "1.35", strict=True)
    # Deleted by the run's label, every kind it made, and the namespace pulumi up made stays.
    deletes = [call[2:] for call in cluster.calls if call[2] == "delete"]
    assert [
        "delete",
        "deployment,httproute,scaledobject,service",
        "-n",
        "gpukit-verify-inference",
        "-l",
        f"gpukit.dev/verify-run={run}",
    ] in [d[:6] for d in deletes]
    assert ["delete", "job", "-n", "gpukit-verify-inference", "-l", f"gpukit.dev/verify-run={run}"] in [
        d[:6] for d in deletes
    ]
    assert not any(d[:2] == ["delete", "namespace"] for d in deletes)


def test_sigterm_stops_a_run_cleanly_and_deletes_its_jobs(cluster: Cluster) -> None:
    cluster.outcome("l4", "pending")
    command = [sys.executable, "-m", "gpukit.cli", "verify", "--project", str(ROOT), "--stack", "eks-dev"]
    command += ["--kubeconfig", str(cluster.kubeconfig), "--kubectl", str(cluster.kubectl)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    log = cluster.state / "calls.log"
    deadline = time.monotonic() + 60
    while not (log.exists() and '"get", "job"' in log.read_text()):  # applied, and now waiting
        assert process.poll() is None and time.monotonic() < deadline, process.communicate()
        time.sleep(0.1)
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err  # a clean exit, not killed outright
    assert "interrupted; this run's verification Jobs were deleted" in err and "Traceback" not in err
    run = cluster.applied[-1]["metadata"]["labels"]["gpukit.dev/verify-run"]
    deletes = [call[2:] for call in cluster.calls if call[2] == "delete"]
    assert ["delete", "job", "-n", NAMESPACE, "-l", f"gpukit.dev/verify-run={run}"] == deletes[0][:6]


@pytest.mark.parametrize(
    ("flags", "flag"),
    [
        (["--stack", "eks-dev", "--kubeconfig", "/nonexistent/kubeconfig"], "--kubeconfig"),
        (["--stack", "eks-dev", "--timeout-minutes", "1"], "--timeout-minutes"),
        (["--stack", "eks-dev", "--kubectl", "/nonexistent/kubectl"], "--kubectl"),
        ([], "--stack"),
    ],
)
def test_invalid_flags_exit_2_naming_the_flag_and_touch_no_cluster(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], flags: list[str], flag: str
) -> None:
    assert cluster.verify(*flags) == 2
    assert f"  {flag}: " in capsys.readouterr().err
    assert not (cluster.state / "calls.log").exists()


def test_an_invalid_stack_exits_2_naming_the_key(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    config = example_config("eks-dev")
    config["gpukit:verification"] = {"timeoutMinutes": 1}
    path = cluster.state.parent / "Pulumi.bad.yaml"
    path.write_text(yaml.safe_dump({"config": config}))
    assert cluster.verify("--config", str(path)) == 2
    assert "gpukit:verification.timeoutMinutes" in capsys.readouterr().err
    assert not (cluster.state / "calls.log").exists()


def nccl_stack(tmp_path: Path) -> Path:
    """An EKS stack with an EFA pool that asks for the NCCL check (and not the GPU verification)."""
    config = example_config("eks-dev")
    config["gpukit:nodePools"].append(
        {"name": "h100", "instanceType": "p5.48xlarge", "minNodes": 0, "maxNodes": 2, "zones": ["usw2-az3"]}
    )
    config["gpukit:verification"] = {"nccl": True}
    config["gpukit:inference"] = {"enabled": False}  # its check has a test of its own
    path = tmp_path / "Pulumi.nccl.yaml"
    path.write_text(yaml.safe_dump({"config": config}))
    return path


def test_the_nccl_check_runs_with_keys_made_for_the_run_and_leaves_nothing_behind(
    cluster: Cluster, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cluster.verify("--config", str(nccl_stack(tmp_path))) == 0
    out, err = capsys.readouterr()
    assert "NCCL h100: PASS" in out and "1 of 1 fabric pool(s) passed" in out
    applied = {(item["kind"], item["metadata"]["name"]): item for item in cluster.applied + cluster.created}
    # The keys are created, never applied: apply would copy them into an annotation.
    assert [item["kind"] for item in cluster.created] == ["Secret"]
    assert all(item["kind"] != "Secret" for item in cluster.applied)
    (job_key,) = [key for key in applied if key[0] == "Job" and key[1].startswith("nccl-h100-")]
    run = applied[job_key]["metadata"]["labels"]["gpukit.dev/verify-run"]
    assert job_key[1].endswith(f"-{run}")
    # Its own objects, never the ones `pulumi up` made (those keep their plain names).
    assert {("Secret", f"nccl-ssh-{run}"), ("ConfigMap", f"nccl-check-tools-{run}")} <= set(applied)
    assert {("Service", f"nccl-h100-{run}"), ("NetworkPolicy", f"nccl-check-peers-only-{run}")} <= set(
        applied
    )
    keys = applied[("Secret", f"nccl-ssh-{run}")]["stringData"]
    assert keys["id_ed25519"].startswith("-----BEGIN OPENSSH PRIVATE KEY-----")
    assert keys["known_hosts"].startswith("* ssh-ed25519 ")
    assert keys["id_ed25519"] not in out + err  # no key is printed
    pod = applied[job_key]["spec"]["template"]["spec"]
    assert pod["subdomain"] == f"nccl-h100-{run}"
    assert pod["volumes"][0]["secret"]["secretName"] == f"nccl-ssh-{run}"
    for item in cluster.applied + cluster.created:
        kubernetes_validate.validate(item, "1.35.0", strict=True)
    deletes = [call[2:] for call in cluster.calls if call[2] == "delete"]
    assert [
        "delete",
        "configmap,networkpolicy,secret,service",
        "-n",
        "gpukit-verify-nccl",
        "-l",
        f"gpukit.dev/verify-run={run}",
    ] in [d[:6] for d in deletes]


def test_without_ssh_keygen_the_nccl_check_says_so_and_touches_no_cluster(
    cluster: Cluster, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil as shutil_module

    real_which = shutil_module.which
    monkeypatch.setattr(
        shutil_module, "which", lambda name: None if name == "ssh-keygen" else real_which(name)
    )
    assert cluster.verify("--config", str(nccl_stack(tmp_path))) == 1
    err = capsys.readouterr().err
    assert "the NCCL check needs ssh-keygen (OpenSSH) on this machine to make its keys" in err
    assert not (cluster.state / "applied.json").exists() and not (cluster.state / "created.json").exists()


class _Suite:
    """A suite with one Job and one extra object, for run_verification alone."""

    subject = "thing"
    timeout_minutes = 5

    def namespaces(self) -> list[dict[str, Any]]:
        return [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ns"}}]

    def objects(self, run: str) -> list[dict[str, Any]]:
        return [
            {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": f"keys-{run}", "namespace": "ns"}}
        ]

    def jobs(self, run: str, ttl_seconds: int) -> dict[str, dict[str, Any]]:
        return {"thing": {"kind": "Job", "metadata": {"name": f"job-{run}", "namespace": "ns"}}}


class _FlakyKubectl:
    """Answers like a cluster whose Job passes, except that deleting the run's objects times out."""

    def __init__(self) -> None:
        self.deleted: list[str] = []

    def exists(self, *args: str) -> bool:
        return True

    def apply(self, objects: list[dict[str, Any]]) -> None: ...

    def create(self, objects: list[dict[str, Any]]) -> None: ...

    def get_json(self, *args: str) -> dict[str, Any]:
        return {"status": {"conditions": [{"type": "Complete", "status": "True"}]}}

    def run(self, *args: str, **kwargs: Any) -> subprocess.CompletedProcess[str]:
        from gpukit.verify.kubectl import KubectlError

        if args[0] == "delete":
            self.deleted.append(args[1])
            if args[1] == "secret":
                raise KubectlError("`kubectl delete secret` did not answer in 120 s")
        return subprocess.CompletedProcess(list(args), 0, "", "")


def test_a_clean_up_step_that_fails_leaves_the_others_to_run_and_says_what_is_left(
    capsys: pytest.CaptureFixture[str],
) -> None:
    kubectl = _FlakyKubectl()
    results = run_verification(kubectl, [_Suite()], run="abc123")  # type: ignore[arg-type, list-item]
    assert [r.passed for r in results] == [True]
    assert kubectl.deleted == ["secret", "job"]  # the keys first, then the Jobs all the same
    assert (
        "gpukit verify: could not delete this run's objects in ns (label gpukit.dev/verify-run=abc123; "
        "delete them by that label)"
    ) in capsys.readouterr().err
