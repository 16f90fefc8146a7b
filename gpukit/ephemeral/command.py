"""`gpukit ephemeral ...`: the argument parsing and the command's output; the work is lifecycle.py's."""

import argparse
import json
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from types import FrameType

from gpukit.cli_errors import CliProblem, report_error
from gpukit.ephemeral.guard import DEFAULT_MAX_HOURLY, MAX_HOURLY_ENV, GuardError, max_hourly_limit
from gpukit.ephemeral.ttl import TtlError, parse_ttl
from gpukit.ephemeral.workspace import STATE_DIR_ENV, EphemeralHome, default_state_dir, shown_url

EXIT_OK = 0
EXIT_INTERRUPTED = 130  # 128 + SIGINT, what a shell reports for a command stopped by Ctrl-C


def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    eph = sub.add_parser(
        "ephemeral",
        help="throwaway clusters that expire: up, down, list, reap (docs/ephemeral.md)",
        description="Copies of a stack that expire, deployed with the Pulumi CLI through its Automation API. "
        "See docs/ephemeral.md.",
    )
    commands = eph.add_subparsers(dest="ephemeral_command", metavar="COMMAND", required=True)

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--state-dir",
            type=Path,
            default=None,
            help=f"where the ephemeral stacks' project, passphrase, kubeconfigs and (by default) state "
            f"live (default ${STATE_DIR_ENV} or ~/.gpukit/ephemeral)",
        )
        p.add_argument(
            "--backend",
            metavar="URL",
            help="a Pulumi backend (s3://..., gs://..., https://api.pulumi.com) "
            "instead of the local file backend in the state dir",
        )
        p.add_argument(
            "--program",
            type=Path,
            metavar="DIR",
            help="run your own Pulumi program in DIR (its Pulumi.yaml and __main__.py) that uses gpukit "
            "components, as `gpukit plan --program`, instead of gpukit's; DIR is the work dir Pulumi "
            "runs in, and its stacks are listed and destroyed with the same --program",
        )

    up = commands.add_parser(
        "up",
        help="deploy a uniquely named copy of a stack that expires",
        description="Copy a stack, check its cost at max nodes against the limit, deploy it and write its "
        "kubeconfig. A failed or interrupted deploy destroys what it created. Exit status: 0 deployed, "
        "1 the deploy failed, 2 refused (invalid stack, over the cost limit), 130 interrupted.",
    )
    up.add_argument(
        "--from",
        dest="source",
        required=True,
        metavar="STACK",
        help="an example stack name (stacks/Pulumi.<STACK>.yaml; with --program, one of the program's "
        "stacks) or a path to a stack file",
    )
    up.add_argument("--ttl", required=True, help="how long it lives: 90m, 4h, 2d (30m to 7d)")
    up.add_argument(
        "--name", help="the stack (and cluster) name, eph-...; default eph-<from>-<time>-<random>"
    )
    up.add_argument(
        "--max-hourly-cost",
        type=float,
        metavar="USD",
        help=f"refuse a stack whose cost at max nodes is above this (default ${MAX_HOURLY_ENV} or "
        f"{DEFAULT_MAX_HOURLY:g})",
    )
    up.add_argument(
        "--allow-unpriced",
        action="store_true",
        help="accept a pool gpukit has no list price for (the cost checked is then a lower bound)",
    )
    common(up)

    down = commands.add_parser(
        "down",
        help="destroy an ephemeral stack and remove it",
        description="Exit status: 0 destroyed (or, with --if-exists, no such stack), 1 the destroy failed, "
        "2 no such stack, or one without gpukit's stack tags (--force destroys it).",
    )
    down.add_argument("name")
    down.add_argument(
        "--if-exists",
        action="store_true",
        help="exit 0 when there is no such stack (a CI clean-up step after a teardown that may have run)",
    )
    down.add_argument(
        "--force",
        action="store_true",
        help="destroy an eph-... stack that lacks the stack tags `gpukit ephemeral up` sets",
    )
    common(down)

    listing = commands.add_parser("list", help="the ephemeral stacks with age, expiry and $/h")
    listing.add_argument("--json", action="store_true", help="print the list as JSON")
    common(listing)

    reaping = commands.add_parser(
        "reap",
        help="destroy every expired ephemeral stack (for cron or a CI schedule)",
        description="Exit status: 0 every expired stack destroyed (or none expired), 1 a destroy failed.",
    )
    reaping.add_argument("--dry-run", action="store_true", help="only say what would be destroyed")
    common(reaping)


def _log(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


@contextmanager
def sigterm_interrupts() -> Iterator[None]:
    """SIGTERM (what a CI runner or `timeout` sends) unwinds like Ctrl-C, so that the clean-up runs."""
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def ephemeral_command(args: argparse.Namespace) -> int:
    from gpukit.components.errors import ConfigError, MissingExtraError
    from gpukit.components.name_rules import ResourceNameError
    from gpukit.config_errors import report_invalid_config
    from gpukit.ephemeral.lifecycle import EphemeralError
    from gpukit.plan.program import ProgramError
    from gpukit.plan.stack_file import StackFileError

    as_json = getattr(args, "json", False)
    try:
        home = _home(args)
        with sigterm_interrupts():
            return _dispatch(args, home)
    except (TtlError, GuardError, StackFileError, ResourceNameError, MissingExtraError, ProgramError) as err:
        return report_error(str(err), as_json=as_json)
    except ConfigError as err:
        return report_invalid_config(f"the ephemeral copy of {args.source}", err, as_json)
    except EphemeralError as err:
        return report_error(
            str(err),
            as_json=as_json,
            problems=[CliProblem("", p) for p in err.problems],
            exit_code=err.exit_code,
        )
    except KeyboardInterrupt:
        _log("gpukit: interrupted")
        return EXIT_INTERRUPTED
    except Exception as err:  # the Pulumi CLI failed: what it said, never a traceback
        from pulumi.automation.errors import CommandError

        if not isinstance(err, CommandError):
            raise
        from gpukit.ephemeral.lifecycle import EXIT_FAILED, command_error_text

        text = command_error_text(err)
        backend = getattr(args, "backend", None)
        if backend:  # the CLI may name the backend it could not reach, credentials and all
            text = text.replace(backend, shown_url(backend))
        return report_error(f"pulumi failed: {text}", as_json=as_json, exit_code=EXIT_FAILED)


def _home(args: argparse.Namespace) -> EphemeralHome:
    """Where the command's stacks live, once `--program` is a program and the Pulumi CLI is there:
    both are checked before anything is written (the state dir, its passphrase), and reported together."""
    from gpukit.ephemeral.lifecycle import EXIT_REFUSED, EphemeralError
    from gpukit.ephemeral.workspace import pulumi_cli_problem
    from gpukit.plan.stack_file import Project, StackFileError, load_program

    problems: list[str] = []
    program: Project | None = None
    if args.program is not None:
        try:
            program = load_program(args.program)
        except StackFileError as err:
            problems.append(str(err))
    if (missing := pulumi_cli_problem()) is not None:
        problems.append(missing)
    if len(problems) == 1:
        raise EphemeralError(problems[0], EXIT_REFUSED)
    if problems:
        raise EphemeralError(f"{len(problems)} problems, nothing written", EXIT_REFUSED, problems)
    root = (args.state_dir or default_state_dir()).expanduser().resolve()
    return EphemeralHome(root, args.backend, program)


def _dispatch(args: argparse.Namespace, home: EphemeralHome) -> int:
    from gpukit.ephemeral import lifecycle

    now = datetime.now(UTC)
    if args.ephemeral_command == "up":
        request = lifecycle.UpRequest(
            source=args.source,
            ttl=parse_ttl(args.ttl),
            max_hourly_cost=max_hourly_limit(args.max_hourly_cost),
            allow_unpriced=args.allow_unpriced,
            name=args.name,
        )
        result = lifecycle.up(home, request, now, _log)
        _log(
            f"gpukit: {result.name} is up until {result.expires_at:%Y-%m-%dT%H:%M:%SZ}; "
            f"${result.cost.idle:,.2f}/h idle, ${result.cost.at_max:,.2f}/h at max nodes; "
            f"destroy it with: gpukit ephemeral down {result.name}"
        )
        print(
            result.kubeconfig
        )  # stdout: the one thing a script needs (KUBECONFIG=$(gpukit ephemeral up ...))
        return EXIT_OK
    if args.ephemeral_command == "down":
        lifecycle.down(home, args.name, _log, if_exists=args.if_exists, force=args.force)
        return EXIT_OK
    if args.ephemeral_command == "list":
        from gpukit.ephemeral.render import list_document, render_list

        stacks = lifecycle.ephemeral_stacks(home)
        if args.json:
            print(json.dumps(list_document(stacks, now), indent=2))
        else:
            sys.stdout.write(render_list(stacks, now))
        return EXIT_OK
    result_reap = lifecycle.reap(home, now, args.dry_run, _log)
    verb = "would destroy" if args.dry_run else "destroyed"
    _log(
        f"gpukit: reap {verb} {len(result_reap.destroyed)}, failed {len(result_reap.failed)}, "
        f"left {len(result_reap.kept)} unexpired"
    )
    return lifecycle.EXIT_FAILED if result_reap.failed else EXIT_OK
