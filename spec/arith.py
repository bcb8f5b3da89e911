"""The few operations the index formulas are written in, and their meanings.

Every formula in :mod:`spec.index` is built only from ``add``, ``mul``,
``floordiv`` and ``mod`` by a positive value, ``ceildiv`` (defined from
``add`` and ``floordiv``), ``lt``, ``eq`` and ``both`` (logical and).  An
:class:`Arithmetic` object says what those mean, so one definition evaluates
on Python ints, numpy arrays, sympy expressions and, in :mod:`prover`, Z3
terms.  Divisors are always positive, where floor division and Euclidean
division agree.

>>> INT.floordiv(17, 4), INT.mod(17, 4), INT.ceildiv(17, 4)
(4, 1, 5)
>>> import numpy as np
>>> INT.floordiv(np.array([3, 4, 5]), 2)
array([1, 2, 2])
>>> import sympy
>>> e = sympy.Symbol("e", integer=True, nonnegative=True)
>>> SYMPY.floordiv(e, 8), SYMPY.mod(e, 8), SYMPY.ceildiv(e, 8)
(floor(e/8), Mod(e, 8), ceiling(e/8))
"""

from __future__ import annotations


class Arithmetic:
    """Python operators: right for ints and numpy integer arrays."""

    name = "python"

    def add(self, a, b):
        return a + b

    def mul(self, a, b):
        return a * b

    def floordiv(self, a, b):
        return a // b

    def mod(self, a, b):
        return a % b

    def ceildiv(self, a, b):
        return self.floordiv(self.add(a, b - 1), b)

    def lt(self, a, b):
        return a < b

    def eq(self, a, b):
        return a == b

    def both(self, p, q):
        # ``&`` rather than ``and`` so numpy arrays combine elementwise.
        return p & q

    def true(self):
        return True


class SympyArithmetic(Arithmetic):
    """Sympy expressions; ceil division printed as ``ceiling`` for reading."""

    name = "sympy"

    def ceildiv(self, a, b):
        import sympy
        return sympy.ceiling(sympy.Rational(1, 1) * a / b)

    def floordiv(self, a, b):
        import sympy
        return sympy.floor(sympy.Rational(1, 1) * a / b)

    def mod(self, a, b):
        import sympy
        return sympy.Mod(a, b)

    def eq(self, a, b):
        import sympy
        return sympy.Eq(a, b)

    def both(self, p, q):
        import sympy
        return sympy.And(p, q)

    def true(self):
        import sympy
        return sympy.true


INT = Arithmetic()
SYMPY = SympyArithmetic()
