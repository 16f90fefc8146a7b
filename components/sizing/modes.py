"""Sharing modes and which isolation each gives."""

from enum import Enum

from gpukit.components.sizing.workloads import Isolation


class Mode(str, Enum):
    WHOLE_GPU = "none"
    """Whole GPUs: the `sharing: {mode: none}` of the planned config key."""
    TIME_SLICING = "time-slicing"
    MPS = "mps"
    MIG = "mig"


# What each mode isolates (issue 12 §5): time-slicing nothing; MPS memory (a per-client limit); MIG
# and whole GPUs hardware.
PROVIDES: dict[Mode, Isolation] = {
    Mode.TIME_SLICING: Isolation.NONE,
    Mode.MPS: Isolation.MEMORY,
    Mode.MIG: Isolation.HARDWARE,
    Mode.WHOLE_GPU: Isolation.HARDWARE,
}
_RANK = {Isolation.NONE: 0, Isolation.MEMORY: 1, Isolation.HARDWARE: 2}


def allows(mode: Mode, needed: Isolation) -> bool:
    return _RANK[PROVIDES[mode]] >= _RANK[needed]


def isolation_rank(mode: Mode) -> int:
    """Higher isolates more (whole GPUs above MIG at equal cost: no reconfiguration, no slicing)."""
    return _RANK[PROVIDES[mode]] * 2 + (1 if mode is Mode.WHOLE_GPU else 0)
