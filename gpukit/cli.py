"""The `gpukit` command line."""

import argparse
import json
import os
import sys
import time
from pathlib import Path

from gpukit.cli_errors import EXIT_INVALID, EXIT_PREFLIGHT, CliProblem, report_error
from gpukit.components.config.schema import NAMESPACE
from gpukit.components.errors import ConfigError, MissingExtraError
from gpukit.components.spec import DriverMode
from gpukit.config_errors import report_invalid_config
from gpukit.plan.stack_file import (
    LoadedStack,
    Project,
    StackFileError,
    find_project_root,
    gpukit_project_defaults,
    load_program,
    load_project,
    load_stack_file,
    stack_file_path,
)

DEFAULT_STACK = "eks-dev"
EXIT_OK = 0
__all__ = ["EXIT_INVALID", "EXIT_OK", "EXIT_PREFLIGHT", "main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gpukit", description="GPU-ready Kubernetes clusters, planned offline."
    )
    parser.add_argument("--version", action="version", version=f"gpukit {version()}")
    # Not required: bare `gpukit` prints this help and exits 0 (main), as `pulumi` and `kubectl` do.
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    plan = sub.add_parser(
        "plan",
        help="show what `pulumi up` would build, what it costs and what is wrong (no cloud account needed)",
        description="Run the stack's Pulumi program under an in-process mock engine and report. "
        "Exit status: 0 ready, 1 preflight errors, 2 invalid configuration.",
    )
    which = plan.add_mutually_exclusive_group()
    which.add_argument(
        "--stack", help=f"stack name: <stackConfigDir>/Pulumi.<NAME>.yaml (default {DEFAULT_STACK})"
    )
    which.add_argument("--config", type=Path, help="path to a stack file anywhere")
    plan.add_argument("--out", type=Path, help="also write plan.json, manifests/ and boot/ to this folder")
    plan.add_argument(
        "--json", action="store_true", help="print plan.json to stdout instead of the text report"
    )
    plan.add_argument(
        "--project", type=Path, default=None, help="gpukit's project folder (default: found from cwd)"
    )
    plan.add_argument(
        "--program",
        type=Path,
        metavar="DIR",
        help="plan your own Pulumi program in DIR (its Pulumi.yaml and __main__.py) that uses gpukit "
        "components, with --stack NAME or --config FILE",
    )

    sizing = sub.add_parser(
        "size",
        help="which GPU sharing setting (time-slicing, MPS, MIG, whole GPUs) runs a workload mix cheapest",
        description="Size a mix of workloads on each GPU model of a stack's GPU pools (or, without a "
        "stack, every GPU model in the AWS catalog on its cheapest machine): the fewest GPUs, nodes and "
        "$/h per sharing mode, beside whole GPUs and the lower bound, and the setting to put in the stack. "
        "Exit status: 0 sized, 2 invalid workloads file or stack.",
    )
    sizing.add_argument(
        "workloads",
        type=Path,
        metavar="WORKLOADS.yaml",
        help="workloads: [{name, gpuMemoryGb, computeShare (0-1, default 1), replicas (default 1), "
        "isolation: none|memory|hardware (default none)}]",
    )
    size_which = sizing.add_mutually_exclusive_group()
    size_which.add_argument("--stack", help="size on the GPU pools of <stackConfigDir>/Pulumi.<NAME>.yaml")
    size_which.add_argument("--config", type=Path, help="size on the GPU pools of a stack file anywhere")
    sizing.add_argument("--json", action="store_true", help="print the result as JSON")
    sizing.add_argument(
        "--project", type=Path, default=None, help="gpukit's project folder (default: found from cwd)"
    )

    listing = sub.add_parser(
        "catalog",
        help="the GPU machine types of a cloud with their GPUs, memory and $/h in a region",
        description="List the instance / machine types gpukit's pools can use on a cloud, with GPU model, "
        "count and memory, vCPUs, host memory and the on-demand list price in the region (or 'no price "
        "for REGION' where gpukit has none), sorted by GPU model, count, then price. No cloud account "
        "needed. Exit status: 0 listed, 2 invalid query.",
    )
    from gpukit.catalog.command import clouds

    names = sorted(clouds())
    listing.add_argument("--cloud", choices=names, default=names[0], help=f"default {names[0]}")
    listing.add_argument(
        "--region", help="price in this region (default: the catalog's home region, us-east-1 / us-central1)"
    )
    listing.add_argument("--gpu", metavar="MODEL", help="only machines with this GPU model, e.g. L4, h100")
    listing.add_argument(
        "--min-gpu-memory", type=float, metavar="GB", help="only GPUs with at least this much memory each"
    )
    listing.add_argument(
        "--max-price",
        type=float,
        metavar="USD",
        help="only machines at most this $/h in the region (unpriced ones are left out)",
    )
    listing.add_argument("--all", action="store_true", help="also list machine types without GPUs")
    listing.add_argument("--json", action="store_true", help="print the listing as JSON")

    doctor = sub.add_parser(
        "doctor",
        help="check whether this machine can join a gpukit k3s cluster (the preflight hosts run)",
        description="Run the host preflight gpukit runs on k3s hosts before they join, on this machine. "
        "Exit status: 0 ready, 1 not ready.",
    )
    kind = doctor.add_mutually_exclusive_group()
    kind.add_argument(
        "--gpu", metavar="MODEL:COUNT", help="expect these GPUs, e.g. L40S:2 (default: any NVIDIA GPU)"
    )
    kind.add_argument("--cpu", action="store_true", help="check as a node without GPUs")
    doctor.add_argument(
        "--driver",
        choices=[d.value for d in DriverMode],
        default=DriverMode.PREINSTALLED.value,
        help="who provides the NVIDIA driver (default preinstalled)",
    )
    doctor.add_argument("--cuda", help="CUDA version your images use, checked against the driver")
    doctor.add_argument("--json", action="store_true", help="print the report as JSON")

    from gpukit.verify.parser import add_parser as add_verify_parser

    add_verify_parser(sub)

    from gpukit.ephemeral.command import add_parser as add_ephemeral

    add_ephemeral(sub)
    return parser


def version() -> str:
    """The installed distribution's version (what pip installed), else the package's own."""
    from importlib import metadata

    try:
        return metadata.version("gpukit")
    except metadata.PackageNotFoundError:  # run from a checkout that was never installed
        from gpukit import __version__

        return __version__


def _gpukit_project(args: argparse.Namespace) -> Project:
    """gpukit's own project: --project, else the nearest Pulumi.yaml above the working folder.

    A stack file given with --config plans from anywhere: without a project folder, gpukit's own
    defaults apply (the ones `make docs` writes into its Pulumi.yaml).
    """
    loose = args.config is not None and args.project is None  # a stack file, wherever the cwd is
    try:
        project = load_project(find_project_root((args.project or Path.cwd()).resolve()))
    except StackFileError:
        if not loose:
            raise
        return gpukit_project_defaults(args.config.resolve().parent)
    if project.name == NAMESPACE:
        return project
    if loose:
        return gpukit_project_defaults(args.config.resolve().parent)
    raise StackFileError(
        f"{project.root} is the Pulumi project {project.name!r}, not gpukit's; to plan your own program: "
        f"gpukit plan --program {project.root} --stack NAME"
    )


def _stack(args: argparse.Namespace, project: Project, default: str | None) -> LoadedStack:
    if args.config is not None:
        return load_stack_file(args.config, project)
    name = args.stack or default
    if name is None:
        raise StackFileError("--program needs --stack NAME or --config FILE")
    path = stack_file_path(project, name)
    if not path.is_file():
        raise StackFileError(unknown_stack(name, path.parent))
    return load_stack_file(path, project, name)


def unknown_stack(name: str, folder: Path) -> str:
    """No Pulumi.<name>.yaml: which stacks there are (the Pulumi.*.yaml files beside it)."""
    stacks = sorted(
        p.name.removeprefix("Pulumi.").removesuffix(".yaml")
        for p in folder.glob("Pulumi.*.yaml")
        if p.is_file()
    )
    there = f"the stacks there are: {', '.join(stacks)}" if stacks else "there is no stack file there"
    return f"no stack {name!r} (no {folder / f'Pulumi.{name}.yaml'}); {there}"


def plan_command(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    # Imported here so `gpukit --help` stays instant.
    import pulumi

    from gpukit.components.name_rules import ResourceNameError
    from gpukit.plan.artifacts import plan_document, write_artifacts
    from gpukit.plan.engine import PlanResult, ProgramPlan, run_plan
    from gpukit.plan.program import ProgramError, plan_project
    from gpukit.plan.report import render_program, render_text

    plan: PlanResult | ProgramPlan
    where = "the stack"
    try:
        if args.program is not None:
            project = load_program(args.program)
            stack = _stack(args, project, None)
            where = f"the GpuCluster args of {project.main}"
            plan = plan_project(project, stack)
            text = render_program(plan, project.name)
        else:
            project = _gpukit_project(args)
            stack = _stack(args, project, DEFAULT_STACK)
            where = str(stack.path)
            plan = run_plan(stack)
            text = render_text(plan)
    except ConfigError as err:
        return report_invalid_config(where, err, args.json)
    # A stack file that cannot be read, a missing SDK extra, a program that is not there, or a name the
    # cloud would refuse (`pulumi up` would fail on it too).
    except (StackFileError, MissingExtraError, ProgramError, ResourceNameError) as err:
        return report_error(str(err), as_json=args.json)
    except pulumi.RunError as err:
        # gpukit's program stopped as `pulumi up` would, before creating anything (a pinned zone the
        # VPC has no subnet in, or that does not offer the pool's type): the message names the key.
        return report_error(
            f"`pulumi up` would stop on {where}", as_json=args.json, problems=[CliProblem("", str(err))]
        )

    if args.json:
        print(json.dumps(plan_document(plan), indent=2, sort_keys=True, default=str))
    else:
        from gpukit.colour import write

        write(text, sys.stdout)
        # On stderr, outside the report: the report of a stack stays the same from run to run.
        print(f"gpukit: planned in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    if args.out is not None:
        files = write_artifacts(plan, args.out)
        print(f"wrote {len(files)} files to {args.out}", file=sys.stderr)
    return EXIT_PREFLIGHT if plan.errors else EXIT_OK


def size_command(args: argparse.Namespace) -> int:
    from gpukit.size.command import size_command as run

    if args.stack is None and args.config is None:
        return run(args, None)
    return run(args, lambda: _stack(args, _gpukit_project(args), None))


def doctor_command(args: argparse.Namespace) -> int:
    from gpukit import doctor
    from gpukit.components.catalog.drivers import CUDA_MIN_DRIVER
    from gpukit.components.catalog.gpu_names import known_gpu_name
    from gpukit.components.catalog.gpus import GPU_MODELS

    expect, model = doctor.ANY_GPUS, ""
    if args.cpu:
        expect = 0
    elif args.gpu:
        spelled, _, count = args.gpu.partition(":")
        model = known_gpu_name(spelled) or ""  # any spelling of a catalog model (4090, rtx4090)
        if not model or not count.isdigit() or int(count) < 1:
            return report_error(
                f"--gpu must be MODEL:COUNT with MODEL one of {', '.join(GPU_MODELS)}; got {args.gpu!r}",
                as_json=args.json,
            )
        expect = int(count)
    if args.cuda and args.cuda not in CUDA_MIN_DRIVER:
        return report_error(
            f"--cuda must be one of {', '.join(CUDA_MIN_DRIVER)}; got {args.cuda!r}", as_json=args.json
        )
    driver = DriverMode(args.driver)
    report = doctor.run(expect, model, driver, args.cuda)
    if args.json:
        print(doctor.print_json(report))
    else:
        sys.stdout.write(doctor.render(report, doctor.describe_role(expect, model, driver)))
    return EXIT_OK if report.ready else EXIT_PREFLIGHT


# 128 + SIGPIPE, what a shell reports for a command whose reader went away (`gpukit plan --json | head`);
# not 1, which would read as a preflight error.
EXIT_BROKEN_PIPE = 141


def main(argv: list[str] | None = None) -> int:
    try:
        return _run(argv)
    except BrokenPipeError:
        # The reader closed the pipe: stop quietly. Point stdout at /dev/null so that Python's own
        # flush at exit does not raise again (docs.python.org, "Note on SIGPIPE" in the signal module).
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE


def _run(argv: list[str] | None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        # Bare `gpukit`: the help on stdout and exit 0, as `pulumi`, `kubectl` and `docker` do; nothing
        # was asked that could fail (argparse's exit 2 stays for an unknown command or a bad flag).
        parser.print_help()
        return EXIT_OK
    if args.command == "plan":
        return plan_command(args)
    if args.command == "doctor":
        return doctor_command(args)
    if args.command == "catalog":
        from gpukit.catalog.command import catalog_command

        return catalog_command(args)
    if args.command == "size":
        return size_command(args)
    if args.command == "verify":
        from gpukit.verify.command import verify_command

        return verify_command(args, lambda: _stack(args, _gpukit_project(args), None))
    if args.command == "ephemeral":
        from gpukit.ephemeral.command import ephemeral_command

        return ephemeral_command(args)
    return EXIT_INVALID  # argparse rejects unknown commands before this


if __name__ == "__main__":
    sys.exit(main())
