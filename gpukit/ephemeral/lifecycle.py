"""`gpukit ephemeral up/down/list/reap` through the Pulumi Automation API.

`up` never leaves a half-made stack behind on purpose: when `pulumi up` fails, or gpukit is
interrupted (Ctrl-C, or SIGTERM, which the command turns into KeyboardInterrupt), it cancels the CLI
(workspace.py), destroys what was created and removes the stack, then re-raises the original error.
What it cannot clean up (the machine running it dies, or the cloud refuses a delete) keeps its expiry,
on the stack (tag and config) and on every cloud resource (tag / label), for `reap` and for people.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from math import inf
from pathlib import Path
from typing import Any

import yaml

from gpukit.components.ephemeral import format_expiry, parse_expiry
from gpukit.components.resolve.config import resolve_config
from gpukit.ephemeral.guard import PlannedCost, Verdict, plan_copy, plan_program_copy
from gpukit.ephemeral.names import ephemeral_name, is_ephemeral, random_suffix
from gpukit.ephemeral.source import EPHEMERAL_KEY, Source, ephemeral_config, load_source, program_config
from gpukit.ephemeral.ttl import expires
from gpukit.ephemeral.workspace import (
    PASSPHRASE_ENVS,
    EphemeralHome,
    pulumi_cli_problem,
    pulumi_version_problem,
    shared_backend_without_passphrase,
    write_private,
    write_stack_config,
)
from gpukit.ephemeral.workspace import open_workspace as _open_workspace

# Stack tags (Pulumi Cloud and, from CLI v3.211.0, DIY backends keep them: pulumi/pulumi#19882): names
# at most 40 characters of letters, digits and `-_.:`, values at most 256 (pulumi/pulumi#24428 quotes
# the service's ValidateStackTags).
EXPIRES_TAG = "gpukit:expires-at"
SOURCE_TAG = "gpukit:ephemeral-from"
CREATED_TAG = "gpukit:created-at"

Log = Callable[[str], None]

EXIT_REFUSED = 2
EXIT_FAILED = 1


class EphemeralError(Exception):
    """A refusal or failure to report as `gpukit: <message>` with `exit_code`."""

    def __init__(self, message: str, exit_code: int = EXIT_FAILED, problems: list[str] | None = None):
        super().__init__(message)
        self.exit_code = exit_code
        self.problems = problems or []


@dataclass(frozen=True)
class UpRequest:
    source: str
    ttl: timedelta
    max_hourly_cost: float
    """The guard's limit (where the substrate has prices: not on machines you own, k3s over SSH)."""
    allow_unpriced: bool = False
    name: str | None = None


@dataclass(frozen=True)
class UpResult:
    name: str
    kubeconfig: Path
    expires_at: datetime
    cost: PlannedCost
    outputs: dict[str, Any] = field(default_factory=dict)
    """Stack outputs, secrets left out."""


def check_backend(home: EphemeralHome) -> None:
    """Refuse a shared backend whose secrets other machines could not read (no shared passphrase)."""
    if shared_backend_without_passphrase(home):
        envs = " or ".join(PASSPHRASE_ENVS)
        raise EphemeralError(
            f"--backend {home.backend_shown}: a shared backend needs the same passphrase on every machine "
            f"that uses it (or `reap` elsewhere cannot decrypt the stacks); set {envs} in the "
            "environment (a CI secret), or use a Pulumi Cloud backend (https://api.pulumi.com)",
            EXIT_REFUSED,
        )


def check_pulumi_cli() -> None:
    """Refuse, before anything is written, where there is no Pulumi CLI to run."""
    problem = pulumi_cli_problem()
    if problem is not None:
        raise EphemeralError(problem, EXIT_REFUSED)


def open_workspace(home: EphemeralHome) -> Any:
    """The workspace, once the backend's secrets are known to be readable by every machine using it
    and the Pulumi CLI is one that keeps stack tags there."""
    check_backend(home)
    check_pulumi_cli()  # opening the workspace writes the state dir and the passphrase
    workspace = _open_workspace(home)
    problem = pulumi_version_problem(str(workspace.pulumi_version), home)
    if problem is not None:
        raise EphemeralError(problem, EXIT_REFUSED)
    return workspace


STDERR_MARK = "\n stderr: "
"""Where the CLI's stderr starts in a CommandError's text: CommandError keeps no `stderr` attribute,
only str(CommandResult), "\n code: ...\n stdout: ...\n stderr: ..." (pulumi/automation/_cmd.py,
CommandResult.__str__; errors.py, CommandError.__init__)."""


def command_error_text(err: BaseException) -> str:
    """What the CLI said on stderr (it masks secrets), or the error itself; never the environment,
    and not the whole progress output on stdout."""
    text = str(err)
    if STDERR_MARK in text:
        stderr = text.rsplit(STDERR_MARK, 1)[1].strip()
        if stderr:
            return stderr
    return text.strip() or type(err).__name__


def _planned_copy(
    home: EphemeralHome, request: UpRequest, source: Source, name: str, expires_at: datetime
) -> tuple[dict[str, Any], Verdict]:
    """The copy's config and the guard's verdict on it, from the offline plan of the program the
    stack runs: gpukit's own, or the user's (`--program`), whose GpuCluster args are its own."""
    if home.program is not None:
        config = program_config(source, expires_at=expires_at)
        verdict = plan_program_copy(
            home.program,
            name,
            source.stack.path,
            config,
            max_hourly_cost=request.max_hourly_cost,
            allow_unpriced=request.allow_unpriced,
        )
        return config, verdict
    # The source's substrate, which says what the copy may set (a source that is invalid stops here).
    accepts = resolve_config(source.stack.config, source.stack.secret_keys).substrate.accepts
    config = ephemeral_config(
        source,
        name,
        expires_at=expires_at,
        max_hourly_cost=request.max_hourly_cost,
        allow_unpriced=request.allow_unpriced,
        accepts=accepts,
    )
    return config, plan_copy(name, source.stack.path, config)


def up(
    home: EphemeralHome,
    request: UpRequest,
    now: datetime,
    log: Log,
    created: Callable[[str], None] | None = None,
) -> UpResult:
    """`created(name)` is called once the stack exists in the backend, before anything is deployed:
    from then on `gpukit ephemeral down NAME` (or `reap`) can remove it, should this process be killed."""
    check_backend(home)
    check_pulumi_cli()  # before the offline plan, which takes seconds, and before anything is written
    source = load_source(request.source, home.program)
    name = request.name or ephemeral_name(source.name, now, random_suffix())
    if not is_ephemeral(name):
        raise EphemeralError(
            f"--name {name!r}: an ephemeral stack's name starts with 'eph-' and is a cluster name "
            "(lowercase letters, digits and '-', at most 32 characters)",
            EXIT_REFUSED,
        )
    expires_at = expires(now, request.ttl)
    config, verdict = _planned_copy(home, request, source, name, expires_at)
    if verdict.refusals:
        raise EphemeralError(
            f"refused by the max $/h guard before any Pulumi call: {name} (from {source.name})",
            EXIT_REFUSED,
            [f.message for f in verdict.refusals],
        )
    if verdict.errors:
        raise EphemeralError(
            f"the plan of {name} (from {source.name}) has preflight errors; `pulumi up` would stop on them",
            EXIT_FAILED,
            [f"{f.key}: {f.message}" for f in verdict.errors],
        )

    from pulumi.automation import Stack

    workspace = open_workspace(home)
    stack = None
    try:
        stack = Stack.create(name, workspace)
        write_stack_config(home.stack_file(name), config)
        for key, value in (
            (EXPIRES_TAG, format_expiry(expires_at)),
            (SOURCE_TAG, source.name),
            (CREATED_TAG, format_expiry(now)),
        ):
            workspace.set_tag(name, key, value)
        if created is not None:
            created(name)
        log(f"gpukit: deploying {name} (from {source.name}, expires {format_expiry(expires_at)})")
        result = stack.up(on_output=log, on_error=log)
        kubeconfig = result.outputs.get("kubeconfig")
        if kubeconfig is None or not isinstance(kubeconfig.value, str):
            raise EphemeralError(f"{name}: `pulumi up` succeeded but the stack has no kubeconfig output")
        path = home.kubeconfig(name)
        write_private(path, kubeconfig.value)
    except BaseException as err:
        if stack is not None:
            interrupted = isinstance(err, KeyboardInterrupt)
            why = "interrupted" if interrupted else "failed"
            log(f"gpukit: `ephemeral up` of {name} {why}; destroying what was created")
            _tear_down(workspace, home, name, log)
        raise
    shown = {k: v.value for k, v in result.outputs.items() if not v.secret}
    return UpResult(name, path, expires_at, verdict.cost, shown)


class StackLockedError(EphemeralError):
    """A destroy found the stack locked: by a Pulumi run still going, or by one killed before it could
    release its lock (a killed `pulumi up` also leaves its in-flight creates pending in the state)."""


def lock_recovery(home: EphemeralHome, name: str) -> str:
    """What to run when `name` stays locked and no Pulumi run on it is still going. `pulumi cancel`
    removes the lock (the DIY backend's own lock error says "delete the lock file with `pulumi
    cancel`", pkg/backend/diy/lock.go); `refresh --clear-pending-creates` drops the creates the killed
    run left pending, so the destroy sees what the cloud holds; then gpukit's own destroy."""
    # The backend as messages show it (credentials hidden): this text is printed and may be logged.
    shown = {**home.env(), "PULUMI_BACKEND_URL": home.backend_shown}
    env = " ".join(f"{k}={v}" for k, v in shown.items() if k != "PULUMI_SKIP_UPDATE_CHECK")
    where = f"cd {home.project_dir} && {env}"
    return (
        f"{name}: the stack is locked, by a Pulumi run on it that is still going or by one that was "
        "killed before it finished. Wait for a running one; if none is running:\n"
        f"  {where} pulumi cancel --stack {name} --yes\n"
        f"  {where} pulumi refresh --clear-pending-creates --stack {name} --yes\n"
        f"  gpukit ephemeral down {name}"
        + (f" --backend {home.backend_shown}" if home.backend_url else "")
        + (f" --program {home.program.root}" if home.program is not None else "")
    )


def _tear_down(workspace: Any, home: EphemeralHome, name: str, log: Log) -> None:
    """Destroy and remove the stack; a failure here is reported, and the stack kept for `reap`."""
    try:
        destroy(workspace, home, name, log)
    except KeyboardInterrupt:
        log(f"gpukit: clean-up of {name} interrupted; run `gpukit ephemeral down {name}`")
        raise
    except StackLockedError as err:
        log(
            f"gpukit: clean-up of {name} failed, the stack is kept (it expires and `gpukit ephemeral reap` "
            f"retries): {err}"
        )
    except Exception as err:
        log(
            f"gpukit: clean-up of {name} failed, the stack is kept (it expires and `gpukit ephemeral "
            f"reap` retries): {command_error_text(err)}"
        )


def destroy(workspace: Any, home: EphemeralHome, name: str, log: Log) -> None:
    """`pulumi destroy`, then `pulumi stack rm`, then the stack's local files. StackLockedError, with
    the way out, where the stack is locked."""
    from pulumi.automation import ConcurrentUpdateError, Stack

    stack = Stack.select(name, workspace)
    try:
        stack.destroy(on_output=log, on_error=log)
    except ConcurrentUpdateError as err:
        # The Automation API raises it for the CLI's "[409] Conflict: Another update is currently in
        # progress." (Pulumi Cloud) and "the stack is currently locked by" (DIY backends).
        raise StackLockedError(lock_recovery(home, name), EXIT_FAILED) from err
    workspace.remove_stack(name)
    home.stack_file(name).unlink(missing_ok=True)
    home.kubeconfig(name).unlink(missing_ok=True)
    log(f"gpukit: destroyed and removed {name}")


def made_by_gpukit(tags: dict[str, str]) -> bool:
    """Whether a stack carries the tags `up` sets: an `eph-` name alone is not proof (someone's own
    stack in a shared backend may be called that), and destroying is not undoable."""
    return EXPIRES_TAG in tags or SOURCE_TAG in tags


def down(home: EphemeralHome, name: str, log: Log, if_exists: bool = False, force: bool = False) -> None:
    """`if_exists`: a stack that is not there (already destroyed) is not an error, for a CI clean-up
    step that runs whether or not the job's own teardown finished. `force`: destroy an `eph-` stack
    without gpukit's tags too."""
    if not is_ephemeral(name):
        raise EphemeralError(
            f"{name!r} is not an ephemeral stack (their names start with 'eph-'); "
            "gpukit ephemeral down destroys those only",
            EXIT_REFUSED,
        )
    workspace = open_workspace(home)
    if name not in {s.name for s in workspace.list_stacks()}:
        if if_exists:
            log(f"gpukit: no ephemeral stack {name!r} in {home.backend_shown}; nothing to destroy")
            return
        # A backend keeps stacks per project: a copy of one's own program is found with its --program.
        elsewhere = (
            "" if home.program is not None else "; one of your own program is found with --program DIR"
        )
        raise EphemeralError(f"no ephemeral stack {name!r} in {home.backend_shown}{elsewhere}", EXIT_REFUSED)
    if not force and not made_by_gpukit(workspace.list_tags(name)):
        raise EphemeralError(
            f"{name}: the stack has neither the {EXPIRES_TAG} nor the {SOURCE_TAG} tag that "
            "`gpukit ephemeral up` sets, so it may not be gpukit's; not destroyed. If it is one to "
            f"destroy: gpukit ephemeral down {name} --force",
            EXIT_REFUSED,
        )
    destroy(workspace, home, name, log)


@dataclass(frozen=True)
class EphemeralStack:
    name: str
    source: str
    created_at: datetime | None
    expires_at: datetime | None
    """None: no expiry on record (`reap` leaves it alone and says so)."""
    cost: PlannedCost | None
    """None: no local config to plan (the stack was made on another machine)."""
    tagged: bool = True
    """It has the stack tags `up` sets (made_by_gpukit); `reap` destroys no other."""

    def expired(self, now: datetime) -> bool:
        return self.expires_at is not None and self.expires_at <= now


def _local_config(home: EphemeralHome, name: str) -> dict[str, Any] | None:
    """The stack's config as this machine wrote it, or None where there is none or it cannot be read
    (a file someone edited, a half-written one): one bad file must not stop `list` or `reap`, which
    then go by the stack's tags."""
    path = home.stack_file(name)
    try:
        doc = yaml.safe_load(path.read_text()) if path.is_file() else None
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
    config = doc.get("config") if isinstance(doc, dict) else None
    return config if isinstance(config, dict) else None


def _stack_cost(home: EphemeralHome, name: str, config: dict[str, Any] | None) -> PlannedCost | None:
    if config is None:
        return None
    try:
        if home.program is not None:
            # No limit to judge here: only the cost is shown.
            verdict = plan_program_copy(
                home.program, name, home.stack_file(name), config, max_hourly_cost=inf, allow_unpriced=True
            )
            return verdict.cost
        return plan_copy(name, home.stack_file(name), config).cost
    except Exception:  # a config this gpukit (or the program) no longer plans: the list still shows it
        return None


def ephemeral_stacks(home: EphemeralHome, with_cost: bool = True) -> list[EphemeralStack]:
    """Every ephemeral stack in the backend, with its expiry from the stack tag (or, where the backend
    keeps no tags, the stack's config) and, `with_cost`, its $/h from the offline plan of its config
    (seconds per stack: `list` shows it, `reap` does not need it)."""
    workspace = open_workspace(home)
    found = []
    for summary in sorted(workspace.list_stacks(), key=lambda s: s.name):
        if not is_ephemeral(summary.name):
            continue
        tags = workspace.list_tags(summary.name)
        config = _local_config(home, summary.name)
        from_config = (config or {}).get(EPHEMERAL_KEY)
        from_config = from_config if isinstance(from_config, dict) else {}
        expires_at = parse_expiry(tags.get(EXPIRES_TAG)) or parse_expiry(from_config.get("expiresAt"))
        found.append(
            EphemeralStack(
                summary.name,
                tags.get(SOURCE_TAG, "?"),
                parse_expiry(tags.get(CREATED_TAG)),
                expires_at,
                _stack_cost(home, summary.name, config) if with_cost else None,
                made_by_gpukit(tags),
            )
        )
    return found


@dataclass
class ReapResult:
    destroyed: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    """Not expired, or no expiry on record."""


def reap(home: EphemeralHome, now: datetime, dry_run: bool, log: Log) -> ReapResult:
    """Destroy every expired ephemeral stack (all of them, a failure does not stop the others)."""
    result = ReapResult()
    stacks = ephemeral_stacks(home, with_cost=False)
    workspace = open_workspace(home)
    for stack in stacks:
        if not stack.tagged:
            log(
                f"gpukit: {stack.name} has no {EXPIRES_TAG} or {SOURCE_TAG} stack tag, so it may not "
                f"be gpukit's; left alone (`gpukit ephemeral down {stack.name} --force` destroys it)"
            )
            result.kept.append(stack.name)
            continue
        if not stack.expired(now):
            if stack.expires_at is None:
                log(f"gpukit: {stack.name} has no expiry on record; left alone (`gpukit ephemeral down` it)")
            result.kept.append(stack.name)
            continue
        assert stack.expires_at is not None
        if dry_run:
            log(f"gpukit: would destroy {stack.name} (expired {format_expiry(stack.expires_at)})")
            result.destroyed.append(stack.name)
            continue
        log(f"gpukit: destroying {stack.name} (expired {format_expiry(stack.expires_at)})")
        try:
            destroy(workspace, home, stack.name, log)
            result.destroyed.append(stack.name)
        except Exception as err:
            log(f"gpukit: destroying {stack.name} failed: {command_error_text(err)}")
            result.failed.append(stack.name)
    return result
