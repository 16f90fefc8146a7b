import contextlib
import functools
import io
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from gpukit.cli import main
from harness import ROOT, eks_config, sdk_probe_results, start_sdk_probes

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


# One example stack per substrate: which provider SDKs a plan imports depends on the substrate only.
SDK_PROBE_STACKS = ["eks-dev", "gke-dev", "k3s-aws", "k3s-gcp", "k3s-ssh"]
_sdk_probes: dict[str, "subprocess.Popen[str]"] = {}


@pytest.hookimpl(trylast=True)  # after -m and -k have deselected what will not run
def pytest_collection_modifyitems(session: pytest.Session, items: list[pytest.Item]) -> None:
    """Start the fresh-interpreter SDK probes as soon as a collected test needs them, so that they run
    on the other core while the rest of the suite does."""
    if any("sdk_imports" in getattr(item, "fixturenames", ()) for item in items):
        _sdk_probes.update(start_sdk_probes(SDK_PROBE_STACKS, Path(tempfile.gettempdir())))


def pytest_sessionfinish(session: pytest.Session) -> None:
    for process in _sdk_probes.values():  # probes no test waited for (a run stopped early)
        if process.poll() is None:
            process.kill()
        process.communicate()  # closes its pipes


@pytest.fixture(scope="session")
def sdk_imports() -> dict[str, list[str]]:
    """Cloud SDK imports after a plan in a fresh interpreter, per probed stack."""
    return sdk_probe_results(_sdk_probes)
