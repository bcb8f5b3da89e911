"""prover.codegen.interpret: one walk over generated code, three meanings.

Exact ints (a witness replayed), columns of ints (every index of a small
shape) and Z3 terms (the claim) must give the same values and see the same
faults wherever they are all defined.
"""

from __future__ import annotations

import ast

import numpy as np
import pytest
import z3
from hypothesis import given, settings, strategies as st

from tilespec.codegen.symbolic import c_source, python_source
from tilespec.prover.codegen.exhaustive import Columns
from tilespec.prover.codegen.interpret import (
    Exact,
    code_functions,
    expression,
    interpret,
    locate,
)
from tilespec.prover.codegen.terms import Terms
from tilespec.spec.errors import TilespecError
from tilespec.spec.naming import names
from tilespec.spec.text import parse_array_shape as shape


def test_exact_follows_c_division_and_short_circuit():
    """C truncates toward zero and && stops early; the replay must too."""
    def run(values, text):
        r = Exact("c", values)
        return interpret(expression(text, "c"), r), r.fault
    assert run({"x": -7, "y": 2}, "x / y")[0] == -3
    value, fault = run({"x": -7, "y": 2}, "x % y")
    assert value == -1 and "division" in fault            # a negative dividend
    assert run({"x": 0, "y": 2**62}, "x > 0 && y * 4 > 0") == (False, None)
    assert run({"x": 1, "y": 2**62}, "x > 0 && y * 4 > 0")[1] == \
        {"overflow": "y * 4", "value": 2**64}
    assert interpret(expression("x // y", "python"), Exact("python", {"x": -7, "y": 2})) == -4


def _three(language, text, values):
    """(exact value, exact fault), (column value, column fault), (Z3 value,
    whether a Z3 condition fails) of ``text`` at ``values``."""
    node = expression(text, language)
    exact = Exact(language, dict(values))
    got = interpret(node, exact)
    cols = Columns(language, {k: np.array([v], dtype=object) for k, v in values.items()},
                   1, True)
    col = interpret(node, cols)
    ctx = z3.Context()
    syms = {k: z3.Int(k, ctx) for k in values}
    terms = Terms(syms, ctx, language, int64=True)
    term = interpret(node, terms)
    at = [(syms[k], z3.IntVal(v, ctx)) for k, v in values.items()]

    def concrete(t):
        return z3.simplify(z3.substitute(t, *at))
    z3_value = concrete(term)
    z3_value = z3_value.as_long() if z3.is_int_value(z3_value) else z3.is_true(z3_value)
    conditions = terms.conditions + [ok for _, ok in terms.ranges]
    z3_fault = not all(z3.is_true(concrete(c)) for c in conditions)
    col_value = cols.column(col)[0]
    return (got, exact.fault is not None), (col_value, bool(cols.fault[0])), \
        (z3_value, z3_fault)


EXPRESSIONS = {
    "python": ["(x // 8 * 3 + y % 5) * 2 + x % 8", "x < 3 and y // 2 == 1 or x == y",
               "not (x % 4 < 2)",
               "y * 4 - 1", "-x + y"],
    "c": ["(x / 8 * 3 + y % 5) * 2 + x % 8", "x < 3 && y / 2 == 1 || x == y",
          "y * 4 - 1", "x > 0 && y * 4 > 0", "-x + y"],
}


@pytest.mark.parametrize("language", ["python", "c"])
@settings(max_examples=25, deadline=None)
@given(x=st.integers(0, 2**63 - 1), y=st.one_of(st.integers(0, 100), st.integers(2**61, 2**63)))
def test_the_three_interpretations_agree(language, x, y):
    for text in EXPRESSIONS[language]:
        exact, cols, terms = _three(language, text, {"x": x, "y": y})
        assert exact[1] == cols[1] == terms[1], text
        if not exact[1]:
            assert exact[0] == cols[0] == terms[0], text


@pytest.mark.parametrize("language", ["python", "c"])
@pytest.mark.parametrize("text", ["f32[3,5]{1,0:T(2,2)}", "bf16[4,6]{1,0:T(2,2)(2,1)}"])
def test_generated_locate_means_the_same_in_all_three(language, text):
    s = shape(text)
    source = (python_source if language == "python" else c_source)(s, False)
    named = names(s, language)
    f = code_functions(source, language, named.out)
    o = np.arange(30, dtype=np.int64).astype(object)
    cols = Columns(language, {named.offset: o}, len(o), True)
    ok, e = locate(cols, f.is_element, f.element)
    ctx = z3.Context()
    sym = z3.Int("o", ctx)
    terms = Terms({named.offset: sym}, ctx, language, int64=True)
    z3_ok, z3_e = locate(terms, f.is_element, f.element)
    for k in range(len(o)):
        run = Exact(language, {named.offset: int(o[k])})
        want_ok, want_e = locate(run, f.is_element, f.element)
        assert bool(cols.column(ok)[k]) == want_ok
        here = z3.simplify(z3.substitute(z3_ok, (sym, z3.IntVal(int(o[k]), ctx))))
        assert z3.is_true(here) == want_ok
        if want_ok:
            assert tuple(int(cols.column(x)[k]) for x in e) == tuple(want_e)


def test_locate_runs_in_the_language_order():
    # C assigns e[] before its test, so a fault there counts even at padding;
    # Python builds the element only past its test.
    is_element, element = expression("o < 3", "c"), expression("(o * 4,)", "c")
    c = Exact("c", {"o": 2**62})
    assert locate(c, is_element, element) == (False, (2**64,)) and "overflow" in c.fault
    py = Exact("python", {"o": 2**62})
    assert locate(py, is_element, element) == (False, None) and py.fault is None


def _meanings(language):
    ctx = z3.Context()
    return [Exact(language, {"x": 3}),
            Columns(language, {"x": np.array([3], dtype=object)}, 1, True),
            Terms({"x": z3.Int("x", ctx)}, ctx, language, int64=True)]


@pytest.mark.parametrize("language, text", [
    ("python", "+x"), ("python", "f(x)"), ("python", "x ** 2"), ("python", "x / 2"),
    ("c", "x << 2"), ("c", "x[0]")])
def test_code_outside_the_generated_subset_is_refused_by_every_interpretation(language, text):
    for meaning in _meanings(language):
        with pytest.raises(TilespecError, match="generated"):
            interpret(expression(text, language), meaning)


def test_expression_reads_c_logic_as_python():
    assert ast.unparse(expression(" a && b || c ", "c")) == "a and b or c"
