"""The stack an ephemeral copy is made from, and the config the copy gets."""

import copy
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from gpukit.components.config.schema import NAMESPACE
from gpukit.components.ephemeral import format_expiry
from gpukit.plan.stack_file import (
    LoadedStack,
    Project,
    StackFileError,
    find_project_root,
    gpukit_project_defaults,
    load_project,
    load_stack_file,
    stack_file_path,
)

CLUSTER_KEY = f"{NAMESPACE}:cluster"
EPHEMERAL_KEY = f"{NAMESPACE}:ephemeral"
BUDGET_KEY = f"{NAMESPACE}:budget"
VERIFICATION_KEY = f"{NAMESPACE}:verification"


@dataclass(frozen=True)
class Source:
    name: str
    """The source stack's name (a stack file's stem for a path)."""
    stack: LoadedStack


def _example_folders() -> list[Path]:
    """Where example stacks are looked for: the gpukit project above the working folder, then the
    checkout gpukit runs from."""
    folders = []
    try:
        project = load_project(find_project_root(Path.cwd()))
        if project.name == NAMESPACE:
            folders.append(project.stack_config_dir)
    except StackFileError:
        pass
    checkout = Path(__file__).resolve().parent.parent.parent / "stacks"
    if checkout.is_dir() and checkout not in folders:
        folders.append(checkout)
    return folders


def load_source(spec: str, program: Project | None = None) -> Source:
    """`--from`: a path to a stack file, or a stack name in the gpukit project's stacks folder. With
    `program` (`--program DIR`), a name is one of the program's stacks and a stack file gets the
    program's Pulumi.yaml defaults, as `gpukit plan --program DIR --stack/--config` reads them."""
    path = Path(spec).expanduser()
    if spec.endswith((".yaml", ".yml")) or "/" in spec or path.is_file():
        if not path.is_file():
            raise StackFileError(f"--from {spec}: stack file not found: {path}")
        stem = path.name.removeprefix("Pulumi.").rsplit(".", 1)[0]
        base = program or gpukit_project_defaults(path.resolve().parent)
        return Source(stem, load_stack_file(path, base, stem))
    if program is not None:
        candidate = stack_file_path(program, spec)
        if not candidate.is_file():
            raise StackFileError(
                f"--from {spec}: no stack file Pulumi.{spec}.yaml in {program.stack_config_dir} (the "
                f"program {program.name}'s stacks); pass a path instead"
            )
        return Source(spec, load_stack_file(candidate, program, spec))
    folders = _example_folders()
    for folder in folders:
        candidate = folder / f"Pulumi.{spec}.yaml"
        if candidate.is_file():
            project = load_project(folder.parent) if (folder.parent / "Pulumi.yaml").is_file() else None
            base = project or gpukit_project_defaults(folder)
            return Source(spec, load_stack_file(stack_file_path(base, spec), base, spec))
    where = ", ".join(str(f) for f in folders) or "no gpukit project found from here"
    raise StackFileError(f"--from {spec}: no stack file Pulumi.{spec}.yaml in {where}; pass a path instead")


def _refuse_secrets(source: Source) -> None:
    if source.stack.secret_keys:
        keys = ", ".join(source.stack.secret_keys)
        raise StackFileError(
            f"{source.stack.path}: {keys} hold encrypted values, which only the source stack's secrets "
            "provider can read; gpukit ephemeral copies plain config only (issue: not built yet)"
        )


def program_config(source: Source, *, expires_at: datetime) -> dict[str, Any]:
    """The copy's config for the user's own program (`--program`): the source's, plus the expiry as
    `gpukit:ephemeral.expiresAt`. The program builds its GpuCluster from its own args, so gpukit
    cannot rename its cluster or set its budget from here; the program reads the expiry (and
    `pulumi.get_stack()`, the copy's unique name) where it wants them (docs/ephemeral.md)."""
    _refuse_secrets(source)
    config = copy.deepcopy(source.stack.config)
    ephemeral = config.get(EPHEMERAL_KEY)
    config[EPHEMERAL_KEY] = {
        **(ephemeral if isinstance(ephemeral, dict) else {}),
        "expiresAt": format_expiry(expires_at),
    }
    return config


def ephemeral_config(
    source: Source,
    name: str,
    *,
    expires_at: datetime,
    max_hourly_cost: float,
    allow_unpriced: bool,
    accepts: frozenset[str],
) -> dict[str, Any]:
    """The copy's config: the source's, with the cluster renamed to the stack (unique per copy), the
    expiry, GPU verification on unless the source decides, and the cost guard as the stack's budget
    (the lower of the source's limit and `max_hourly_cost`), so that `pulumi up` itself refuses a
    stack over it too. `accepts` (the source's substrate's keys, Substrate.accepts) says which of the
    expiry, the budget and GKE's deletion protection the substrate takes: machines you own (k3s over
    SSH) have no cloud resources to tag and no price."""
    _refuse_secrets(source)
    config = copy.deepcopy(source.stack.config)
    cluster = config.get(CLUSTER_KEY)
    if not isinstance(cluster, dict):
        raise StackFileError(f"{source.stack.path}: {CLUSTER_KEY} must be a mapping")
    cluster["name"] = name
    if "cluster.deletionProtection" in accepts:
        cluster["deletionProtection"] = False  # a throwaway cluster must be destroyable
    if "ephemeral" in accepts:
        ephemeral = config.get(EPHEMERAL_KEY)
        config[EPHEMERAL_KEY] = {
            **(ephemeral if isinstance(ephemeral, dict) else {}),
            "expiresAt": format_expiry(expires_at),
        }
    # GPU verification is on unless the source stack's own file decides: the project default
    # (`enabled: false`, filled in by load_stack_file) is not the source's choice.
    verification = config.get(VERIFICATION_KEY)
    verification = verification if isinstance(verification, dict) else {}
    if VERIFICATION_KEY in source.stack.defaulted_keys:
        config[VERIFICATION_KEY] = {**verification, "enabled": True}
    else:
        config[VERIFICATION_KEY] = {"enabled": True, **verification}
    if "budget" in accepts:
        budget = config.get(BUDGET_KEY)
        budget = dict(budget) if isinstance(budget, dict) else {}
        own = budget.get("maxHourlyCost")
        limit = min(own, max_hourly_cost) if isinstance(own, int | float) else max_hourly_cost
        config[BUDGET_KEY] = {**budget, "maxHourlyCost": limit, "allowUnpriced": allow_unpriced}
    return config
