from pathlib import Path

import pytest

from harness import eks_config

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
