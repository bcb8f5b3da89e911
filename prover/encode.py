"""Z3 as one more interpretation of the spec's index arithmetic.

:class:`Z3Arithmetic` gives ``add``, ``mul``, ``floordiv``, ``mod`` and the
comparisons their Z3 meanings, so :mod:`spec.index` builds Z3 terms with the
very code that computes offsets on ints.  Division is only ever by positive
values, where Z3's (Euclidean) ``div``/``mod`` equal floor division.

Every function here takes the ``z3.Context`` of one proof: proofs never share
solver state.
"""

from __future__ import annotations

import z3

from ..spec.arith import Arithmetic
from ..spec.layout import Shape

from .bounds import describe_ranges, dim_ranges


class Z3Arithmetic(Arithmetic):
    """The index operations on Z3 integer terms of one context."""

    name = "z3"

    def __init__(self, ctx: z3.Context):
        self.ctx = ctx

    def _term(self, v):
        if isinstance(v, z3.ExprRef):
            return v
        if isinstance(v, bool):
            return z3.BoolVal(v, self.ctx)
        return z3.IntVal(int(v), self.ctx)

    def add(self, a, b):
        if _plain(a) and _plain(b):
            return a + b
        return self._term(a) + self._term(b)

    def mul(self, a, b):
        if _plain(a) and _plain(b):
            return a * b
        return self._term(a) * self._term(b)

    def floordiv(self, a, b):
        # A broken pipeline can divide by a 0 dim; Z3 leaves x div 0
        # unspecified instead of raising, so the search still runs.
        if _plain(a) and _plain(b) and b != 0:
            return a // b
        return self._term(a) / self._term(b)

    def mod(self, a, b):
        if _plain(a) and _plain(b) and b != 0:
            return a % b
        return self._term(a) % self._term(b)

    def lt(self, a, b):
        if _plain(a) and _plain(b):
            return a < b
        return self._term(a) < self._term(b)

    def eq(self, a, b):
        if _plain(a) and _plain(b):
            return a == b
        return self._term(a) == self._term(b)

    def both(self, p, q):
        return z3.And(self._term(p), self._term(q))

    def true(self):
        return z3.BoolVal(True, self.ctx)


def _plain(v) -> bool:
    return not isinstance(v, z3.ExprRef)


class Encoding:
    """The Z3 view of a shape: dim terms, their assumptions, fresh indices."""

    def __init__(self, shape: Shape, ctx: z3.Context, bounds: dict | None = None):
        self.shape = shape
        self.ctx = ctx
        self.ar = Z3Arithmetic(ctx)
        self.names = {n: z3.Int(n, ctx) for n in shape.names}
        ranges = dim_ranges(shape, bounds)   # bad bounds are bad input
        self.assumptions = []
        for n, v in self.names.items():
            lo, hi = ranges[n]
            self.assumptions.append(v >= lo)
            if hi is not None:
                self.assumptions.append(v <= hi)
        self.dims = tuple(self.names[d] if isinstance(d, str) else d
                          for d in shape.dims)
        self._fresh = 0

    def fresh(self, prefix: str, count: int) -> tuple:
        self._fresh += 1
        return tuple(z3.Int(f"{prefix}{self._fresh}_{i}", self.ctx)
                     for i in range(count))

    def box(self, e, d):
        """``0 <= e[i] < d[i]`` for every i, as one flat Z3 conjunction."""
        parts = []
        for x, n in zip(e, d):
            if _plain(x):
                if not _plain(n):
                    if x < 0:
                        return z3.BoolVal(False, self.ctx)
                    parts.append(n > x)
                elif not 0 <= x < n:
                    return z3.BoolVal(False, self.ctx)
                continue
            parts += [x >= 0, x < n]
        return z3.And(parts) if parts else self.ar.true()

    def equal(self, a, b):
        parts = []
        for x, y in zip(a, b):
            if _plain(x) and _plain(y):
                if x != y:
                    return z3.BoolVal(False, self.ctx)
                continue
            parts.append(self.ar._term(x) == y if _plain(y) else y == x)
        return z3.And(parts) if parts else self.ar.true()

    def and_(self, *ps):
        ps = [self.ar._term(p) for p in ps]
        return z3.And(ps) if ps else self.ar.true()

    def or_(self, *ps):
        ps = [self.ar._term(p) for p in ps]
        return z3.Or(ps) if ps else z3.BoolVal(False, self.ctx)

    def not_(self, p):
        return z3.Not(self.ar._term(p))

    def term(self, v):
        return self.ar._term(v)

    def le(self, a, b):
        return self.ar._term(a) <= self.ar._term(b)

    def distinct(self, a, b):
        return self.ar._term(a) != self.ar._term(b)

    def value(self, model, term) -> int:
        if _plain(term):
            return int(term)
        return model.eval(self.ar._term(term), model_completion=True).as_long()

    def dim_values(self, model) -> dict:
        return {n: self.value(model, v) for n, v in self.names.items()}


def scope(shape: Shape, bounds: dict | None = None) -> str:
    """Words for what a proof about ``shape`` covers."""
    ranges = dim_ranges(shape, bounds)
    if not shape.is_symbolic:
        return "concrete"
    return "all shapes: " + describe_ranges(ranges)


# --- the same facts as SMT-LIB text -------------------------------------------

class SmtArithmetic(Arithmetic):
    """The index operations on SMT-LIB terms written as text.

    Building a formula as text and handing it to Z3 in one parse is many
    times faster than building it node by node through Z3's Python API, and
    the text comes from the very same spec code.
    """

    name = "smtlib"

    def add(self, a, b):
        if _num(a) and _num(b):
            return a + b
        return f"(+ {smt(a)} {smt(b)})"

    def mul(self, a, b):
        if _num(a) and _num(b):
            return a * b
        return f"(* {smt(a)} {smt(b)})"

    def floordiv(self, a, b):
        if _num(a) and _num(b) and b != 0:
            return a // b
        return f"(div {smt(a)} {smt(b)})"

    def mod(self, a, b):
        if _num(a) and _num(b) and b != 0:
            return a % b
        return f"(mod {smt(a)} {smt(b)})"

    def lt(self, a, b):
        if _num(a) and _num(b):
            return a < b
        return f"(< {smt(a)} {smt(b)})"

    def eq(self, a, b):
        if _num(a) and _num(b):
            return a == b
        return f"(= {smt(a)} {smt(b)})"

    def both(self, p, q):
        return f"(and {smt(p)} {smt(q)})"

    def true(self):
        return "true"


def _num(v) -> bool:
    return isinstance(v, int)


def smt(v) -> str:
    """An int, bool or SMT-LIB term as SMT-LIB text."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v) if v >= 0 else f"(- {-v})"
    return v


class SmtEncoding:
    """:class:`Encoding`'s interface, producing SMT-LIB text."""

    def __init__(self, shape: Shape, bounds: dict | None = None):
        self.shape = shape
        self.ar = SmtArithmetic()
        self.declared = [f"d_{n}" for n in shape.names]
        self.names = {n: f"d_{n}" for n in shape.names}
        ranges = dim_ranges(shape, bounds)
        self.assumptions = []
        for n, v in self.names.items():
            lo, hi = ranges[n]
            self.assumptions.append(f"(>= {v} {lo})")
            if hi is not None:
                self.assumptions.append(f"(<= {v} {hi})")
        self.dims = tuple(self.names[d] if isinstance(d, str) else d
                          for d in shape.dims)
        self._fresh = 0

    def fresh(self, prefix: str, count: int) -> tuple:
        self._fresh += 1
        out = tuple(f"{prefix}{self._fresh}_{i}" for i in range(count))
        self.declared += out
        return out

    def box(self, e, d):
        parts = []
        for x, n in zip(e, d):
            if _num(x) and _num(n):
                if not 0 <= x < n:
                    return "false"
                continue
            parts += [f"(<= 0 {smt(x)})", f"(< {smt(x)} {smt(n)})"]
        return self.and_(*parts)

    def equal(self, a, b):
        parts = []
        for x, y in zip(a, b):
            if _num(x) and _num(y):
                if x != y:
                    return "false"
                continue
            parts.append(f"(= {smt(x)} {smt(y)})")
        return self.and_(*parts)

    def and_(self, *ps):
        ps = [smt(p) for p in ps]
        return "true" if not ps else ps[0] if len(ps) == 1 else f"(and {' '.join(ps)})"

    def or_(self, *ps):
        ps = [smt(p) for p in ps]
        return "false" if not ps else ps[0] if len(ps) == 1 else f"(or {' '.join(ps)})"

    def not_(self, p):
        return f"(not {smt(p)})"

    def term(self, v):
        return smt(v)

    def le(self, a, b):
        return f"(<= {smt(a)} {smt(b)})"

    def distinct(self, a, b):
        return f"(distinct {smt(a)} {smt(b)})"

    def declarations(self) -> str:
        return "".join(f"(declare-const {v} Int)" for v in dict.fromkeys(self.declared))
