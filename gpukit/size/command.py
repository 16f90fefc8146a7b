"""`gpukit size WORKLOADS.yaml [--stack NAME | --config FILE] [--json]`."""

import json
import sys
from argparse import Namespace
from collections.abc import Callable
from pathlib import Path

import yaml

from gpukit.cli_errors import report_error
from gpukit.components.errors import ConfigError
from gpukit.components.sizing.render import render_text, sizing_document
from gpukit.components.sizing.sizing import size
from gpukit.components.sizing.target import Target
from gpukit.components.sizing.workloads import parse_workloads
from gpukit.config_errors import report_invalid_config
from gpukit.plan.stack_file import LoadedStack, StackFileError, load_yaml
from gpukit.size.targets import DEFAULT_TARGETS_NOTE, default_targets, stack_targets

EXIT_OK = 0


def _read_workloads(path: Path) -> object:
    try:
        return load_yaml(path.read_text())
    except FileNotFoundError:
        raise StackFileError(f"workloads file not found: {path}") from None
    except yaml.YAMLError as err:
        raise StackFileError(f"{path} is not valid YAML: {err}") from None


def _shown(path: Path) -> Path:
    """`path` relative to the working folder where it is under it (what a user typed), else as is."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        return path


def size_command(args: Namespace, load_stack: Callable[[], LoadedStack] | None) -> int:
    """`load_stack` loads the stack `--stack`/`--config` name (None: no stack, the default targets)."""
    where = str(args.workloads)
    try:
        workloads = parse_workloads(_read_workloads(args.workloads))
        targets: list[Target]
        if load_stack is None:
            targets, note = default_targets(), DEFAULT_TARGETS_NOTE
        else:
            stack = load_stack()
            where = str(stack.path)
            targets = stack_targets(stack.config, stack.secret_keys)
            note = f"GPU pools of stack {stack.name} ({_shown(stack.path)})"
    except StackFileError as err:
        return report_error(str(err), as_json=args.json)
    except ConfigError as err:
        return report_invalid_config(where, err, args.json)
    if not targets:
        return report_error(f"{where} has no GPU pools to size on", as_json=args.json)
    result = size(workloads, targets)
    if args.json:
        print(json.dumps(sizing_document(result), indent=2, sort_keys=True))
    else:
        sys.stdout.write(f"Sizing {sum(w.replicas for w in workloads)} replicas; targets: {note}\n\n")
        sys.stdout.write(render_text(result))
    return EXIT_OK
