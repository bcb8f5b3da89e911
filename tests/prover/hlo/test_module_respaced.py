"""The HLO reader takes whitespace where XLA's lexer takes it, and refuses
where XLA's parser refuses.

Real modules (tests/data/hlo, the CPU dumps of tests/data/dump and of six
jax programs) are re-spaced between XLA's tokens (tests/hlo_respacing.py):
whitespace or a comment inserted, or the whitespace of a gap removed.  The
reader must read a module, with nothing skipped, exactly when XLA's parser
(jaxlib's ``hlo_module_from_text``) accepts it, and then read the same
instructions: name, opcode, operands and result shape.  The integration
tests ask real XLA, a Hypothesis test drawing the edits; the recorded cases
below are XLA's answers kept, so the inner loop checks them without jaxlib
(and an integration test asks XLA again whether they still hold).
"""

from __future__ import annotations

import json
import re

import pytest
from hlo_respacing import INSERTIONS, Edit, XlaParser, respace, tokens
from hypothesis import HealthCheck, given, settings, strategies as st
from locations import DATA

from tilespec.prover.hlo.check import check_module
from tilespec.prover.hlo.module import Module, parse_hlo
from tilespec.spec.printer import format_shape
from tilespec.spec.text import parse_shape

ALL_REDUCE = """HloModule m, replica_count=8
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
ENTRY %e (p: f32[8]) -> f32[8] {
  %p = f32[8]{0} parameter(0)
  ROOT %r = f32[8]{0} all-reduce(%p), replica_groups=GROUPS, to_apply=%add
}
"""

MOVES = """HloModule m
ENTRY %e (p: f32[8,128]) -> RESULT {
  %p = f32[8,128]{1,0:T(8,128)} parameter(0)
  ROOT b = SHAPE bitcast(%p), metadata={op_name="x"}
}
"""
TILED = "f32[2,512]{1,0:T(8,128)}"

#: (text, whether XLA's parser accepts it), as jaxlib 0.10.2's XLA answered
#: (test_the_recorded_answers_are_xlas asks it again).
RECORDED = [
    (ALL_REDUCE.replace("GROUPS", g), xla) for g, xla in [
        ("[2,4]<=[8]", True), ("[2,4] <=[8]", True), ("[2,4]<= [8]", True),
        ("[2,4] <= [8] ", True), ("[2,4]<=[4,2]T(1,0)", True),
        ("[2,4]<=[4,2] T (1,0)", True), ("[2,4]<=[4,2]\nT(1,0)", True),
        ("[2,4] < =[8]", False), ("{ {0,1,2,3} , {4,5,6,7} }", True),
        ("[2,4]<=[4,2]T(1,0)}", False), ("mesh['a'=8] {'a'}", True),
        ("mesh ['a'=2,'b'=4]\n  {'a','b'}", True), ("mesh[ 'a' = 2 , 'b' = 4 ] { 'b' }", True),
        ("mesh['a'=8]", False), ("mesh['a'=8] {'a'} {'a'}", False)]
] + [
    (MOVES.replace("RESULT", "f32[2,512]").replace("SHAPE", s), xla) for s, xla in [
        (TILED, True), ("f32 [2,512] {1,0:T(8,128)}", True),
        ("f32[2,512]{1,0 :T(8,128)}", True), ("f32[2,512]{1 , 0 : T ( 8 , 128 ) }", True),
        ("f32\n[2,512]{1,0:T(8,128)}", True), ("f32/*x*/[2,512]{1,0:T(8,128)}", True),
        (TILED + "\x0b", False), ("f32[2,\x0b512]{1,0:T(8,128)}", False),
        (TILED + "\xa0", False), ("f 32[2,512]{1,0:T(8,128)}", False)]
] + [
    (MOVES.replace("-> RESULT {", r).replace("SHAPE", TILED), xla) for r, xla in [
        ("-> f32 [2,512] {", True), ("->f32[2,512]{", True), ("- > f32[2,512] {", False),
        ("-> " + TILED + " {", True), ("-> f32 [2,512] {1,0:T(8,128)}{", True)]
] + [
    # removals that merge two tokens into one
    (MOVES.replace("RESULT", "f32[2,512]").replace("SHAPE", TILED)
     .replace("ROOT b", "ROOTb"), True),                 # an instruction named ROOTb
    (MOVES.replace("RESULT", "f32[2,512]").replace("SHAPE", TILED)
     .replace("b = ", "b= "), False),                    # 'b=' is an attribute name
    (MOVES.replace("RESULT", "f32[2,512]").replace("SHAPE", TILED)
     .replace('"x"}\n', '"x"}'), True),                  # the value's '}' then the body's
    (MOVES.replace("RESULT", "f32[2,512]").replace("SHAPE", TILED)
     .replace("parameter(0)\n  ROOT", 'parameter(0), metadata={op_name="y"}ROOT'), True),
    (MOVES.replace("RESULT", "f32[2,512]").replace("SHAPE", TILED)
     .replace("HloModule m", "HloModulem"), False),
    (MOVES.replace("RESULT", "f32[2,512]").replace("SHAPE", TILED)
     .replace("%p)", "% p)"), False),
]


def accepted(text: str) -> Module | None:
    """The reader's module when it reads everything in ``text``, else None."""
    try:
        m = parse_hlo(text)
    except ValueError:
        return None
    return None if m.skipped else m


def reading(m: Module) -> list:
    return [(c.name, [(i.name, i.opcode, i.operands, format_shape(i.shape))
                      for i in c.instructions]) for c in m.computations]


@pytest.mark.parametrize("text,xla", RECORDED, ids=range(len(RECORDED)))
def test_the_reader_accepts_a_recorded_module_exactly_when_xla_does(text, xla):
    assert (accepted(text) is not None) == xla


def test_a_header_with_a_space_before_the_dims_is_read_and_its_bitcast_reported():
    # issue 29: '-> f32 [2,512] {' was "not an HLO module", the bitcast unseen
    text = MOVES.replace("-> RESULT {", "-> f32 [2,512] {").replace("SHAPE", TILED)
    r = check_module(parse_hlo(text))
    assert r.status == "refuted"
    assert [f.rule for f in r.findings if f.rule.startswith("bitcast")] == ["bitcast-refuted"]


def test_whitespace_inserted_between_every_two_tokens_reads_the_same_module():
    for path in sorted((DATA / "dump").glob("*.txt")) + sorted((DATA / "hlo").glob("jax_*.hlo")):
        text = path.read_text()
        n = len(tokens(text))
        for what in range(len(INSERTIONS)):
            m = accepted(respace(text, [Edit(k, what) for k in range(1, n)]))
            assert m is not None, (path.name, INSERTIONS[what])
            assert reading(m) == reading(parse_hlo(text)), (path.name, INSERTIONS[what])


# --- against real XLA ----------------------------------------------------------------------

@pytest.fixture(scope="module")
def xla():
    pytest.importorskip("jax", reason="the xla extra runs XLA's parser")
    parser = XlaParser()
    yield parser
    parser.close()


@pytest.fixture(scope="module")
def corpus(xla) -> list[str]:
    """The modules the reader reads whole and XLA accepts."""
    from test_module_xla import jax_dumps
    texts = [p.read_text() for p in sorted((DATA / "hlo").glob("*.hlo"))
             + sorted((DATA / "dump").glob("*.txt"))] + jax_dumps()
    return [t for t in texts if accepted(t) is not None and "error" not in xla.parse(t)]


def same_as_xla(m: Module, answer: dict) -> None:
    """Computations, and in each the instructions in order: name (XLA makes
    names unique in the module, p -> p.1: exact when they are), opcode,
    operands by position, result shape."""
    assert sorted(c.name for c in m.computations) == sorted(answer["computations"])
    unique = len({i.name for i in m.instructions}) == len(m.instructions)
    for c in m.computations:
        theirs = answer["computations"][c.name]
        ours_at = {i.name: k for k, i in enumerate(c.instructions)}
        theirs_at = {t["name"]: k for k, t in enumerate(theirs)}
        assert [(i.name if unique else _base(i.name), i.opcode,
                 [ours_at[o] for o in i.operands]) for i in c.instructions] == \
            [(t["name"] if unique else _base(t["name"]), t["opcode"],
              [theirs_at[o] for o in t["operands"]]) for t in theirs], c.name
        assert [format_shape(i.shape) for i in c.instructions] == \
            [format_shape(parse_shape(t["shape"])) for t in theirs], c.name


def _base(name: str) -> str:
    return re.sub(r"\.\d+$", "", name)


@pytest.mark.integration
def test_the_recorded_answers_are_xlas(xla):
    assert [("error" not in xla.parse(t)) for t, _ in RECORDED] == [v for _, v in RECORDED]


@pytest.mark.integration
@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                   HealthCheck.too_slow])
@given(data=st.data())
def test_a_respaced_module_is_read_exactly_when_xla_reads_it_and_alike(xla, corpus, data):
    text = data.draw(st.sampled_from(corpus), label="module")
    n = len(tokens(text))
    edits = data.draw(st.lists(st.builds(Edit, st.integers(1, n - 1),
                                         st.sampled_from([-1, -1, *range(len(INSERTIONS))])),
                               min_size=1, max_size=8), label="edits")
    respaced = respace(text, edits)
    answer = xla.parse(respaced)
    assert "aborted" not in answer, json.dumps(respaced)
    ours = accepted(respaced)
    assert (ours is not None) == ("error" not in answer), (answer.get("error"),
                                                           ours is None and respaced)
    if ours is not None:
        same_as_xla(ours, answer)
