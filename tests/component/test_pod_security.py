"""Pod Security on EKS and GKE: their API servers take no cluster-wide default, so the stack's level
goes on the `default` namespace as labels (k3s enforces it in its API server instead)."""

from typing import Any

import pytest

from gpukit.program import build
from harness import Recording, eks_config, example_config, record

PATCH = "kubernetes:core/v1:NamespacePatch"
BASELINE = {
    "pod-security.kubernetes.io/enforce": "baseline",
    "pod-security.kubernetes.io/audit": "restricted",
    "pod-security.kubernetes.io/warn": "restricted",
}


def _run(config: dict[str, Any]) -> Recording:
    return record(lambda: build(config))


@pytest.mark.parametrize("config", [eks_config(), example_config("gke-dev")], ids=["eks", "gke"])
def test_the_default_namespace_enforces_baseline_on_managed_platforms(config: dict[str, Any]) -> None:
    (patch,) = _run(config).of_type(PATCH)
    assert patch.inputs["metadata"] == {"name": "default", "labels": BASELINE}


def test_the_stacks_level_is_the_one_enforced() -> None:
    config = eks_config()
    config["gpukit:cluster"]["podSecurity"] = "restricted"
    (patch,) = _run(config).of_type(PATCH)
    assert patch.inputs["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "restricted"


def test_k3s_enforces_the_level_in_its_api_server_instead() -> None:
    assert _run(example_config("k3s-aws")).of_type(PATCH) == []
