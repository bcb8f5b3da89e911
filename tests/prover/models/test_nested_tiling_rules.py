"""XLA's nested-tiling index functions (``LayoutUtil::LinearIndexForNestedTiling``
and its inverse, ``prover.models.nested_tiling``) against the spec: the
document's Figure 2, every offset inverted, what XLA does with a combined
dim and with a tile longer than the dims, before and after 1f375f52d4."""

import itertools
import json

import pytest

from tilespec.cli import main
from tilespec.prover.models import rules
from tilespec.prover.models.rules import (
    RULES,
    check,
    xla_linear_index,
)
from tilespec.spec.index import offset
from tilespec.spec.text import parse_array_shape as shape


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# --- the nested-tiling index functions ------------------------------------------------

def test_nested_linear_index_is_the_documents_figure_2():
    # Figure 2 of the source document: 4x8 tiled by (2,4)(2,1), numbered by
    # hand there; the nested function applies every tile, unlike LinearIndex.
    from tilespec.prover.models.rules import xla_nested_linear_index
    s = shape("bf16[4,8]{1,0:T(2,4)(2,1)}")
    rows = [[xla_nested_linear_index(s, (i, j)) for j in range(8)] for i in range(4)]
    assert rows[0] == [0, 2, 4, 6, 8, 10, 12, 14]
    assert rows[1] == [1, 3, 5, 7, 9, 11, 13, 15]
    assert rows[2] == [16, 18, 20, 22, 24, 26, 28, 30]
    assert xla_linear_index(s, (0, 1)) == 1  # first tile only: a different answer


def test_nested_delinearize_inverts_every_offset():
    from tilespec.prover.models.rules import xla_nested_delinearize, xla_nested_linear_index
    for text in ("bf16[5,9]{1,0:T(2,4)(2,1)}", "f32[3,2,7]{0,2,1:T(2,4)}", "f32[]{:T(4)}",
                 "s8[3,9]{1,0:T(2,4)(4,1)}"):
        s = shape(text)
        for e in itertools.product(*(range(d) for d in s.dims)):
            o = xla_nested_linear_index(s, e)
            assert o == offset(s, e)
            assert xla_nested_delinearize(s, o) == tuple(e), (text, e)


def test_nested_rules_say_what_xla_does_with_a_combined_dim(capsys):
    # '*' is INT64_MIN: LinearIndexForNestedTiling's multiplier overflows
    # (undefined; wrapped, the value XLA computes), Delinearize divides by 0
    r = check("linear_index_nested", [shape("f32[2,6]{1,0:T(*,2)}")])
    assert r.status == "refuted" and r.xla.kind == "undefined"
    assert "multiplier" in r.xla.what and r.xla.value == r.counterexample.side("xla").offset
    r = check("delinearize_nested", [shape("f32[2,6]{1,0:T(*,2)}")])
    assert r.xla.kind == "undefined" and "division by zero" in r.xla.what
    code, out, _ = run(capsys, "check-rule", "delinearize_nested", "f32[2,6]{1,0:T(*,2)}")
    assert code == 1 and "undefined behaviour" in out
    assert "agrees" not in out and "not described" not in out


@pytest.mark.parametrize("text", ["f32[200]{0:T(8,128)}", "bf16[16]{0:T(8,128)(2,1)}",
                                  "u8[1000]{0:T(32,128)(4,1)}", "f32[n]{0:T(8,128)}"])
def test_nested_linear_index_aborts_on_a_tile_longer_than_the_dims(capsys, text):
    # CHECK_LE(tile_rank, current_shape.size()): before 1f375f52d4 XLA
    # prepends no unit dims
    code, out, _ = run(capsys, "check-rule", "linear_index_nested", text, "--xla", "2026-05-22")
    assert code == 1 and "XLA aborts: CHECK_LE(tile_rank, current_shape.size())" in out
    assert "agrees" not in out and "XLA: 2c731115ef (2026-05-22)" in out
    code, out, _ = run(capsys, "check-rule", "linear_index_nested", text, "--json",
                       "--xla", "2026-05-22")
    (doc,) = json.loads(out)["results"]
    assert doc["data"]["xla_behaviour"]["kind"] == "aborts"
    assert "22eee29e01" in doc["data"]["xla_behaviour"]["source"]
    assert doc["data"]["xla_version"]["sha"].startswith("2c731115ef")


@pytest.mark.parametrize("text", ["f32[200]{0:T(8,128)}", "bf16[16]{0:T(8,128)(2,1)}",
                                  "u8[1000]{0:T(32,128)(4,1)}"])
def test_nested_linear_index_pads_a_long_tile_since_1f375f52d4(capsys, text):
    # 1f375f52d4 prepends unit dims (index 0) where a tile is longer than the
    # dims: the newest XLA agrees with the spec, and says which XLA it is
    code, out, _ = run(capsys, "check-rule", "linear_index_nested", text)
    assert code == 0 and "agrees with the spec: proved" in out
    assert "XLA: 183fa00cb5 (2026-08-22)" in out and "CHECK_LE" not in out


def test_every_rule_lists_its_source_commit(capsys):
    code, out, _ = run(capsys, "check-rule", "--list")
    assert code == 0
    for r in RULES.values():
        assert "commit " in r.source and f"source: {r.source}" in out


def test_nested_check_can_fail(monkeypatch):
    # A test that cannot fail is a defect: with the first-tile-only loop in
    # place of the nested one, the same check refutes, with a replayed witness.
    from tilespec.prover.models import nested_check
    from tilespec.prover.models.linear_index import xla_linear_index_form
    s = shape("bf16[m,n]{1,0:T(8,128)(2,1)}")
    monkeypatch.setattr(nested_check, "nested_form",
                        lambda s, e, dims, ar, xla=None: xla_linear_index_form(s, e, dims, ar))
    monkeypatch.setattr(nested_check, "xla_nested_linear_index",
                        lambda s, e, dims=None, ar=None, xla=None: xla_linear_index(s, e))
    r = check("linear_index_nested", [s])
    assert r.status == "refuted"
    assert r.counterexample.side("xla").offset != r.counterexample.side("spec").offset


def test_cli_lists_the_nested_rules(capsys):
    code, out, _ = run(capsys, "check-rule", "--list")
    assert code == 0 and "LinearIndexForNestedTiling" in out
    assert "DelinearizeIndexForNestedTiling" in out


def test_cli_says_a_vacuous_agreement_compared_nothing(capsys):
    code, out, _ = run(capsys, "check-rule", "linear_index", "bf16[m,n]{1,0:T(8,128)(2,1)}",
                       "--assume-conditions")
    assert "proved only vacuously (nothing compared" in out
    assert "agrees with the spec" not in out


def test_nested_linear_index_theorem_on_the_family():
    # every layout of the family (ranks 0-3, ten tilings, later levels that
    # pad or reorder, with and without L): proved for every size, and never
    # vacuously (the only condition is on the text)
    # (the 18 layouts of the 120 whose tile is longer than the rank abort
    # XLA before 1f375f52d4; since, unit dims pad them and they agree too)
    results = rules.prove_conditions("linear_index_nested")
    assert len(results) == 120
    assert {r.status for r in results} == {"proved"}
    assert not any(r.scope.endswith("vacuous)") for r in results)


#: ArraySize in bytes as jaxlib 0.10.2 (CPU) measured it (on_device_size_in_bytes
#: of an array given the exact layout, through tilespec.xla.real): every layout
#: with a split config among 149 random ones; the other 109 agree too.
