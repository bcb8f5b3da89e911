"""``tilespec convert``: the copy between two layouts as a closed form and as
numpy code, compared with the pad-reshape-transpose copy."""

from __future__ import annotations

import json

import numpy as np
import pytest
import sympy
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from tilespec.cli.main import main
from tilespec.codegen.convert import closed_form, numpy_source, target
from tilespec.prover.codegen import convert as pconvert
from tilespec.prover.codegen.convert import prove_convert
from tilespec.spec import from_physical, physical_size, to_physical
from tilespec.spec.index import padded_elements
from tilespec.spec.size import aligned_elements
from tilespec.spec.text import parse_array_shape as shape
from tilespec.testing import layouts, shapes_with_layout

PAIRS = [("f32[3,5]{1,0:T(2,2)}", "f32[3,5]{0,1}"),
         ("bf16[20,300]{1,0:T(8,128)(2,1)}", "bf16[20,300]{0,1:T(8,128)}"),
         ("f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}", "f32[2,7,8,11,10]{0,1,2,3,4:T(4,4)}"),
         ("s4[16,256]{1,0:T(8,128)(4,1)E(4)}", "s4[16,256]{0,1:L(64)}")]


def run_generated(a, b, buf):
    ns = {}
    exec(numpy_source(a, b), ns)
    return ns["convert"](buf)


def prt_copy(a, b, buf):
    """The second definition, as B's whole buffer: its L(n) tail is 0 too."""
    out = to_physical(from_physical(buf, a), b, pad_value=0)
    return np.pad(out, (0, aligned_elements(b) - out.size))


def numbered(a):
    # distinct values at elements, 0 in A's padding (the PRT copy drops it)
    buf = np.arange(1, physical_size(a) + 1)
    mask = to_physical(np.ones(tuple(a.dims), dtype=np.int64), a, pad_value=0)
    return np.where(mask > 0, buf, 0)


@pytest.mark.parametrize("a,b", PAIRS)
def test_numpy_code_is_the_prt_copy(a, b):
    a, b = shape(a), shape(b)
    buf = numbered(a)
    assert np.array_equal(run_generated(a, b, buf), prt_copy(a, b, buf))


@pytest.mark.parametrize("a,b", PAIRS)
def test_conversion_is_proved(a, b):
    r = prove_convert(shape(a), shape(b))
    assert r.status == "proved" and len(r.steps) == 4


def test_closed_form_agrees_with_locate_then_offset():
    a, b = shape("f32[3,5]{1,0:T(2,2)}"), shape("f32[3,5]{0,1:T(2)}")
    expr, valid = closed_form(a, b)
    o = sympy.Symbol("o", integer=True, nonnegative=True)
    for k in range(padded_elements(a)):
        holds = bool(valid.subs(o, k))
        assert holds == (target(a, b, k) is not None)
        if holds:
            assert int(expr.subs(o, k)) == target(a, b, k)


@settings(max_examples=25, suppress_health_check=[HealthCheck.too_slow,
                                                  HealthCheck.filter_too_much])
@given(st.data())
def test_random_pairs(data):
    a = data.draw(shapes_with_layout(min_rank=1, max_rank=3, max_dim=9,
                                     max_elements=1024, allow_zero=False))
    b = a.with_layout(data.draw(layouts(rank=a.rank, max_tiles=2)))
    assume(physical_size(b) <= 4096)
    buf = numbered(a)
    assert np.array_equal(run_generated(a, b, buf), prt_copy(a, b, buf))


def test_fallback_query_proves_without_the_properties(monkeypatch):
    # without the composed properties, the direct Z3 query decides
    monkeypatch.setattr(pconvert, "_composed", lambda *a: None)
    r = prove_convert(shape("f32[3,5]{1,0:T(2,2)}"), shape("f32[3,5]{0,1}"))
    assert r.status == "proved" and not any("formula_equals_prt" in s for s in r.steps)


def test_a_wrong_prt_is_refuted_and_replayed(monkeypatch):
    # a deliberately broken second definition: B's PRT place off by one for
    # one element must be found and replayed, never proved
    real = pconvert.prt_offset

    def broken(s, e, dims=None, ar=None):
        kw = {} if ar is None else {"ar": ar}
        v = real(s, e, dims, **kw)
        if s.layout.minor_to_major == (0, 1) and ar is None:
            return v + (1 if tuple(e) == (2, 4) else 0)
        if s.layout.minor_to_major == (0, 1):
            import z3
            hit = z3.And(ar.term(e[0]) == 2, ar.term(e[1]) == 4)
            return z3.If(hit, ar.term(v) + 1, ar.term(v))
        return v

    monkeypatch.setattr(pconvert, "_composed", lambda *a: None)
    monkeypatch.setattr(pconvert, "prt_offset", broken)
    r = prove_convert(shape("f32[3,5]{1,0:T(2,2)}"), shape("f32[3,5]{0,1}"))
    assert r.status == "refuted"
    ce = r.counterexample
    assert ce.side("source").element == (2, 4)
    assert ce.side("pad_reshape_transpose").offset == ce.side("closed_form").offset + 1


def test_cli(capsys):
    code = main(["convert", "f32[3,5]{1,0:T(2,2)}", "f32[3,5]{0,1}", "--json"])
    data = json.loads(capsys.readouterr().out)["results"][0]
    assert code == 0 and data["status"] == "proved"
    assert "def convert(src)" in data["data"]["numpy_source"]
    code = main(["convert", "f32[3,5]{1,0:T(2,2)}", "f32[3,5]{0,1}"])
    out = capsys.readouterr().out
    assert code == 0 and "equal to to_physical(from_physical(., A), B): proved" in out
    for a, b in (("f32[3,5]", "f32[5,3]"), ("f32[m,5]", "f32[m,5]{0,1}"),
                 ("f32[3,5]", "s32[3,5]")):
        code = main(["convert", a, b])
        err = capsys.readouterr().err
        assert code == 2 and err.startswith("tilespec: error:") and err.count("\n") == 1


# --- buffers sized as the layouts allocate them (L(n)) ---------------------------------

ALIGNED = [("f32[3,5]{1,0:T(2,2)}", "f32[3,5]{0,1:L(8)}"),
           ("f32[3,5]{1,0}", "f32[3,5]{1,0:T(2,2)L(7)}"),
           ("f32[3,5]{1,0:T(2,2)L(7)}", "f32[3,5]{0,1:T(2)L(6)}"),
           ("bf16[20,300]{1,0:T(8,128)(2,1)L(5000)}", "bf16[20,300]{0,1:T(8,128)L(999)}")]


@pytest.mark.parametrize("a,b", ALIGNED)
def test_numpy_code_writes_the_whole_target_buffer_l_n_included(a, b):
    a, b = shape(a), shape(b)
    assert aligned_elements(b) > padded_elements(b)   # the case the test is about
    buf = numbered(a)
    out = run_generated(a, b, buf)
    assert out.size == aligned_elements(b)
    expected = to_physical(from_physical(buf, a), b, pad_value=0)
    assert np.array_equal(out[:expected.size], expected)
    assert not out[expected.size:].any()


@pytest.mark.parametrize("a,b", ALIGNED)
def test_numpy_code_reads_the_source_buffer_with_or_without_its_l_n_tail(a, b):
    a, b = shape(a), shape(b)
    buf = numbered(a)
    whole = np.pad(buf, (0, aligned_elements(a) - buf.size), constant_values=-1)
    assert np.array_equal(run_generated(a, b, whole), run_generated(a, b, buf))
    with pytest.raises(ValueError, match="A's buffer has"):
        run_generated(a, b, np.append(whole, 7))


# --- zero dims ----------------------------------------------------------------------

EMPTY = [("f32[2,0,3]{1,0,2:T(*,1)}", "f32[2,0,3]{0,1,2}"),
         ("f32[2,0,3]{0,1,2}", "f32[2,0,3]{1,0,2:T(*,1)}"),
         ("f32[2,0,3]{1,0,2:T(*,1)}", "f32[2,0,3]{0,1,2:T(*,2)}"),
         ("f32[0,5]{1,0:T(*,2)}", "f32[0,5]{0,1}"),
         ("f32[2,0]{1,0:T(*,2)}", "f32[2,0]{0,1:L(4)}")]


@pytest.mark.parametrize("a,b", EMPTY)
def test_convert_of_a_shape_with_no_element_is_answered(a, b, capsys):
    assert main(["convert", a, b]) == 0
    assert "proved" in capsys.readouterr().out
    a, b = shape(a), shape(b)
    out = run_generated(a, b, np.zeros(physical_size(a), dtype=np.float32))
    assert out.size == aligned_elements(b) and not out.any()
