"""The `gpukit_cluster` pytest fixture: a real cluster for a test session, always destroyed.

Installed with gpukit (the `pytest11` entry point `gpukit`), it only adds options until a test asks
for the fixture: nothing is imported, planned or deployed otherwise. Options (or ini keys):

    --gpukit-stack STACK        (gpukit_stack)      example stack name or stack file; unset: tests skip
    --gpukit-ttl 2h             (gpukit_ttl)        the expiry, should the teardown itself be lost
    --gpukit-state-dir DIR      (gpukit_state_dir)  as `gpukit ephemeral --state-dir`
    --gpukit-backend URL        (gpukit_backend)    as `gpukit ephemeral --backend`
    --gpukit-program DIR        (gpukit_program)    as `gpukit ephemeral --program`: your own program
    --gpukit-max-hourly-cost N  (gpukit_max_hourly_cost)
    --gpukit-allow-unpriced     (gpukit_allow_unpriced) as `gpukit ephemeral up --allow-unpriced`
    --gpukit-name eph-...       (gpukit_name)       the stack's name, known before the session starts
    --gpukit-name-file FILE     (gpukit_name_file)  append `GPUKIT_EPHEMERAL_STACK=<name>` to FILE
                                                    once the stack exists (works with $GITHUB_ENV)

The cluster is destroyed in the session's teardown: after the last test, when tests fail, and on
Ctrl-C (pytest still runs session finalizers after a KeyboardInterrupt, from its sessionfinish hook).
While the cluster exists, SIGTERM (what CI runners and `timeout` send) is turned into
KeyboardInterrupt so it unwinds the same way. A SIGKILL or a lost machine skips all of that: the
stack's expiry and `gpukit ephemeral reap` are for that (docs/ephemeral.md).

Without the Pulumi CLI on PATH the fixture skips, saying so, and writes nothing: a real-cloud test is
opt-in, and one that cannot deploy must not pass or pretend.
"""

import os
import signal
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

OPTIONS = (
    ("stack", None, "stack to copy: an example stack name or a stack file (unset: gpukit_cluster skips)"),
    ("ttl", "2h", "how long the cluster lives if the teardown is lost (default 2h)"),
    ("state-dir", None, "gpukit ephemeral --state-dir"),
    ("backend", None, "gpukit ephemeral --backend"),
    (
        "program",
        None,
        "gpukit ephemeral --program: the folder of your own Pulumi program to deploy (default gpukit's)",
    ),
    ("max-hourly-cost", None, "gpukit ephemeral --max-hourly-cost (USD)"),
    ("name", None, "the stack's name (eph-...), so a later CI step can `gpukit ephemeral down` it"),
    (
        "name-file",
        None,
        "append GPUKIT_EPHEMERAL_STACK=<name> to this file once the stack exists ($GITHUB_ENV works)",
    ),
)
NAME_VARIABLE = "GPUKIT_EPHEMERAL_STACK"


ALLOW_UNPRICED_HELP = "gpukit ephemeral --allow-unpriced: accept pools gpukit has no list price for"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("gpukit", "gpukit_cluster fixture (docs/ephemeral.md)")
    for name, default, text in OPTIONS:
        group.addoption(f"--gpukit-{name}", dest=f"gpukit_{name.replace('-', '_')}", default=None, help=text)
        parser.addini(f"gpukit_{name.replace('-', '_')}", text, default=default)
    group.addoption(
        "--gpukit-allow-unpriced", dest="gpukit_allow_unpriced", action="store_true", help=ALLOW_UNPRICED_HELP
    )
    parser.addini("gpukit_allow_unpriced", ALLOW_UNPRICED_HELP, type="bool", default=False)


def pytest_configure(config: pytest.Config) -> None:
    """A bad --gpukit-ttl or --gpukit-max-hourly-cost stops the session at once with a usage error
    naming it (pytest prints `ERROR: ...`, exit 4), before any test runs and without a traceback."""
    from gpukit.ephemeral.ttl import TtlError, parse_ttl  # re and datetime only: cheap to import

    ttl = _option(config, "ttl")
    if ttl is not None:
        try:
            parse_ttl(ttl)
        except TtlError as err:
            raise pytest.UsageError(f"--gpukit-ttl / gpukit_ttl: {err}") from None
    limit = _option(config, "max-hourly-cost")
    if limit is not None:
        try:
            value = float(limit)
        except ValueError:
            value = float("nan")
        if not 0 < value < float("inf"):
            raise pytest.UsageError(
                f"--gpukit-max-hourly-cost / gpukit_max_hourly_cost must be a positive number of USD per "
                f"hour; got {limit!r}"
            )
    program = _option(config, "program")
    if program is not None:
        from gpukit.plan.stack_file import StackFileError, load_program  # yaml only

        try:
            load_program(Path(program), "--gpukit-program / gpukit_program")
        except StackFileError as err:
            raise pytest.UsageError(str(err)) from None


def _option(config: pytest.Config, name: str) -> str | None:
    attr = f"gpukit_{name.replace('-', '_')}"
    value = config.getoption(attr) or config.getini(attr)
    return str(value) if value else None


@dataclass(frozen=True)
class GpukitCluster:
    name: str
    """The ephemeral stack's name, also the cluster's."""
    kubeconfig: Path
    """A 0600 file: pass it as KUBECONFIG or --kubeconfig."""
    outputs: dict[str, Any] = field(default_factory=dict)
    """The stack's outputs, secrets left out (clusterName, pools, nextSteps)."""


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def _log(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _xdist_worker(config: pytest.Config) -> str | None:
    """The pytest-xdist worker this session is (`gw0`, ...), or None. Under xdist every worker is its
    own session, so a session fixture would deploy one cluster per worker (session-scoped fixtures run
    once per worker: pytest-dev/pytest-xdist#271, and the xdist how-to "Making session-scoped fixtures
    execute only once"). xdist sets `config.workerinput` and the PYTEST_XDIST_WORKER environment
    variable on its workers (xdist how-to, "Identifying the worker process during a test")."""
    workerinput = getattr(config, "workerinput", None)
    if isinstance(workerinput, dict) and workerinput.get("workerid"):
        return str(workerinput["workerid"])
    return os.environ.get("PYTEST_XDIST_WORKER") or None


@pytest.fixture(scope="session")
def gpukit_cluster(request: pytest.FixtureRequest) -> Iterator[GpukitCluster]:
    """A cluster made with `gpukit ephemeral up` from --gpukit-stack, destroyed after the session."""
    config = request.config
    stack = _option(config, "stack")
    if stack is None:
        pytest.skip("gpukit_cluster needs a stack: pass --gpukit-stack STACK or set gpukit_stack in the ini")
    worker = _xdist_worker(config)
    if worker is not None:
        pytest.fail(
            f"gpukit_cluster: refused under pytest-xdist (this is worker {worker}): each worker would "
            "deploy and pay for its own cluster. Run the tests that use gpukit_cluster without -n "
            "(for example `pytest -n 0 -m gpu`), or deploy once with `gpukit ephemeral up` and pass "
            "its kubeconfig to the workers",
            pytrace=False,
        )
    from datetime import UTC, datetime

    from gpukit.ephemeral import lifecycle
    from gpukit.ephemeral.guard import max_hourly_limit
    from gpukit.ephemeral.ttl import parse_ttl
    from gpukit.ephemeral.workspace import EphemeralHome, default_state_dir, pulumi_cli_problem
    from gpukit.plan.stack_file import load_program

    missing = pulumi_cli_problem()
    if missing is not None:  # before anything is written: no state dir, no passphrase
        pytest.skip(f"gpukit_cluster: {missing}")
    state_dir = _option(config, "state-dir")
    program = _option(config, "program")
    home = EphemeralHome(
        Path(state_dir).expanduser().resolve() if state_dir else default_state_dir(),
        _option(config, "backend"),
        # Already checked by pytest_configure, which stops the session on a folder that is not one.
        load_program(Path(program), "--gpukit-program / gpukit_program") if program else None,
    )
    ttl = parse_ttl(_option(config, "ttl") or "2h")  # both checked by pytest_configure
    limit = _option(config, "max-hourly-cost")
    max_hourly_cost = max_hourly_limit(float(limit) if limit else None)
    up = lifecycle.UpRequest(
        source=stack,
        ttl=ttl,
        max_hourly_cost=max_hourly_cost,
        allow_unpriced=bool(
            config.getoption("gpukit_allow_unpriced") or config.getini("gpukit_allow_unpriced")
        ),
        name=_option(config, "name"),
    )
    name_file = _option(config, "name-file")

    def created(name: str) -> None:
        if name_file is not None:
            with Path(name_file).expanduser().open("a") as f:
                f.write(f"{NAME_VARIABLE}={name}\n")

    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        try:
            # A failed or interrupted `up` destroys what it made before raising.
            result = lifecycle.up(home, up, datetime.now(UTC), _log, created)
        except lifecycle.EphemeralError as err:
            pytest.fail(f"gpukit_cluster: {err}" + "".join(f"\n  {p}" for p in err.problems), pytrace=False)
        try:
            yield GpukitCluster(result.name, result.kubeconfig, result.outputs)
        finally:
            try:
                lifecycle.down(home, result.name, _log)
            except lifecycle.EphemeralError as err:  # a locked stack: the way out, not a traceback
                pytest.fail(f"gpukit_cluster: teardown failed: {err}", pytrace=False)
    finally:
        signal.signal(signal.SIGTERM, previous)
