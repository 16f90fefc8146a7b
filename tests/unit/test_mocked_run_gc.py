"""A mocked run keeps the cyclic collector off what outlives it (gpukit/plan/engine.py), and leaves the
collector as it found it."""

import gc
from collections.abc import Iterator

import pulumi
import pytest

from harness import record


@pytest.fixture
def nothing_frozen() -> Iterator[None]:
    assert gc.get_freeze_count() == 0
    yield
    gc.unfreeze()


def test_a_run_freezes_what_exists_and_unfreezes_it_after(nothing_frozen: None) -> None:
    seen: list[int] = []
    callbacks = list(gc.callbacks)

    def program() -> None:
        seen.append(gc.get_freeze_count())
        pulumi.export("answer", 42)

    record(program)
    assert seen and seen[0] > 0, "the objects loaded before the run are frozen while it runs"
    assert gc.get_freeze_count() == 0
    assert gc.callbacks == callbacks


def test_a_run_that_fails_unfreezes_too(nothing_frozen: None) -> None:
    def program() -> None:
        raise RuntimeError("broken program")

    with pytest.raises(RuntimeError, match="broken program"):
        record(program)
    assert gc.get_freeze_count() == 0


def test_objects_frozen_before_a_run_stay_frozen(nothing_frozen: None) -> None:
    gc.freeze()  # as a process does before it forks workers
    frozen = gc.get_freeze_count()
    record(lambda: pulumi.export("answer", 42))
    # Neither unfrozen (0) nor frozen more (the run's objects): a few frozen ones were freed since.
    assert 0 < gc.get_freeze_count() <= frozen
