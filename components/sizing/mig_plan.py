"""MIG: the fewest GPUs under one pool-wide MIG layout, exactly.

A pool applies one layout to every GPU (mig-parted's `devices: all`; the `sharing.mig.layout` key), and
every replica of a workload requests the same resource (`nvidia.com/mig-<profile>`: one pod template),
so a plan is a layout plus one profile per workload. A profile covers a replica when its memory GB (the
profile name's GB) >= the replica's gpuMemoryGb and its compute slices >= computeShare x the GPU's
compute slices (1g of 7 is 1/7 of the GPU). The GPUs a plan needs: max over profiles of
ceil(replicas on it / instances of it per GPU).

The search: for each of the model's maximal layouts (components/catalog/mig.py; any valid layout lies
inside one, and more instances never need more GPUs), the fewest GPUs for which the workloads can be
given covering profiles of the layout within its instances. A workload may take a bigger profile than
its smallest covering one when that saves GPUs (four 3g.40gb replicas and one 1g.10gb replica fit 3
H100s as {3g.40gb: 2}, but need 4 with a 1g.10gb in the layout). Per layout, Hall's condition gives the
fewest GPUs if replicas of one workload could take different profiles; a depth-first search over the
workloads (largest first, smallest profile first) finds a whole-workload assignment from there up
(binary search on the GPU count). It is exact while each search stays within SEARCH_STEPS; past that
(hundreds of workloads whose replica counts make a hard partition problem) it keeps the fewest GPUs
it found, never fewer than a real assignment needs.
"""

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from gpukit.components.catalog.mig import MigGeometry, MigProfile, maximal_layouts
from gpukit.components.sizing.replicas import EPSILON, Item

SEARCH_STEPS = 20_000
"""Depth-first steps per layout and GPU count before the search stops proving infeasibility."""


@dataclass(frozen=True)
class MigPlan:
    layout: dict[str, int]
    """Instances per GPU, every GPU alike."""
    gpus: int
    profiles: dict[str, str]
    """Workload name -> the profile its replicas request (`nvidia.com/mig-<profile>`)."""


@dataclass(frozen=True)
class _Workload:
    name: str
    replicas: int
    covering: tuple[str, ...]
    """Profiles that cover one replica, smallest first."""


def covers(geometry: MigGeometry, profile: MigProfile, item: Item) -> bool:
    slices = math.ceil(item.compute * geometry.compute_slices - EPSILON)
    return profile.memory_gb >= item.memory_gb and profile.compute_slices >= slices


def _size_order(profile: MigProfile) -> tuple[int, int]:
    return (profile.memory_slices, profile.compute_slices)


def smallest_profile(geometry: MigGeometry, item: Item) -> MigProfile | None:
    covering = [p for p in geometry.profiles if covers(geometry, p, item)]
    return min(covering, key=_size_order, default=None)


def gpus_for(layout: dict[str, int], needed: Counter[str]) -> int | None:
    """GPUs with `layout` each that hold `needed` instances; None where the layout lacks a profile."""
    if any(layout.get(name, 0) == 0 for name in needed):
        return None
    return max(-(-count // layout[name]) for name, count in needed.items())


def _workloads(items: Sequence[Item], geometry: MigGeometry) -> list[_Workload] | str:
    """The items grouped by workload (largest first), or why a replica fits no profile."""
    # Replicas of one workload are alike; the largest need decides if they are not.
    counts: Counter[str] = Counter()
    needs: dict[str, Item] = {}
    for item in items:
        counts[item.workload] += 1
        known = needs.get(item.workload)
        if known is None:
            needs[item.workload] = item
        elif item.memory_gb > known.memory_gb or item.compute > known.compute:
            memory, compute = max(known.memory_gb, item.memory_gb), max(known.compute, item.compute)
            needs[item.workload] = Item(item.workload, memory, compute)
    workloads = []
    for name, need in needs.items():
        covering = sorted((p for p in geometry.profiles if covers(geometry, p, need)), key=_size_order)
        if not covering:
            return f"{name}: no MIG profile covers {need.memory_gb:g} GB and compute {need.compute:g}"
        workloads.append(_Workload(name, counts[name], tuple(p.name for p in covering)))
    return sorted(workloads, key=lambda w: -w.replicas)


def _hall_bound(layout: dict[str, int], options: list[tuple[str, ...]], counts: list[int]) -> int:
    """The fewest GPUs if a workload's replicas could take different profiles (Hall's condition for
    the assignment: every set of profiles holds the replicas that can go nowhere else)."""
    names = sorted(layout)
    bound = 1
    for size in range(1, len(names) + 1):
        for subset in combinations(names, size):
            within = set(subset)
            demand = sum(c for o, c in zip(options, counts, strict=True) if set(o) <= within)
            if demand:
                bound = max(bound, -(-demand // sum(layout[p] for p in subset)))
    return bound


def _assign(
    layout: dict[str, int], workloads: list[_Workload], options: list[tuple[str, ...]], gpus: int
) -> dict[str, str] | None:
    """A covering profile of `layout` per workload within `gpus` GPUs' instances (None: none found).

    Each step also checks Hall's condition on the workloads still to place (every set of profiles has
    room for those that can go nowhere else), which cuts most dead ends at once."""
    names = sorted(layout)
    bit = {name: 1 << i for i, name in enumerate(names)}
    masks = [sum(bit[p] for p in o) for o in options]
    subsets = range(1, 1 << len(names))
    # demand[i][t]: replicas of workloads i.. whose profiles all lie in the set t.
    demand = [[0] * (1 << len(names)) for _ in range(len(workloads) + 1)]
    for i in reversed(range(len(workloads))):
        for t in subsets:
            inside = workloads[i].replicas if masks[i] & ~t == 0 else 0
            demand[i][t] = demand[i + 1][t] + inside
    room = [gpus * layout[name] for name in names]
    chosen: list[str] = []
    failed: set[tuple[int, tuple[int, ...]]] = set()
    steps = 0

    def hopeless(index: int) -> bool:
        return any(demand[index][t] > sum(r for j, r in enumerate(room) if t >> j & 1) for t in subsets)

    def search(index: int) -> bool:
        nonlocal steps
        if index == len(workloads):
            return True
        state = (index, tuple(room))
        if state in failed or steps >= SEARCH_STEPS or hopeless(index):
            return False
        steps += 1
        replicas = workloads[index].replicas
        for profile in options[index]:
            j = names.index(profile)
            if room[j] >= replicas:
                room[j] -= replicas
                chosen.append(profile)
                if search(index + 1):
                    return True
                chosen.pop()
                room[j] += replicas
        failed.add(state)
        return False

    if not search(0):
        return None
    return {w.name: p for w, p in zip(workloads, chosen, strict=True)}


def _fewest_gpus(layout: dict[str, int], workloads: list[_Workload]) -> tuple[int, dict[str, str]] | None:
    options = [tuple(p for p in w.covering if layout.get(p, 0)) for w in workloads]
    if any(not o for o in options):
        return None
    # Every workload on its smallest profile in the layout: always an answer, the search's upper end.
    smallest = {w.name: o[0] for w, o in zip(workloads, options, strict=True)}
    needed: Counter[str] = Counter()
    for w in workloads:
        needed[smallest[w.name]] += w.replicas
    high = gpus_for(layout, needed)
    assert high is not None
    best = (high, smallest)
    low = _hall_bound(layout, options, [w.replicas for w in workloads])
    while low < best[0]:
        middle = (low + best[0]) // 2
        found = _assign(layout, workloads, options, middle)
        if found is None:
            low = middle + 1
        else:
            best = (middle, found)
    return best


def mig(items: Sequence[Item], geometry: MigGeometry) -> MigPlan | str:
    """The plan, or why MIG cannot run these items (a replica no profile covers)."""
    workloads = _workloads(items, geometry)
    if isinstance(workloads, str):
        return workloads
    # Fewest GPUs; among equals, the layout with the most instances of the profiles the plan uses (the
    # least capacity in profiles nothing requests), then the first in the catalog's order.
    best: tuple[tuple[int, int], dict[str, int], dict[str, str]] | None = None
    for layout in maximal_layouts(geometry):
        found = _fewest_gpus(layout, workloads)
        if found is None:
            continue
        gpus, profiles = found
        key = (gpus, -sum(layout[p] for p in set(profiles.values())))
        if best is None or key < best[0]:
            best = (key, layout, profiles)
    if best is None:  # unreachable while the model's whole-GPU profile is among its layouts
        return "no one-GPU MIG layout holds every workload's profile; size them as separate pools"
    (gpus, _), layout, profiles = best
    in_input_order = dict.fromkeys(item.workload for item in items)
    return MigPlan(layout, gpus, {name: profiles[name] for name in in_input_order})
