import contextlib
import functools
import io
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from gpukit.cli import main
from harness import ROOT, eks_config

GOLDEN = Path(__file__).parent / "golden"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true", help="rewrite tests/golden/* from the code")


@pytest.fixture
def config() -> dict:
    """A fresh valid EKS stack config to mutate."""
    return eks_config()


@pytest.fixture
def golden(request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    """golden(name, text): compare rendered text with tests/golden/<name> (or rewrite it)."""
    update = request.config.getoption("--update-golden")

    def check(name: str, text: str) -> None:
        path = GOLDEN / name
        if update:
            path.write_text(text)
            return
        assert path.exists(), f"missing golden file {path}; run pytest --update-golden and review the diff"
        assert text == path.read_text(), f"{name} differs from its golden file; review, then --update-golden"

    return check


@dataclass(frozen=True)
class PlannedStack:
    """`gpukit plan --stack NAME --out DIR` of an example stack: exit status, text report, out folder."""

    code: int
    report: str
    out: Path


@pytest.fixture(scope="session")
def planned_stack(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], PlannedStack]:
    """planned_stack(name): each example stack planned once per test session, shared by every test."""

    @functools.cache
    def plan(stack: str) -> PlannedStack:
        out = tmp_path_factory.mktemp(stack) / "out"
        report = io.StringIO()
        with contextlib.redirect_stdout(report):
            code = main(["plan", "--project", str(ROOT), "--stack", stack, "--out", str(out)])
        return PlannedStack(code, report.getvalue(), out)

    return plan
