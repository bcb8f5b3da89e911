"""The theorems per tiling level (prover/core/level_theorems.py): proved for
every dim and tile size, cited only for a shape's own pipeline, and keyed by
the code they are about, so a wrong definition is never cited."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from mutants import OffByOneSplit, mutate, reversed_permute_index

from tilespec.prover.core import level_theorems
from tilespec.prover.properties.proof import prove
from tilespec.spec import Layout, Tile, index, pipeline, prt, shape_pipeline
from tilespec.spec.text import parse_array_shape as shape

SHIPPED = "shipped with tilespec"

#: Wrong definitions, one of each side of formula_equals_prt.
MUTANTS = {
    "pad-reshape-transpose's transpose reversed": (prt, "permute_index",
                                                   reversed_permute_index),
    "the formula's split by t+1": (index.Split, "forward", OffByOneSplit.forward),
}


@pytest.mark.parametrize(("where", "name", "wrong"), MUTANTS.values(), ids=MUTANTS.keys())
def test_a_wrong_definition_makes_the_cited_proof_fail(shipped_only, monkeypatch,
                                                       where, name, wrong):
    s = shape("f32[a]{0:T(4)}")
    cited = prove(s, "formula_equals_prt")
    assert cited.proved and any(SHIPPED in x for x in cited.steps), cited.steps
    monkeypatch.setattr(where, name, wrong)
    r = prove(s, "formula_equals_prt")
    assert r.status == "refuted", r.steps
    assert not any(SHIPPED in x for x in r.steps), r.steps
    # the level theorem itself, proved again about the wrong code, is refuted
    stages = shape_pipeline(s)
    record = level_theorems.level_theorem(stages[1:], 1, (False,))
    assert record["status"] == "refuted" and record["where"] == "this process"


@dataclass(frozen=True)
class SameSplit(index.Split):
    """The spec's split under another class: the theorems are not about it."""


def test_only_the_shapes_own_pipeline_is_cited():
    s = shape("f32[a,b]{1,0:T(8,128)}")
    assert level_theorems.cite_levels(s, shape_pipeline(s), "formula_equals_prt")
    same = tuple(SameSplit(x.sizes, x.level) if type(x) is index.Split else x
                 for x in shape_pipeline(s))
    for stages in (same, mutate(s, "off_by_one"), mutate(s, "swap"),
                   shape_pipeline(s)[:-1]):
        assert level_theorems.cite_levels(s, stages, "formula_equals_prt") is None
    assert level_theorems.cite_levels(s, shape_pipeline(s), "bijective") is None


def test_a_level_theorem_is_keyed_by_every_field_of_its_stages_but_the_sizes():
    one = pipeline(2, Layout((1, 0), tiles=(Tile((8, 128)),)))[1:]
    other = pipeline(2, Layout((1, 0), tiles=(Tile((3, 5)),)))[1:]
    deeper = pipeline(2, Layout((1, 0), tiles=(Tile((3, 5)), Tile((3, 5)))))
    assert level_theorems.level_key(one, 2, (False, False)) == \
        level_theorems.level_key(other, 2, (False, False))
    assert level_theorems.level_key(one, 2, (False, False)) != \
        level_theorems.level_key(deeper[-3:], 2, (False, False))    # level 2
