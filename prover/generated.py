"""Generated code proved equal to the spec.

:mod:`spec.symbolic` writes ``offset`` and ``locate`` as Python and as C
source, from the spec's stage pipeline, simplifying expressions on the way.
Here Z3 proves each generated function equal to the spec's own evaluator,
so a simplification that is wrong is caught by a proof, not by luck:

- ``offset``: for every element e, generated offset(e) = spec offset(e);
- ``locate``: for every o in [0, P), the generated function says "padding"
  exactly when the spec does, and otherwise returns the spec's element.

The source text itself is read (with Python's ``ast``; the C expressions are
in the common subset) and translated to Z3.  Python's ``//`` and ``%``
floor, C's ``/`` and ``%`` truncate toward zero; the two agree with Z3's
``div``/``mod`` when the divisor is positive and (for C) the dividend is not
negative, so the claim proved is: on every input those conditions hold *and*
the values are equal.  What is not covered: C's 64-bit overflow (offsets
beyond 2^63 are outside what the C code can hold).

>>> from tilespec.spec.text import parse_array_shape as shape
>>> [r.status for r in prove_generated(shape("f32[3,5]{1,0:T(2,2)}"), "c")]
['proved', 'proved']
>>> r = prove_generated(shape("bf16[m,n]{1,0:T(8,128)(2,1)}"), "python")[0]
>>> r.property, r.status, r.scope
('generated python offset', 'proved', 'all shapes: m >= 1, n >= 1')
"""

from __future__ import annotations

import ast
import re
import time

import z3

from ..spec.errors import TilespecError
from ..spec.index import dims_through, evaluate, product, shape_pipeline, unevaluate
from ..spec.layout import Shape
from ..spec.symbolic import c_source, python_source
from ..spec.text import format_shape

from .encode import Encoding, scope
from .result import PROVED, REFUTED, UNKNOWN, ProverBug, Result
from .solve import DEFAULT_TIMEOUT, search


class _Translate:
    """An expression's AST as a Z3 term, in Python's or C's arithmetic."""

    def __init__(self, env: dict, ctx, language: str):
        self.env, self.ctx, self.c = env, ctx, language == "c"
        self.conditions: list = []   # what must hold for the division to mean floor

    def all_conditions(self):
        return z3.And(z3.BoolVal(True, self.ctx), *self.conditions)

    def __call__(self, node):
        method = getattr(self, type(node).__name__, None)
        if method is None:
            raise TilespecError(f"generated code has an unexpected {type(node).__name__}")
        return method(node)

    def Expression(self, n):
        return self(n.body)

    def Name(self, n):
        return self.env[n.id]

    def Constant(self, n):
        return z3.IntVal(n.value, self.ctx)

    def UnaryOp(self, n):
        v = self(n.operand)
        return z3.Not(v) if isinstance(n.op, ast.Not) else -v

    def BoolOp(self, n):
        parts = [self(v) for v in n.values]
        return z3.And(parts) if isinstance(n.op, ast.And) else z3.Or(parts)

    def Compare(self, n):
        ops = {ast.Lt: lambda a, b: a < b, ast.LtE: lambda a, b: a <= b,
               ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b,
               ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b}
        left, parts = self(n.left), []
        for op, right in zip(n.ops, n.comparators):
            r = self(right)
            parts.append(ops[type(op)](left, r))
            left = r
        return z3.And(parts)

    def Tuple(self, n):
        return tuple(self(v) for v in n.elts)

    def BinOp(self, n):
        a, b = self(n.left), self(n.right)
        op = type(n.op)
        if op is ast.Add:
            return a + b
        if op is ast.Sub:
            return a - b
        if op is ast.Mult:
            return a * b
        if op in (ast.FloorDiv, ast.Div, ast.Mod):
            if op is ast.Div and not self.c:
                raise TilespecError("generated Python uses '/', not integer division")
            # With a positive divisor (and, for C, a dividend >= 0) Python's
            # floor, C's truncation and Z3's div all agree.  The conditions
            # join the claim, so a proof shows they hold on every input.
            self.conditions.append(b > 0)
            if self.c:
                self.conditions.append(a >= 0)
            return a % b if op is ast.Mod else a / b
        raise TilespecError(f"generated code uses an unexpected operator {op.__name__}")


def _python_parts(source: str):
    """(offset params, offset expr, locate params, padding test, element tuple)."""
    tree = ast.parse(source)
    fns = {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef)}
    off, loc = fns["offset"], fns["locate"]
    off_ret = next(s for s in off.body if isinstance(s, ast.Return)).value
    test = next((s.test for s in loc.body if isinstance(s, ast.If)), None)  # none: no padding
    # the generated test reads "if not (is an element): return None"
    is_element = test.operand if isinstance(test, ast.UnaryOp) else z3_true_node()
    loc_ret = [s for s in loc.body if isinstance(s, ast.Return)][-1].value
    return ([a.arg for a in off.args.args], off_ret, [a.arg for a in loc.args.args],
            is_element, loc_ret)


def z3_true_node():
    return ast.parse("0 == 0", mode="eval").body


def _c_expr(text: str):
    text = text.replace("&&", " and ").replace("||", " or ")
    return ast.parse(text.strip(), mode="eval").body


def _c_parts(source: str):
    off = re.search(r"int64_t offset\(([^)]*)\)\s*\{(.*?)\n\}", source, re.S)
    loc = re.search(r"int locate\(([^)]*)\)\s*\{(.*?)\n\}", source, re.S)

    def params(text):
        return [p.split()[-1].lstrip("*") for p in text.split(",")
                if p.strip() and p.strip() != "void"]
    off_expr = _c_expr(re.search(r"return (.*?);", off.group(2), re.S).group(1))
    sets = dict((int(i), _c_expr(x)) for i, x in
                re.findall(r"e\[(\d+)\] = (.*?);", loc.group(2), re.S))
    test = _c_expr(re.search(r"return (.*?);", loc.group(2), re.S).group(1))
    element = ast.Tuple(elts=[sets[i] for i in sorted(sets)], ctx=ast.Load())
    return params(off.group(1)), off_expr, [p for p in params(loc.group(1)) if p != "e"], \
        test, element


def prove_generated(shape: Shape, language: str = "python", *,
                    timeout: float = DEFAULT_TIMEOUT) -> list[Result]:
    """Prove the generated ``offset`` and ``locate`` of ``shape`` equal to
    the spec; named dims become parameters and are proved for every size."""
    if language not in ("python", "c"):
        raise TilespecError(f"language {language!r} is not 'python' or 'c'")
    symbolic = shape.is_symbolic
    source = (python_source if language == "python" else c_source)(shape, symbolic)
    parts = (_python_parts if language == "python" else _c_parts)(source)
    off_params, off_expr, loc_params, is_element, element = parts
    return [_prove_offset(shape, language, source, off_params, off_expr, timeout),
            _prove_locate(shape, language, source, loc_params, is_element, element, timeout)]


def _env(enc: Encoding, params, first: dict):
    env = dict(first)
    for p in params:
        if p not in env:
            env[p] = enc.names[p] if p in enc.names else None
    missing = [p for p, v in env.items() if v is None]
    if missing:
        raise TilespecError(f"generated code has parameters {missing} tilespec cannot bind")
    return env


def _prove_offset(shape, language, source, params, expr, timeout) -> Result:
    start = time.perf_counter()
    ctx = z3.Context()
    enc = Encoding(shape, ctx)
    e = enc.fresh("e", shape.rank)
    env = _env(enc, params, {f"e{i}": x for i, x in enumerate(e)})
    tr = _Translate(env, ctx, language)
    theirs = tr(expr)
    ours = enc.ar._term(evaluate(shape_pipeline(shape), e, enc.dims, enc.ar))
    query = z3.And(*enc.assumptions, enc.box(e, enc.dims),
                   z3.Or(theirs != ours, z3.Not(tr.all_conditions())))

    def witness(m):
        ce = {**enc.dim_values(m), "element": [enc.value(m, x) for x in e]}
        return ce, _generated_value(language, source, "offset", theirs, m, ce, shape)
    return _verdict(shape, f"generated {language} offset", query, ctx, enc, timeout,
                    start, witness)


def _prove_locate(shape, language, source, params, is_element, element, timeout) -> Result:
    start = time.perf_counter()
    ctx = z3.Context()
    enc = Encoding(shape, ctx)
    o = z3.Int("o", ctx)
    env = _env(enc, params, {"o": o})
    tr = _Translate(env, ctx, language)
    their_ok, their_e = tr(is_element), tr(element)
    stages = shape_pipeline(shape)
    our_e, our_ok = unevaluate(stages, o, enc.dims, enc.ar)
    size = product(dims_through(stages, enc.dims, enc.ar)[-1], enc.ar)
    our_ok = enc.ar._term(our_ok)
    wrong = z3.Or(their_ok != our_ok,
                  z3.And(our_ok, z3.Not(enc.equal(their_e, our_e))))
    query = z3.And(*enc.assumptions, 0 <= o, o < enc.ar._term(size),
                   z3.Or(wrong, z3.Not(tr.all_conditions())))

    def witness(m):
        ce = {**enc.dim_values(m), "offset": m.eval(o, model_completion=True).as_long()}
        got = _generated_value(language, source, "locate", (their_ok, their_e), m, ce, shape)
        return ce, got
    return _verdict(shape, f"generated {language} locate", query, ctx, enc, timeout,
                    start, witness)


def _verdict(shape, name, query, ctx, enc, timeout, start, witness) -> Result:
    text, where = format_shape(shape), scope(shape)
    answer, detail = search(query, ctx, timeout)
    seconds = time.perf_counter() - start
    if answer == "unsat":
        return Result(text, name, PROVED, seconds, where,
                      steps=("Z3: the generated function equals the spec's evaluator",))
    if answer == "unknown":
        return Result(text, name, UNKNOWN, seconds, where, reason=detail)
    ce, generated = witness(detail)
    spec_value = _spec_value(shape, ce)
    if generated == spec_value:
        raise ProverBug(f"{name} counterexample {ce} does not replay: both give {spec_value}")
    ce.update(generated=generated, spec=spec_value)
    return Result(text, name, REFUTED, seconds, where, counterexample=ce)


def _spec_value(shape: Shape, ce: dict):
    from ..spec.index import locate, offset
    concrete = shape.instantiate(ce)
    if "element" in ce:
        return offset(concrete, ce["element"])
    return locate(concrete, ce["offset"])


def _generated_value(language, source, fn, term, model, ce, shape):
    """The generated function's answer at the witness: the Python source
    run on ints; the C expressions evaluated on ints through their
    translation (C itself is compiled and run by the tests)."""
    dims = {n: ce[n] for n in shape.names}
    if language == "python":
        namespace: dict = {}
        exec(compile(source, "<generated>", "exec"), namespace)
        if fn == "offset":
            return namespace["offset"](*ce["element"], **dims)
        return namespace["locate"](ce["offset"], **dims)

    def value(t):
        return model.eval(t, model_completion=True)
    if fn == "offset":
        return value(term).as_long()
    ok, element = term
    return tuple(value(x).as_long() for x in element) if z3.is_true(value(ok)) else None
