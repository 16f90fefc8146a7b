"""Fixtures the component tests share."""

from collections.abc import Iterator

import pytest

from gpukit.components import SubstrateRegistry
from gpukit.components.substrate import use_registry
from tests.component.test_fake_substrate import FakeSubstrate


@pytest.fixture
def fake() -> Iterator[FakeSubstrate]:
    """The fake substrate (test_fake_substrate.py), alone in the registry for the test."""
    substrate = FakeSubstrate()
    previous = use_registry(SubstrateRegistry(substrate))
    try:
        yield substrate
    finally:
        use_registry(previous)
