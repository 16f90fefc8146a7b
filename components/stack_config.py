"""Stack config (flat `namespace:key` values, as Pulumi hands them over) -> validated GpuClusterArgs."""

import re
from collections.abc import Collection, Mapping
from typing import Any, cast

from components.cluster import GpuClusterArgs
from components.config_schema import parse_namespace
from components.errors import ConfigError, Problem
from components.spec import Platform
from components.validation import SECTIONS, validate_cluster_args

_REGION_RE = re.compile(r"^[a-z]{2}(-gov|-iso[a-z]*)?-[a-z]+-\d+$")
REGION_KEYS = {Platform.EKS: "aws:region"}

# gpukit keys whose values may be encrypted (`pulumi config set --secret`): gpukit keeps them secret
# end to end. None yet; the SSH private key of `provider: ssh` will be the first.
SECRET_CAPABLE_KEYS: frozenset[str] = frozenset()


def _secret_problems(secret_keys: Collection[str]) -> list[Problem]:
    """Encrypted values in keys gpukit would copy into resource inputs (tags, names) in plain text."""
    return [
        Problem(
            key,
            "holds encrypted (secure) values, but none of its fields is a secret: gpukit would have to "
            "write them into resource inputs unencrypted; store them as plain config",
        )
        for key in sorted(secret_keys)
        if key.startswith("gpukit:") and key not in SECRET_CAPABLE_KEYS
    ]


def cluster_args_from_config(config: Mapping[str, Any], secret_keys: Collection[str] = ()) -> GpuClusterArgs:
    """Parse and validate; raises ConfigError listing every problem found."""
    problems: list[Problem] = _secret_problems(secret_keys)
    parsed = parse_namespace(config, problems)
    structural = {p.key.split(":", 1)[1].split(".", 1)[0].split("[", 1)[0] for p in problems}

    cluster = parsed.get("cluster")
    platform = cluster.get("platform") if cluster else None
    region_key = REGION_KEYS.get(platform) if isinstance(platform, Platform) else None
    region = ""
    if region_key is not None:
        raw = config.get(region_key)
        if raw is None:
            problems.append(
                Problem(
                    region_key,
                    f"required for platform {platform.value}: the region to build in, e.g. us-west-2 "  # type: ignore[union-attr]
                    f"(pulumi config set {region_key} us-west-2)",
                )
            )
        elif not isinstance(raw, str) or not _REGION_RE.match(raw):
            problems.append(Problem(region_key, f"must be a region name like us-west-2; got {raw!r}"))
        else:
            region = raw

    args: dict[str, Any] = {
        "cluster": {**(cluster or {}), "region": region},
        "node_pools": parsed.get("node_pools", []),
        "gpu_operator": parsed.get("gpu_operator", {}),
        "workloads": parsed.get("workloads", {}),
    }
    clean = tuple(s for s in SECTIONS if s not in structural and s.lower() in _present(parsed))
    problems.extend(validate_cluster_args(args, clean))
    if problems:
        raise ConfigError(problems)
    return cast(GpuClusterArgs, args)


def _present(parsed: dict[str, Any]) -> set[str]:
    """Sections that parsed into something, as lowercase config keys."""
    names = {
        "cluster": "cluster",
        "node_pools": "nodepools",
        "gpu_operator": "gpuoperator",
        "workloads": "workloads",
    }
    return {names[k] for k in parsed if k in names}
