"""gpukit's provider-neutral components and their typed args.

    from gpukit.components import GpuCluster

    cluster = GpuCluster("ml", {"cluster": {...}, "node_pools": [...]})

GpuCluster takes the same keys as a stack file, in snake_case, with plain strings for enum values
("eks", "spot"), and refuses bad input with the same ConfigError lines. The components that import
Pulumi provider SDKs load on first use, so `import gpukit.components` stays cheap and a stack pays only
for the SDKs it uses.
"""

import importlib
from typing import TYPE_CHECKING, Any

from gpukit.components.errors import ConfigError, MissingExtraError, Problem
from gpukit.components.spec import (
    Autoscaler,
    BastionSpec,
    Capacity,
    ClusterSpec,
    DriverMode,
    GkeDriverVersion,
    GpuOperatorSpec,
    GpuSpec,
    HostSpec,
    NatGateways,
    NetworkSpec,
    NodeImage,
    NodePoolSpec,
    NodeRole,
    Platform,
    Provider,
    ReleaseChannel,
    VerificationSpec,
    WorkloadsSpec,
)

if TYPE_CHECKING:
    from gpukit.components.addons.gpu_operator.component import GpuOperator, GpuOperatorArgs
    from gpukit.components.addons.verification.component import GpuVerification, GpuVerificationArgs
    from gpukit.components.cluster import GpuCluster, GpuClusterArgs, PoolOutput
    from gpukit.components.handle import ClusterHandle
    from gpukit.components.k3s.cluster import K3sCluster, K3sClusterArgs, K3sHostArgs
    from gpukit.components.substrate import ResolvedCluster, Substrate, SubstrateRegistry

# Public name -> the module that defines it, imported when the name is first used.
_LAZY = {
    "GpuCluster": "gpukit.components.cluster",
    "GpuClusterArgs": "gpukit.components.cluster",
    "PoolOutput": "gpukit.components.cluster",
    "GpuOperator": "gpukit.components.addons.gpu_operator.component",
    "GpuOperatorArgs": "gpukit.components.addons.gpu_operator.component",
    "K3sCluster": "gpukit.components.k3s.cluster",
    "K3sClusterArgs": "gpukit.components.k3s.cluster",
    "K3sHostArgs": "gpukit.components.k3s.cluster",
    "ClusterHandle": "gpukit.components.handle",
    "ResolvedCluster": "gpukit.components.substrate",
    "Substrate": "gpukit.components.substrate",
    "SubstrateRegistry": "gpukit.components.substrate",
    "GpuVerification": "gpukit.components.addons.verification.component",
    "GpuVerificationArgs": "gpukit.components.addons.verification.component",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


__all__ = [
    "Autoscaler",
    "BastionSpec",
    "Capacity",
    "ClusterHandle",
    "ClusterSpec",
    "ConfigError",
    "DriverMode",
    "GkeDriverVersion",
    "GpuCluster",
    "GpuClusterArgs",
    "GpuOperator",
    "GpuOperatorArgs",
    "GpuOperatorSpec",
    "GpuSpec",
    "GpuVerification",
    "GpuVerificationArgs",
    "HostSpec",
    "K3sCluster",
    "K3sClusterArgs",
    "K3sHostArgs",
    "MissingExtraError",
    "NatGateways",
    "NetworkSpec",
    "NodeImage",
    "NodePoolSpec",
    "NodeRole",
    "Platform",
    "PoolOutput",
    "Problem",
    "Provider",
    "ReleaseChannel",
    "ResolvedCluster",
    "Substrate",
    "SubstrateRegistry",
    "VerificationSpec",
    "WorkloadsSpec",
]
