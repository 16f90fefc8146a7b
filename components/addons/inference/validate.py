"""Meaning checks of `gpukit:inference`, each naming its key: retention out of range, a key the store
cannot honour, autoscaling without the metrics it scales on, keys of a part that is off, a gateway
class the substrate does not have, ranges the gateway cannot be held to."""

from gpukit.components.addons.base import ValidationScope
from gpukit.components.addons.inference.names import KEY
from gpukit.components.addons.inference.settings import (
    autoscaling_enabled,
    gateway_enabled,
    gateway_spec,
    inference_spec,
    metrics_enabled,
    substrate_variant,
)
from gpukit.components.addons.inference.variant import InferenceVariant
from gpukit.components.config.schema import GATEWAY_ALLOWED_CIDRS_MAX, RETENTION_DAYS_RANGE
from gpukit.components.errors import Problem
from gpukit.components.spec import ClusterConfig
from gpukit.components.substrate import Substrate
from gpukit.components.validate.common import check_cidr_list

GATEWAY = f"{KEY}.gateway"


def inference_problems(scope: ValidationScope) -> list[Problem]:
    spec = inference_spec(scope.args)
    metrics = spec.get("metrics", {})
    retention = metrics.get("retention_days")
    problems: list[Problem] = []
    on = metrics_enabled(scope.args)
    if retention is not None:
        low, high = RETENTION_DAYS_RANGE
        fixed = substrate_variant(scope.substrate).retention_fixed() if scope.substrate is not None else None
        if not on:
            problems.append(
                Problem(
                    f"{KEY}.metrics.retentionDays",
                    f"takes effect only with metrics on (`{KEY}.metrics.enabled` or `{KEY}.enabled`: true); "
                    "turn them on, or remove the key",
                )
            )
        elif fixed is not None:
            problems.append(Problem(f"{KEY}.metrics.retentionDays", f"{fixed}; remove the key"))
        elif not low <= retention <= high:
            problems.append(
                Problem(
                    f"{KEY}.metrics.retentionDays",
                    f"must be {low} to {high} days (the in-cluster Prometheus's volume is sized for it); "
                    f"got {retention}",
                )
            )
    if autoscaling_enabled(scope.args) and not on:
        problems.append(
            Problem(
                f"{KEY}.autoscaling.enabled",
                f"needs metrics to scale on: KEDA queries the metrics store, and `{KEY}.metrics.enabled` is "
                f"false; set `{KEY}.metrics.enabled: true`, or `{KEY}.autoscaling.enabled: false`",
            )
        )
    if scope.substrate is not None:
        problems += gateway_problems(scope.args, scope.substrate)
        variant = substrate_variant(scope.substrate)
        if scope.substrate_checked and gateway_enabled(scope.args):
            network = variant.gateway_network_problem(scope.args["cluster"])
            if network is not None:
                problems.append(network)
    return problems


def gateway_problems(args: ClusterConfig, substrate: Substrate) -> list[Problem]:
    spec = gateway_spec(args)
    variant = substrate_variant(substrate)
    on = gateway_enabled(args)
    problems: list[Problem] = []
    for field in ("class_name", "allowed_cidrs"):
        if field in spec and not on:
            camel = "className" if field == "class_name" else "allowedCidrs"
            problems.append(
                Problem(
                    f"{GATEWAY}.{camel}",
                    f"takes effect only with the gateway on (`{GATEWAY}.enabled` or `{KEY}.enabled`: "
                    "true); turn it on, or remove the key",
                )
            )
    if not on:
        return problems
    if variant.runs_envoy_gateway and args["cluster"].get("traefik", False):
        problems.append(
            Problem(
                "gpukit:cluster.traefik",
                "k3s's packaged Traefik installs the Gateway API CRDs itself on k3s 1.34 to 1.36 "
                "(k3s-io/k3s#14557), and the inference Gateway installs the standard channel's with Envoy "
                f"Gateway: two owners of the same CRDs; set it false, or `{GATEWAY}.enabled: false`",
            )
        )
    class_name = spec.get("class_name")
    if class_name is not None:
        problem = _class_problem(class_name, variant, substrate)
        if problem is not None:
            problems.append(Problem(f"{GATEWAY}.className", problem))
    cidrs = spec.get("allowed_cidrs", [])
    key = f"{GATEWAY}.allowedCidrs"
    if cidrs:
        refused = variant.gateway_cidrs_problem(substrate, cidrs)
        if refused is not None:
            problems.append(Problem(key, refused))
            return problems
        check_cidr_list(key, cidrs, problems)
        if len(cidrs) > GATEWAY_ALLOWED_CIDRS_MAX:
            problems.append(
                Problem(
                    key,
                    f"at most {GATEWAY_ALLOWED_CIDRS_MAX} ranges (each becomes two inbound rules on the "
                    f"nodes' security group, which holds 60 by default); got {len(cidrs)}: merge ranges",
                )
            )
    return problems


def _class_problem(class_name: str, variant: InferenceVariant, substrate: Substrate) -> str | None:
    if class_name in variant.gateway_classes:
        return None
    refused = dict(variant.gateway_classes_refused)
    built = ", ".join(variant.gateway_classes)
    if class_name in refused:
        return f"{class_name!r} is not built by gpukit yet: {refused[class_name]}; use one of: {built}"
    return f"{substrate.title} has no GatewayClass gpukit builds on named {class_name!r}; one of: {built}"
