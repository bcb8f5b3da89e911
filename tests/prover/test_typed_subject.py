"""A Result's subject is typed: the XLA shapes its question is about, as
``Shape`` values, in the order of its text; consumers never parse it back."""

import pytest

import tilespec
from tilespec.prover.result import Counterexample, Result
from tilespec.spec import format_shape, parse_array_shape

A = "f32[8,128]{1,0:T(8,128)}"
B = "f32[1024]{0}"
T = "f32[2,512]{1,0:T(8,128)}"


def _results():
    yield "prove", tilespec.prove(A, "bijective"), (A,)
    yield "prove, all shapes", tilespec.prove("bf16[m,n]{1,0:T(8,128)(2,1)}", "injective"), \
        ("bf16[m,n]{1,0:T(8,128)(2,1)}",)
    yield "bitcast proved", tilespec.bitcast(A, B), (A, B)
    yield "bitcast refuted", tilespec.bitcast(A, T), (A, T)
    yield "bitcast, one reading", tilespec.bitcast(A, B, "reshape"), (A, B)
    yield "equivalent", tilespec.equivalent(A, "f32[8,128]{1,0:T(8,128)(1,1)}"), \
        (A, "f32[8,128]{1,0:T(8,128)(1,1)}")
    yield "check_rule, one shape", tilespec.check_rule("array_size", A), (A,)
    yield "check_rule, a pair", tilespec.check_rule("reshape_is_bitcast", A, T), (A, T)
    yield "compare_cute", tilespec.compare_cute(
        "f32[24,256]{1,0:T(8,128)}", "((8,3),(128,2)):((128,2048),(1,1024))"), \
        ("f32[24,256]{1,0:T(8,128)}",)
    yield "prove_convert", tilespec.prove_convert("f32[3,5]{1,0:T(2,2)}", "f32[3,5]{0,1}"), \
        ("f32[3,5]{1,0:T(2,2)}", "f32[3,5]{0,1}")


CASES = list(_results())


@pytest.mark.parametrize("name, result, texts", CASES, ids=[c[0] for c in CASES])
def test_a_result_carries_its_shapes_typed(name, result, texts):
    assert isinstance(result, Result)
    assert result.shapes == tuple(parse_array_shape(t) for t in texts)
    for t, s in zip(texts, result.shapes):
        assert format_shape(s) == format_shape(parse_array_shape(t)) and t in result.shape


@pytest.mark.parametrize("name, result, texts", CASES, ids=[c[0] for c in CASES])
def test_a_result_s_counterexample_is_typed(name, result, texts):
    assert result.counterexample is None or isinstance(result.counterexample, Counterexample)


def test_a_counterexample_given_as_a_dict_is_refused():
    with pytest.raises(TypeError):
        Result(A, "injective", "refuted", 0.0, counterexample={"x": 1})
