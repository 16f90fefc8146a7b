"""MIG: the fewest GPUs under one pool-wide MIG layout, exactly.

Each replica takes the smallest profile that covers it: memory GB (the profile name's GB) >= its
gpuMemoryGb, and compute slices >= its computeShare x the GPU's compute slices (1g of 7 is 1/7 of the
GPU). "Smallest" is fewest memory slices, then fewest compute slices. A pool applies one layout to
every GPU (mig-parted's `devices: all`; the planned `sharing.mig.layout` key), so the fewest GPUs is
the minimum, over the model's maximal layouts (components/catalog/mig.py), of the GPUs each needs:
max over profiles of ceil(instances needed / instances per GPU). Exhaustive, hence exact for that
assignment of profiles; a replica is never moved to a bigger profile to fit a better layout.
"""

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from gpukit.components.catalog.mig import MigGeometry, MigProfile, maximal_layouts
from gpukit.components.sizing.replicas import EPSILON, Item


@dataclass(frozen=True)
class MigPlan:
    layout: dict[str, int]
    """Instances per GPU, every GPU alike."""
    gpus: int
    profiles: dict[str, str]
    """Workload name -> the profile its replicas request (`nvidia.com/mig-<profile>`)."""


def smallest_profile(geometry: MigGeometry, item: Item) -> MigProfile | None:
    slices = math.ceil(item.compute * geometry.compute_slices - EPSILON)
    covering = [p for p in geometry.profiles if p.memory_gb >= item.memory_gb and p.compute_slices >= slices]
    return min(covering, key=lambda p: (p.memory_slices, p.compute_slices), default=None)


def gpus_for(layout: dict[str, int], needed: Counter[str]) -> int | None:
    """GPUs with `layout` each that hold `needed` instances; None where the layout lacks a profile."""
    if any(layout.get(name, 0) == 0 for name in needed):
        return None
    return max(-(-count // layout[name]) for name, count in needed.items())


def mig(items: Sequence[Item], geometry: MigGeometry) -> MigPlan | str:
    """The plan, or why MIG cannot run these items (a replica no profile covers)."""
    profiles: dict[str, str] = {}
    needed: Counter[str] = Counter()
    for item in items:
        profile = smallest_profile(geometry, item)
        if profile is None:
            return (
                f"{item.workload}: no MIG profile covers {item.memory_gb:g} GB and compute {item.compute:g}"
            )
        profiles[item.workload] = profile.name
        needed[profile.name] += 1
    # Fewest GPUs; among equals, the layout with the most instances of the needed profiles (the least
    # capacity in profiles nothing requests), then the first in the catalog's order.
    best: tuple[tuple[int, int], dict[str, int]] | None = None
    for layout in maximal_layouts(geometry):
        gpus = gpus_for(layout, needed)
        if gpus is None:
            continue
        key = (gpus, -sum(layout.get(name, 0) for name in needed))
        if best is None or key < best[0]:
            best = (key, layout)
    if best is None:  # e.g. one replica needs 7g.80gb and another 1g.10gb: no one GPU holds both
        return f"no one-GPU MIG layout holds all of {', '.join(sorted(needed))}; size them as separate pools"
    return MigPlan(best[1], best[0][0], profiles)
