"""gpukit: Pulumi components that build GPU-ready Kubernetes clusters, and the `gpukit` command.

- gpukit.components: the provider-neutral components (GpuCluster, GpuOperator, K3sCluster) and their
  typed args;
- gpukit.providers: the substrates (EKS, GKE, k3s on EC2, Compute Engine or SSH hosts) and their registry;
- gpukit.plan: `gpukit plan`, and plan_program to plan one's own Pulumi program offline.

This module is the composition root: it hands the providers' registry to the components, which never
import providers themselves (components/substrate.py).
"""

from gpukit.components.substrate import use_registry
from gpukit.providers import REGISTRY

use_registry(REGISTRY)

__version__ = "0.1.0"
__all__ = ["__version__"]
