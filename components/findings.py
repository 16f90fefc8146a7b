"""A preflight finding: what would go wrong although the config is well-formed, with its severity and
config key (components/preflight.py collects them)."""

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

    def __str__(self) -> str:
        return f"{self.severity.value}: {self.key}: {self.message}"
