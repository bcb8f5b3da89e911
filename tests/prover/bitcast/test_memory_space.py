"""The bitcast decision asks what XLA's verifier asks of memory spaces
(``ShapeVerifier::HandleBitcast``, xla/service/hlo_verifier.cc, ROCm/xla
183fa00cb5d8): host memory ``S(5)`` on one side only is rejected, whatever
the bytes do and whatever reading is asked; every other pair is accepted;
a constant operand may change memory space."""

from __future__ import annotations

import json

import pytest

import tilespec
from tilespec.cli.main import main
from tilespec.prover.bitcast import (
    HOST_MEMORY_SPACE,
    decompose,
    is_bitcast,
    memory_space_violation,
)
from tilespec.spec.text import parse_array_shape as shape

#: Pairs whose bytes stay in place, on both sides of host memory.
HOST_PAIRS = [
    ("f32[1,8,128]{2,1,0:T(8,128)S(5)}", "f32[8,128]{1,0:T(8,128)}"),   # the issue's
    ("f32[8,128]{1,0:T(8,128)}", "f32[8,128]{1,0:T(8,128)S(5)}"),
    ("f32[8,128]{1,0:T(8,128)S(1)}", "f32[8,128]{1,0:T(8,128)S(5)}"),
    ("f32[8,128]{1,0:S(6)}", "f32[1024]{0:S(5)}"),       # unpinned host is another space
    ("f32[m,n]{1,0:S(5)}", "f32[m,n]{1,0}"),
]

#: Pairs the verifier accepts, bytes in place.
ACCEPTED_PAIRS = [
    ("f32[1,8,128]{2,1,0:T(8,128)}", "f32[8,128]{1,0:T(8,128)S(1)}"),
    ("f32[1,8,128]{2,1,0:T(8,128)S(5)}", "f32[8,128]{1,0:T(8,128)S(5)}"),
    ("f32[8,128]{1,0:S(6)}", "f32[1024]{0}"),
    ("f32[m,n]{1,0:S(1)}", "f32[m,n]{1,0}"),
]


#: (src, dst, reading): XLA's order, the reshape, and the identity transpose
#: where the dims allow it.
HOST_QUESTIONS = [(a, b, r) for a, b in HOST_PAIRS for r in (None, "reshape")] + [
    (a, b, tuple(range(shape(a).rank))) for a, b in HOST_PAIRS
    if shape(a).dims == shape(b).dims]


@pytest.mark.parametrize("src,dst,reading", HOST_QUESTIONS)
def test_host_memory_on_one_side_is_refuted_whatever_the_reading(src, dst, reading):
    a, b = shape(src), shape(dst)
    r = is_bitcast(a, b, reading)
    assert r.status == "refuted", r
    ce = r.counterexample
    assert [(s.name, s.value) for s in ce.sides] == [
        ("source", a.layout.memory_space), ("target", b.layout.memory_space)]
    assert "host memory S(5)" in ce.what and "verifier" in ce.what
    assert r.scope.startswith("all shapes") if a.is_symbolic else r.scope == "concrete"


@pytest.mark.parametrize("src,dst", HOST_PAIRS)
def test_the_api_the_decomposition_and_the_command_refute_a_host_pair(src, dst, capsys):
    assert tilespec.bitcast(src, dst).status == "refuted"
    assert tilespec.bitcast(src, dst, "reshape").status == "refuted"
    d = decompose(shape(src), shape(dst))
    assert d.status == "refuted" and d.tried == () and d.kind is None
    assert main(["bitcast", src, dst]) == 1
    out = capsys.readouterr().out
    assert "host memory S(5)" in out and "counterexample:" in out
    assert main(["bitcast", "--reshape", src, dst, "--json"]) == 1
    result = json.loads(capsys.readouterr().out)["results"][0]
    assert result["status"] == "refuted"
    assert [s["value"] for s in result["counterexample"]["sides"]] == [
        shape(src).layout.memory_space, shape(dst).layout.memory_space]


@pytest.mark.parametrize("src,dst", ACCEPTED_PAIRS)
def test_memory_spaces_the_verifier_accepts_leave_the_bytes_to_decide(src, dst, capsys):
    a, b = shape(src), shape(dst)
    assert memory_space_violation(a, b) is None
    for reading in (None, "reshape"):
        r = is_bitcast(a, b, reading)
        assert r.status == "proved", r
        differ = a.layout.memory_space != b.layout.memory_space
        assert any("memory spaces" in str(s) for s in r.steps) == differ
    assert main(["bitcast", src, dst]) == 0
    capsys.readouterr()


def test_bytes_that_move_are_refuted_by_the_bytes_between_accepted_spaces():
    r = is_bitcast(shape("f32[8,128]{1,0:T(8,128)S(1)}"), shape("f32[2,512]{1,0:T(8,128)}"))
    assert r.status == "refuted"
    assert r.counterexample.side("source").byte_offset is not None


def test_a_constant_operand_may_change_memory_space():
    a, b = shape("f32[8,16]{1,0}"), shape("f32[128]{0:S(5)}")
    assert is_bitcast(a, b).status == "refuted"
    r = is_bitcast(a, b, constant_operand=True)
    assert r.status == "proved"
    assert any("its operand is a constant" in str(s) for s in r.steps)
    assert is_bitcast(a, b, "reshape", constant_operand=True).status == "proved"
    assert decompose(a, b, constant_operand=True).status == "proved"


def test_bad_input_stays_bad_input_before_the_memory_spaces():
    # a reshape between different element counts is bad input (exit 2), not
    # a memory-space refutation
    with pytest.raises(ValueError):
        is_bitcast(shape("f32[8]{0:S(5)}"), shape("f32[4]{0}"), "reshape")


def test_the_host_memory_space_is_xla_s():
    assert HOST_MEMORY_SPACE == 5


def test_the_command_s_json_gives_the_verdict_s_scope(capsys):
    # a refutation decided before any reading covers every size of the names
    assert main(["bitcast", "f32[m,n]{1,0:S(5)}", "f32[m,n]{1,0}", "--json"]) == 1
    result = json.loads(capsys.readouterr().out)["results"][0]
    assert result["scope"] == "all shapes: m >= 1, n >= 1"
    assert main(["bitcast", "f32[m,n]{1,0}", "f32[n,m]{0,1}", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["results"][0]["scope"].startswith("all shapes")
