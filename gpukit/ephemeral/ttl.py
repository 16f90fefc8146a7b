"""`--ttl 4h`: how long an ephemeral stack lives, and when it expires."""

import re
from datetime import datetime, timedelta

TTL = re.compile(r"(\d+)([mhd])")
UNITS = {"m": "minutes", "h": "hours", "d": "days"}
MIN_TTL = timedelta(minutes=30)
"""A cluster takes 10-20 minutes to come up (an EKS control plane alone averages about 15,
aws/containers-roadmap#1227): with a shorter ttl it could expire while `up` still runs, and a scheduled
`reap` would destroy it under the test using it. 30 minutes is an engineering choice above that."""
MAX_TTL = timedelta(days=7)
"""A throwaway cluster that lives longer is not throwaway; a stack that must is an ordinary stack."""


class TtlError(ValueError):
    pass


def parse_ttl(text: str) -> timedelta:
    """`90m`, `4h`, `2d` -> the timedelta; TtlError naming the form and the bounds otherwise."""
    match = TTL.fullmatch(text)
    if match is None:
        raise TtlError(f"--ttl must be a whole number of minutes, hours or days (90m, 4h, 2d); got {text!r}")
    ttl = timedelta(**{UNITS[match.group(2)]: int(match.group(1))})
    if not MIN_TTL <= ttl <= MAX_TTL:
        raise TtlError(f"--ttl must be between {_minutes(MIN_TTL)}m and 7d; got {text!r}")
    return ttl


def expires(now: datetime, ttl: timedelta) -> datetime:
    """The expiry, to the whole second (the config key holds whole seconds)."""
    return (now + ttl).replace(microsecond=0)


def _minutes(ttl: timedelta) -> int:
    return int(ttl.total_seconds() // 60)
