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

from spec.arith import Arithmetic
from spec.layout import Shape


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
        if _plain(a) and _plain(b):
            return a // b
        return self._term(a) / self._term(b)

    def mod(self, a, b):
        if _plain(a) and _plain(b):
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
        bounds = dict(bounds or {})
        self.assumptions = []
        for n, v in self.names.items():
            self.assumptions.append(v >= 1)
            if n in bounds:
                self.assumptions.append(v <= int(bounds[n]))
        self.dims = tuple(self.names[d] if isinstance(d, str) else d
                          for d in shape.dims)
        self._fresh = 0

    def fresh(self, prefix: str, count: int) -> tuple:
        self._fresh += 1
        return tuple(z3.Int(f"{prefix}{self._fresh}_{i}", self.ctx)
                     for i in range(count))

    def box(self, e, d):
        """``0 <= e[i] < d[i]`` for every i, as one Z3 formula."""
        parts = [z3.And(self.ar._term(0) <= x, self.ar.lt(x, n))
                 for x, n in zip(e, d)]
        return z3.And(parts) if parts else self.ar.true()

    def equal(self, a, b):
        parts = [self.ar._term(self.ar.eq(x, y)) for x, y in zip(a, b)]
        return z3.And(parts) if parts else self.ar.true()

    def value(self, model, term) -> int:
        if _plain(term):
            return int(term)
        return model.eval(self.ar._term(term), model_completion=True).as_long()

    def dim_values(self, model) -> dict:
        return {n: self.value(model, v) for n, v in self.names.items()}


def scope(shape: Shape, bounds: dict | None = None) -> str:
    """Words for what a proof about ``shape`` covers."""
    if not shape.is_symbolic:
        return "concrete"
    bounds = bounds or {}
    parts = [f"1 <= {n} <= {bounds[n]}" if n in bounds else f"{n} >= 1"
             for n in shape.names]
    return "all shapes: " + ", ".join(parts)
