"""Build every wanted add-on of a cluster, in the registry's order, after its substrate."""

from typing import TYPE_CHECKING, Any

from gpukit.components.addons import registry as addons
from gpukit.components.addons.base import BuildContext, Built, merge_values
from gpukit.components.pools import PoolFacts
from gpukit.components.substrate import ResolvedCluster

if TYPE_CHECKING:
    import pulumi

    from gpukit.components.handle import ClusterHandle


def build_addons(
    name: str, cluster: ResolvedCluster, handle: "ClusterHandle", parent: "pulumi.Resource"
) -> dict[str, Built]:
    """What each wanted add-on built, by name; each sees what the ones before it built."""
    built: dict[str, Built] = {}
    earlier: list[str] = []
    wanted = [a for a in addons.ADDONS if a.wanted(cluster)]
    asked: dict[str, dict[str, Any]] = {}
    for asking in wanted:
        for target, values in asking.asks(cluster).items():
            asked[target] = merge_values(asked.get(target, {}), values)
    for addon in addons.ADDONS:
        unknown = [n for n in addon.after if n not in earlier]
        if unknown:  # a misspelt name, or one listed after it, would wait for nothing: say so
            raise ValueError(f"add-on {addon.name!r} waits for {unknown}, which are no add-ons before it")
        earlier.append(addon.name)
        if addon in wanted:
            ctx = BuildContext(
                name, cluster, handle, parent, dict(built), addon.after, asked.get(addon.name, {})
            )
            built[addon.name] = addon.build(ctx)
    return built


def addon_pool_output(cluster: ResolvedCluster, pool: PoolFacts) -> dict[str, Any]:
    """Every add-on's keys of one pool's entry in the `pools` stack output, in the registry's order."""
    out: dict[str, Any] = {}
    for addon in addons.ADDONS:
        out.update(addon.pool_output(cluster, pool))
    return out
