"""Generated code checked on every index of one small concrete shape.

A concrete shape has finitely many elements and offsets; when there are at
most :data:`~tilespec.prover.properties.exhaustive.EXHAUSTIVE_LIMIT` of
them together, running the generated code on all of them and comparing with
the spec's evaluator decides the claim of :mod:`prover.codegen.generated`
for that shape, both ways, when Z3 does not.

- The generated Python (unbounded integers) is the code itself: its source
  is executed, ``offset`` on whole columns of Python ints, ``locate`` once
  per offset (it branches).
- The generated C, and Python checked as int64, are evaluated exactly, on
  arrays of Python ints, by the language's rules: C's ``/`` and ``%``
  truncate, ``&&`` and ``||`` stop early, and every subexpression the code
  evaluates must lie in int64 and every division must have a positive
  divisor (and, for C, a dividend >= 0), the conditions the Z3 claim makes.

Any index found wrong is returned as a witness; the caller replays it one
index at a time (:class:`~prover.codegen.interpret.Exact`) before calling it refuted.

>>> from tilespec.codegen.symbolic import python_source
>>> from tilespec.spec.text import parse_array_shape as shape
>>> s = shape("f32[3,5]{1,0:T(2,2)}")
>>> fns = {}
>>> exec(python_source(s, False), fns)
>>> wrong_offset(s, lambda e0, e1: fns["offset"](e0, e1)) is None
True
>>> wrong_offset(s, lambda e0, e1: e0 * 5 + e1)
{'element': [0, 2]}
"""

from __future__ import annotations

import ast
import contextlib
from typing import Iterator

import numpy as np

from ...spec import (
    INT,
    Names,
    Shape,
    concrete_dims,
    dims_through,
    evaluate,
    product,
    shape_pipeline,
    unevaluate,
)
from ..properties import EXHAUSTIVE_LIMIT
from .interpret import INT64_MAX, INT64_MIN, Interpretation, interpret, locate


def enumerable(shape: Shape) -> bool:
    """Whether ``shape`` is concrete with at most EXHAUSTIVE_LIMIT elements
    and offsets together (all of them positive dims)."""
    if shape.is_symbolic or any(not isinstance(d, int) or d <= 0 for d in shape.dims):
        return False
    dims = tuple(shape.dims)
    padded = dims_through(shape_pipeline(shape), dims)[-1]
    return product(dims) + product(padded) <= EXHAUSTIVE_LIMIT


def size(shape: Shape) -> int:
    """Offsets the generated ``locate`` is defined on: [0, P)."""
    dims = tuple(shape.dims)
    return product(dims_through(shape_pipeline(shape), dims)[-1])


def elements(shape: Shape) -> tuple:
    """Every element of ``shape``, as one column of Python ints per dim
    (row-major)."""
    dims = tuple(int(d) for d in concrete_dims(shape))
    if not dims:
        return ()
    grid = np.indices(dims, dtype=np.int64).reshape(len(dims), -1).astype(object)
    return tuple(grid[i] for i in range(len(dims)))


def _count(cols) -> int:
    return len(cols[0]) if cols else 1


def _element(cols, k) -> dict:
    return {"element": [int(c[k]) for c in cols]}


def spec_offsets(shape: Shape, cols) -> np.ndarray:
    """The spec's offset of every element in ``cols``, exactly."""
    n = _count(cols)
    value = evaluate(shape_pipeline(shape), cols, tuple(shape.dims), INT)
    return np.broadcast_to(np.asarray(value, dtype=object), (n,))


def spec_locate(shape: Shape, o) -> tuple:
    """(element columns, is-an-element) of every offset in ``o``."""
    n = len(o)
    e, ok = unevaluate(shape_pipeline(shape), o, tuple(shape.dims), INT)
    ok = np.broadcast_to(np.asarray(ok, dtype=bool), (n,))
    return tuple(np.broadcast_to(np.asarray(x, dtype=object), (n,)) for x in e), ok


def wrong_offset(shape: Shape, offset) -> dict | None:
    """The first element where the Python function ``offset`` (run on
    columns of Python ints, else one element at a time) differs from the
    spec, as ``{"element": [...]}``; None when there is none."""
    cols = elements(shape)
    want = spec_offsets(shape, cols)
    try:
        got = np.broadcast_to(np.asarray(offset(*cols), dtype=object), want.shape)
    except (TypeError, ValueError):   # does not run on arrays: one at a time
        got = np.array([offset(*(int(c[k]) for c in cols)) for k in range(len(want))],
                       dtype=object)
    bad = np.flatnonzero((got != want).astype(bool))
    return None if not bad.size else _element(cols, bad[0])


def wrong_locate(shape: Shape, locate) -> dict | None:
    """The first offset in [0, P) where the Python function ``locate`` (an
    element tuple, or None for padding) differs from the spec, as
    ``{"offset": o}``; None when there is none."""
    o = np.arange(size(shape), dtype=np.int64).astype(object)
    want, ok = spec_locate(shape, o)
    for k in range(len(o)):
        got = locate(int(o[k]))
        expected = tuple(int(x[k]) for x in want) if ok[k] else None
        if (None if got is None else tuple(got)) != expected:
            return {"offset": int(o[k])}
    return None


class Columns(Interpretation):
    """Generated code evaluated on columns of Python ints (one value per
    index) by ``language``'s rules; ``fault`` marks the indices where a
    subexpression the code evaluates leaves int64 (with ``int64``) or a
    division is not floor division of a dividend >= 0 (C) by a divisor > 0.

    >>> from tilespec.prover.codegen.interpret import expression
    >>> run = Columns("c", {"x": np.array([-3, 5, 2**62], dtype=object)}, 3, True)
    >>> interpret(expression("x / 2 * 4", "c"), run).tolist(), run.fault.tolist()
    ([0, 8, 9223372036854775808], [True, False, True])
    """

    def __init__(self, language: str, env: dict, n: int, int64: bool):
        super().__init__(language, env, int64)
        self.n = n
        self.fault = np.zeros(n, dtype=bool)
        self.runs = np.ones(n, dtype=bool)   # where the current operand is evaluated

    def column(self, v) -> np.ndarray:
        return np.broadcast_to(np.asarray(v, dtype=object), (self.n,))

    def add(self, a, b):
        return self.column(a) + self.column(b)

    def sub(self, a, b):
        return self.column(a) - self.column(b)

    def mul(self, a, b):
        return self.column(a) * self.column(b)

    def neg(self, a):
        return -self.column(a)

    def divide(self, node, a, b):
        a, b = self.column(a), self.column(b)
        # Division conditions hold on every index, evaluated or not: the
        # claim Z3 checks says the same.
        bad = (b <= 0).astype(bool)
        if self.c:
            bad |= (a < 0).astype(bool)
        self.fault |= bad
        b = np.where(bad, 1, b)
        a = np.where(bad, 0, a)
        return a % b if isinstance(node.op, ast.Mod) else a // b

    def compare(self, op, a, b):
        return super().compare(op, self.column(a), self.column(b)).astype(bool)

    def all(self, parts):
        out = np.ones(self.n, dtype=bool)
        for p in parts:
            out &= self.column(p).astype(bool)
        return out

    def any(self, parts):
        out = np.zeros(self.n, dtype=bool)
        for p in parts:
            out |= self.column(p).astype(bool)
        return out

    def negate(self, p):
        return ~self.column(p).astype(bool)

    def watch(self, node, value):
        col = self.column(value)
        self.fault |= self.runs & ((col < INT64_MIN) | (col > INT64_MAX)).astype(bool)

    @contextlib.contextmanager
    def only_where(self, runs) -> Iterator[None]:
        outer = self.runs
        self.runs = outer & runs
        yield
        self.runs = outer


def wrong_expressions(shape: Shape, language: str, int64: bool, fn: str, nodes,
                      params: dict) -> dict | None:
    """The first index where the expressions ``nodes`` of the generated
    ``fn`` (offset: its return value; locate: its is-element test and
    element tuple), evaluated by :class:`Columns`, fault or differ from the
    spec; ``params`` maps the code's index names (``"indices"``, a tuple)
    and offset name (``"offset"``) to what they are called."""
    if fn == "offset":
        cols = elements(shape)
        run = Columns(language, dict(zip(params["indices"], cols)), _count(cols), int64)
        got = run.column(interpret(nodes[0], run))
        bad = run.fault | (got != spec_offsets(shape, cols)).astype(bool)
        where = np.flatnonzero(bad)
        return None if not where.size else _element(cols, where[0])
    o = np.arange(size(shape), dtype=np.int64).astype(object)
    is_element, element = nodes
    run = Columns(language, {params["offset"]: o}, len(o), int64)
    got_ok, got_e = locate(run, is_element, element)
    got_ok = run.column(got_ok).astype(bool)
    want_e, want_ok = spec_locate(shape, o)
    bad = run.fault | (got_ok != want_ok)
    for g, w in zip(got_e, want_e):
        bad |= want_ok & (run.column(g) != w).astype(bool)
    where = np.flatnonzero(bad)
    return None if not where.size else {"offset": int(o[where[0]])}


def counterexample(shape: Shape, language: str, int64: bool, source: str, named: Names,
                   fn: str, nodes) -> dict | None:
    """A counterexample to the generated ``fn`` (in ``source``, whose
    expressions ``nodes`` were read from it) found by running it on every
    index of the small concrete ``shape``, or None when it is right on all
    of them: Python with unbounded integers runs as it is, the rest is
    evaluated by :class:`Columns`."""
    if language == "python" and not int64:
        namespace: dict = {}
        exec(compile(source, "<generated>", "exec"), namespace)
        check = wrong_offset if fn == "offset" else wrong_locate
        return check(shape, namespace[fn])
    params = {"indices": named.indices, "offset": named.offset}
    return wrong_expressions(shape, language, int64, fn, nodes, params)


def step(shape: Shape, language: str, int64: bool, fn: str) -> str:
    """What :func:`counterexample` showed when it found none, for a
    result's steps.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> step(shape("f32[3,5]{1,0:T(2,2)}"), "python", False, "offset")[:60]
    'enumeration: on all 15 elements, the generated Python offset'
    """
    domain = (f"all {product(tuple(shape.dims)):,} elements" if fn == "offset"
              else f"all {size(shape):,} offsets in [0, P)")
    if language == "python" and not int64:
        how = f"the generated Python {fn}, run as it is, agrees with the spec's evaluator"
    else:
        lang = "C" if language == "c" else "Python"
        how = (f"the generated {lang} {fn}, evaluated exactly by {lang}'s rules, agrees "
               "with the spec's evaluator, with every subexpression in int64 "
               "[-2^63, 2^63) and every division by a positive divisor"
               + (" of a dividend >= 0" if language == "c" else ""))
    return f"enumeration: on {domain}, {how} (exhaustive: a proof for this shape)"
