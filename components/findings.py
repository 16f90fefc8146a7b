"""A preflight finding: what would go wrong although the config is well-formed, with its severity, config
key and, where there is one, its fix (components/preflight.py collects them)."""

from dataclasses import dataclass
from enum import Enum


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True)
class Finding:
    severity: Severity
    key: str
    message: str
    fix: str = ""
    """What clears it, where the remedy is clear: a config key to set, a value to change (plans print it
    under the finding)."""

    def __str__(self) -> str:
        return f"{self.severity.value}: {self.key}: {self.message}"
