"""The CuTe layout of an XLA layout (:func:`tilespec.cute_layout`): its text
and offsets against the spec, its refusals, and its proof; it is CuTe's one
layout type, so the algebra takes it as it is."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings

import tilespec
from tilespec import LayoutError
from tilespec.cute import Layout, dim_modes, logical_divide, parse_cute, xla_tilings
from tilespec.spec.index import all_offsets, padded_elements
from tilespec.testing import shapes_with_layout

EXACT = {
    "f32[24,256]{1,0:T(8,128)}": "((8,3),(128,2)):((128,2048),(1,1024))",
    "bf16[16,300]{1,0:T(8,128)(2,1)}": "((2,4,2),(128,3)):((1,256,3072),(2,1024))",
    "f32[3,5]{0,1:T(2,2)}": "((2,2),(2,3)):((1,4),(2,8))",
    "f32[3,5]{1,0}": "(3,5):(5,1)",
    "f32[7]{0}": "7:1",
    "f32[24]{0:T(8)}": "(8,3):(1,8)",
    "f32[]": "():()",
    "f32[2,7,8,12,10]{4,3,2,1,0:T(*,*,2,*,2)}":
        "(2,7,(2,4),12,(2,5)):(6720,960,(2,240),20,(1,4))",
}


@pytest.mark.parametrize("text", EXACT)
def test_cute_layout_text_and_offsets(text):
    c = tilespec.cute_layout(text)
    assert c.cute_text() == EXACT[text]
    off = all_offsets(tilespec.parse_shape(text))
    for e in itertools.product(*map(range, off.shape)):
        assert c(*e) == off[e]
    assert c.size == padded_elements(tilespec.parse_shape(text))


@settings(max_examples=60)
@given(shapes_with_layout(max_rank=3, max_elements=256, allow_zero=False))
def test_cute_offsets_equal_the_spec_wherever_it_exports(shape):
    try:
        c = tilespec.cute_layout(shape)
    except LayoutError as e:
        assert "no exact CuTe layout" in str(e) and "\n" not in str(e)
        return
    off = all_offsets(shape)
    got = np.zeros(off.shape, np.int64)
    for e in itertools.product(*map(range, off.shape)):
        got[e] = c(*e)
    assert np.array_equal(got, off)
    assert c.size == padded_elements(shape)
    assert len(dim_modes(c, shape.rank)) == shape.rank


def test_the_export_is_cutes_one_layout_type():
    # The same type the algebra takes and parse_cute reads: no conversion.
    c = tilespec.cute_layout("f32[24,256]{1,0:T(8,128)}")
    assert type(c) is Layout and c == parse_cute(c.cute_text()) == parse_cute(str(c))
    assert logical_divide(c, (4, 128)) == logical_divide(parse_cute(EXACT[
        "f32[24,256]{1,0:T(8,128)}"]), (4, 128))


def test_cute_layout_takes_dims_for_named_sizes():
    assert tilespec.cute_layout("bf16[m,n]{1,0:T(8,128)(2,1)}", dims={"m": 16, "n": 300}) \
        == tilespec.cute_layout("bf16[16,300]{1,0:T(8,128)(2,1)}")


@pytest.mark.parametrize("text", ["f32[24,256]{1,0:T(8,128)}", "f32[3,5]{0,1}",
                                  "f32[24]{0:T(8)}", "bf16[16,256]{0,1:T(8,128)(2,1)}"])
def test_xla_tilings_reads_an_export_back_as_a_layout_of_its_offsets(text):
    shape = tilespec.parse_shape(text)
    first = shape.with_layout(xla_tilings(tilespec.cute_layout(shape), shape.dims)[0])
    assert np.array_equal(all_offsets(first), all_offsets(shape))


def test_xla_tilings_wants_one_mode_per_dim():
    with pytest.raises(LayoutError, match="3 modes for 2 dims"):
        xla_tilings(parse_cute("(3,5,2):(10,2,1)"), (3, 5))


@pytest.mark.parametrize("text,words", [
    ("f32[3,5]{1,0:T(2,2)(3,1)}", "pads inside a tile"),
    ("f32[9,9]{1,0:T(4,4)(8,1)}", "pads inside a tile"),
    ("f32[5]{0:T(2,128)}", "pads a unit dim"),
    ("f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}", "pads inside a tile"),
    ("f32[0,4]{1,0:T(2,2)}", "size 0"),
])
def test_cute_refuses_with_a_reason(text, words):
    with pytest.raises(LayoutError, match=words):
        tilespec.cute_layout(text)


@pytest.mark.parametrize("text", ["bf16[m,n]{1,0:T(8,128)(2,1)}", "f32[m,n,k]{0,2,1:T(4,2)(2,1)}",
                                  "pred[m,n]{1,0:T(8,128)(4,1)}", "f32[m,n]{1,0}",
                                  "f32[24,256]{1,0:T(8,128)}",
                                  "f32[2,7,8,12,10]{4,3,2,1,0:T(*,*,2,*,2)}"])
def test_cute_layout_is_proved_equal_to_the_spec(text):
    r = tilespec.prove_cute(text)
    assert r.status == "proved", r


def test_a_wrong_cute_layout_is_refuted_with_a_replayed_witness(monkeypatch):
    # The proof can fail: swap the two strides of the exported layout's mode 1.
    import tilespec.cute.proofs.xla_equality as xe
    real = xe.cute_layout

    def broken(shape, *a, **k):
        c = real(shape, *a, **k)
        return Layout(c.shape, (c.stride[0], c.stride[1][::-1]))
    monkeypatch.setattr(xe, "cute_layout", broken)
    r = xe.prove_cute(tilespec.parse_shape("f32[24,256]{1,0:T(8,128)}"))
    assert r.status == "refuted"
    ce = r.counterexample
    assert ce.side("spec").offset != ce.side("cute").offset


def test_a_wrong_export_is_refuted_for_all_shapes(monkeypatch):
    # Linearise the tiled vector's entries in the wrong order: the export
    # and the per-entry proof both see it, and the witness replays.
    import tilespec.cute.proofs.xla_equality as xe
    import tilespec.cute.xla as cx
    real = cx.digits

    def reversed_entries(*a, **k):
        per_dim, entries = real(*a, **k)
        return per_dim, entries[::-1]
    monkeypatch.setattr(cx, "digits", reversed_entries)
    monkeypatch.setattr(xe, "digits", reversed_entries)
    r = xe.prove_cute(tilespec.parse_shape("f32[m,n]{1,0:T(8,128)}"))
    assert r.status == "refuted" and set(r.counterexample.dim_values) == {"m", "n"}


def test_prove_cute_refuses_before_proving():
    with pytest.raises(LayoutError, match="pads inside a tile"):
        tilespec.prove_cute("f32[3,5]{1,0:T(2,2)(3,1)}")


def test_the_cute_package_and_its_export_load_no_solver():
    # cute/ is definitions only; the solver is cute/proofs/'s.
    import subprocess
    import sys
    code = ("import sys, tilespec.cute as c; "
            "c.cute_layout('f32[24,256]{1,0:T(8,128)}'); "
            "print('z3.z3' in sys.modules, 'tilespec.cute.proofs' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.split() == ["False", "False"]
