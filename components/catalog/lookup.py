"""Look-ups by name in catalog tables, with suggestions for mistyped names."""

import difflib
from collections.abc import Mapping
from typing import TypeVar

T = TypeVar("T")


def suggest(name: str, known: list[str], n: int = 3) -> list[str]:
    """Close matches for a mistyped catalog name: case-insensitive prefix matches first ("a100" ->
    A100-40GB, A100-80GB), then spelling neighbours ("g6.xlarg" -> g6.xlarge)."""
    lowered = name.lower()
    prefixed = [k for k in known if k.lower().startswith(lowered)] if lowered else []
    by_case = {k.lower(): k for k in known}
    close = [by_case[m] for m in difflib.get_close_matches(lowered, list(by_case), n=n, cutoff=0.6)]
    return list(dict.fromkeys(prefixed + close))[:n]


class UnknownNameError(KeyError):
    """A name no catalog table holds; `suggestions` are the closest names it does hold."""

    def __init__(self, name: str, known: list[str]) -> None:
        super().__init__(name)
        self.name = name
        self.suggestions = suggest(name, known)


def lookup(table: Mapping[str, T], name: str, error: type[UnknownNameError]) -> T:
    try:
        return table[name]
    except KeyError:
        raise error(name, list(table)) from None
