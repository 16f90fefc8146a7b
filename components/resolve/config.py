"""Stack config (flat `namespace:key` values, as Pulumi hands them over) -> a ResolvedCluster.

The one way into gpukit's typed world: `gpukit plan`, `pulumi up` and GpuCluster used as a library
all come through `resolve_config`, so they accept and refuse exactly the same input, with the same
lines. It parses (structure: components/config/schema.py), reads the substrate's provider keys
(aws:region, gcp:project ...), validates (meaning: validation.py and keys.py here, the substrate's own
checks, then each add-on's of the section it owns), and derives each pool's facts, once; every problem
found is raised together as one ConfigError.
"""

import dataclasses
import re
from collections.abc import Collection, Mapping
from typing import Any, cast

from gpukit.components.addons import registry as addons
from gpukit.components.addons.base import ValidationScope
from gpukit.components.catalog.lookup import suggest
from gpukit.components.config.parse import TextProblem, parse_namespace
from gpukit.components.config.schema import NAMESPACE, SSH_KEY, TOP_LEVEL_FIELDS
from gpukit.components.config.secrets import redact, secret_values
from gpukit.components.errors import ConfigError, Problem
from gpukit.components.pools import PoolFacts, without_operator_sharing_labels
from gpukit.components.resolve.validation import SECTIONS, substrate_of, validate_cluster_args
from gpukit.components.spec import ClusterConfig, ClusterSpec, Platform
from gpukit.components.substrate import ProviderSetting, ResolvedCluster, Substrate, registry
from gpukit.components.validate.common import POOLS

# gpukit keys whose values may be encrypted (`pulumi config set --secret`): gpukit keeps them secret
# end to end (the SSH key must be: resolve_config refuses it in plain text).
SECRET_CAPABLE_KEYS: frozenset[str] = frozenset({SSH_KEY})


def config_namespaces() -> tuple[str, ...]:
    """The config namespaces a gpukit stack reads: gpukit's own and every substrate's provider keys."""
    providers = {s.key.split(":", 1)[0] for substrate in registry() for s in substrate.settings}
    return (NAMESPACE, *sorted(providers))


def _secret_problems(secret_keys: Collection[str]) -> list[Problem]:
    """Encrypted values in keys gpukit would copy into resource inputs (tags, names) in plain text."""
    return [
        Problem(
            key,
            "holds encrypted (secure) values, but none of its fields is a secret: gpukit would have to "
            "write them into resource inputs unencrypted; store them as plain config",
        )
        for key in sorted(secret_keys)
        if key.startswith(f"{NAMESPACE}:") and key not in SECRET_CAPABLE_KEYS
    ]


def _section(key: str) -> str:
    """`gpukit:nodePools[1].minNodes` -> `nodePools`."""
    return re.split(r"[.\[]", key.split(":", 1)[1], maxsplit=1)[0]


def _provider_settings(
    config: Mapping[str, Any], substrate: Substrate, problems: list[Problem]
) -> dict[str, str]:
    """The substrate's provider keys (aws:region ...) as ClusterSpec fields; a missing or malformed
    one is a problem, and left out (checks of the cluster then see no value rather than a wrong one)."""
    values: dict[str, str] = {}
    for setting in substrate.settings:
        value = _setting(config, setting, substrate, problems)
        if value is not None:
            values[setting.attr] = value
    return values


def _setting(
    config: Mapping[str, Any], setting: ProviderSetting, substrate: Substrate, problems: list[Problem]
) -> str | None:
    raw = config.get(setting.key)
    if raw is None:
        problems.append(
            Problem(
                setting.key,
                f"required for {substrate.where}: {setting.what}, e.g. {setting.example} "
                f"(pulumi config set {setting.key} {setting.example})",
            )
        )
        return None
    if setting.pattern is None:
        return str(raw)
    if not isinstance(raw, str) or not setting.pattern.fullmatch(raw):
        problems.append(Problem(setting.key, f"must be {setting.shape}; got {raw!r}"))
        return None
    if setting.known is not None and raw not in setting.known:
        close = suggest(raw, sorted(setting.known))
        hint = f"did you mean {', '.join(close)}?" if close else f"one of {', '.join(sorted(setting.known))}"
        problems.append(
            Problem(setting.key, f"{raw!r} is not a region gpukit knows ({setting.known_source}); {hint}")
        )
        return None
    return raw


def _named_substrate(cluster: Mapping[str, Any]) -> Substrate | None:
    """The substrate whose provider keys to read, decided as validation decides it (a platform on one
    provider implies it, whatever `provider` says); None where the platform did not parse."""
    if not isinstance(cluster.get("platform"), Platform):
        return None
    return substrate_of(cast(ClusterSpec, cluster))


def addon_problems(scope: ValidationScope) -> list[Problem]:
    """Each add-on's checks of the section it owns, in install order, where that section parsed."""
    return [
        problem
        for addon in addons.ADDONS
        if addon.section is None or addon.section in scope.sections
        for problem in addon.problems(scope)
    ]


def pool_facts(args: ClusterConfig, substrate: Substrate) -> tuple[PoolFacts, ...]:
    """Every pool's facts, as the substrate derives them; without the GPU Operator's sharing labels
    where the platform's own device plugin shares the GPUs."""
    pools = substrate.cluster_pool_facts(args["node_pools"])
    if not substrate.operator_shares_gpus(args):
        pools = tuple(without_operator_sharing_labels(p) for p in pools)
    return pools


def _config_order(problem: Problem) -> int:
    """Where a problem's key is in a stack file: provider keys first, then gpukit's sections in the
    schema's order (a key gpukit does not know: last)."""
    namespace, _, rest = problem.key.partition(":")
    if namespace != NAMESPACE:
        return -1
    section = re.split(r"[.\[]", rest, maxsplit=1)[0]
    return SECTION_ORDER.get(section, len(SECTION_ORDER))


SECTION_ORDER = {f.key: i for i, f in enumerate(TOP_LEVEL_FIELDS)}


def resolve_config(config: Mapping[str, Any], secret_keys: Collection[str] = ()) -> ResolvedCluster:
    """Parse, validate and derive pool facts; raises ConfigError listing every problem found."""
    problems: list[Problem] = []
    parsed = parse_namespace(config, problems)
    # A string with a stray newline leaves its section checkable: the checks name the shape it needs.
    broken = {_section(p.key) for p in problems if not isinstance(p, TextProblem)}
    problems[:0] = _secret_problems(secret_keys)

    cluster = parsed.get("cluster", {})
    substrate = _named_substrate(cluster)
    settings = _provider_settings(config, substrate, problems) if substrate is not None else {}
    args: dict[str, Any] = {
        # region "" where there is none (own hosts) or it is unusable (reported above)
        "cluster": {**cluster, "region": "", **settings},
        "node_pools": parsed.get("node_pools", []),
        "gpu_operator": parsed.get("gpu_operator", {}),
        "workloads": parsed.get("workloads", {}),
    }
    # Every other section as parsed: defaults filled in where the schema has them (verification,
    # storage, an add-on's), present only where the stack sets it otherwise (budget, ephemeral).
    for field in TOP_LEVEL_FIELDS:
        if field.fields and field.attr in parsed and field.attr not in args:
            args[field.attr] = parsed[field.attr]
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
    # Meaning checks run on each section that parsed cleanly.
    checkable = tuple(
        f.key for f in TOP_LEVEL_FIELDS if f.key in SECTIONS and f.key not in broken and f.attr in parsed
    )
    typed = cast(ClusterConfig, args)
    core = validate_cluster_args(typed, checkable)
    problems.extend(core.problems)
    substrate = core.substrate
    pools_fine = "nodePools" in checkable and not any(p.key.startswith(POOLS) for p in problems)
    pools = pool_facts(typed, substrate) if substrate is not None and pools_fine else None
    scope = ValidationScope(typed, substrate, frozenset(checkable), pools, core.substrate_checked)
    problems.extend(addon_problems(scope))
    if problems or substrate is None or pools is None:
        # In config order, wherever a check lives (the core, the substrate, an add-on); stable within.
        ordered = sorted(problems, key=_config_order)
        raise ConfigError(redact(ordered, secret_values(config, secret_keys)))
    expires_at = typed.get("ephemeral", {}).get("expires_at")
    if expires_at is not None:  # the tag every cloud resource carries, read with the cluster's own
        typed["cluster"]["expires_at"] = expires_at
    cluster = ResolvedCluster(typed, substrate, pools)
    wanted = [addon for addon in addons.ADDONS if addon.wanted(cluster)]
    namespaces = tuple(dict.fromkeys(ns for addon in wanted for ns in addon.system_namespaces(cluster)))
    return dataclasses.replace(cluster, system_namespaces=namespaces)
