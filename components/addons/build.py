"""Build every wanted add-on of a cluster, in the registry's order, after its substrate."""

from typing import TYPE_CHECKING

from gpukit.components.addons import registry as addons
from gpukit.components.addons.base import BuildContext, Built
from gpukit.components.substrate import ResolvedCluster

if TYPE_CHECKING:
    import pulumi

    from gpukit.components.handle import ClusterHandle


def build_addons(
    name: str, cluster: ResolvedCluster, handle: "ClusterHandle", parent: "pulumi.Resource"
) -> dict[str, Built]:
    """What each wanted add-on built, by name; each sees what the ones before it built."""
    built: dict[str, Built] = {}
    for addon in addons.ADDONS:
        if addon.wanted(cluster):
            built[addon.name] = addon.build(BuildContext(name, cluster, handle, parent, dict(built)))
    return built
