"""The `gpukit` command line."""

import argparse
import json
import sys
from pathlib import Path

from gpukit.components.errors import ConfigError
from gpukit.components.spec import DriverMode
from gpukit.plan.stack_file import StackFileError, find_project_root, load_stack_file, stack_file_path

DEFAULT_STACK = "eks-dev"
EXIT_OK, EXIT_PREFLIGHT, EXIT_INVALID = 0, 1, 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gpukit", description="GPU-ready Kubernetes clusters, planned offline."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    plan = sub.add_parser(
        "plan",
        help="show what `pulumi up` would build, what it costs and what is wrong (no cloud account needed)",
        description="Run the stack's Pulumi program under an in-process mock engine and report. "
        "Exit status: 0 ready, 1 preflight errors, 2 invalid configuration.",
    )
    which = plan.add_mutually_exclusive_group()
    which.add_argument("--stack", help=f"stack name: stacks/Pulumi.<NAME>.yaml (default {DEFAULT_STACK})")
    which.add_argument("--config", type=Path, help="path to a stack file anywhere")
    plan.add_argument("--out", type=Path, help="also write plan.json and manifests/ to this folder")
    plan.add_argument(
        "--json", action="store_true", help="print plan.json to stdout instead of the text report"
    )
    plan.add_argument("--project", type=Path, default=None, help="project folder (default: found from cwd)")

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
    return parser


def plan_command(args: argparse.Namespace) -> int:
    # Imported here so `gpukit --help` stays instant.
    from gpukit.plan.artifacts import plan_document, write_artifacts
    from gpukit.plan.engine import run_plan
    from gpukit.plan.report import render_text

    try:
        if args.config is not None:
            stack = load_stack_file(args.config)
        else:
            root = find_project_root((args.project or Path.cwd()).resolve())
            name = args.stack or DEFAULT_STACK
            stack = load_stack_file(stack_file_path(root, name), name)
        plan = run_plan(stack)
    except StackFileError as err:
        print(f"gpukit: {err}", file=sys.stderr)
        return EXIT_INVALID
    except ConfigError as err:
        where = stack.path if "stack" in locals() else "the stack"
        print(f"gpukit: invalid configuration in {where}:", file=sys.stderr)
        for problem in err.problems:
            print(f"  {problem}", file=sys.stderr)
        return EXIT_INVALID

    if args.json:
        print(json.dumps(plan_document(plan), indent=2, default=str))
    else:
        sys.stdout.write(render_text(plan))
    if args.out is not None:
        files = write_artifacts(plan, args.out)
        print(f"wrote {len(files)} files to {args.out}", file=sys.stderr)
    return EXIT_PREFLIGHT if plan.errors else EXIT_OK


def doctor_command(args: argparse.Namespace) -> int:
    from gpukit import doctor
    from gpukit.components.catalog.drivers import CUDA_MIN_DRIVER
    from gpukit.components.catalog.gpus import GPU_MODELS

    expect, model = doctor.ANY_GPUS, ""
    if args.cpu:
        expect = 0
    elif args.gpu:
        model, _, count = args.gpu.partition(":")
        if model not in GPU_MODELS or not count.isdigit() or int(count) < 1:
            print(
                f"gpukit: --gpu must be MODEL:COUNT with MODEL one of {', '.join(GPU_MODELS)}; "
                f"got {args.gpu!r}",
                file=sys.stderr,
            )
            return EXIT_INVALID
        expect = int(count)
    if args.cuda and args.cuda not in CUDA_MIN_DRIVER:
        print(
            f"gpukit: --cuda must be one of {', '.join(CUDA_MIN_DRIVER)}; got {args.cuda!r}", file=sys.stderr
        )
        return EXIT_INVALID
    driver = DriverMode(args.driver)
    report = doctor.run(expect, model, driver, args.cuda)
    if args.json:
        print(doctor.print_json(report))
    else:
        sys.stdout.write(doctor.render(report, doctor.describe_role(expect, model, driver)))
    return EXIT_OK if report.ready else EXIT_PREFLIGHT


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "plan":
        return plan_command(args)
    if args.command == "doctor":
        return doctor_command(args)
    return EXIT_INVALID  # argparse rejects unknown commands before this


if __name__ == "__main__":
    sys.exit(main())
