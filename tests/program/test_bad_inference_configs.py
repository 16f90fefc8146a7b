"""Bad `gpukit:inference` configs: each is refused with exit 2 naming the key, and builds nothing (the
cases run through test_bad_configs.assert_refused, as every other bad config does)."""

from pathlib import Path
from typing import Any

import pytest
from program.test_bad_configs import Config, Mutation, assert_refused, bad_config

from harness import example_config

KEY = "gpukit:inference"


def inference(**values: Any) -> Mutation:
    def mutate(config: Config) -> None:
        config[KEY] = values

    return mutate


CASES: list[tuple[str, Mutation, str, str]] = [
    (
        "retention-zero",
        inference(enabled=True, metrics={"retentionDays": 0}),
        f"{KEY}.metrics.retentionDays",
        "must be 1 to 90 days (the in-cluster Prometheus's volume is sized for it); got 0",
    ),
    (
        "retention-too-long",
        inference(enabled=True, metrics={"retentionDays": 91}),
        f"{KEY}.metrics.retentionDays",
        "must be 1 to 90 days",
    ),
    (
        "retention-as-text",
        inference(enabled=True, metrics={"retentionDays": "15d"}),
        f"{KEY}.metrics.retentionDays",
        "got '15d'",
    ),
    (
        "retention-with-metrics-off",
        inference(metrics={"enabled": False, "retentionDays": 30}),
        f"{KEY}.metrics.retentionDays",
        "takes effect only with metrics on",
    ),
    (
        "autoscaling-without-metrics",
        inference(metrics={"enabled": False}, autoscaling={"enabled": True}),
        f"{KEY}.autoscaling.enabled",
        "needs metrics to scale on",
    ),
    (
        "autoscaling-without-metrics-by-default",
        inference(enabled=True, metrics={"enabled": False}),
        f"{KEY}.autoscaling.enabled",
        "set `gpukit:inference.metrics.enabled: true`, or `gpukit:inference.autoscaling.enabled: false`",
    ),
    (
        "gateway-not-built",
        inference(enabled=True, gateway={"enabled": True}),
        f"{KEY}.gateway",
        "is not built yet in this version of gpukit",
    ),
    (
        "managed-prometheus-not-built",
        inference(enabled=True, metrics={"amazonManagedPrometheus": {"workspace": "ws-1"}}),
        f"{KEY}.metrics.amazonManagedPrometheus",
        "is not built yet in this version of gpukit",
    ),
    (
        "misspelt-key",
        inference(enabled=True, metric={"enabled": True}),
        f"{KEY}.metric",
        "unknown key; did you mean 'metrics'?",
    ),
    (
        "enabled-as-text",
        inference(enabled="yes"),
        f"{KEY}.enabled",
        "got 'yes'",
    ),
]


@pytest.mark.parametrize(("mutation", "key", "fragment"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_inference_config_is_refused_naming_the_key(
    mutation: Mutation, key: str, fragment: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert_refused(bad_config(mutation), key, fragment, tmp_path, capsys)


def test_retention_is_refused_where_the_store_keeps_what_it_keeps(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = example_config("gke-dev")
    config[KEY] = {"enabled": True, "metrics": {"retentionDays": 30}}
    assert_refused(config, f"{KEY}.metrics.retentionDays", "keeps samples 24 months", tmp_path, capsys)
