"""What k3s on existing hosts costs beyond its machines: nothing gpukit could know. The hosts are the
user's own (no list price), and gpukit creates no cloud resources for them."""

from gpukit.components.pricing import Charge
from gpukit.components.substrate import ResolvedCluster


def ssh_charges(cluster: ResolvedCluster) -> list[Charge]:
    return []
