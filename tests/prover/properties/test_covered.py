"""The class of layouts whose stage theorems are shipped
(prover/properties/covered.py): every layout inside it is proved by citation
without a solver on first use, and a layout just outside it is not cited
from the shipped file for the stage it lacks (the solver is asked)."""

from __future__ import annotations

import pytest
import z3

from tilespec.prover.core import theorems
from tilespec.prover.properties import covered
from tilespec.prover.properties.proof import prove
from tilespec.spec.index import Permute, Split
from tilespec.spec.text import parse_array_shape as shape

CITED = ("injective", "bijective", "inverse")

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
def test_a_layout_in_the_class_is_proved_by_shipped_citations_alone(no_solver, text):
    s = shape(text)
    for prop in CITED + (("in_bounds",) if not s.is_symbolic else ()):
        r = prove(s, prop)
        assert r.proved, (text, prop, r.status)
        provenance = r.steps[-1]
        assert "cited from the proofs shipped with tilespec" in provenance, r.steps
        assert "this process" not in provenance and "disk" not in provenance


@pytest.mark.parametrize(("text", "why"), OUTSIDE)
def test_a_layout_just_outside_the_class_asks_the_solver(no_solver, text, why):
    with pytest.raises(TypeError):      # z3.Solver is None: a solver was needed
        prove(shape(text), "bijective")


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
