"""Meaning checks of `gpukit:inference`, each naming its key: retention out of range, a key the store
cannot honour, autoscaling without the metrics it scales on, keys of a part that is off."""

from gpukit.components.addons.base import ValidationScope
from gpukit.components.addons.inference.names import KEY
from gpukit.components.addons.inference.settings import (
    autoscaling_enabled,
    inference_spec,
    metrics_enabled,
    substrate_variant,
)
from gpukit.components.config.schema import RETENTION_DAYS_RANGE
from gpukit.components.errors import Problem


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
    return problems
