"""The class of layouts whose stage and level theorems are shipped
(prover/properties/covered.py): every property of every layout inside it is
proved by citation without a solver on first use, and a layout just outside
it is not cited from the shipped file for the stage or level it lacks (the
solver is asked, and proves it)."""

from __future__ import annotations

import pytest
import z3

from tilespec.prover.core import level_theorems, theorems
from tilespec.prover.names import PROPERTY_NAMES
from tilespec.prover.properties import covered
from tilespec.prover.properties.proof import prove
from tilespec.spec import COMBINE, dims_through, shape_pipeline
from tilespec.spec.index import Permute, Split
from tilespec.spec.text import parse_array_shape as shape

SHIPPED = "the proofs shipped with tilespec"

#: Inside the class: rank up to 6 (any minor_to_major), up to three tiles of
#: rank up to 4 with '*', E(n), named and concrete dims.
INSIDE = [
    "f32[a,b]{0,1:T(3,5)(2,1,1,1)}",
    "u8[a,b,c,d]{3,1,2,0:T(32,128)(4,1)}",
    "f32[a,b,c,d,e,f]{2,5,0,4,1,3:T(*,3,*,7)(2,*,2,5)(*,*,*,3)}",
    "s4[a,b,c,d,e,f]{5,4,3,2,1,0:T(8,128)(2,1)(4,4,4,4)E(4)}",
    "bf16[7,3,2,9,4,6]{1,3,5,0,2,4:T(5,3,7,11)(13,2,3,5)(2,3,5,7)}",
    "f32[]{:T(*,*,*,4)(2,2,2,2)(3,3,3,3)}",
    "s32[n]{0:T(3)(*,*,*,2)(5)}",
    # tile sizes no catalogue entry has: sizes are parameters of the theorems
    "s4[m,n]{0,1:T(1000003,7)(2,1)L(1024)E(4)}",
    "pred[a,0,c]{1,2,0:T(*,*,9)}",
]

#: Just outside it, each by one step, with the stage it lacks.
OUTSIDE = [
    ("f32[a,b,c,d,e,f,g]{0,1,2,3,4,5,6}", "rank 7"),
    ("f32[a,b]{1,0:T(2,2,2,2,2)}", "a tile of rank 5"),
    ("f32[a,b,c,d,e,f]{5,4,3,2,1,0:T(2,2,2,2)(2,2,2,2)(2,2,2,2)(2,2,2,2)}", "four tiles"),
]


@pytest.fixture
def no_solver(shipped_only, monkeypatch):
    monkeypatch.setattr(z3, "Solver", None)
    monkeypatch.setattr(z3, "SolverFor", None)


@pytest.mark.parametrize("text", INSIDE)
def test_every_property_of_a_layout_in_the_class_is_proved_by_shipped_citations_alone(
        no_solver, text):
    s = shape(text)
    for prop in PROPERTY_NAMES:
        r = prove(s, prop)
        assert r.proved, (text, prop, r.status)
        if prop == "combine_equals_reshape" and not any(
                COMBINE in t.sizes for t in s.layout.tiles):
            assert r.steps == ("the shape combines no dims ('*'): nothing to show",)
            continue
        provenance = [x for x in r.steps if x.startswith("the theorems above")]
        assert provenance and r.steps[0].startswith("by citation"), r.steps
        for line in provenance:
            assert f"cited from {SHIPPED}" in line, r.steps
            assert "this process" not in line and "disk" not in line


@pytest.mark.parametrize(("text", "why"), OUTSIDE)
def test_a_layout_just_outside_the_class_asks_the_solver(no_solver, text, why):
    for prop in PROPERTY_NAMES:
        if prop == "combine_equals_reshape":
            continue    # none of them combines: nothing to show, nothing asked
        with pytest.raises(TypeError):      # z3.Solver is None: a solver was needed
            prove(shape(text), prop)


def _lacking(text: str) -> dict:
    """The record of the theorem a layout just outside the class lacks: the
    transpose of rank 7, or the level with a tile of rank 5 or the fourth tile."""
    s = shape(text)
    if s.rank > covered.MAX_RANK:
        return level_theorems.transpose_theorem(s.rank, s.layout.minor_to_major)
    stages = shape_pipeline(s)
    last = len(s.layout.tiles)
    mine = tuple(x for x in stages if x.level == last)
    n = len(dims_through([x for x in stages if x.level < last], (1,) * s.rank)[-1])
    return level_theorems.level_theorem(mine, n, tuple(
        t == COMBINE for t in s.layout.tiles[-1].sizes))


#: One step outside each bound, small enough for the solver in a unit test.
JUST_OUTSIDE = [
    ("f32[a,b,c,d,e,f,g]{0,1,2,3,4,5,6}", "rank 7"),
    ("f32[a,b]{1,0:T(2,*,2,3,5)}", "a tile of rank 5"),
    ("f32[a]{0:T(2)(3)(*,5)(7)}", "four tiles"),
]


@pytest.mark.parametrize(("text", "why"), JUST_OUTSIDE)
def test_a_layout_just_outside_the_class_is_proved_by_the_solver_not_by_a_shipped_theorem(
        shipped_only, text, why):
    r = prove(shape(text), "formula_equals_prt")
    assert r.proved, r.steps
    record = _lacking(text)
    assert record["status"] == "proved" and record["where"] != SHIPPED, record
    assert f"{record['name']}: proved" in r.steps


def test_every_structure_of_the_class_is_shipped(no_solver):
    structures = covered.stage_structures()
    assert len(structures) > 900
    for stage, n in structures:
        record = theorems.stage_theorem(stage, n)
        assert record["status"] == "proved"
        assert record["where"] == "the proofs shipped with tilespec", record["name"]
    for rank in covered.lemma_ranks():
        assert theorems.mixed_radix(rank)["where"] == "the proofs shipped with tilespec"


def test_the_structures_are_the_stages_of_the_class_and_nothing_outside():
    structures = covered.stage_structures()
    perms = [s.perm for s, n in structures if type(s) is Permute and s.perm == tuple(
        range(n))[::-1]]
    assert (5, 4, 3, 2, 1, 0) in perms and (6, 5, 4, 3, 2, 1, 0) not in perms
    assert max(len(s.sizes) for s, _ in structures if type(s) is Split) == 4
    assert max(n for s, n in structures if type(s) is Split) == 14
    assert covered.lemma_ranks() == range(0, 19)


def test_every_level_of_the_class_is_shipped(no_solver):
    levels = covered.level_structures()
    assert len(levels) > 400
    records = [level_theorems.level_theorem(*x) for x in levels]
    records += [level_theorems.combine_theorem(*x) for x in covered.combine_structures()]
    records += [level_theorems.transpose_theorem(r) for r in covered.transpose_ranks()]
    records += [level_theorems.packing_theorem(a) for a in (False, True)]
    for record in records:
        assert record["status"] == "proved" and record["where"] == SHIPPED, record["name"]


def test_the_levels_are_those_of_the_class_and_nothing_outside():
    levels = covered.level_structures()
    assert max(n for _, n, _ in levels) == 14
    assert max(len(stars) for _, _, stars in levels) == covered.MAX_TILE_RANK
    assert {s.level for stages, _, _ in levels for s in stages} == {1, 2, 3}
    assert covered.transpose_ranks() == range(0, covered.MAX_RANK + 1)
    assert level_theorems.EVERY_ORDER_UP_TO == covered.MAX_RANK
