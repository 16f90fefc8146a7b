"""Read `stacks/Pulumi.<name>.yaml` the way the Pulumi CLI hands config to a program, minus the CLI.

Encrypted (`secure:`) values cannot be decrypted without the stack's passphrase or KMS key, and a plan
must not need either: each becomes a secret placeholder, marked secret like the CLI marks it.
"""

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

PROJECT = "gpukit"
PLACEHOLDER_PREFIX = "gpukit-plan-secret-placeholder"


class StackFileError(Exception):
    """A stack file that cannot be read as YAML config (exit 2, like invalid config)."""


@dataclass
class LoadedStack:
    name: str
    path: Path
    config: dict[str, Any]
    """Full keys (`gpukit:cluster`, `aws:region`) to decoded YAML values."""
    secret_keys: list[str] = field(default_factory=list)


def find_project_root(start: Path) -> Path:
    """The nearest folder at or above `start` that holds Pulumi.yaml."""
    for folder in (start, *start.parents):
        if (folder / "Pulumi.yaml").is_file():
            return folder
    raise StackFileError(f"no Pulumi.yaml in {start} or any folder above it; run gpukit from the project")


def stack_file_path(project_root: Path, stack: str) -> Path:
    settings = yaml.safe_load((project_root / "Pulumi.yaml").read_text()) or {}
    config_dir = str(settings.get("stackConfigDir", "."))
    return project_root / config_dir / f"Pulumi.{stack}.yaml"


def _replace_secure(value: Any, counter: list[int]) -> tuple[Any, bool]:
    if isinstance(value, dict):
        if set(value) == {"secure"}:
            counter[0] += 1
            return f"{PLACEHOLDER_PREFIX}-{counter[0]}", True
        found = False
        out = {}
        for k, v in value.items():
            out[k], hit = _replace_secure(v, counter)
            found = found or hit
        return out, found
    if isinstance(value, list):
        items = [_replace_secure(v, counter) for v in value]
        return [v for v, _ in items], any(hit for _, hit in items)
    return value, False


def load_stack_file(path: Path, name: str | None = None) -> LoadedStack:
    try:
        doc = yaml.safe_load(path.read_text())
    except FileNotFoundError:
        raise StackFileError(f"stack file not found: {path}") from None
    except yaml.YAMLError as err:
        raise StackFileError(f"{path} is not valid YAML: {err}") from None
    if doc is None:
        doc = {}
    if not isinstance(doc, dict) or not isinstance(doc.get("config", {}), dict):
        raise StackFileError(f"{path}: expected a mapping with a 'config:' mapping")
    stack_name = name or path.name.removeprefix("Pulumi.").removesuffix(".yaml")
    config: dict[str, Any] = {}
    secret_keys: list[str] = []
    counter = [0]
    for key, value in (doc.get("config") or {}).items():
        full = key if ":" in str(key) else f"{PROJECT}:{key}"  # bare keys belong to the project
        config[full], secret = _replace_secure(value, counter)
        if secret:
            secret_keys.append(full)
    return LoadedStack(stack_name, path, config, secret_keys)
