"""Bad configs around `gpukit:cluster.autoscaler`: each is refused with exit 2, names the exact key to
edit, and builds nothing (checked like test_bad_configs.py: through `gpukit plan --config` and through
`gpukit.program.build` under the mock engine).

Karpenter cases start from harness.karpenter_eks_config() (a valid EKS config on the default autoscaler);
the key's refusal elsewhere starts from the GKE and k3s example stacks."""

from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from gpukit.cli import EXIT_INVALID, main
from gpukit.program import build
from harness import example_config, karpenter_eks_config, record
from tests.program.test_bad_configs import (
    CLUSTER,
    POOLS,
    Config,
    Mutation,
    assert_refused,
    broken,
    cluster_set,
    pool_set,
)

CASES: list[tuple[str, Callable[[], Config], Mutation, str, str]] = [
    (
        "karpenter-gpu-pool-with-a-floor",
        karpenter_eks_config,
        pool_set(1, minNodes=1),
        f"{POOLS}[1].minNodes",
        "Karpenter (the default autoscaler on EKS) keeps no minimum of nodes",
    ),
    (
        "karpenter-gpu-pool-floor-names-the-way-out",
        karpenter_eks_config,
        pool_set(1, minNodes=2),
        f"{POOLS}[1].minNodes",
        "or set gpukit:cluster.autoscaler: cluster-autoscaler (managed node groups); got 2",
    ),
    (
        "karpenter-system-pool-that-would-scale",
        karpenter_eks_config,
        pool_set(0, maxNodes=3),
        f"{POOLS}[0].maxNodes",
        "set maxNodes to minNodes (1)",
    ),
    (
        "karpenter-mixed-mig",
        karpenter_eks_config,
        pool_set(
            1,
            instanceType="p5.48xlarge",
            capacity="on-demand",
            zones=["usw2-az1"],
            sharing={"mode": "mig", "mig": {"profile": "1g.10gb", "strategy": "mixed"}},
        ),
        f"{POOLS}[1].sharing.mig.strategy",
        "a mixed-MIG pool could not scale from zero",
    ),
    (
        "autoscaler-unknown-value",
        karpenter_eks_config,
        cluster_set(autoscaler="keda"),
        f"{CLUSTER}.autoscaler",
        "keda",
    ),
    (
        "autoscaler-on-gke",
        lambda: example_config("gke-dev"),
        cluster_set(autoscaler="karpenter"),
        f"{CLUSTER}.autoscaler",
        "only for platform eks; this cluster is gke",
    ),
    (
        "autoscaler-on-k3s-aws",
        lambda: example_config("k3s-aws"),
        cluster_set(autoscaler="cluster-autoscaler"),
        f"{CLUSTER}.autoscaler",
        "only for platform eks",
    ),
]


@pytest.mark.parametrize("case", [pytest.param(case[1:], id=case[0]) for case in CASES])
def test_bad_autoscaler_config_is_refused(
    case: tuple[Callable[[], Config], Mutation, str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, mutation, key, fragment = case
    assert_refused(broken(base, mutation)(), key, fragment, tmp_path, capsys)


def test_the_karpenter_base_config_is_accepted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The cases fail because of their one change: the config they start from plans and builds."""
    path = tmp_path / "Pulumi.good.yaml"
    path.write_text(yaml.safe_dump({"config": karpenter_eks_config()}))
    code = main(["plan", "--config", str(path)])
    _, err = capsys.readouterr()
    assert code != EXIT_INVALID, err
    assert record(lambda: build(karpenter_eks_config())).resources


def test_a_gpu_pool_with_a_floor_is_fine_on_the_cluster_autoscaler(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = karpenter_eks_config()
    config[CLUSTER]["autoscaler"] = "cluster-autoscaler"
    config[POOLS][1]["minNodes"] = 2
    config[POOLS][0]["maxNodes"] = 3
    path = tmp_path / "Pulumi.floor.yaml"
    path.write_text(yaml.safe_dump({"config": config}))
    assert main(["plan", "--config", str(path)]) == 0, capsys.readouterr().err
