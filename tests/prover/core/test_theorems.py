"""Generic theorems cited instead of a solver call per shape (prover/core/theorems.py,
prover/properties/instances.py): what is cited, when it is not, and that changed code is
never answered with a theorem about the old code."""

from __future__ import annotations

import pytest
import z3

from tilespec.prover.core import theorems
from tilespec.prover.properties import instances
from tilespec.prover.properties.proof import PROPERTIES, prove
from tilespec.spec import index
from tilespec.spec.index import Pad, Split, shape_pipeline
from tilespec.spec.text import parse_array_shape as shape

SMALL = "f32[5]{0:T(2)}"          # cheap theorems: one tiled entry


@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory, monkeypatch):
    # proofs kept in memory are keyed by the code, so they may be shared;
    # the disk store is this session's own
    monkeypatch.setenv("TILESPEC_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "h-cache"))


def _no_solver(monkeypatch):
    def refuse(*a, **k):
        raise AssertionError("a solver was asked")
    monkeypatch.setattr(z3, "Solver", refuse)


def test_cited_properties_ask_no_solver_once_the_theorems_are_proved(monkeypatch):
    s = shape(SMALL)
    for prop in theorems.CITED_PROPERTIES:
        assert prove(s, prop).proved
    _no_solver(monkeypatch)
    for text in ("f32[7]{0:T(2)}", "f32[1048576]{0:T(2)}", "f32[0]{0:T(2)}"):
        for prop in theorems.CITED_PROPERTIES:
            r = prove(shape(text), prop)
            assert r.proved and r.steps[0].startswith("by citation"), (text, prop, r)


def test_a_cited_proof_says_which_theorems_when_and_by_which_solver():
    r = prove(shape(SMALL), "bijective")
    said = "\n".join(r.steps)
    assert "split of the last 1 of 1 entries" in said
    assert "mixed-radix rank 2: proved" in r.steps
    assert f"by z3 {z3.get_version_string()}" in said and " UTC" in said


def _swapped_split(self, e, d, ar):
    # a broken split: (e % t, e // t) in the place of (e // t, e % t)
    k = len(self.sizes)
    out = list(e[:len(e) - k])
    for x, t in zip(e[len(e) - k:], self.sizes):
        out += [ar.mod(x, t), ar.floordiv(x, t)]
    return tuple(out)


def test_changed_stage_code_is_not_answered_by_the_old_theorem(monkeypatch):
    s = shape(SMALL)
    assert theorems.cite(s, shape_pipeline(s), "in_bounds") is not None
    monkeypatch.setattr(Split, "forward", _swapped_split)
    # the theorem about the old code must not be cited: the new one fails
    assert theorems.cite(s, shape_pipeline(s), "in_bounds") is None
    assert theorems.cite(s, shape_pipeline(s), "injective") is None
    assert prove(s, "injective").status == "refuted"    # offsets 0, 2, 1, 3, 2
    monkeypatch.undo()
    assert theorems.cite(s, shape_pipeline(s), "in_bounds") is not None


def test_changed_linearisation_is_not_answered_by_the_old_lemma(monkeypatch):
    s = shape("f32[2,3]{1,0:T(*,1)}")     # a combine: cited through the lemma
    assert theorems.cite(s, shape_pipeline(s), "injective") is not None
    real = index.linear_index

    def doubled(e, d, ar=index.INT):
        return ar.mul(real(e, d, ar), 2)
    monkeypatch.setattr(index, "linear_index", doubled)
    assert theorems.cite(s, shape_pipeline(s), "injective") is None


def test_a_subclass_of_a_stage_is_not_an_instance():
    class Mine(Split):
        pass
    s = shape(SMALL)
    stages = tuple(Mine(x.sizes, x.level) if type(x) is Split else x
                   for x in shape_pipeline(s))
    assert not theorems.applies(stages)
    assert theorems.cite(s, stages, "injective") is None


def test_a_split_needs_the_pad_by_the_same_tiles_before_it():
    s = shape(SMALL)
    stages = tuple(x for x in shape_pipeline(s) if type(x) is not Pad)
    assert not theorems.applies(stages)
    stages = tuple(Pad((4,), x.level) if type(x) is Pad else x for x in shape_pipeline(s))
    assert not theorems.applies(stages)


def test_instances_of_a_signature(monkeypatch):
    s = shape("f32[3]{0:T(2)}")
    for prop in PROPERTIES:
        assert prove(s, prop).proved
    _no_solver(monkeypatch)
    for text in ("f32[9]{0:T(2)}", "f32[m]{0:T(2)}"):
        for prop in PROPERTIES:
            r = prove(shape(text), prop)
            assert r.proved, (text, prop, r)


def test_what_is_not_an_instance():
    assert instances.signature(shape("f32[0,5]{1,0:T(2,2)}")) is None
    assert instances.signature(shape("f32[<=4,5]{1,0:T(2,2)}")) is None
    sig = instances.signature(shape("f32[m,5]{1,0:T(2,2)}"))
    assert sig.dims == ("d0", "d1")


def test_mutants_are_still_refuted_after_the_theorems_are_cached():
    from mutants import mutate
    s = shape("f32[3,5]{1,0:T(2,2)}")
    assert prove(s, "injective").proved
    r = prove(s, "in_bounds", stages=mutate(s, "floor"))
    assert r.status == "refuted"


def test_a_signature_proof_is_made_again_when_the_prover_changes(monkeypatch):
    from tilespec.prover.result import Result
    from tilespec.spec import prt
    asked = []

    def fake_prove(shape, prop, timeout):
        asked.append(shape)
        return Result("x", prop, "proved", 0.0, steps=("fake",))
    s = shape("f32[3]{0:T(2)}")
    assert instances.cite(s, "formula_equals_prt", 5.0, prove) is not None
    assert instances.cite(s, "formula_equals_prt", 5.0, fake_prove) is not None
    assert not asked                            # kept: not proved again
    real = prt.prt_steps
    monkeypatch.setattr(prt, "prt_steps", lambda *a, **k: real(*a, **k))
    # (the fake answer is kept under the patched code's key only)
    steps = instances.cite(s, "formula_equals_prt", 5.0, fake_prove)
    assert len(asked) == 1 and "fake" in steps  # the new code is proved anew
