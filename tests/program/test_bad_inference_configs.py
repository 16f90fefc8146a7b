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
        "gateway-unknown-class",
        inference(enabled=True, gateway={"className": "nginx"}),
        f"{KEY}.gateway.className",
        "eks has no GatewayClass gpukit builds on named 'nginx'; one of: envoy-gateway",
    ),
    (
        "gateway-class-with-gateway-off",
        inference(enabled=True, gateway={"enabled": False, "className": "envoy-gateway"}),
        f"{KEY}.gateway.className",
        "takes effect only with the gateway on",
    ),
    (
        "gateway-ranges-with-gateway-off",
        inference(metrics={"enabled": True}, gateway={"allowedCidrs": ["198.51.100.0/24"]}),
        f"{KEY}.gateway.allowedCidrs",
        "takes effect only with the gateway on",
    ),
    (
        "gateway-bare-address",
        inference(enabled=True, gateway={"allowedCidrs": ["198.51.100.7"]}),
        f"{KEY}.gateway.allowedCidrs[0]",
        "198.51.100.7",
    ),
    (
        "gateway-range-twice",
        inference(enabled=True, gateway={"allowedCidrs": ["198.51.100.0/24", "198.51.100.0/24"]}),
        f"{KEY}.gateway.allowedCidrs[1]",
        "is already listed at gpukit:inference.gateway.allowedCidrs[0]",
    ),
    (
        "gateway-too-many-ranges",
        inference(enabled=True, gateway={"allowedCidrs": [f"198.51.100.{i}/32" for i in range(16)]}),
        f"{KEY}.gateway.allowedCidrs",
        "at most 15 ranges",
    ),
    (
        "gateway-ranges-as-text",
        inference(enabled=True, gateway={"allowedCidrs": "0.0.0.0/0"}),
        f"{KEY}.gateway.allowedCidrs",
        "got '0.0.0.0/0'",
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


def test_gke_refuses_an_external_gateway_class_it_cannot_hold_to_allowed_ranges(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # World-open without the explicit key: an external class would admit the internet, and gpukit has no
    # way yet to hold it to `allowedCidrs` on GKE.
    config = example_config("gke-dev")
    config[KEY] = {"enabled": True, "gateway": {"className": "gke-l7-global-external-managed"}}
    assert_refused(
        config,
        f"{KEY}.gateway.className",
        "'gke-l7-global-external-managed' is not built by gpukit yet: an external class needs a Cloud Armor",
        tmp_path,
        capsys,
    )


def test_gke_refuses_allowed_ranges_its_internal_class_cannot_honour(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = example_config("gke-dev")
    config[KEY] = {"enabled": True, "gateway": {"allowedCidrs": ["198.51.100.0/24"]}}
    assert_refused(
        config, f"{KEY}.gateway.allowedCidrs", "gke-l7-rilb admits the cluster's VPC", tmp_path, capsys
    )


def test_k3s_on_a_cloud_refuses_public_ranges_its_node_port_cannot_take(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = example_config("k3s-aws")
    config[KEY] = {"enabled": True, "gateway": {"allowedCidrs": ["10.9.0.0/16", "198.51.100.0/24"]}}
    fragment = "198.51.100.0/24 lie outside private address space, and on k3s on aws the Gateway answers"
    assert_refused(config, f"{KEY}.gateway.allowedCidrs", fragment, tmp_path, capsys)


def test_k3s_refuses_its_packaged_traefik_beside_the_gateways_crds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = example_config("k3s-aws")
    config["gpukit:cluster"]["traefik"] = True
    config[KEY] = {"enabled": True}
    fragment = "k3s's packaged Traefik installs the Gateway API CRDs itself"
    assert_refused(config, "gpukit:cluster.traefik", fragment, tmp_path, capsys)
