"""No vacuous or ignored "proved": bad bounds and malformed stages are bad
input, bounds limit the counterexample search, a pipeline is judged against
sizes it did not compute, and a small concrete question is decided even
when the solver gives up.  Each test here failed before its fix."""

from dataclasses import dataclass

import numpy as np
import pytest
from enumeration import brute
from mutants import mutate

from tilespec.prover.properties.proof import PROPERTIES, prove
from tilespec.spec import physical_size
from tilespec.spec.errors import TilespecError
from tilespec.spec.index import Combine, Pad, Permute, Split, evaluate, shape_pipeline
from tilespec.spec.size import byte_size
from tilespec.spec.text import parse_array_shape as shape

#: Time limit for proofs these tests expect to go through: generous, so a
#: loaded machine cannot turn a proof into a failure.
LONG = 60


S35 = shape("f32[3,5]{1,0:T(2,2)}")


def _solver_gives_up(monkeypatch):
    import tilespec.prover.core.solve as solve
    import tilespec.prover.properties.proof as properties
    import tilespec.prover.properties.witness as witness
    monkeypatch.setattr(properties, "all_unsat", lambda *a, **k: False)
    for module in (solve, witness):
        monkeypatch.setattr(module, "search",
                            lambda *a, **k: ("unknown", "solver gave up: timeout after 10 s"))


# --- bounds --------------------------------------------------------------------

@pytest.mark.parametrize("text, bounds", [
    ("f32[m,n]{1,0:T(8,128)}", {"m": 0}),            # empty: a proof would be vacuous
    ("f32[m,n]{1,0:T(8,128)}", {"m": (5, 2)}),       # lo > hi
    ("f32[m,n]{1,0:T(8,128)}", {"k": 4}),            # no such dim
    ("f32[m,n]{1,0:T(8,128)}", ["m=3", "m=4"]),      # repeated
    ("f32[m,n]{1,0:T(8,128)}", {"m": -1}),
    ("f32[m,n]{1,0:T(8,128)}", {"m": "many"}),
    ("f32[3,5]{1,0:T(8,128)}", {"m": 3}),             # a concrete shape has no names
    ("f32[m,n]{1,0:T(8,128)}", 5),
    ("f32[m,n]{1,0:T(8,128)}", {"m": 2.5}),
    ("f32[m,n]{1,0:T(8,128)}", [("m", 2, 3)]),
])
def test_bad_bounds_are_bad_input(text, bounds):
    with pytest.raises(TilespecError, match="bound"):
        prove(shape(text), "injective", bounds=bounds)


@pytest.mark.parametrize("kwargs", [{"timeout": 0}, {"timeout": -1.0},
                                    {"timeout": float("nan")}, {"timeout": "5"}])
def test_a_time_limit_must_be_positive(kwargs):
    with pytest.raises(TilespecError, match="timeout"):
        prove(S35, "injective", **kwargs)


def test_shape_text_is_accepted_and_anything_else_is_bad_input():
    assert prove("f32[3,5]{1,0:T(2,2)}", "injective", timeout=LONG).proved
    with pytest.raises(TilespecError):
        prove(("f32", (3, 5)), "injective")
    with pytest.raises(TilespecError):
        prove("(f32[3], f32[5])", "injective")


def test_an_unbounded_dim_is_bad_input():
    with pytest.raises(TilespecError, match="unbounded"):
        prove(shape("f32[?,5]"), "injective")


def test_a_range_bound_is_the_scope():
    r = prove(shape("f32[m,n]{1,0:T(8,128)}"), "injective", bounds={"n": (2, 8)},
              timeout=LONG)
    assert r.proved and r.scope == "all shapes: m >= 1, 2 <= n <= 8"


def test_counterexample_search_honours_the_bounds():
    # Splitting by 129 where the dims say 128 is injective for n <= 129 and
    # not beyond; no probe size outside the bound (257) may be reported as a
    # counterexample for n <= 129.
    s = shape("f32[n]{0:T(128)}")
    stages = mutate(s, "off_by_one")
    assert prove(s, "injective", stages=stages, timeout=LONG).status == "refuted"
    inside = prove(s, "injective", stages=stages, bounds={"n": 129}, timeout=LONG)
    assert inside.status == "proved", inside
    assert "exhaustive" in inside.steps[0]
    for bounds, lo, hi in (({"n": 200}, 1, 200), ({"n": (150, 160)}, 150, 160)):
        r = prove(s, "injective", stages=stages, bounds=bounds, timeout=LONG)
        assert r.status == "refuted"
        assert lo <= r.counterexample.dim_values["n"] <= hi
        assert lo <= r.counterexample.details["dims"][0] <= hi


# --- stages are checked, not trusted by their class ------------------------------

@pytest.mark.parametrize("stages, words", [
    # a Combine that covers one entry of two: was trusted as a row-major
    # linearisation (the lemma) and "proved" injective
    ((Permute((0, 1)), Combine((1,))), "groups"),
    ((Permute((0, 0)),), "not a permutation"),
    ((Permute((0, 1)), Pad((0, 2), 1), Split((2, 2), 1)), "tile sizes"),
    ((Permute((0, 1)), Split((2, 0), 1)), "tile sizes"),
    ((Permute((0, 1)), Split((2, 2, 2), 1)), "3 tile sizes"),
    ((Permute((0, 1)), Combine((1, 0, 1))), "groups"),
])
def test_malformed_stages_are_bad_input(stages, words):
    for prop in ("injective", "in_bounds"):
        with pytest.raises(TilespecError, match=words):
            prove(shape("f32[3,5]"), prop, stages=stages)


@dataclass(frozen=True)
class SwapLast:
    """A custom stage: swaps the last two index entries (a bijection; with
    a square tile the dims do not change, the offsets do)."""
    level: int = 1
    name: str = "swap within the tile"

    def dims(self, d, ar):
        d = tuple(d)
        return d[:-2] + (d[-1], d[-2])

    def forward(self, e, d, ar):
        e = tuple(e)
        return e[:-2] + (e[-1], e[-2])

    def backward(self, e, d, ar):
        return self.forward(e, d, ar), ar.true()


@dataclass(frozen=True)
class DropLast(SwapLast):
    """A custom stage whose index has one entry fewer than its dims."""
    def forward(self, e, d, ar):
        return tuple(e)[:-1]


def test_a_stage_the_walk_does_not_know_is_not_skipped():
    # formula_equals_prt walked the stages by name; a stage with another
    # name was skipped and the changed layout "proved" equal to the spec's.
    for text in ("f32[3,5]{1,0:T(2,2)}", "f32[m,n]{1,0:T(2,2)}"):
        s = shape(text)
        stages = shape_pipeline(s) + (SwapLast(),)
        assert prove(s, "bijective", stages=stages, timeout=LONG).proved
        r = prove(s, "formula_equals_prt", stages=stages, timeout=LONG)
        assert r.status == "refuted", r
        ce = r.counterexample
        formula = ce.side("formula")
        assert formula.offset == evaluate(stages, formula.element, ce.details["dims"])


def test_a_custom_stage_must_return_whole_vectors():
    with pytest.raises(TilespecError, match="forward"):
        prove(S35, "in_bounds", stages=shape_pipeline(S35) + (DropLast(),))


def test_packing_is_judged_against_the_spec_size():
    # Padding to 4x4 tiles and splitting 2x2 is injective, but its offsets
    # reach past the spec's byte size (96 bytes): packing compares the
    # pipeline with the spec's size, not its own larger padded size.
    for text in ("f32[3,5]{1,0:T(2,2)}", "f32[m,n]{1,0:T(2,2)}"):
        s = shape(text)
        stages = tuple(Pad((4, 4), 1) if type(x) is Pad else x for x in shape_pipeline(s))
        assert prove(s, "injective", stages=stages, timeout=LONG).proved
        r = prove(s, "packing", stages=stages, timeout=LONG)
        assert r.status == "refuted", r
        ce = r.counterexample
        dims = tuple(ce.details["dims"])
        concrete = s.instantiate(ce.dim_values)
        if "bit_range" in ce.details:
            assert ce.details["bit_range"][1] > 8 * byte_size(concrete)
            side = ce.side("shape")
            assert evaluate(stages, side.element, dims) == side.offset
            assert 8 * side.byte_offset + side.bit_offset == ce.details["bit_range"][0]


def test_in_bounds_is_judged_against_the_spec_buffer():
    # The same over-padding pipeline keeps its offsets below its own padded
    # size (64) but not below the spec's (24): in_bounds compares the
    # pipeline with the spec's buffer, not with itself.
    for text in ("f32[3,5]{1,0:T(2,2)}", "f32[m,n]{1,0:T(2,2)}"):
        s = shape(text)
        stages = tuple(Pad((4, 4), 1) if type(x) is Pad else x for x in shape_pipeline(s))
        r = prove(s, "in_bounds", stages=stages, timeout=LONG)
        assert r.status == "refuted", r
        ce = r.counterexample
        assert ce.side("shape").offset >= ce.details["padded_size"]
        assert ce.details["padded_size"] == physical_size(s.instantiate(ce.dim_values))


# --- decide what is decidable ------------------------------------------------------

@pytest.mark.parametrize("kind, text", [
    # found by the differential test: 24 elements, unknown after 10 s
    ("floor", "f32[4,6]{1,0:T(2,5)(6,1,6)(1)L(8)E(1)}"),
    (None, "f32[3,3,3]{2,1,0:T(2,2)}"),               # 27 elements
    ("swap", "f32[3,3,9]{0,1,2:T(2,*,4)}"),             # 81 elements
    ("off_by_one", "f32[3,3,9]{2,1,0:T(*,2,4)(2,1)}"),
])
def test_small_questions_are_decided_when_the_solver_gives_up(monkeypatch, kind, text):
    _solver_gives_up(monkeypatch)
    s = shape(text)
    stages = mutate(s, kind) if kind else None
    assert kind is None or stages is not None
    for prop in PROPERTIES:
        r = prove(s, prop, stages=stages)
        with np.errstate(all="ignore"):
            holds = brute(s, stages or shape_pipeline(s), prop)
        assert r.status == ("proved" if holds else "refuted"), (prop, r)


def test_all_shapes_unknown_says_how_far_exhaustive_checking_went(monkeypatch):
    _solver_gives_up(monkeypatch)
    s = shape("f32[m,n]{1,0:T(8,128)}")
    r = prove(s, "injective", timeout=LONG)   # the sweep's time cap: never reached
    assert r.status == "unknown"
    assert "timeout" in r.reason
    import re
    k = int(re.search(r"checked exhaustively for m, n <= (\d+)", r.reason).group(1))
    assert k >= 8
    # the same question within a small range is decided outright
    r = prove(s, "injective", bounds={"m": 3, "n": 4}, timeout=LONG)
    assert r.proved and "exhaustive" in r.steps[0]
    assert r.scope == "all shapes: 1 <= m <= 3, 1 <= n <= 4"


def test_dims_that_make_no_valid_shape_are_no_counterexample(monkeypatch):
    # SC(0:2,4) needs dim 0 > 4: the search beyond the facts must skip the
    # smaller sizes (no shape of the family), not fail on them as bad input.
    from tilespec.prover.core.facts import Facts
    from tilespec.prover.properties import proof

    monkeypatch.setattr(proof, "cite_levels", lambda *a: None)    # not a citation
    monkeypatch.setattr(proof._Proof, "check_text", lambda self: "unknown")
    monkeypatch.setattr(Facts, "check", lambda self, *a, **k: ("unknown", "forced"))
    s = shape("s32[r0,x]{1,0:T(2,2)SC(0:2,4)}")
    r = prove(s, "formula_equals_prt", timeout=1.0, bounds={"r0": (1, 6), "x": (1, 3)})
    assert r.status == "proved" and "exhaustive enumeration" in " ".join(r.steps)
