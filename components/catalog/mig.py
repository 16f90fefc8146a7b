"""MIG geometry: how each MIG profile divides a GPU, and which layouts fit one GPU.

A MIG-capable GPU has a number of compute slices (7 on A100/H100/H200/B200, 4 on RTX PRO 6000) and
memory slices (8, resp. 4). A GPU-instance profile `<N>g.<M>gb` takes N compute slices and a fixed run
of memory slices that may start only at given places ("placements"). Sources:

- Slice counts and the "<compute slices>g.<memory GB>gb" naming: NVIDIA MIG User Guide, "Concepts" and
  "MIG Device Names" (https://docs.nvidia.com/datacenter/tesla/mig-user-guide/mig-device-names.html):
  8 memory slices and 7 compute slices on A100; a profile's GB is its memory slices x (GPU GB / 8).
- Placements of the 7-compute-slice GPUs: the MIG User Guide, "Getting Started with MIG > List GPU
  Instance Profiles" (`nvidia-smi mig -lgipp`: profile 19 `1g.5gb` {0,1,2,3,4,5,6}:1, profile 15
  {0,2,4,6}:2, profile 14 `2g` {0,2,4}:2, profile 9 `3g` {0,4}:4, profile 5 `4g` {0}:4, profile 0
  `7g` {0}:8), and the same listing for H100 NVL in NVIDIA's technical blog on MIG with H100. H200 and
  B200 have the same six profiles with the same per-GPU maximum counts (7/4/3/2/1/1 in the GPU
  Operator's mig-parted config, tests/reference/gpu-operator-v26.7.0/mig-parted-default-config.yaml);
  NO source here lists their placements, so gpukit ASSUMES the A100/H100 placements for them.
- RTX PRO 6000 Blackwell: profiles 1g.24gb (4 per GPU), 2g.48gb (2), 4g.96gb (1) from the same
  mig-parted config; 4 instances at most (MIG User Guide, "Supported GPUs"). No source gives its
  placements: gpukit models it by slice counts only (compute <= 4, memory slices <= 4). With sizes
  1, 2 and 4 and naturally aligned starts (if that is how the GPU places them) both rules accept the
  same layouts, but that is not verified.

On the 7-slice GPUs these placements reject nothing that the slice sums and the per-profile maxima
accept (tests/unit/test_mig_geometry.py checks every layout), so the placement search is a guard for
geometries where that is not so, not a source of different answers today.

Not modelled: `+me`, `+gfx`, `-me` variants (media engines; gpukit's sizing never asks for them), and
compute instances smaller than their GPU instance (`1c.3g.20gb`): every profile here is one GPU
instance with one compute instance over all of its slices, as the mig-parted config creates them.
"""

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from itertools import product


@dataclass(frozen=True)
class MigProfile:
    name: str
    """As mig-parted and the device plugin write it: `1g.10gb` (resource `nvidia.com/mig-1g.10gb`)."""
    compute_slices: int
    memory_slices: int
    placements: tuple[int, ...] | None
    """Memory slices where an instance may start; None where no source gives them."""
    max_per_gpu: int
    """The `all-<profile>` count in the GPU Operator's mig-parted config."""

    @property
    def memory_gb(self) -> int:
        """The GB in the profile's name (what the profile is marketed as holding)."""
        return int(self.name.split(".", 1)[1].removesuffix("gb"))


@dataclass(frozen=True)
class MigGeometry:
    compute_slices: int
    memory_slices: int
    profiles: tuple[MigProfile, ...]

    def profile(self, name: str) -> MigProfile:
        for profile in self.profiles:
            if profile.name == name:
                return profile
        raise KeyError(name)


def seven_slice_geometry(  # noqa: PLR0917 (the six profiles, in slice order, read as one row)
    small: str, large_1g: str, two: str, three: str, four: str, seven: str
) -> MigGeometry:
    """A100 / H100 / H200 / B200 class: 7 compute and 8 memory slices, placements from `-lgipp`."""
    return MigGeometry(
        compute_slices=7,
        memory_slices=8,
        profiles=(
            MigProfile(small, 1, 1, (0, 1, 2, 3, 4, 5, 6), 7),
            MigProfile(large_1g, 1, 2, (0, 2, 4, 6), 4),
            MigProfile(two, 2, 2, (0, 2, 4), 3),
            MigProfile(three, 3, 4, (0, 4), 2),
            MigProfile(four, 4, 4, (0,), 1),
            MigProfile(seven, 7, 8, (0,), 1),
        ),
    )


RTX_PRO_6000_GEOMETRY = MigGeometry(
    compute_slices=4,
    memory_slices=4,
    profiles=(
        MigProfile("1g.24gb", 1, 1, None, 4),
        MigProfile("2g.48gb", 2, 2, None, 2),
        MigProfile("4g.96gb", 4, 4, None, 1),
    ),
)

# A30: 4 compute and 4 memory slices (MIG User Guide, "Supported MIG Profiles": 1g.6gb is 1/4 of the
# memory and SMs, 2g.12gb 2/4, 4g.24gb all); counts 4, 2, 1 there and in the mig-parted config. No
# placements are modelled (as for RTX PRO 6000: slice counts only).
A30_GEOMETRY = MigGeometry(
    compute_slices=4,
    memory_slices=4,
    profiles=(
        MigProfile("1g.6gb", 1, 1, None, 4),
        MigProfile("2g.12gb", 2, 2, None, 2),
        MigProfile("4g.24gb", 4, 4, None, 1),
    ),
)

Layout = Mapping[str, int]
"""Profile name -> instances of it on one GPU."""


def _placeable(geometry: MigGeometry, instances: list[MigProfile], used: int) -> bool:
    """Whether `instances` can take non-overlapping memory-slice runs at their allowed starts, given
    the slices already taken (`used`, a bit mask). Largest first keeps the search tiny (<= 7 items)."""
    if not instances:
        return True
    first, rest = instances[0], instances[1:]
    for start in first.placements or ():
        mask = ((1 << first.memory_slices) - 1) << start
        fits_here = start + first.memory_slices <= geometry.memory_slices and not used & mask
        if fits_here and _placeable(geometry, rest, used | mask):
            return True
    return False


def layout_fits(geometry: MigGeometry, layout: Layout) -> bool:
    """Whether one GPU can hold `layout`: known profiles, compute and memory slices within the GPU's,
    each profile within its per-GPU maximum, and (where placements are known) a placement for all."""
    if any(count < 0 for count in layout.values()):
        return False
    try:
        profiles = [geometry.profile(name) for name, count in layout.items() if count > 0]
    except KeyError:
        return False
    counts = {p.name: layout[p.name] for p in profiles}
    if sum(p.compute_slices * counts[p.name] for p in profiles) > geometry.compute_slices:
        return False
    if sum(p.memory_slices * counts[p.name] for p in profiles) > geometry.memory_slices:
        return False
    if any(counts[p.name] > p.max_per_gpu for p in profiles):
        return False
    if any(p.placements is None for p in profiles):
        return True  # slice counts only (see the module docstring)
    instances = sorted((p for p in profiles for _ in range(counts[p.name])), key=lambda p: -p.memory_slices)
    return _placeable(geometry, instances, 0)


def _all_layouts(geometry: MigGeometry) -> Iterator[dict[str, int]]:
    ranges = [range(p.max_per_gpu + 1) for p in geometry.profiles]
    for counts in product(*ranges):
        layout = {p.name: c for p, c in zip(geometry.profiles, counts, strict=True) if c}
        if layout and layout_fits(geometry, layout):
            yield layout


def maximal_layouts(geometry: MigGeometry) -> tuple[dict[str, int], ...]:
    """Every valid one-GPU layout to which no further instance of any profile can be added.

    Any valid layout is contained in one of these, so a search for the fewest GPUs needs only these.
    Exhaustive over the per-profile maxima (at most 8*5*4*3*2*2 candidates).
    """
    found = []
    for layout in _all_layouts(geometry):
        grown = ({**layout, p.name: layout.get(p.name, 0) + 1} for p in geometry.profiles)
        if not any(layout_fits(geometry, bigger) for bigger in grown):
            found.append(layout)
    return tuple(found)
