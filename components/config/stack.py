"""Stack config (flat `namespace:key` values, as Pulumi hands them over) -> validated GpuClusterArgs."""

import re
from collections.abc import Collection, Mapping
from typing import Any, cast

from gpukit.components.cluster import GpuClusterArgs
from gpukit.components.config.schema import parse_namespace
from gpukit.components.errors import ConfigError, Problem
from gpukit.components.spec import IMPLIED_PROVIDER, Provider
from gpukit.components.validate.cluster import validate_cluster_args

# us-west-2, us-gov-west-1 (AWS); us-central1, europe-west4 (Google Cloud).
_REGION_RE = {
    Provider.AWS: (re.compile(r"^[a-z]{2}(-gov|-iso[a-z]*)?-[a-z]+-\d+$"), "us-west-2"),
    Provider.GCP: (re.compile(r"^[a-z]+-[a-z]+\d+$"), "us-central1"),
}
# Keyed by the cloud the machines run on: eks and k3s on aws read aws:region, gke and k3s on gcp
# read gcp:region (the same keys the providers' own SDKs use).
REGION_KEYS = {Provider.AWS: "aws:region", Provider.GCP: "gcp:region"}
PROJECT_KEYS = {Provider.GCP: "gcp:project"}

# gpukit keys whose values may be encrypted (`pulumi config set --secret`): gpukit keeps them secret
# end to end. Keys in MUST_BE_SECRET are refused unless encrypted.
SSH_KEY = "gpukit:sshPrivateKey"
SECRET_CAPABLE_KEYS: frozenset[str] = frozenset({SSH_KEY})
MUST_BE_SECRET: frozenset[str] = frozenset({SSH_KEY})


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


def _region_problem(config: Mapping[str, Any], cloud: Provider, where: str) -> tuple[str, Problem | None]:
    key = REGION_KEYS[cloud]
    pattern, example = _REGION_RE[cloud]
    raw = config.get(key)
    if raw is None:
        return "", Problem(
            key,
            f"required for {where}: the region to build in, e.g. {example} "
            f"(pulumi config set {key} {example})",
        )
    if not isinstance(raw, str) or not pattern.match(raw):
        return "", Problem(key, f"must be a region name like {example}; got {raw!r}")
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
    cloud = IMPLIED_PROVIDER.get(platform) or cluster.get("provider")
    where = (
        f"platform {platform.value}"
        if platform in IMPLIED_PROVIDER
        else f"k3s on {getattr(cloud, 'value', '')}"
    )
    if cloud in REGION_KEYS:
        region, problem = _region_problem(config, cloud, where)
        if problem is not None:
            problems.append(problem)

    cloud_settings: dict[str, Any] = {"region": region}
    if cloud in PROJECT_KEYS:
        project = config.get(PROJECT_KEYS[cloud])
        if project is None:
            problems.append(
                Problem(
                    PROJECT_KEYS[cloud],
                    f"required for {where}: the project to build in "
                    f"(pulumi config set {PROJECT_KEYS[cloud]} my-project)",
                )
            )
        else:
            cloud_settings["project"] = str(project)

    args: dict[str, Any] = {
        "cluster": {**cluster, **cloud_settings},
        "node_pools": parsed.get("node_pools", []),
        "gpu_operator": parsed.get("gpu_operator", {}),
        "workloads": parsed.get("workloads", {}),
    }
    if parsed.get("ssh_private_key"):  # an empty value (a project default) means unset
        args["ssh_private_key"] = parsed["ssh_private_key"]
        if SSH_KEY not in secret_keys:
            problems.append(
                Problem(
                    SSH_KEY,
                    "must be stored encrypted, never in plain text in the stack file: "
                    f"pulumi config set --secret {SSH_KEY} < ~/.ssh/id_ed25519",
                )
            )
    checkable = tuple(s for s, attr in SECTION_ATTRS.items() if s not in broken and attr in parsed)
    problems.extend(validate_cluster_args(args, checkable))
    if problems:
        raise ConfigError(problems)
    return cast(GpuClusterArgs, args)
