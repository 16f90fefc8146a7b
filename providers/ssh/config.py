"""The config keys of k3s on existing hosts: no provider keys (no cloud), and the gpukit keys it takes.
Which gpukit keys are substrate-specific is the schema's (components/config/schema.py)."""

from collections.abc import Mapping
from typing import TYPE_CHECKING, cast

from gpukit.components.config.schema import K3S_KEYS
from gpukit.components.substrate import ResolvedCluster

if TYPE_CHECKING:
    import pulumi

K3S_SSH_KEYS = K3S_KEYS | {
    "cluster.apiAddress",
    "cluster.insecureIgnoreHostKeys",
    "nodePools.hosts",
    "nodePools.gpu.memoryGb",
    "nodePools.gpu.architecture",
    "nodePools.gpu.computeCapability",
    "sshPrivateKey",
}
REQUIRED_KEYS: frozenset[str] = frozenset()
"""Hosts and the SSH key are checked by providers/ssh/validation.py, with messages of their own."""


def ssh_private_key(cluster: ResolvedCluster) -> "pulumi.Input[str]":
    """The key gpukit logs in to the hosts with (validation requires it here), as the stack or the
    library caller gave it: a secret config value, or a secret Output. ClusterConfig leaves it out (its
    module imports no Pulumi); GpuClusterArgs types it as a `pulumi.Input`."""
    return cast("Mapping[str, pulumi.Input[str]]", cluster.args)["ssh_private_key"]
