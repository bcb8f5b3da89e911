"""Fixtures shared by the prover's tests."""

import pytest

from tilespec.prover.core import cache


@pytest.fixture
def shipped_only(monkeypatch):
    """A fresh process with no disk cache: only the shipped proofs."""
    monkeypatch.setenv("TILESPEC_CACHE", "off")
    monkeypatch.delenv("TILESPEC_SHIPPED", raising=False)
    cache.clear_memory()
    yield
    cache.clear_memory()
