"""The fractional lower bound: no packing of any kind uses fewer GPUs.

max(sum of memory / GPU memory, sum of compute shares): every replica's memory and compute must be
somewhere, and one GPU has its memory and a compute share of 1.
"""

from collections.abc import Sequence

from gpukit.components.sizing.replicas import Item


def lower_bound(items: Sequence[Item], gpu_memory_gb: float) -> float:
    return max(sum(i.memory_gb for i in items) / gpu_memory_gb, sum(i.compute for i in items))
