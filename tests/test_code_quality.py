"""Lint, format and type checks run with the suite, so CI enforces exactly what `make check` does."""

import subprocess
import sys
from pathlib import Path

import pytest

from harness import ROOT
from tools import shellcheck_problems

CHECKS = {
    "ruff-lint": [sys.executable, "-m", "ruff", "check", "."],
    "ruff-format": [sys.executable, "-m", "ruff", "format", "--check", "."],
    "mypy": [sys.executable, "-m", "mypy"],
}


@pytest.mark.quality
@pytest.mark.parametrize("name", sorted(CHECKS))
def test_code_quality(name: str) -> None:
    result = subprocess.run(CHECKS[name], cwd=ROOT, capture_output=True, text=True, check=False)
    assert result.returncode == 0, f"{name} failed:\n{result.stdout}\n{result.stderr}"


def test_ci_runs_exactly_the_readme_test_command() -> None:
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    commands = [line for line in ci.splitlines() if line and not line.startswith(("#", "set ", "cd "))]
    assert len(commands) == 1, "`.ci/run` runs one command: the README's test command"
    assert f"\n{commands[0]}\n" in readme


@pytest.mark.parametrize("path", sorted((ROOT / "scripts").glob("*.sh")), ids=lambda p: p.name)
def test_project_scripts_are_shellcheck_clean(path: Path) -> None:
    assert shellcheck_problems(path) == ""
