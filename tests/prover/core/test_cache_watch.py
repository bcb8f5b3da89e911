"""The fingerprint's watch (prover/core/cache.py): a warm check costs a few
version tags, and every way of changing the code that runs is still seen."""

from __future__ import annotations

import sys
import types

import pytest

from tilespec.prover.core import cache
from tilespec.prover.properties import instances
from tilespec.prover.properties.proof import prove
from tilespec.spec import index
from tilespec.spec.index import Split
from tilespec.spec.text import parse_array_shape as shape

TAGS = sys.implementation.name == "cpython" and (3, 11) <= sys.version_info[:2] <= (3, 13)


def _module(source: str) -> types.ModuleType:
    """A module of its own, so that changing it disturbs no other test."""
    module = types.ModuleType("watched")
    exec(source, vars(module))
    return module


@pytest.mark.skipif(not TAGS, reason="dict version tags are read on CPython 3.11-3.13")
def test_dict_version_tags_are_read_on_this_interpreter():
    # else every warm check would compare every entry: correct, but slow
    assert cache._version_offset() is not None


@pytest.mark.skipif(not TAGS, reason="dict version tags are read on CPython 3.11-3.13")
def test_a_warm_cited_proof_compares_no_entry(monkeypatch):
    s = shape("f32[3,5]")
    assert prove(s, "in_bounds").proved and prove(s, "in_bounds").proved

    def walked(self):
        raise AssertionError("the warm check walked the definitions again")
    monkeypatch.setattr(cache._Watch, "_walk", walked)
    assert prove(s, "in_bounds").proved and prove(s, "injective").proved


def test_a_method_replaced_on_its_class_after_a_warm_proof_stops_the_citation(monkeypatch):
    s = shape("f32[4,4]{1,0:T(2,2)}")
    assert prove(s, "injective").proved and prove(s, "injective").proved

    def forward(self, e, d, ar):
        k = len(self.sizes)
        out = list(e[:len(e) - k])
        for x, t in zip(e[len(e) - k:], self.sizes):
            out += [ar.floordiv(x, t), ar.floordiv(x, t)]
        return tuple(out)
    monkeypatch.setattr(Split, "forward", forward)
    assert prove(s, "injective").status == "refuted"
    monkeypatch.undo()
    assert prove(s, "injective").proved


def test_a_module_entry_written_into_its_dict_changes_the_fingerprint():
    before = instances.fingerprint()
    assert instances.fingerprint() == before
    original = vars(index)["product"]
    vars(index)["product"] = lambda values, ar=index.INT: 1     # no setattr, no audit
    try:
        assert instances.fingerprint() != before
    finally:
        vars(index)["product"] = original
    assert instances.fingerprint() == before


def test_a_function_given_other_code_changes_the_fingerprint():
    m = _module("def f(x):\n    return x + 1\n\ndef g(x):\n    return x - 1\n")
    before = cache.fingerprint((m,))
    assert cache.fingerprint((m,)) == before
    original, m.f.__code__ = m.f.__code__, m.g.__code__
    assert cache.fingerprint((m,)) != before
    m.f.__code__ = original
    assert cache.fingerprint((m,)) == before


def test_a_class_given_other_bases_changes_the_fingerprint():
    m = _module("class A:\n    def f(self):\n        return 1\n\n"
                "class B:\n    def f(self):\n        return 2\n\n"
                "class C(A):\n    pass\n")
    before = cache.fingerprint((m.C,))
    assert cache.fingerprint((m.C,)) == before
    m.C.__bases__ = (m.B,)
    assert cache.fingerprint((m.C,)) != before
    m.C.__bases__ = (m.A,)
    assert cache.fingerprint((m.C,)) == before


def test_a_wrapper_given_another_function_changes_the_fingerprint():
    m = _module("import functools\n\n@functools.lru_cache\ndef f(x):\n    return x + 1\n\n"
                "def g(x):\n    return x - 1\n")
    before = cache.fingerprint((m,))
    assert cache.fingerprint((m,)) == before
    original, m.f.__wrapped__ = m.f.__wrapped__, m.g
    assert cache.fingerprint((m,)) != before
    m.f.__wrapped__ = original
    assert cache.fingerprint((m,)) == before


def test_a_function_elsewhere_given_other_code_keeps_the_digest():
    m = _module("def f(x):\n    return x + 1\n")
    before = cache.fingerprint((m,))

    def h():
        return 1

    def k():
        return 2
    h.__code__ = k.__code__
    assert cache.fingerprint((m,)) == before


@pytest.mark.skipif(not TAGS, reason="dict version tags are read on CPython 3.11-3.13")
def test_a_check_between_an_announced_and_a_made_assignment_is_not_trusted():
    # the audit hook runs just before f.__code__ changes: a check made in
    # between (another thread) sees the old code, and must not let the fast
    # check vouch for it afterwards
    m = _module("def f(x):\n    return x + 1\n\ndef g(x):\n    return x - 1\n")
    before = cache.fingerprint((m,))
    watch = next(w for w in cache._WATCHES.values() if w.objects and w.objects[0] is m)
    cache._audit("object.__setattr__", (m.f, "__code__", m.g.__code__))   # announced
    assert cache.fingerprint((m,)) == before        # not made yet: nothing changed
    assert watch.seen is None                       # so no fast check vouches for it
    m.f.__code__ = m.g.__code__                     # made
    assert cache.fingerprint((m,)) != before and watch.seen is not None
