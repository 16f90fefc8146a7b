"""The stack snippet for a recommended option: the pool with its `sharing` key, as the config
contract takes it (components/config/schema.py). Which settings a substrate takes (GKE: no mixed MIG)
is `gpukit plan`'s to check, and the snippet's comment says to run it.
"""

from typing import Any

import yaml

from gpukit.components.pools import advertised_resources
from gpukit.components.sharing import pool_sharing
from gpukit.components.sizing.modes import Mode
from gpukit.components.sizing.sizing import Option

DEFAULT_QUEUE = "gpus"
"""As the batch add-on's default queue (not `default`: Kueue puts every unlabelled job of a namespace into
its LocalQueue of that name)."""

SNIPPET_NOTE = (
    "# merge into the pool in your stack, then run `gpukit plan` (it checks what the platform takes)"
)


BATCH_NOTE = "# with queued batch jobs (docs/batch.md): a queue that may use the whole pool"


def sharing_setting(option: Option) -> dict[str, Any]:
    if option.mode is Mode.WHOLE_GPU:
        return {"mode": Mode.WHOLE_GPU.value}
    if option.mode is Mode.MIG:
        layout = dict(option.mig_layout or {})
        if len(layout) == 1:  # one profile on every GPU: pods request nvidia.com/gpu
            return {"mode": "mig", "mig": {"strategy": "single", "profile": next(iter(layout))}}
        return {"mode": "mig", "mig": {"strategy": "mixed", "layout": layout}}
    return {"mode": option.mode.value, "replicas": option.replicas_per_gpu}


def batch_quotas(option: Option, pool: str) -> list[dict[str, Any]]:
    """`gpukit:batch` quotas for the pool, its whole capacity at the option's nodes, in the units its
    pods request (the same function decides what a pool advertises and what queues count)."""
    sharing = pool_sharing(sharing_setting(option), option.target.gpu)  # type: ignore[arg-type]
    offered = advertised_resources(sharing, option.target.gpus_per_node)
    named = len(offered) > 1  # mixed MIG: each quota names its resource
    return [
        {"pool": pool, **({"resource": resource} if named else {}), "count": units * option.nodes}
        for resource, units in offered.items()
    ]


def stack_snippet(option: Option) -> str:
    name = option.target.pool or f"{option.target.gpu.name.lower()}-shared"
    pool = {
        "name": name,
        "instanceType": option.target.machine,
        "maxNodes": option.nodes,
        "sharing": sharing_setting(option),
    }
    body = yaml.safe_dump({"gpukit:nodePools": [pool]}, sort_keys=False, default_flow_style=False)
    batch = {
        "enabled": True,
        "queues": [{"name": DEFAULT_QUEUE, "namespaces": ["default"], "quotas": batch_quotas(option, name)}],
    }
    queue = yaml.safe_dump({"gpukit:batch": batch}, sort_keys=False, default_flow_style=False)
    return f"{SNIPPET_NOTE}\n{body}{BATCH_NOTE}\n{queue}"
