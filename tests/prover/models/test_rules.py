"""XLA's own rules (``prover.models.rules``) against the spec: each rule agrees
(proved) on some layouts and disagrees (refuted, replayed) on others."""

import itertools
import json

import pytest

from tilespec.cli import main
from tilespec.prover.bitcast.reading import prove_concrete, question
from tilespec.prover.models import rules
from tilespec.prover.models.array_size import array_size_behaviour, split_index_wraps
from tilespec.prover.models.bitcast_tiling import simplifier_keeps
from tilespec.prover.models.cpp import Int64, XlaGivesNoValue
from tilespec.prover.models.data_size import array_data_size_int64, spec_data_bytes
from tilespec.prover.models.decomposable import is_decomposable_bitcast, spec_relabels
from tilespec.prover.models.linear_index import SOURCE as linear_index_source, linear_index_int64
from tilespec.prover.models.nested_tiling import (
    nested_delinearize_int64,
    nested_linear_index_int64,
    xla_nested_delinearize,
)
from tilespec.prover.models.rules import (
    MEMORY_SPACES,
    RULES,
    check,
    loop_identity,
    xla_array_bytes,
    xla_array_size,
    xla_linear_index,
    xla_reshape_is_bitcast,
    xla_transpose_is_bitcast,
)
from tilespec.prover.models.untiled import is_untiled_layout, spec_is_untiled
from tilespec.spec.index import offset
from tilespec.spec.layout import Layout, Shape
from tilespec.spec.size import aligned_elements, byte_size
from tilespec.spec.text import parse_array_shape as shape


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def args_of(name, example):
    if RULES[name].shapes == 1:
        return [shape(example)], None
    t = example[2] if len(example) > 2 else None
    return [shape(example[0]), shape(example[1])], t


@pytest.mark.parametrize("name,example", [(n, e) for n, r in RULES.items() for e in r.agree])
def test_rule_agrees(name, example):
    shapes, t = args_of(name, example)
    r = check(name, shapes, transpose=t)
    assert r.status == "proved", (r.reason, r.counterexample)


@pytest.mark.parametrize("name,example", [(n, e) for n, r in RULES.items() for e in r.disagree])
def test_rule_disagrees_with_a_replayed_counterexample(name, example):
    shapes, t = args_of(name, example)
    r = check(name, shapes, transpose=t)
    assert r.status == "refuted"
    ce = r.counterexample
    if r.xla is not None:
        # XLA aborts, is undefined or wraps: the transcription, run again on
        # the counterexample's shape, does the same
        assert xla_behaviour_of(name, shape(ce.side("xla").shape), ce) == r.xla
        if r.xla.value is not None:
            assert ce.side("xla").value == r.xla.value or ce.side("xla").offset == r.xla.value
    elif name in ("array_data_size", "is_untiled_layout"):
        s = shape(ce.side("spec").shape)
        xla = (array_data_size_int64(s)[0] if name == "array_data_size"
               else int(is_untiled_layout(s)))
        spec = spec_data_bytes(s) if name == "array_data_size" else int(spec_is_untiled(s))
        assert (xla, spec) == (ce.side("xla").value, ce.side("spec").value) and xla != spec
    elif name == "validate_tiling_of_bitcast":
        from tilespec.prover.bitcast import is_bitcast
        xla = int(simplifier_keeps(*shapes))
        spec = int(is_bitcast(*shapes).status == "proved")
        assert (xla, spec) == (ce.side("xla").value, ce.side("spec").value) and xla != spec
    elif name == "is_decomposable_bitcast":
        xla, spec = int(is_decomposable_bitcast(*shapes)), int(spec_relabels(*shapes))
        assert (xla, spec) == (ce.side("xla").value, ce.side("spec").value) and xla != spec
    elif name == "array_size":
        xla, spec = ce.side("xla"), ce.side("spec")
        s = shape(spec.shape)
        elements = ce.details["elements"]
        assert xla_array_size(s) == elements["xla"] != aligned_elements(s)
        assert (elements["spec"], spec.value) == (aligned_elements(s), byte_size(s))
        assert xla_array_bytes(s) == xla.value != spec.value
    elif name == "linear_index":
        xla, spec = ce.side("xla"), ce.side("spec")
        s = shape(spec.shape)
        assert xla.element == spec.element
        assert xla_linear_index(s, xla.element) == xla.offset
        assert offset(s, spec.element) == spec.offset != xla.offset
    elif name == "delinearize_nested":
        xla, spec = ce.side("xla"), ce.side("spec")
        s = shape(spec.shape)
        assert offset(s, spec.element) == spec.offset == xla.offset
        assert xla_nested_delinearize(s, xla.offset) == xla.element != spec.element
    else:
        a, b = shape(ce.side("source").shape), shape(ce.side("target").shape)
        xla = (xla_reshape_is_bitcast(a, b) if t is None
               else xla_transpose_is_bitcast(a, b, t))
        assert xla == ce.details["xla_says_bitcast"] != ce.details["spec_says_bitcast"]


def xla_behaviour_of(name, s, ce):
    """What the transcription of rule ``name``'s function does on ``s``
    (at the counterexample's element, where it names one)."""
    try:
        if name == "array_size":
            return array_size_behaviour(s) or split_index_wraps(s)
        if name == "array_data_size":
            value, c = array_data_size_int64(s)
            return c.undefined(value)
        if name in ("linear_index_nested", "linear_index"):
            element = ce.side("xla").element or (0,) * s.rank
            if name == "linear_index":
                c = Int64("LayoutUtil::LinearIndex", linear_index_source)
                value = linear_index_int64(s, element, c)
            else:
                value, c = nested_linear_index_int64(s, element)
            return c.undefined(value)
        if name == "delinearize_nested":
            nested_delinearize_int64(s, 0)
        if name == "is_untiled_layout":
            is_untiled_layout(s)
    except XlaGivesNoValue as stop:
        return stop.behaviour
    return None


# --- the rules as XLA states them ----------------------------------------------------

def test_array_size_values():
    # facts: first tile only, missing tile dims pad a virtual unit dim, L only when tiled
    assert xla_array_size(shape("bf16[3,5]{1,0:T(8,128)(2,1)}")) == 1024
    assert xla_array_size(shape("f32[]{:T(128)}")) == 128
    assert xla_array_bytes(shape("f32[]{:T(128)}")) == 512
    assert xla_array_size(shape("f32[3]{0:L(4)}")) == 3
    assert xla_array_size(shape("f32[3]{0:T(2)L(4)}")) == 4
    assert xla_array_bytes(shape("s4[3]{0:T(2)E(4)}")) == 2
    # '*' is INT64_MIN: RoundUpTo(d, INT64_MIN) = CeilOfRatio(d, INT64_MIN) *
    # INT64_MIN = 0 (C++ division truncates, no adjustment for a negative divisor)
    assert xla_array_size(shape("f32[3,5]{1,0:T(*,2)}")) == 0
    assert xla_array_size(shape("s8[3,5,7]{2,1,0:T(*,2,2)(2,2)}")) == 0
    # split configs: each dim is its MaxSplitSize (measured on jaxlib 0.10.2)
    assert xla_array_bytes(shape("f32[10,6]{1,0:T(2,2)SC(0:3,5)}")) == 144
    assert xla_array_bytes(shape("f32[10,6]{1,0:T(2,2)SC(1:4)}")) == 160
    assert xla_array_bytes(shape("f32[10,6]{0,1:T(2,2)SC(0:3)}")) == 160
    assert xla_array_bytes(shape("f32[10,6]{1,0:SC(0:3,5)}")) == 240  # untiled: no split


def test_linear_index_values():
    assert xla_linear_index(shape("f32[3,5]{1,0:T(2,2)}"), (2, 3)) == 17
    assert xla_linear_index(shape("f32[200]{0:T(8,128)}"), (130,)) == 130  # rank 1: unchanged
    assert xla_linear_index(shape("s32[]{:T(128)}"), ()) == 0
    # '*' in the first tile: the tile multiplier starts at a product with
    # INT64_MIN and overflows (undefined), a verdict rather than "not applicable"
    r = check("linear_index", [shape("f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}")])
    assert r.status == "refuted" and r.xla.kind == "undefined"


@pytest.mark.parametrize("kind,text", [
    ("linear_index", "f32[a,b,c]{0,2,1:T(4,8,128)}"),
    ("linear_index", "f32[a,b]{1,0:T(2,4,8)}"),
    ("array_size", "f32[a,b,c]{2,0,1:T(8,128)(2,1)}"),
    ("array_size", "bf16[a,b]{1,0:T(*,128)}"),
])
def test_loop_identity(kind, text):
    s = shape(text)
    assert loop_identity(kind, s.layout, s.rank, s.element_type).proved


# --- conditions -----------------------------------------------------------------------

def test_size_conditions_make_agreement_provable():
    s = shape("f32[m,n]{1,0:T(8,128)(2,1,1,1)}")
    assert check("array_size", [s]).status == "refuted"
    r = check("array_size", [s], assume_conditions=True)
    assert r.status == "proved"
    assert "wherever the size conditions hold" in r.scope
    assert not r.scope.endswith("vacuous)")


def test_vacuous_conditions_are_called_vacuous():
    r = check("linear_index", [shape("bf16[m,n]{1,0:T(8,128)(2,1)}")], assume_conditions=True)
    assert r.status == "proved" and r.scope.endswith("vacuous)")


def test_rank_one_linear_index():
    # one tile entry: the offset is the index, whatever the size
    assert check("linear_index", [shape("f32[n]{0:T(128)}")]).status == "proved"
    # a longer tile: the index only while one tile row suffices
    r = check("linear_index", [shape("f32[n]{0:T(8,128)}")])
    assert r.status == "refuted" and r.counterexample.dim_values["n"] > 128
    assert check("linear_index", [shape("f32[n]{0:T(8,128)}")],
                 assume_conditions=True).status == "proved"


def test_layout_conditions_reported():
    rule = RULES["array_size"]
    conds = dict(rule.layout_conditions([shape("f32[3]{0:L(4)}")]))
    assert conds["tiled, or L(1): XLA applies L(n) only to tiled layouts"] is False


def test_reshape_rule_exact_on_untiled_layouts():
    # Evidence for the 'both untiled' condition: every pair of untiled
    # shapes with 1, 2, 4, 6 or 8 elements up to rank 3, every layout.
    def factorisations(n, r):
        if r == 0:
            if n == 1:
                yield ()
            return
        for d in range(1, n + 1):
            if n % d == 0:
                for rest in factorisations(n // d, r - 1):
                    yield (d,) + rest

    count = 0
    for n in (1, 2, 4, 6, 8):
        shapes = [Shape("f32", dims, Layout(p)) for r in (1, 2, 3)
                  for dims in factorisations(n, r)
                  for p in itertools.permutations(range(r))]
        for a in shapes:
            for b in shapes:
                spec = prove_concrete(question(a, b), 5, 0, prove=False).status != "refuted"
                assert xla_reshape_is_bitcast(a, b) == spec, (a, b)
                count += 1
    assert count > 5000


def test_symbolic_reshape_rule():
    r = check("reshape_is_bitcast", [shape("f32[m,n]{1,0}"), shape("f32[n,m]{1,0}")])
    # XLA's unit checks say yes for row-major to row-major; the spec agrees
    assert r.status in ("proved", "unknown")
    r = check("reshape_is_bitcast", [shape("f32[m,n]{1,0:T(8,128)}"),
                                      shape("f32[m,n,1]{2,1,0:T(8,128)}")])
    assert r.status == "refuted" and r.counterexample.details["xla_says_bitcast"] is True


# --- the command line ----------------------------------------------------------------------

def test_cli_list(capsys):
    code, out, _ = run(capsys, "check-rule", "--list")
    assert code == 0
    for name in RULES:
        assert out.count(name + " ") >= 1
    code, out, _ = run(capsys, "check-rule", "--list", "--json")
    assert code == 0 and {r["data"]["name"] for r in json.loads(out)["results"]} == set(RULES)


def test_cli_check_rule(capsys):
    code, out, _ = run(capsys, "check-rule", "linear_index", "bf16[16,256]{1,0:T(8,128)(2,1)}")
    assert code == 1
    assert "disagrees with the spec: refuted" in out
    lines = {line.split(":")[0].strip(): line for line in out.splitlines()}
    assert lines["xla"].endswith("element (0, 1), offset 1")
    assert lines["spec"].endswith("element (0, 1), offset 2")
    code, out, _ = run(capsys, "check-rule", "array_size", "f32[m,n]{1,0:T(8,128)}", "--json")
    assert code == 0 and json.loads(out)["results"][0]["status"] == "proved"
    code, out, _ = run(capsys, "check-rule", "linear_index", "f32[2,6]{1,0:T(*,2)}")
    assert code == 1 and "undefined behaviour in LayoutUtil::LinearIndex" in out
    code, _, err = run(capsys, "check-rule", "nonsense", "f32[2]")
    assert code == 2 and "unknown rule" in err
    code, out, _ = run(capsys, "check-rule", "transpose_is_bitcast", "f32[8,256]{1,0:T(8,128)}",
                       "f32[256,8]{0,1:T(2,128)}", "--transpose", "1,0")
    assert code == 1 and "xla_says_bitcast: true" in out


@pytest.mark.parametrize("name", ["array_size", "linear_index"])
def test_condition_theorem(name):
    # On every layout of the family, for every size where the size
    # conditions hold, the rule agrees with the spec; some layouts' conditions
    # never hold (a (3,1) tile on 8 rows), and those are called vacuous.
    results = rules.prove_conditions(name)
    assert len(results) > 50
    assert {r.status for r in results} == {"proved"}
    assert any(r.scope.endswith("vacuous)") for r in results)
    assert any(not r.scope.endswith("vacuous)") and "T(8,128)(2,1" in r.shape for r in results)


def test_cli_conditions(capsys):
    code, out, _ = run(capsys, "check-rule", "array_size", "--conditions")
    assert code == 0 and "proved   bf16[a,b,c]{2,1,0:T(8,128)(2,1,1,1)}" in out
    code, _, err = run(capsys, "check-rule", "reshape_is_bitcast", "--conditions")
    assert code == 2


# --- every branch of a bitcast rule ---------------------------------------------------

def test_symbolic_rule_compares_the_element_type_branch():
    # XLA's ReshapeIsBitcast returns "no" on its first line when the element
    # types differ; the spec's memory is the same for f32 and s32 (both 32
    # bits).  The "yes" branch is then empty: agreeing there is vacuous, and
    # the check must not say "proved".
    r = check("reshape_is_bitcast", [shape("f32[m]{0}"), shape("s32[m]{0}")])
    assert r.status == "refuted", r.steps
    ce = r.counterexample
    assert ce.details["xla_branch"] == "element types"
    assert ce.details["xla_says_bitcast"] is False and ce.details["spec_says_bitcast"] is True
    src, dst = shape(ce.side("source").shape), shape(ce.side("target").shape)
    assert not xla_reshape_is_bitcast(src, dst)
    assert prove_concrete(question(src, dst), 5, 0, prove=False).status != "refuted"


def test_equal_width_element_types_are_a_disagreement_not_an_error():
    r = check("reshape_is_bitcast", [shape("f32[4]{0}"), shape("s32[4]{0}")])
    assert r.status == "refuted"
    assert r.counterexample.details["xla_failing_check"] == {"element_types": ["f32", "s32"]}
    r = check("transpose_is_bitcast", [shape("f32[2,3]{1,0}"), shape("s32[3,2]{0,1}")],
              transpose=(1, 0))
    assert r.status == "refuted" and r.counterexample.details["xla_branch"] == "element types"


def test_ignore_element_type_is_xlas_argument():
    r = check("reshape_is_bitcast", [shape("f32[m]{0}"), shape("s32[m]{0}")],
              ignore_element_type=True)
    assert r.status == "proved"
    assert check("reshape_is_bitcast", [shape("f32[4]{0}"), shape("s32[4]{0}")],
                 ignore_element_type=True).status == "proved"


def test_different_widths_agree_by_the_element_type_branch():
    r = check("reshape_is_bitcast", [shape("f32[m]{0}"), shape("bf16[m]{0}")])
    assert r.status == "proved"
    assert any("keeps the bits" in s for s in r.steps)


def test_transpose_rule_that_says_no_for_every_size_is_not_proved_vacuously():
    # TransposeIsBitcast says no from the text alone; its "yes" branch is
    # empty.  Where the spec says bitcast at some size, that is a disagreement.
    r = check("transpose_is_bitcast", [shape("f32[1,n]{1,0}"), shape("f32[n,1]{1,0}")],
              transpose=(1, 0))
    assert r.status == "refuted" and r.counterexample.details["xla_branch"] == "minor_to_major"
    assert any("never happens" in s for s in r.steps)


def test_cli_equal_width_types(capsys):
    code, out, _ = run(capsys, "check-rule", "reshape_is_bitcast", "f32[4]{0}", "s32[4]{0}")
    assert code == 1 and 'xla_branch: "element types"' in out
    code, out, _ = run(capsys, "check-rule", "reshape_is_bitcast", "f32[4]{0}", "s32[4]{0}",
                       "--ignore-element-type")
    assert code == 0


def test_array_size_agreement_absorbed_by_L_is_not_an_internal_error():
    # A later level pads (T(2,1,1,1) doubles the tile rows) and L(2048)
    # rounds XLA's first-tile size up to the same 2048 elements: XLA and the
    # spec agree, although the level-by-level facts (sufficient, not needed)
    # fail; the verdict is agreement, not a ProverBug ("nothing replays").
    s = shape("f32[8,128]{1,0:T(8,128)(2,1,1,1)L(2048)}")
    assert xla_array_size(s) == aligned_elements(s) == 2048
    r = check("array_size", [s])
    assert r.status == "proved"
    # with names the same layout disagrees (m=5, n=129: 2048 vs 4096)
    r = check("array_size", [shape("f32[m,n]{1,0:T(8,128)(2,1,1,1)L(2048)}")])
    assert r.status == "refuted"


def test_cli_array_size_agreement_exit_0(capsys):
    code, out, err = run(capsys, "check-rule", "array_size",
                         "f32[8,128]{1,0:T(8,128)(2,1,1,1)L(2048)}")
    assert code == 0 and "agrees with the spec: proved" in out, err


MEASURED_SPLIT_SIZES = [
    ("bf16[17,17]{1,0:T(3,5)L(64)SC(1:10,12)}", 384),
    ("bf16[17,5]{0,1:T(2)SC(1:8,16)}", 80),
    ("bf16[17,8,3]{2,1,0:T(2)SC(2:1,2)}", 544),
    ("bf16[3,1,5]{2,1,0:T(2,2)(2,1)SC(0:1,2)}", 24),
    ("bf16[3,10]{0,1:T(2,2)(2,1)SC(0:6,8)}", 48),
    ("bf16[5,10]{0,1:T(4)SC(0:6,8)}", 96),
    ("bf16[5,17,8]{1,0,2:T(8,128)SC(0:1,5)}", 8192),
    ("bf16[8,5,2]{1,2,0:SC(0:2,7)}", 160),
    ("bf16[8,8]{0,1:T(4)SC(0:3,6)}", 48),
    ("bf16[8]{0:T(2,2)(2,1)SC(0:1,4)}", 16),
    ("bf16[8]{0:T(8,128)(2,1)SC(0:1,2)}", 2048),
    ("f32[1,3,8]{0,1,2:T(3,5)SC(0:4,5)}", 240),
    ("f32[10,2,3]{2,1,0:T(8,128)SC(0:5,6)}", 20480),
    ("f32[10]{0:SC(0:2,7)}", 40),
    ("f32[17,2]{1,0:T(8,128)(2,1)SC(0:1,6)}", 8192),
    ("f32[17,3]{0,1:T(3,5)L(4)SC(1:5,10)}", 128),
    ("f32[17,8]{1,0:T(4)SC(1:2,7)}", 544),
    ("f32[3]{0:T(2)SC(0:1,2)}", 8),
    ("f32[5,17]{0,1:T(4,2)(2,1,1)SC(1:1,4)}", 320),
    ("f32[5]{0:T(8,128)(2,1)SC(0:2,3)}", 4096),
    ("f32[8]{0:T(2,2)(2,1)SC(0:2,3)}", 48),
    ("f32[8]{0:T(4)L(6)SC(0:4,6)}", 24),
    ("s32[10]{0:T(4,2)(2,1,1)SC(0:3,4)}", 96),
    ("s32[17,10]{1,0:T(2,2)(2,1)SC(0:11,16)}", 480),
    ("s32[17,5]{0,1:T(4)SC(0:1,4)}", 240),
    ("s32[17]{0:T(2)SC(0:5,16)}", 48),
    ("s32[5,2]{1,0:T(2,2)L(4)SC(0:1,4)}", 32),
    ("s32[8]{0:T(3,5)SC(0:1,2)}", 120),
    ("s8[10]{0:SC(0:1,4)}", 10),
    ("s8[10]{0:T(4,2)(2,1,1)SC(0:2,5)}", 24),
    ("s8[17,10]{0,1:SC(1:12,13)}", 170),
    ("s8[17,5,17]{1,2,0:T(4,2)(2,1,1)SC(0:1,14)}", 1560),
    ("s8[2,10,2]{0,2,1:T(8,128)(2,1)SC(0:4,5)}", 5120),
    ("s8[3,10,8]{2,1,0:T(8,128)(2,1)L(4)SC(2:5,7)}", 6144),
    ("s8[5,17,3]{1,2,0:T(4,2)(2,1,1)SC(2:2,12)}", 200),
    ("s8[5]{0:SC(0:2,3)}", 5),
    ("s8[5]{0:T(2)L(64)SC(0:1,4)}", 64),
    ("s8[5]{0:T(2)SC(0:2,4)}", 2),
    ("s8[8,10,17]{0,1,2:T(2,2)(2,1)SC(1:4,9)}", 816),
    ("s8[8,8]{0,1:T(4)SC(1:2,6)}", 32)
]


@pytest.mark.parametrize("text,size", MEASURED_SPLIT_SIZES)
def test_array_size_with_split_configs_as_the_binary_measured(text, size):
    assert xla_array_bytes(shape(text)) == size


@pytest.mark.parametrize("text, wrapped", [("f32[2]{0:T(2)L(4611686018427387904)}", 0),
                                           ("f32[2]{0:T(2)L(9223372036854775807)}", -4)])
def test_array_size_past_int64_is_xlas_wrapped_value(capsys, text, wrapped):
    # XLA accepts these layouts; ArraySize's int64 products overflow and the
    # binary returns the wrapped value (tests/prover/models/test_array_size_against_xla.py)
    assert xla_array_bytes(shape(text)) == wrapped
    code, out, _ = run(capsys, "check-rule", "array_size", text)
    assert code == 1 and f"XLA wraps and returns {wrapped}" in out
    assert "agrees" not in out
    code, out, _ = run(capsys, "explain", text)   # a valid layout: answered, the wrap said
    assert code == 0 and f"XLA's ArraySize wraps to {wrapped} (undefined behaviour" in out
    code, _, err = run(capsys, "offset", text, "0")  # offsets past int64: still refused
    assert code == 2 and f"wraps around (signed overflow, undefined behaviour) and " \
        f"returns {wrapped} bytes" in err


def test_a_proof_for_all_sizes_is_scoped_short_of_int64_overflow():
    """XLA's ArraySize wraps past 2^63 (a concrete verdict of its own), so
    the agreement proved over unbounded integers must not claim every size."""
    import tilespec
    from tilespec.prover.models.rule_check import NO_INT64_OVERFLOW
    proved = tilespec.check_rule("array_size", "f32[m,n]{1,0:T(8,128)}")
    assert proved.status == "proved" and proved.scope.endswith(NO_INT64_OVERFLOW)
    wrapped = tilespec.check_rule("array_size", "f32[1,2305843009213693951]{1,0:T(8,128)}")
    assert wrapped.status == "refuted" and wrapped.xla is not None


@pytest.mark.parametrize("name,src,dst,t", [
    ("reshape_is_bitcast", "f32[{}]{{0:S(5)}}", "f32[{}]{{0}}", None),
    ("reshape_is_bitcast", "f32[{},4]{{1,0}}", "f32[{},4]{{1,0:S(5)}}", None),
    ("transpose_is_bitcast", "f32[{},4]{{1,0:S(5)}}", "f32[4,{}]{{0,1}}", (1, 0)),
])
def test_host_memory_on_one_side_gives_one_verdict_for_sizes_and_names(name, src, dst, t):
    # XLA's rules read no memory space; the spec's bitcast is XLA's verifier's
    # (host memory S(5) on one side only is rejected): a disagreement, found
    # on concrete dims and on named ones alike, never "proved" on names
    for n in ("8", "m"):
        r = check(name, [shape(src.format(n)), shape(dst.format(n))], transpose=t)
        assert r.status == "refuted", (n, r.steps)
        ce = r.counterexample
        assert ce.details["xla_says_bitcast"] and not ce.details["spec_says_bitcast"]
        assert "host memory S(5)" in ce.what
    assert dict(RULES[name].layout_conditions([shape(src.format(8)), shape(dst.format(8))]))[
        MEMORY_SPACES] is False


def test_memory_spaces_the_verifier_accepts_leave_a_rule_s_verdict_alone():
    for n in ("8", "m"):
        r = check("reshape_is_bitcast", [shape(f"f32[{n}]{{0:S(1)}}"), shape(f"f32[{n}]{{0}}")])
        assert r.status == "proved"


@pytest.mark.parametrize("src, dst, m", [
    ("f32[<=3,m]{1,0}", "f32[m,<=3]{1,0}", 2),
    ("f32[m,2,<=4]{2,1,0}", "f32[m,<=8]{1,0}", 3),
    ("f32[m,<=4]{1,0}", "f32[m,4]{1,0}", 2),
    ("f32[<=4,m]{1,0}", "f32[<=4,m]{1,0}", 2),
])
def test_a_rule_on_named_and_dynamic_dims_is_never_proved_where_a_size_disagrees(src, dst, m):
    # XLA's ReshapeIsBitcast reads the bound shapes; below the bound the
    # runtime dims pair elements otherwise, so agreement "for every m" must
    # hold at every runtime size or not be claimed
    r = rules.check("reshape_is_bitcast", [shape(src), shape(dst)])
    at = rules.check("reshape_is_bitcast", [shape(src.replace("m", str(m))),
                                            shape(dst.replace("m", str(m)))])
    assert r.status != "proved" or at.status == "proved", (r.status, at.status)
    if at.status == "refuted":
        assert r.status == "refuted"
