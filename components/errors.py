"""Configuration problems: collected, then raised once so a user fixes everything in one pass.

Problems quote what the stack gave, and a stack may come from anyone (a pull request, a CI job's
copy): `printable` is the one sanitiser every problem passes through on its way to a terminal
(`str(Problem)`, hence ConfigError and `pulumi up`; the CLI's report_error), so text in a config can
neither drive the terminal (an OSC 52 escape writes the clipboard of whoever plans the stack) nor
bring a line of its own.
"""

import re
from dataclasses import dataclass

# C0 controls (newline, tab, ESC, BEL among them), DEL, C1 controls (0x9b is a one-byte CSI), and the
# characters that reorder or break the text around them as displayed: the Arabic letter mark, LRM/RLM,
# the line and paragraph separators, the bidi embeddings and overrides (U+202A-U+202E) and isolates
# (U+2066-U+2069), with which `'a' is fine` can display as something else (CVE-2021-42574).
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")


def _escape(match: re.Match[str]) -> str:
    return match.group().encode("unicode_escape").decode("ascii")


def printable(text: str) -> str:
    """`text` with every control, line-breaking and bidi character written as its escape (`\\x1b`,
    `\\n`, `\\u202e`, as Python's repr writes it): one line, shown as it is stored."""
    return _UNPRINTABLE.sub(_escape, text)


def problem_line(key: str, message: str) -> str:
    """One problem as a line of text, `<key>: <message>` (the message alone where there is no key)."""
    return f"{printable(key)}: {printable(message)}" if key else printable(message)


@dataclass(frozen=True)
class Problem:
    key: str
    """The stack config key, e.g. `gpukit:nodePools[1].minNodes`."""
    message: str
    """What is wrong: the allowed values and what was given."""

    def __str__(self) -> str:
        return problem_line(self.key, self.message)


class ConfigError(Exception):
    """Invalid configuration. `str()` is one line per problem, ready to print without a traceback."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


class MissingExtraError(Exception):
    """A substrate's cloud SDK is not installed: `str()` is one line naming the gpukit extra to install."""
