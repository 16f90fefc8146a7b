"""Stack config (flat `namespace:key` values, as Pulumi hands them over) -> validated GpuClusterArgs."""

import re
from collections.abc import Collection, Mapping
from typing import Any, cast

from components.cluster import GpuClusterArgs
from components.config_schema import parse_namespace
from components.errors import ConfigError, Problem
from components.spec import Platform
from components.validation import validate_cluster_args

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


# Config sections and their attribute names; meaning checks run on each section that parsed cleanly.
SECTION_ATTRS = {
    "cluster": "cluster",
    "nodePools": "node_pools",
    "gpuOperator": "gpu_operator",
    "workloads": "workloads",
}


def _section(key: str) -> str:
    """`gpukit:nodePools[1].minNodes` -> `nodePools`."""
    return re.split(r"[.\[]", key.split(":", 1)[1], maxsplit=1)[0]


def _region_problem(config: Mapping[str, Any], platform: Platform) -> tuple[str, Problem | None]:
    key = REGION_KEYS[platform]
    raw = config.get(key)
    if raw is None:
        return "", Problem(
            key,
            f"required for platform {platform.value}: the region to build in, e.g. us-west-2 "
            f"(pulumi config set {key} us-west-2)",
        )
    if not isinstance(raw, str) or not _REGION_RE.match(raw):
        return "", Problem(key, f"must be a region name like us-west-2; got {raw!r}")
    return raw, None


def cluster_args_from_config(config: Mapping[str, Any], secret_keys: Collection[str] = ()) -> GpuClusterArgs:
    """Parse and validate; raises ConfigError listing every problem found."""
    problems: list[Problem] = []
    parsed = parse_namespace(config, problems)
    broken = {_section(p.key) for p in problems}
    problems[:0] = _secret_problems(secret_keys)

    cluster = parsed.get("cluster", {})
    region = ""
    platform = cluster.get("platform")
    if platform in REGION_KEYS:
        region, problem = _region_problem(config, platform)
        if problem is not None:
            problems.append(problem)

    args: dict[str, Any] = {
        "cluster": {**cluster, "region": region},
        "node_pools": parsed.get("node_pools", []),
        "gpu_operator": parsed.get("gpu_operator", {}),
        "workloads": parsed.get("workloads", {}),
    }
    checkable = tuple(s for s, attr in SECTION_ATTRS.items() if s not in broken and attr in parsed)
    problems.extend(validate_cluster_args(args, checkable))
    if problems:
        raise ConfigError(problems)
    return cast(GpuClusterArgs, args)
