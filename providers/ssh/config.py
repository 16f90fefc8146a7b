"""The config keys of k3s on existing hosts: no provider keys (no cloud), and the gpukit keys it takes.
Which gpukit keys are substrate-specific is the schema's (components/config/schema.py)."""

from gpukit.components.config.schema import K3S_KEYS

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
