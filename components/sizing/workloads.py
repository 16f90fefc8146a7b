"""The workloads file of `gpukit size`: parsed and validated up front, every problem reported at once.

    workloads:
      - name: chat-7b
        gpuMemoryGb: 6          # > 0: the GPU memory one replica needs
        computeShare: 0.1       # (0, 1]: the fraction of one GPU's compute it needs (default 1)
        replicas: 10            # >= 1 (default 1)
        isolation: none         # none | memory | hardware (default none)

A bare list of the same entries is accepted too; keys are named `workloads[i].<key>` either way.
"""

import math
from dataclasses import dataclass
from enum import Enum
from typing import Any, TypeGuard

from gpukit.components.catalog.lookup import suggest
from gpukit.components.errors import ConfigError, Problem

MAX_REPLICAS = 10_000
"""A sanity bound: a typo (100000) should be refused, not sized."""


class Isolation(str, Enum):
    NONE = "none"
    """Sharing by time-slicing is acceptable (no memory or fault isolation)."""
    MEMORY = "memory"
    """Each replica needs a memory limit it cannot exceed: MPS, MIG or whole GPUs."""
    HARDWARE = "hardware"
    """Each replica needs its own hardware partition: MIG or whole GPUs."""


@dataclass(frozen=True)
class Workload:
    name: str
    gpu_memory_gb: float
    compute_share: float = 1.0
    replicas: int = 1
    isolation: Isolation = Isolation.NONE


KEYS = ("name", "gpuMemoryGb", "computeShare", "replicas", "isolation")


def _number(value: Any) -> TypeGuard[int | float]:
    """A finite int or float: YAML reads `.nan` and `.inf` as floats, and NaN passes every `<=` test."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _entry(raw: Any, key: str, seen: set[str], problems: list[Problem]) -> Workload | None:
    if not isinstance(raw, dict):
        problems.append(Problem(key, f"must be a mapping with keys {', '.join(KEYS)}; got {raw!r}"))
        return None
    before = len(problems)
    for unknown in (k for k in raw if k not in KEYS):
        close = suggest(str(unknown), list(KEYS))
        hint = f"did you mean {', '.join(close)}?" if close else f"known keys: {', '.join(KEYS)}"
        problems.append(Problem(f"{key}.{unknown}", f"unknown key; {hint}"))
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        problems.append(Problem(f"{key}.name", f"required: a non-empty string; got {name!r}"))
    elif name in seen:
        problems.append(
            Problem(f"{key}.name", f"{name!r} is used by an earlier workload; names must be unique")
        )
    else:
        seen.add(name)
    memory = raw.get("gpuMemoryGb")
    if not _number(memory) or memory <= 0:
        problems.append(Problem(f"{key}.gpuMemoryGb", f"required: a number of GB > 0; got {memory!r}"))
    share = raw.get("computeShare", 1)
    if not _number(share) or not 0 < share <= 1:
        problems.append(
            Problem(
                f"{key}.computeShare", f"must be a number in (0, 1], the fraction of one GPU; got {share!r}"
            )
        )
    replicas = raw.get("replicas", 1)
    if not isinstance(replicas, int) or isinstance(replicas, bool) or not 1 <= replicas <= MAX_REPLICAS:
        problems.append(
            Problem(f"{key}.replicas", f"must be a whole number 1..{MAX_REPLICAS}; got {replicas!r}")
        )
    isolation = raw.get("isolation", Isolation.NONE.value)
    allowed = [i.value for i in Isolation]
    if isolation not in allowed:
        problems.append(
            Problem(f"{key}.isolation", f"must be one of {', '.join(allowed)}; got {isolation!r}")
        )
    if len(problems) > before:
        return None
    assert _number(memory) and _number(share)  # checked above; tells the type checker
    return Workload(str(name), float(memory), float(share), int(replicas), Isolation(isolation))


def parse_workloads(doc: Any) -> list[Workload]:
    """The workloads of a parsed YAML document; raises ConfigError naming every bad key."""
    entries = doc.get("workloads") if isinstance(doc, dict) else doc
    if isinstance(doc, dict) and set(doc) - {"workloads"}:
        extra = ", ".join(sorted(str(k) for k in set(doc) - {"workloads"}))
        raise ConfigError([Problem(extra, "unknown top-level key; the file holds `workloads:` only")])
    if not isinstance(entries, list) or not entries:
        raise ConfigError(
            [Problem("workloads", f"must be a non-empty list of workloads; got {type(entries).__name__}")]
        )
    problems: list[Problem] = []
    seen: set[str] = set()
    workloads = [_entry(raw, f"workloads[{i}]", seen, problems) for i, raw in enumerate(entries)]
    if problems:
        raise ConfigError(problems)
    return [w for w in workloads if w is not None]
