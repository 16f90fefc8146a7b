"""`gpukit verify --kubeconfig FILE --stack NAME`: every add-on's checks (components/addons/base.py
CheckSuite) against a cluster that already exists: the GPU pools' checks that `pulumi up` runs with
`gpukit:verification.enabled`, and the fabric pools' NCCL check with `gpukit:verification.nccl`.

The Jobs are the ones the add-ons create under `pulumi up`, rendered by the same functions
(components/addons/verification/, components/addons/interconnect/), with a run id in their names and a
TTL as a backstop. The command applies them (and what they need, named for the run: the NCCL check's
Secret and Service) with kubectl, waits until each has completed or failed (or its timeout has passed),
reads each pod's log for the failed check, prints one line per check and deletes its Jobs and objects,
also when it is interrupted. Exit status: 0 every check passed, 1 a check failed or the cluster could
not be reached, 2 invalid flags or stack.
"""

import argparse
import secrets
import shutil
import signal
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from types import FrameType
from typing import Any, TextIO

from gpukit.cli_errors import EXIT_PREFLIGHT, CliProblem, report_error
from gpukit.components.addons.base import RUN_LABEL, CheckSetupError, CheckSuite
from gpukit.components.config.schema import VERIFICATION_TIMEOUT_RANGE
from gpukit.components.errors import ConfigError
from gpukit.config_errors import report_invalid_config
from gpukit.plan.stack_file import LoadedStack, StackFileError
from gpukit.verify.kubectl import Kubectl, KubectlError

POLL_SECONDS = 10
TTL_SECONDS = 3600
"""Kubernetes deletes a run's Jobs an hour after they finish, should the command not get to it."""
WAIT_MARGIN_SECONDS = 60
"""Past the Jobs' own deadline (activeDeadlineSeconds), so that Kubernetes' DeadlineExceeded is the
reason a pool that never got a node fails with."""
FAIL_PREFIX = "gpukit-verify: FAIL: "
EXIT_INTERRUPTED = 130
"""128 + SIGINT, as shells report an interrupted command."""


@dataclass(frozen=True)
class CheckResult:
    label: str
    """What was checked, as the suite names it: `pool l4`."""
    subject: str
    """The suite's noun for it, for the summary: `GPU pool`."""
    passed: bool
    reason: str


def _flag_problems(args: argparse.Namespace) -> list[CliProblem]:
    problems = []
    if args.kubeconfig is None:
        problems.append(CliProblem("--kubeconfig", "required: the kubeconfig of the cluster to verify"))
    elif not args.kubeconfig.is_file():
        problems.append(CliProblem("--kubeconfig", f"no such file: {args.kubeconfig}"))
    if args.stack is None and args.config is None:
        problems.append(
            CliProblem("--stack", "name the stack whose pools to verify (--stack NAME or --config FILE)")
        )
    low, high = VERIFICATION_TIMEOUT_RANGE
    if args.timeout_minutes is not None and not low <= args.timeout_minutes <= high:
        problems.append(
            CliProblem("--timeout-minutes", f"must be {low} to {high}; got {args.timeout_minutes}")
        )
    if shutil.which(args.kubectl) is None:
        problems.append(CliProblem("--kubectl", f"{args.kubectl!r} is not an executable (install kubectl)"))
    return problems


def verify_command(args: argparse.Namespace, load_stack: Callable[[], LoadedStack]) -> int:
    from gpukit.components.addons import registry as addons
    from gpukit.components.resolve.config import resolve_config

    problems = _flag_problems(args)
    if problems:
        return report_error("invalid flags", as_json=False, problems=problems)
    try:
        stack = load_stack()
        cluster = resolve_config(stack.config, stack.secret_keys)
    except StackFileError as err:
        return report_error(str(err), as_json=False)
    except ConfigError as err:
        return report_invalid_config(str(stack.path), err, False)
    suites = [
        suite for addon in addons.ADDONS if (suite := addon.checks(cluster, args.timeout_minutes)) is not None
    ]
    if not suites:
        # Today the checks are the GPU pools' (components/addons/verification/): none without GPU pools,
        # nor on pools whose nodes only ProvisioningRequests start (GKE's queued pools: the batch gang
        # check at `pulumi up` is theirs).
        return report_error(
            f"stack {stack.name} has nothing to verify (no GPU pool a plain pod can start a node of)",
            as_json=False,
        )
    kubectl = Kubectl(args.kubectl, args.kubeconfig)
    try:
        with _sigterm_interrupts():
            results = run_verification(kubectl, suites)
    except CheckSetupError as err:
        return report_error(str(err), as_json=False, exit_code=EXIT_PREFLIGHT)
    except KubectlError as err:
        return report_error(str(err), as_json=False, exit_code=EXIT_PREFLIGHT)
    except KeyboardInterrupt:
        sys.stderr.write("gpukit verify: interrupted; this run's verification Jobs were deleted\n")
        return EXIT_INTERRUPTED
    return print_results(results, sys.stdout)


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


@contextmanager
def _sigterm_interrupts() -> Iterator[None]:
    """SIGTERM (a CI job cancelled, `timeout`, a pod stopped) as Ctrl-C: run_verification's `finally`
    deletes the Jobs, instead of leaving them to hold a GPU node until their deadline."""
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def print_results(results: list[CheckResult], out: TextIO) -> int:
    """One line per check, then one summary per kind of check; the exit status."""
    for result in results:
        verdict = "PASS" if result.passed else "FAIL"
        out.write(f"{result.label}: {verdict}{': ' + result.reason if result.reason else ''}\n")
    for subject in dict.fromkeys(r.subject for r in results):
        of_subject = [r for r in results if r.subject == subject]
        passed = sum(1 for r in of_subject if r.passed)
        out.write(f"{passed} of {len(of_subject)} {subject}(s) passed\n")
    return 0 if all(r.passed for r in results) else EXIT_PREFLIGHT


def run_verification(
    kubectl: Kubectl,
    suites: Sequence[CheckSuite],
    *,
    run: str | None = None,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> list[CheckResult]:
    """Apply the suites' Jobs, wait for each, and return each check's result; the run's Jobs (and the
    namespaces this run made) are deleted whatever happens."""
    run = run or secrets.token_hex(3)
    checks = [
        (label, suite.subject, job) for suite in suites for label, job in suite.jobs(run, TTL_SECONDS).items()
    ]
    names = [(job["metadata"]["namespace"], job["metadata"]["name"]) for _, _, job in checks]
    if len(set(names)) != len(names):  # two suites' Jobs would overwrite each other
        raise ValueError(f"two checks render the same Job: {sorted(n for n in names if names.count(n) > 1)}")
    namespaces: list[dict[str, Any]] = []
    for suite in suites:
        namespaces += [ns for ns in suite.namespaces() if ns not in namespaces]
    made = [ns for ns in namespaces if not kubectl.exists("namespace", ns["metadata"]["name"])]
    needed = [obj for suite in suites for obj in suite.objects(run)]
    # Secrets are created, not applied: `kubectl apply` would copy their data into the
    # last-applied-configuration annotation, readable by anyone who may read the object's metadata.
    secrets_needed = [obj for obj in needed if obj["kind"] == "Secret"]
    others = [obj for obj in needed if obj["kind"] != "Secret"]
    try:
        if secrets_needed:
            if made:
                kubectl.apply(made)
            kubectl.create(secrets_needed)
            kubectl.apply(others + [job for _, _, job in checks])
        else:
            kubectl.apply(made + others + [job for _, _, job in checks])
        deadline = clock() + max(s.timeout_minutes for s in suites) * 60 + WAIT_MARGIN_SECONDS
        done = _wait(kubectl, [job for _, _, job in checks], deadline, clock, sleep)
        return [
            CheckResult(label, subject, passed, reason)
            for (label, subject, _), (passed, reason) in zip(checks, done, strict=True)
        ]
    finally:
        # Each step on its own, the run's objects (its keys) first: one kubectl that times out must not
        # leave the rest behind.
        for namespace in namespaces:
            name = namespace["metadata"]["name"]
            objects_step = partial(_clean_up_objects, kubectl, run, name, needed)
            _attempt(objects_step, f"this run's objects in {name}", run)
            jobs_step = partial(_clean_up, kubectl, run, name, namespace in made)
            _attempt(jobs_step, f"this run's Jobs in {name}", run)


def _wait(
    kubectl: Kubectl,
    jobs: list[dict[str, Any]],
    deadline: float,
    clock: Callable[[], float],
    sleep: Callable[[float], None],
) -> list[tuple[bool, str]]:
    """Each Job's (passed, reason), in the order given."""
    done: dict[int, tuple[bool, str]] = {}
    while True:
        for index, job in enumerate(jobs):
            if index in done:
                continue
            name, namespace = job["metadata"]["name"], job["metadata"]["namespace"]
            outcome = _outcome(kubectl.get_json("job", name, "-n", namespace))
            if outcome == "Complete":
                done[index] = (True, "")
            elif outcome is not None:
                done[index] = (False, _failure_reason(kubectl, job, outcome))
        if len(done) == len(jobs):
            break
        if clock() >= deadline:
            for index, job in enumerate(jobs):
                if index not in done:
                    phase = _pod_phase(kubectl, job)
                    done[index] = (False, f"timed out: the Job did not finish in time ({phase})")
            break
        sleep(POLL_SECONDS)
    return [done[index] for index in range(len(jobs))]


def _outcome(job: dict[str, Any]) -> str | None:
    """`Complete`, `Failed: <reason>: <message>`, or None while the Job runs."""
    for condition in (job.get("status") or {}).get("conditions") or []:
        if condition.get("status") != "True":
            continue
        if condition.get("type") == "Complete":
            return "Complete"
        if condition.get("type") == "Failed":
            return f"{condition.get('reason', 'Failed')}: {condition.get('message', '')}".rstrip(": ")
    return None


def _failure_reason(kubectl: Kubectl, job: dict[str, Any], outcome: str) -> str:
    """The failed checks from the pod's log, else the Job's own reason (a deadline, a pod that never ran)."""
    name, namespace = job["metadata"]["name"], job["metadata"]["namespace"]
    logs = kubectl.run("logs", f"job/{name}", "-n", namespace, "--tail=100", check=False).stdout
    failed = _failed_checks(logs) or _failed_checks(_termination_messages(kubectl, name, namespace))
    return "; ".join(failed) if failed else outcome


def _failed_checks(text: str) -> list[str]:
    lines = (line.strip() for line in text.splitlines())
    return [line.removeprefix(FAIL_PREFIX) for line in lines if line.startswith(FAIL_PREFIX)]


def _job_pods(kubectl: Kubectl, name: str, namespace: str, jsonpath: str) -> str:
    """`jsonpath` over the pods of Job `name` (empty when kubectl fails: the caller reports what it has)."""
    args = ("get", "pods", "-n", namespace, "-l", f"job-name={name}", "-o", f"jsonpath={jsonpath}")
    return kubectl.run(*args, check=False).stdout


def _termination_messages(kubectl: Kubectl, name: str, namespace: str) -> str:
    """The check containers' termination messages (their log tails, FallbackToLogsOnError): what the
    pods' status still says once their node, and with it their logs, is gone."""
    return _job_pods(
        kubectl, name, namespace, "{.items[*].status.containerStatuses[*].state.terminated.message}"
    )


def _pod_phase(kubectl: Kubectl, job: dict[str, Any]) -> str:
    """Where the Job's pod stands (Pending: no node or no free unit in the pool)."""
    name, namespace = job["metadata"]["name"], job["metadata"]["namespace"]
    pods = _job_pods(kubectl, name, namespace, "{.items[*].status.phase}").split()
    return f"pod {', '.join(pods)}" if pods else "no pod yet"


def _clean_up(kubectl: Kubectl, run: str, namespace: str, made_namespace: bool) -> None:
    kubectl.run(
        "delete",
        "job",
        "-n",
        namespace,
        "-l",
        f"{RUN_LABEL}={run}",
        "--ignore-not-found",
        "--cascade=background",
        "--wait=false",
        check=False,
    )
    if made_namespace and not _other_jobs(kubectl, run, namespace):
        kubectl.run("delete", "namespace", namespace, "--ignore-not-found", "--wait=false", check=False)


def _attempt(step: Callable[[], None], what: str, run: str) -> None:
    """A clean-up step; if kubectl fails it, say what is left and how to delete it, and go on."""
    try:
        step()
    except KubectlError as err:
        sys.stderr.write(
            f"gpukit verify: could not delete {what} (label {RUN_LABEL}={run}; delete them by that label): "
            f"{err}\n"
        )


def _clean_up_objects(kubectl: Kubectl, run: str, namespace: str, objects: list[dict[str, Any]]) -> None:
    """The run's other objects in `namespace` (a Secret of keys made for the run, a Service), by the
    run's label: deleted whether or not the namespace goes too."""
    kinds = sorted({o["kind"].lower() for o in objects if o["metadata"].get("namespace") == namespace})
    if kinds:
        kubectl.run(
            "delete",
            ",".join(kinds),
            "-n",
            namespace,
            "-l",
            f"{RUN_LABEL}={run}",
            "--ignore-not-found",
            "--wait=false",
            check=False,
        )


def _other_jobs(kubectl: Kubectl, run: str, namespace: str) -> bool:
    """Whether the namespace holds Jobs this run did not make: another `gpukit verify` that found the
    namespace this run made (and so leaves it alone), or a stack's own verification. A selector `key!=value`
    also matches objects without the label (kubernetes.io/docs/concepts/overview/working-with-objects/
    labels, set-based and equality-based requirements), so Pulumi's Jobs count too. Unsure (kubectl
    failed): keep the namespace, which costs nothing."""
    others = kubectl.run(
        "get", "jobs", "-n", namespace, "-l", f"{RUN_LABEL}!={run}", "-o", "name", check=False
    )
    return others.returncode != 0 or bool(others.stdout.strip())
