"""Bad `gpukit:batch` configs: each is refused with exit 2 naming the key, and builds nothing (the
cases run through test_bad_configs.assert_refused, as every other bad config does)."""

from pathlib import Path
from typing import Any

import pytest
from program.test_bad_configs import Config, Mutation, assert_refused, bad_config

from harness import example_config, karpenter_eks_config

KEY = "gpukit:batch"


def batch(**values: Any) -> Mutation:
    def mutate(config: Config) -> None:
        config[KEY] = {"enabled": True, **values}

    return mutate


def queue(**values: Any) -> dict[str, Any]:
    return {"name": "research", "namespaces": ["research"], **values}


def mig_pool(config: Config) -> None:
    config["gpukit:nodePools"].append(
        {
            "name": "h100",
            "instanceType": "p5.48xlarge",
            "minNodes": 0,
            "maxNodes": 1,
            "zones": ["usw2-az3"],
            "sharing": {"mode": "mig", "mig": {"layout": {"3g.40gb": 1, "1g.10gb": 4}, "strategy": "mixed"}},
        }
    )


def steps(*mutations: Mutation) -> Mutation:
    def mutate(config: Config) -> None:
        for m in mutations:
            m(config)

    return mutate


CASES: list[tuple[str, Mutation, str, str]] = [
    (
        "unknown-pool",
        batch(queues=[queue(quotas=[{"pool": "l44", "count": 2}])]),
        f"{KEY}.queues[0].quotas[0].pool",
        "must be a GPU pool of gpukit:nodePools (l4); got 'l44' (did you mean l4?)",
    ),
    (
        "cpu-pool",
        batch(queues=[queue(quotas=[{"pool": "system", "count": 2}])]),
        f"{KEY}.queues[0].quotas[0].pool",
        "must be a GPU pool",
    ),
    (
        "unknown-model",
        batch(queues=[queue(quotas=[{"gpuModel": "A100", "count": 2}])]),
        f"{KEY}.queues[0].quotas[0].gpuModel",
        "must be the GPU model of a pool (L4); got 'A100'",
    ),
    (
        "pool-and-model",
        batch(queues=[queue(quotas=[{"pool": "l4", "gpuModel": "L4", "count": 2}])]),
        f"{KEY}.queues[0].quotas[0]",
        "must name exactly one of `pool` and `gpuModel`",
    ),
    (
        "mig-unit-on-whole-gpu-pool",
        batch(queues=[queue(quotas=[{"pool": "l4", "resource": "nvidia.com/mig-1g.10gb", "count": 2}])]),
        f"{KEY}.queues[0].quotas[0].resource",
        "must be what pool 'l4' advertises to pods (nvidia.com/gpu",
    ),
    (
        "mixed-mig-needs-a-resource",
        steps(mig_pool, batch(queues=[queue(quotas=[{"pool": "h100", "count": 2}])])),
        f"{KEY}.queues[0].quotas[0].resource",
        "is required: pool 'h100' advertises nvidia.com/mig-1g.10gb, nvidia.com/mig-3g.40gb (mixed MIG)",
    ),
    (
        "duplicate-queue",
        batch(queues=[queue(), queue()]),
        f"{KEY}.queues[1].name",
        "must be unique; 'research' is used twice",
    ),
    (
        "bad-namespace",
        batch(queues=[queue(namespaces=["Research_Team"])]),
        f"{KEY}.queues[0].namespaces[0]",
        "an RFC 1123 label); got 'Research_Team'",
    ),
    (
        "system-namespace",
        batch(queues=[queue(namespaces=["kube-system"])]),
        f"{KEY}.queues[0].namespaces[0]",
        "must be a namespace of your own",
    ),
    (
        "gpukit-namespace",
        batch(queues=[queue(namespaces=["gpu-operator"])]),
        f"{KEY}.queues[0].namespaces[0]",
        "must be a namespace of your own",
    ),
    (
        "borrowing-without-cohort",
        batch(queues=[queue(quotas=[{"pool": "l4", "count": 2, "borrowingLimit": 2}])]),
        f"{KEY}.queues[0].quotas[0].borrowingLimit",
        "needs the queue's `cohort`",
    ),
    (
        "quoted-twice",
        batch(queues=[queue(quotas=[{"pool": "l4", "count": 2}, {"gpuModel": "L4", "count": 1}])]),
        f"{KEY}.queues[0].quotas[1]",
        "quotes nvidia.com/gpu on pool 'l4' again",
    ),
    (
        "unknown-priority-class",
        batch(queues=[queue(priorityClass="urgent")]),
        f"{KEY}.queues[0].priorityClass",
        "must name one of gpukit:batch.priorityClasses (none are defined); got 'urgent'",
    ),
    (
        "gang-timeout",
        batch(gangScheduling={"timeoutMinutes": 2}),
        f"{KEY}.gangScheduling.timeoutMinutes",
        "must be 5 to 1440 minutes",
    ),
    (
        "queues-without-enabled",
        lambda config: config.update({KEY: {"queues": [queue()]}}),
        f"{KEY}.queues",
        "takes effect only with `gpukit:batch.enabled: true`",
    ),
    (
        "topology-aware-without-enabled",
        lambda config: config.update({KEY: {"topologyAware": True}}),
        f"{KEY}.topologyAware",
        "takes effect only with `gpukit:batch.enabled: true`",
    ),
    (
        "no-queues",
        batch(queues=[]),
        f"{KEY}.queues",
        "must list at least one queue",
    ),
    (
        "queued-without-batch",
        lambda config: config["gpukit:nodePools"][1].update(provisioning="queued"),
        "gpukit:nodePools[1].provisioning",
        "`queued` needs `gpukit:batch.enabled: true`",
    ),
    (
        "queued-cpu-pool",
        steps(batch(), lambda config: config["gpukit:nodePools"][0].update(provisioning="queued")),
        "gpukit:nodePools[0].provisioning",
        "`queued` is for GPU pools",
    ),
    (
        "queued-misspelt",
        steps(batch(), lambda config: config["gpukit:nodePools"][1].update(provisioning="queue")),
        "gpukit:nodePools[1].provisioning",
        "got 'queue'",
    ),
    (
        "topology-aware-on-pending-pod-pools",
        batch(topologyAware=True),
        f"{KEY}.topologyAware",
        "pool 'l4' (gpukit:nodePools[1]) scales on pending pods (0..8 nodes)",
    ),
    (
        "misspelt-key",
        batch(queue=[queue()]),
        f"{KEY}.queue",
        "unknown key; did you mean 'queues'?",
    ),
]


@pytest.mark.parametrize(("mutation", "key", "fragment"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_batch_config_is_refused(
    mutation: Mutation, key: str, fragment: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert_refused(bad_config(mutation), key, fragment, tmp_path, capsys)


# Bases other than the EKS (Cluster Autoscaler) one: where no ProvisioningRequest can be had.
OTHER_BASES: list[tuple[str, Config, str, str]] = [
    (
        "queued-under-karpenter",
        karpenter_eks_config(),
        "gpukit:nodePools[1].provisioning",
        "`queued` is not possible here: Karpenter implements no ProvisioningRequest",
    ),
    (
        "queued-on-own-hosts",
        example_config("k3s-ssh"),
        "gpukit:nodePools[1].provisioning",
        "`queued` is not possible here: these hosts are all the capacity there is",
    ),
]


@pytest.mark.parametrize(
    ("config", "key", "fragment"), [c[1:] for c in OTHER_BASES], ids=[c[0] for c in OTHER_BASES]
)
def test_queued_provisioning_is_refused_where_nothing_provisions(
    config: Config, key: str, fragment: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config[KEY] = {"enabled": True}
    config["gpukit:nodePools"][1]["provisioning"] = "queued"
    assert_refused(config, key, fragment, tmp_path, capsys)
