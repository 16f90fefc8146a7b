"""GpuClusterArgs from Python (or another Pulumi language) -> the same path as a stack file.

A user's infra repo builds GpuCluster with snake_case args and plain strings where gpukit has enums
("eks", "spot"). Rather than trust that shape, the args are turned back into the stack config they
stand for (camelCase keys, enum values, the cluster's region and project under the provider keys that
mean them) and resolved by components/resolve/config.py: a wrong key or value through the library gives
exactly the ConfigError lines a stack file with the same mistake gives, never an AttributeError.
"""

from collections.abc import Mapping
from enum import Enum
from typing import Any

from gpukit.components.config.schema import NAMESPACE, SSH_KEY, TOP_LEVEL_FIELDS, Field, camel, child_key
from gpukit.components.errors import ConfigError, Problem
from gpukit.components.resolve.config import resolve_config
from gpukit.components.substrate import ResolvedCluster, registry


def _plain(value: Any, field: Field | None, key: str, problems: list[Problem]) -> Any:
    """A value as a stack file holds it: enums as their strings, keys as the schema spells them.

    `key` is the value's config key, for the problem a key given twice (`min_nodes` and `minNodes`)
    makes: the two spellings would otherwise silently overwrite one another.
    """
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Mapping):
        if field is not None and field.kind in ("map[str]", "map[int]"):  # the user's own keys (tags)
            return {k: _plain(v, None, child_key(key, str(k)), problems) for k, v in value.items()}
        known = {f.attr: f for f in (field.fields if field is not None else ())}
        converted: dict[Any, Any] = {}
        spelled: dict[Any, Any] = {}
        for name, item in value.items():
            inner = known.get(name) if isinstance(name, str) else None
            config_name = inner.key if inner is not None else camel(name) if isinstance(name, str) else name
            item_key = child_key(key, str(config_name))
            if config_name in converted:
                problems.append(
                    Problem(item_key, f"given twice, as {spelled[config_name]!r} and {name!r}: keep one")
                )
            spelled[config_name] = name
            converted[config_name] = _plain(item, inner, item_key, problems)
        return converted
    if isinstance(value, list | tuple):
        return [_plain(item, field, f"{key}[{i}]", problems) for i, item in enumerate(value)]
    return value


def _provider_keys(cluster: Mapping[str, Any]) -> dict[str, Any]:
    """`cluster.region` and `cluster.project` under every provider key that means them (aws:region,
    gcp:region, gcp:project): the substrate reads its own, as from a stack file, and the others are
    ignored, as a stack file's other providers' keys are."""
    found: dict[str, Any] = {}
    for substrate in registry():
        for setting in substrate.settings:
            if cluster.get(setting.attr) is not None:
                found[setting.key] = cluster[setting.attr]
    return found


def config_of(args: Mapping[str, Any]) -> tuple[dict[str, Any], list[str], list[Problem]]:
    """The stack config `args` stand for, which of its keys hold secrets, and the problems only Python
    args can have (a key given in two spellings)."""
    problems: list[Problem] = []
    converted = _plain(
        args, Field(NAMESPACE, "object", "", fields=TOP_LEVEL_FIELDS), f"{NAMESPACE}:", problems
    )
    config = {f"{NAMESPACE}:{key}": value for key, value in converted.items()}
    cluster = args.get("cluster")
    if isinstance(cluster, Mapping):
        config.update(_provider_keys(cluster))
        placed = config[f"{NAMESPACE}:cluster"]
        for attr in {s.attr for substrate in registry() for s in substrate.settings}:
            placed.pop(attr, None)  # provider keys, not gpukit:cluster fields
    # The key is a secret from the start: the library never sees it in a stack file.
    secret_keys = [SSH_KEY] if SSH_KEY in config else []
    return config, secret_keys, problems


def resolve_args(args: Mapping[str, Any]) -> ResolvedCluster:
    """Parse and validate GpuCluster's args (GpuClusterArgs, or any mapping: they are checked, never
    trusted) as a stack file would be; raises ConfigError."""
    if not isinstance(args, Mapping):
        got = type(args).__name__
        raise ConfigError([Problem(NAMESPACE, f"GpuCluster args must be a mapping; got {got}")])
    config, secret_keys, problems = config_of(args)
    try:
        resolved = resolve_config(config, secret_keys)
    except ConfigError as err:
        raise ConfigError(problems + err.problems) from None
    if problems:
        raise ConfigError(problems)
    return resolved
