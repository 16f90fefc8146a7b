"""The targets `gpukit size` sizes on: a stack's GPU pools, or a default set from the AWS catalog."""

from collections.abc import Collection, Mapping
from typing import Any

from gpukit.components.catalog.gpus import GPU_MODELS
from gpukit.components.resolve.config import resolve_config
from gpukit.components.sizing.target import Target
from gpukit.providers.aws.catalog import AWS_CATALOG


def stack_targets(config: Mapping[str, Any], secret_keys: Collection[str] = ()) -> list[Target]:
    """Each GPU pool of a stack, resolved as `gpukit plan` resolves it (ConfigError where invalid):
    its GPU model, GPUs per node and the machine's list price from the substrate's catalog."""
    cluster = resolve_config(config, secret_keys)
    region = cluster.spec.get("region", "")
    targets = []
    for pool in cluster.gpu_pools:
        gpu = pool.gpu
        if gpu is None:
            continue
        quote = cluster.substrate.catalog.quote(pool.instance, region)  # the stack's region's price
        targets.append(
            Target(
                gpu=gpu,
                machine=pool.instance.name,
                gpus_per_node=pool.gpus_per_node,
                price_per_hour=quote.per_node,
                price_note=quote.note,
                pool=pool.name,
            )
        )
    return targets


def default_targets() -> list[Target]:
    """Without a stack: every GPU model AWS sells, each on its cheapest machine by on-demand list price
    (providers/aws/catalog.py, us-east-1; models without a price on their fewest-GPU machine)."""
    targets = []
    for model in GPU_MODELS.values():
        machines = [m for m in AWS_CATALOG.machines.values() if m.gpu_model == model.name]
        if not machines:
            continue
        cheapest = min(
            machines, key=lambda m: (m.price_per_hour is None, m.price_per_hour or 0.0, m.gpu_count, m.name)
        )
        targets.append(
            Target(
                gpu=model,
                machine=cheapest.name,
                gpus_per_node=cheapest.gpu_count,
                price_per_hour=cheapest.price_per_hour,
                price_note=cheapest.price_note,
            )
        )
    return targets


DEFAULT_TARGETS_NOTE = (
    "no stack given: every GPU model in the AWS catalog on its cheapest machine "
    f"(on-demand list prices, {AWS_CATALOG.price_basis.region}, {AWS_CATALOG.price_basis.as_of})"
)
