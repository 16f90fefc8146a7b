"""Configuration problems: collected, then raised once so a user fixes everything in one pass."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    key: str
    """The stack config key, e.g. `gpukit:nodePools[1].minNodes`."""
    message: str
    """What is wrong: the allowed values and what was given."""

    def __str__(self) -> str:
        return f"{self.key}: {self.message}"


class ConfigError(Exception):
    """Invalid configuration. `str()` is one line per problem, ready to print without a traceback."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


class MissingExtraError(Exception):
    """A substrate's cloud SDK is not installed: `str()` is one line naming the gpukit extra to install."""
