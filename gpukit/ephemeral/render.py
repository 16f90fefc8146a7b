"""`gpukit ephemeral list` as text and as JSON (pure functions of the listed stacks)."""

from datetime import datetime, timedelta
from typing import Any

from gpukit.components.ephemeral import format_expiry
from gpukit.ephemeral.guard import PlannedCost
from gpukit.ephemeral.lifecycle import EphemeralStack


def age_text(delta: timedelta) -> str:
    """`2h05m`, `3d4h`, `12m`: the age of a stack, coarse enough to read at a glance."""
    minutes = max(0, int(delta.total_seconds() // 60))
    days, rest = divmod(minutes, 24 * 60)
    hours, mins = divmod(rest, 60)
    if days:
        return f"{days}d{hours}h"
    return f"{hours}h{mins:02d}m" if hours else f"{mins}m"


def _usd(value: float, lower_bound: bool) -> str:
    return f"{'>=' if lower_bound else ''}${value:,.2f}"


def _costs(cost: PlannedCost | None) -> tuple[str, str]:
    if cost is None:
        return "-", "-"
    return _usd(cost.idle, cost.lower_bound), _usd(cost.at_max, cost.lower_bound)


def render_list(stacks: list[EphemeralStack], now: datetime) -> str:
    if not stacks:
        return "no ephemeral stacks\n"
    header = ("NAME", "FROM", "AGE", "EXPIRES (UTC)", "EXPIRED", "$/h IDLE", "$/h MAX")
    rows = [header]
    for s in stacks:
        idle, at_max = _costs(s.cost)
        rows.append(
            (
                s.name,
                s.source,
                age_text(now - s.created_at) if s.created_at else "?",
                format_expiry(s.expires_at) if s.expires_at else "none on record",
                "yes" if s.expired(now) else "no",
                idle,
                at_max,
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows]
    note = "$/h: list prices from the offline plan of each stack's config ('-': no local config to plan)"
    return "\n".join([*lines, "", note]) + "\n"


def list_document(stacks: list[EphemeralStack], now: datetime) -> list[dict[str, Any]]:
    return [
        {
            "name": s.name,
            "source": s.source,
            "createdAt": format_expiry(s.created_at) if s.created_at else None,
            "ageSeconds": int((now - s.created_at).total_seconds()) if s.created_at else None,
            "expiresAt": format_expiry(s.expires_at) if s.expires_at else None,
            "expired": s.expired(now),
            "hourlyCostIdle": s.cost.idle if s.cost else None,
            "hourlyCostMax": s.cost.at_max if s.cost else None,
            "costIsLowerBound": s.cost.lower_bound if s.cost else None,
        }
        for s in stacks
    ]
