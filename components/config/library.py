"""GpuClusterArgs from Python (or another Pulumi language) -> the same path as a stack file.

A user's infra repo builds GpuCluster with snake_case args and plain strings where gpukit has enums
("eks", "spot"). Rather than trust that shape, the args are turned back into the stack config they
stand for (camelCase keys, enum values, the cluster's region and project under the substrate's provider
keys) and resolved by components/config/resolve.py: a wrong key or value through the library gives
exactly the ConfigError lines a stack file with the same mistake gives, never an AttributeError.
"""

import re
from collections.abc import Mapping
from enum import Enum
from typing import TYPE_CHECKING, Any

from gpukit.components.config.resolve import resolve_config
from gpukit.components.config.schema import NAMESPACE, SSH_KEY, TOP_LEVEL_FIELDS, Field
from gpukit.components.errors import ConfigError, Problem
from gpukit.components.resolved import ResolvedCluster
from gpukit.components.spec import Platform, Provider
from gpukit.components.substrate import registry

if TYPE_CHECKING:
    from gpukit.components.cluster import GpuClusterArgs


def _camel(attr: str) -> str:
    """`min_nodes` -> `minNodes`: how an attribute gpukit does not know is named in messages."""
    return re.sub(r"_([a-z0-9])", lambda m: m.group(1).upper(), attr)


def _plain(value: Any, field: Field | None) -> Any:
    """A value as a stack file holds it: enums as their strings, keys as the schema spells them."""
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Mapping):
        if field is not None and field.kind == "map[str]":  # the user's own keys (tags)
            return {k: _plain(v, None) for k, v in value.items()}
        known = {f.attr: f for f in (field.fields if field is not None else ())}
        converted: dict[Any, Any] = {}
        for key, item in value.items():
            inner = known.get(key) if isinstance(key, str) else None
            name = inner.key if inner is not None else _camel(key) if isinstance(key, str) else key
            converted[name] = _plain(item, inner)
        return converted
    if isinstance(value, list | tuple):
        return [_plain(item, field) for item in value]
    return value


def _substrate_settings(cluster: Mapping[str, Any]) -> dict[str, str]:
    """The substrate's provider keys (aws:region ...) for a cluster's `region` and `project`."""
    try:
        platform = Platform(_plain(cluster.get("platform"), None))
        raw_provider = cluster.get("provider")
        provider = Provider(_plain(raw_provider, None)) if raw_provider is not None else None
    except ValueError:
        return {}  # the parser reports the platform or provider
    provider = provider or registry().implied_provider(platform)
    substrate = registry().get(platform, provider) if provider is not None else None
    if substrate is None:
        return {}  # validation reports the missing or unknown provider
    return {s.key: cluster[s.attr] for s in substrate.settings if cluster.get(s.attr) is not None}


def config_of(args: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The stack config `args` stand for, and which of its keys hold secrets."""
    fields = {f.attr: f for f in TOP_LEVEL_FIELDS}
    config: dict[str, Any] = {}
    for attr, value in args.items():
        field = fields.get(attr)
        key = field.key if field is not None else _camel(str(attr))
        config[f"{NAMESPACE}:{key}"] = _plain(value, field)
    cluster = args.get("cluster")
    if isinstance(cluster, Mapping):
        config.update(_substrate_settings(cluster))
        placed = config[f"{NAMESPACE}:cluster"]
        for attr in ("region", "project"):  # provider keys, not gpukit:cluster fields
            placed.pop(attr, None)
    # The key is a secret from the start: the library never sees it in a stack file.
    secret_keys = [SSH_KEY] if SSH_KEY in config else []
    return config, secret_keys


def resolve_args(args: "GpuClusterArgs") -> ResolvedCluster:
    """Parse and validate GpuClusterArgs as a stack file would be; raises ConfigError."""
    if not isinstance(args, Mapping):
        raise ConfigError(
            [Problem(NAMESPACE, f"GpuCluster args must be a mapping; got {type(args).__name__}")]
        )
    return resolve_config(*config_of(args))
