"""The XLA version axis: every model names the XLA it describes, the changes
of XLA's history are modelled on both sides, and the jaxlib binary sits
where its build says.

Facts carried over from openxla/xla (ROCm/xla mirror):
* xla/layout_util_test.cc@1f375f52d4 (2026-05-28), tests
  ``ValidateLayout_TileValidation`` and
  ``LinearIndexForNestedTiling_OversizedTilesPadding``;
* xla/layout_test.cc@cbb23d1d64 (2026-06-01), test
  ``DeleteDimensionUpdatesSplitConfigs``;
* jaxlib 0.10.2's answers, recorded by tools/xla_version_facts.py in
  tests/data/xla_versions/jaxlib_0.10.2.json.
"""

from __future__ import annotations

import importlib
import json
import pkgutil

import pytest
from locations import ROOT

import tilespec.prover.models as models
from tilespec.cli.main import main
from tilespec.prover.models.cpp import XlaGivesNoValue
from tilespec.prover.models.nested_tiling import (
    nested_delinearize_int64,
    nested_linear_index_int64,
    xla_nested_delinearize,
    xla_nested_linear_index,
)
from tilespec.prover.models.validation import LayoutFields, delete_dimension, validate_layout
from tilespec.prover.models.versions import XLA_HISTORY, Holds, XlaModel, model_at, resolve
from tilespec.spec import TilespecError, UnknownXlaVersion, offset
from tilespec.spec.text import parse_array_shape as shape

BEFORE = resolve("2026-05-22")          # 2c731115ef: the mridul-sahu/xla fork's last
PADDING = resolve("1f375f52d4")
SPLITS = resolve("cbb23d1d64")
NEWEST = resolve(None)
LAYOUT_UTIL_TEST = "xla/layout_util_test.cc@1f375f52d4"

MODULES = [m.name for m in pkgutil.iter_modules(models.__path__) if m.name != "versions"]


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# --- the axis --------------------------------------------------------------------------

def test_history_is_ordered_and_dated():
    assert [c.date for c in XLA_HISTORY] == sorted(c.date for c in XLA_HISTORY)
    assert len({c.sha for c in XLA_HISTORY}) == len(XLA_HISTORY)
    assert NEWEST == XLA_HISTORY[-1] and NEWEST.short == "183fa00cb5"


@pytest.mark.parametrize("version, short", [
    ("1f375f52d4", "1f375f52d4"), ("1F375F52", "1f375f52d4"),
    ("1f375f52d4f1cb5e5e8ef021300ea0634374ae3b", "1f375f52d4"),
    ("2026-05-22", "2c731115ef"), ("2026-05-27", "2c731115ef"), ("2026-05-28", "1f375f52d4"),
    ("2099-01-01", "183fa00cb5"), ("jaxlib-0.10.2", "5a9e73cbd9"), (None, "183fa00cb5"),
])
def test_resolve_names_one_commit(version, short):
    assert resolve(version).short == short


@pytest.mark.parametrize("version", ["beef", "2025-12-31", "2026-02-30", "jaxlib-0.4.38",
                                     "main", "1f3"])
def test_resolve_refuses_what_it_does_not_model_in_one_line(version):
    with pytest.raises(UnknownXlaVersion) as e:
        resolve(version)
    assert isinstance(e.value, TilespecError) and "\n" not in str(e.value)


def test_holds_is_half_open():
    h = Holds(since=PADDING, until=SPLITS)
    assert [c.short for c in XLA_HISTORY if h.holds_at(c)] == ["1f375f52d4"]
    with pytest.raises(UnknownXlaVersion):
        Holds(since=SPLITS, until=PADDING)


# --- every model names its range -----------------------------------------------------------

@pytest.mark.parametrize("name", MODULES)
def test_every_model_module_declares_the_xla_it_holds_for(name):
    module = importlib.import_module(f"tilespec.prover.models.{name}")
    declared = module.XLA_MODELS
    assert all(isinstance(m, XlaModel) for m in declared)
    if name != "rule_check":            # the shared driver transcribes nothing
        assert declared, f"{name} names no XLA function it models"
    for m in declared:
        assert m.read_at in XLA_HISTORY and m.holds.holds_at(m.read_at)
        assert m.file.startswith("xla/") and m.function and m.read_at.short in m.cites


def test_each_function_has_one_model_per_version():
    every = [m for name in MODULES
             for m in importlib.import_module(f"tilespec.prover.models.{name}").XLA_MODELS]
    for function in {m.function for m in every}:
        mine = tuple({m for m in every if m.function == function})
        held = [c for c in XLA_HISTORY if any(m.holds.holds_at(c) for m in mine)]
        for c in held:
            model_at(mine, c)           # exactly one
        assert NEWEST in held, function


# --- nested tiling before and after 1f375f52d4 ---------------------------------------------

#: (test, shape, index, linear index): LAYOUT_UTIL_TEST's new table
PADDED = [
    ("ValidateLayout_TileValidation", "f32[8]{0:T(2,2)}", (5,), 9),
    ("ValidateLayout_TileValidation", "f32[3]{0:T(8,128)}", (2,), 2),
    ("LinearIndexForNestedTiling_OversizedTilesPadding", "u32[]{:T(128)}", (), 0),
    ("LinearIndexForNestedTiling_OversizedTilesPadding", "f32[3]{0:T(8,128)}", (2,), 2),
    ("LinearIndexForNestedTiling_OversizedTilesPadding", "f32[8]{0:T(2,2)}", (5,), 9),
]


@pytest.mark.parametrize("test, text, index, expected", PADDED)
@pytest.mark.parametrize("xla", ["1f375f52d4", None])
def test_padding_table_of_1f375f52d4_replays(test, text, index, expected, xla):
    s = shape(text)
    assert xla_nested_linear_index(s, index, xla=xla) == expected, (LAYOUT_UTIL_TEST, test)
    assert nested_linear_index_int64(s, index, xla=xla)[0] == expected
    assert xla_nested_delinearize(s, expected, xla=xla) == index
    assert nested_delinearize_int64(s, expected, xla=xla)[0] == index
    assert offset(s, index) == expected            # the spec agrees


@pytest.mark.parametrize("test, text, index, expected", [p for p in PADDED if p[2]])
def test_before_1f375f52d4_a_long_tile_gives_no_value(test, text, index, expected):
    s = shape(text)
    with pytest.raises(XlaGivesNoValue) as stop:
        xla_nested_linear_index(s, index, xla=BEFORE)
    assert stop.value.behaviour.kind == "aborts"
    with pytest.raises(XlaGivesNoValue) as stop:
        xla_nested_delinearize(s, expected, xla=BEFORE)
    assert stop.value.behaviour.kind == "undefined"


def test_a_later_padding_tile_misplaces_delinearize_since_1f375f52d4():
    # the pads of tile 2 shift the indices tile 1's split is undone from:
    # element (0, 1) is at offset 1, which XLA reads back as (0, 0)
    s = shape("f32[8,8]{1,0:T(2,2)(2,2,2,2,2)}")
    assert xla_nested_linear_index(s, (0, 1)) == offset(s, (0, 1)) == 1
    assert xla_nested_delinearize(s, 1) == (0, 0)
    assert xla_nested_delinearize(shape("f32[8]{0:T(2,2)}"), 1) == (1,)


def test_nested_tiling_is_not_in_xla_before_435f2535ca():
    with pytest.raises(UnknownXlaVersion, match="has no LayoutUtil::LinearIndexForNested"):
        xla_nested_linear_index(shape("f32[8]{0:T(2)}"), (1,), xla="2026-03-03")


# --- validation before and after -------------------------------------------------------------

#: (fields, valid before 1f375f52d4, from 1f375f52d4, from cbb23d1d64): LAYOUT_UTIL_TEST's
#: ValidateLayout_TileValidation cases, then cbb23d1d64's split-config checks
VALIDATION = [
    (LayoutFields((8,), (0,), ((2, 2),)), True, True, True),
    (LayoutFields((8, 8), (1, 0), ((2, 2), (2, 2, 2, 2, 2))), True, True, True),
    (LayoutFields((8, 8), (1, 0), ((2, -2),)), True, False, False),
    (LayoutFields((8, 8), (1, 0), ((2, 0),)), False, False, False),
    (LayoutFields((), (), ((128,),)), True, True, True),
    (LayoutFields((3,), (0,), ((8, 128),)), True, True, True),
    (LayoutFields((8, 8), (1, 0), split_configs=((5, (2,)),)), True, True, False),
    (LayoutFields((8, 8), (1, 0), split_configs=((0, (2,)), (0, (4,)))), True, True, False),
    (LayoutFields((8, 8), (1, 0), split_configs=((0, (3, 2)),)), True, True, False),
    (LayoutFields((8, 8), (1, 0), split_configs=((0, (9,)),)), True, True, False),
    (LayoutFields((8, 4), (1, 0), split_configs=((1, (3,)),)), True, True, True),
]


@pytest.mark.parametrize("fields, before, padding, splits", VALIDATION)
def test_validation_before_and_after(fields, before, padding, splits):
    got = [validate_layout(fields, xla=v) is None for v in (BEFORE, PADDING, SPLITS, NEWEST)]
    assert got == [before, padding, splits, splits]


def test_delete_dimension_renumbers_split_configs_since_cbb23d1d64():
    sc = ((0, (10,)), (1, (20,)), (2, (30,)))
    assert delete_dimension((2, 0, 1), sc, 0, xla=SPLITS) == ((1, 0), ((0, (10,)), (1, (30,))))
    assert delete_dimension((2, 0, 1), sc, 0, xla=PADDING) == ((1, 0), sc)


def _binary_facts():
    data = json.loads((ROOT / "tests" / "data" / "xla_versions" / "jaxlib_0.10.2.json")
                      .read_text())
    assert data["jaxlib"] == "0.10.2"
    return data["facts"]


@pytest.mark.parametrize("fact", _binary_facts(), ids=lambda f: f["text"])
def test_jaxlib_0_10_2_answers_as_its_xla_commit(fact):
    # the binary's validator, recorded, is the model's at the commit jaxlib
    # 0.10.2 was built from (5a9e73cbd9); a text it stopped on never reaches it
    import re

    from tilespec.spec import parse_shape
    if not fact["parsed"]:
        assert "Tile dimension size needs to be minimum int64_t" in fact["aborted"]
        with pytest.raises(TilespecError):
            parse_shape(fact["text"])
        return
    m = re.fullmatch(r"(\w+)\[([\d,]*)\]\{([\d,]*):?(.*)\}", fact["text"])
    dims = tuple(int(d) for d in m.group(2).split(",") if d)
    m2m = tuple(int(d) for d in m.group(3).split(",") if d)
    tiles = tuple(tuple(-(2**63) if x == "*" else int(x) for x in t.split(","))
                  for t in re.findall(r"\(([-\d,*]+)\)", m.group(4).split("SC")[0]))
    splits = tuple((int(d), tuple(int(i) for i in idx.split(",")))
                   for d, idx in re.findall(r"(\d+):([\d,]+)",
                                            m.group(4).split("SC")[1] if "SC" in m.group(4)
                                            else ""))
    reason = validate_layout(LayoutFields(dims, m2m, tiles, splits), xla="jaxlib-0.10.2")
    assert (reason is None) == fact["valid"]
    if reason is not None:
        assert fact["reason"].startswith(reason)


def test_the_binary_is_after_both_validation_changes():
    # each change is seen in the binary's answers: split configs checked
    # (cbb23d1d64) and the tile message naming the dim (1f375f52d4)
    facts = {f["text"]: f for f in _binary_facts()}
    assert facts["f32[8,8]{1,0:SC(5:2)}"]["valid"] is False
    assert validate_layout(LayoutFields((8, 8), (1, 0), split_configs=((5, (2,)),)),
                           xla=PADDING) is None
    assert "tile dimension 0 must be positive" in facts["f32[8,8]{1,0:T(2,0)}"]["reason"]
    assert validate_layout(LayoutFields((8, 8), (1, 0), ((2, 0),)), xla=BEFORE) == \
        "layout has invalid tiles"
    assert resolve("jaxlib-0.10.2").order > SPLITS.order


# --- the command line ------------------------------------------------------------------------

def test_check_rule_names_the_abort_before_1f375f52d4_and_agrees_after(capsys):
    code, out, _ = run(capsys, "check-rule", "linear_index_nested", "f32[200]{0:T(8,128)}",
                       "--xla", "2026-05-22")
    assert code == 1 and "XLA aborts: CHECK_LE(tile_rank, current_shape.size())" in out
    assert "XLA: 2c731115ef (2026-05-22)" in out
    code, out, _ = run(capsys, "check-rule", "linear_index_nested", "f32[200]{0:T(8,128)}")
    assert code == 0 and "agrees with the spec: proved" in out
    assert "XLA: 183fa00cb5 (2026-08-22)" in out


@pytest.mark.parametrize("xla", [["--xla", "2026-05-22"], []])
def test_star_is_undefined_behaviour_at_both_versions(capsys, xla):
    # 33fa87f1cf and after: '*' is INT64_MIN, CeilOfRatio(d, INT64_MIN)
    code, out, _ = run(capsys, "check-rule", "linear_index_nested", "f32[3,5]{1,0:T(*,2)}", *xla)
    assert code == 1 and "undefined behaviour in LayoutUtil::LinearIndexForNestedTiling" in out
    assert "agrees" not in out


def test_check_rule_refuses_an_unknown_version(capsys):
    code, _, err = run(capsys, "check-rule", "linear_index_nested", "f32[8]{0}", "--xla", "zz")
    assert code == 2 and "is not an XLA version" in err


def test_xla_versions_lists_the_history(capsys):
    code, out, _ = run(capsys, "xla-versions")
    assert code == 0
    for c in XLA_HISTORY:
        assert c.label in out
    assert "[jaxlib-0.10.2]" in out and "newest, the default" in out
    code, out, _ = run(capsys, "xla-versions", "--json")
    data = [r["data"] for r in json.loads(out)["results"]]
    assert [d["sha"] for d in data] == [c.sha for c in XLA_HISTORY]
    assert [d["newest"] for d in data].count(True) == 1
