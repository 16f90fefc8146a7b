"""Substrate-specific keys: refused where the cluster's substrate does not take them, reported missing
where it needs them. What each substrate takes is its own declaration (Substrate.accepts, .requires);
which keys are substrate-specific at all is the schema's (Field.specific)."""

from collections.abc import Mapping
from typing import Any, cast

from gpukit.components.config.parse import missing_problem
from gpukit.components.config.schema import child_key, schema_paths
from gpukit.components.errors import Problem
from gpukit.components.spec import ClusterConfig
from gpukit.components.substrate import Substrate, registry

SPECIFIC_FIELDS = [(path, field) for path, field in schema_paths() if field.specific]


def where(accepting: list[Substrate]) -> str:
    """The substrates that take a key, as messages name them: a whole platform, every substrate that
    creates machines, or each one."""
    substrates = list(registry())
    names = {s.name for s in accepting}
    platforms = {s.platform for s in accepting}
    if len(platforms) == 1 and names == {s.name for s in substrates if s.platform in platforms}:
        return f"platform {platforms.pop().value}"
    if names == {s.name for s in substrates if s.builds_machines}:
        return f"clusters on cloud machines ({', '.join(s.title for s in accepting)})"
    return " and ".join(s.where for s in accepting)


_FIELDS_BY_PATH = dict(schema_paths())


def _sections(args: ClusterConfig, path: str) -> list[tuple[str, Mapping[str, Any]]]:
    """The parsed values at a schema path ("" for the top level), each with its config key prefix:
    `nodePools` gives every pool as (`gpukit:nodePools[i]`, pool)."""
    found: list[tuple[str, Mapping[str, Any]]] = [("gpukit:", cast("Mapping[str, Any]", args))]
    walked = ""
    for part in path.split(".") if path else []:
        walked = f"{walked}.{part}" if walked else part
        attr = _FIELDS_BY_PATH[walked].attr
        deeper: list[tuple[str, Mapping[str, Any]]] = []
        for prefix, values in found:
            key = child_key(prefix, part)
            value = values.get(attr)
            if isinstance(value, Mapping):
                deeper.append((key, value))
            elif isinstance(value, list):
                deeper += [(f"{key}[{i}]", item) for i, item in enumerate(value) if isinstance(item, Mapping)]
        found = deeper
    return found


def key_problems(args: ClusterConfig, substrate: Substrate, pools_ok: bool) -> tuple[list[Problem], bool]:
    """Problems with substrate-specific keys, and whether a key the substrate requires is missing (its
    own checks read those keys, so they run only when none is)."""
    problems: list[Problem] = []
    missing = False
    for path, field in SPECIFIC_FIELDS:
        parent, _, _ = path.rpartition(".")
        checked = pools_ok or not parent.startswith("nodePools")  # a pool that did not parse may lack any key
        for prefix, values in _sections(args, parent):
            key = child_key(prefix, field.key)
            present = field.attr in values
            if present and path not in substrate.accepts:
                problems.append(_refused(key, path, substrate))
            elif not present and checked and path in substrate.requires:
                problems.append(missing_problem(key, field))
                missing = True
    return problems, missing


def _refused(key: str, path: str, substrate: Substrate) -> Problem:
    accepting = [s for s in registry() if path in s.accepts]
    if not accepting:
        return Problem(key, f"no substrate gpukit knows takes it; this cluster is {substrate.title}")
    return Problem(key, f"only for {where(accepting)}; this cluster is {substrate.title}")


def undeclared_keys() -> list[str]:
    """Keys substrates declare that are not substrate-specific schema keys (a test keeps this empty)."""
    specific = {path for path, _ in SPECIFIC_FIELDS}
    return sorted({p for s in registry() for p in s.accepts | s.requires} - specific)


def unclaimed_keys() -> list[str]:
    """Substrate-specific keys no substrate takes (a test keeps this empty)."""
    taken = {p for s in registry() for p in s.accepts}
    return sorted(path for path, _ in SPECIFIC_FIELDS if path not in taken)
