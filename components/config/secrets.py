"""Config errors never print a secret value: the SSH private key, or any value a stack gives as
`secure:` (which the Pulumi CLI hands the program decrypted, marking its whole top-level key secret).

Messages name the key and say what was expected; most also echo what was given (`got 'x'`), which is
what a user needs for plain values. Rather than trust every check to know which keys may hold secrets,
`redact` rewrites every problem's message once, at the end of resolve_config, so no check can leak one.
"""

from collections.abc import Collection, Iterator, Mapping
from typing import Any

from gpukit.components.config.schema import SSH_KEY
from gpukit.components.errors import Problem

SECRET = "a secret string"
# A secret shorter than this is replaced only where a message quotes it ('...'): replacing every bare
# occurrence of, say, "1" would garble the message (`hosts[1]`) and still tell nothing away.
_BARE_MIN = 6


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


def secret_values(config: Mapping[str, Any], secret_keys: Collection[str]) -> set[str]:
    """Every string under a secret key, and the SSH key's value even in plain text (it is a private
    key wherever it was written)."""
    found = {s for key in secret_keys for s in _strings(config.get(key))}
    found |= set(_strings(config.get(SSH_KEY)))
    return {s for s in found if s}


def redact(problems: list[Problem], secrets: set[str]) -> list[Problem]:
    """`problems` with every secret value in their messages replaced by SECRET."""
    if not secrets:
        return problems
    # Longest first, so that a secret containing another is replaced whole.
    ordered = sorted(secrets, key=len, reverse=True)
    out = []
    for problem in problems:
        message = problem.message
        for secret in ordered:
            message = message.replace(repr(secret), SECRET)
            if len(secret) >= _BARE_MIN:
                message = message.replace(secret, SECRET)
        out.append(problem if message == problem.message else Problem(problem.key, message))
    return out
