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

from functools import cache
from typing import Any

#: A value of an arithmetic: a Python int, a numpy integer array, a sympy
#: expression or a Z3 term.  One definition runs on all four, so its
#: annotations say ``Value``; each :class:`Arithmetic` knows which it holds.
Value = Any


class Arithmetic:
    """Python operators: right for ints and numpy integer arrays."""

    name = "python"

    def add(self, a: Value, b: Value) -> Value:
        return a + b

    def mul(self, a: Value, b: Value) -> Value:
        return a * b

    def floordiv(self, a: Value, b: Value) -> Value:
        return a // b

    def mod(self, a: Value, b: Value) -> Value:
        return a % b

    def ceildiv(self, a: Value, b: Value) -> Value:
        return self.floordiv(self.add(a, b - 1), b)

    def lt(self, a: Value, b: Value) -> Value:
        return a < b

    def eq(self, a: Value, b: Value) -> Value:
        return a == b

    def both(self, p: Value, q: Value) -> Value:
        # ``&`` rather than ``and`` so numpy arrays combine elementwise.
        return p & q

    def true(self) -> Value:
        return True


@cache     # one class: sympy keys its caches by it
def index_mod() -> Any:
    """The sympy function the spec writes ``x mod n`` with.

    Not ``sympy.Mod``: sympy 1.14 rewrites ``Mod(k*Mod(x, n), n)`` to
    ``k*Mod(x, n)``, which is wrong for k > 1 (sympy issue #29757; no
    release has the fix), and combined tile dims produce exactly that shape.
    This one evaluates on numbers only and prints as ``Mod``.

    >>> import sympy
    >>> x = sympy.Symbol("x", integer=True, nonnegative=True)
    >>> Mod = index_mod()
    >>> e = Mod(2 * Mod(x, 3), 3)
    >>> e, e.subs(x, 2), sympy.Mod(2 * sympy.Mod(x, 3), 3).subs(x, 2)
    (Mod(2*(Mod(x, 3)), 3), 1, 4)
    >>> Mod(x + 6 * x**2, 3), Mod(Mod(x, 3), 3), Mod(9 * x, 3)
    (Mod(x, 3), Mod(x, 3), 0)
    """
    import sympy

    class Mod(sympy.Function):  # type: ignore[misc]  # sympy has no types
        is_integer = True
        is_nonnegative = True  # the spec only takes mod by positive sizes

        @classmethod
        def eval(cls, a: Any, b: Any) -> Any:
            if a.is_Integer and b.is_Integer:
                return sympy.Integer(int(a) % int(b))
            if a.is_zero or _multiple(a, b):
                return sympy.Integer(0)
            if isinstance(a, cls) and a.args[1] == b:
                return a
            if a.is_Add:
                # adding a multiple of b does not change x mod b
                keep = [t for t in a.args if not _multiple(t, b)]
                if len(keep) < len(a.args):
                    return cls(sympy.Add(*keep), b)
            return None

        def _latex(self, printer: Any) -> str:
            a, b = self.args
            return (rf"\left({printer._print(a)} \bmod {printer._print(b)}\right)")

        def _eval_rewrite_as_floor(self, a: Any, b: Any, **kwargs: Any) -> Any:
            return a - b * sympy.floor(a / b)
    return Mod


def _multiple(term: Any, b: Any) -> bool:
    """Is ``term`` an integer multiple of the integer ``b``, for sure?"""
    if not b.is_Integer or b == 0:   # x mod 0 is left unevaluated (a 0 dim)
        return False
    coeff, rest = term.as_coeff_Mul()
    return bool(coeff.is_Integer and int(coeff) % int(b) == 0 and rest.is_integer)


class SympyArithmetic(Arithmetic):
    """Sympy expressions; ceil division printed as ``ceiling`` for reading."""

    name = "sympy"

    def ceildiv(self, a: Value, b: Value) -> Value:
        import sympy
        return sympy.ceiling(sympy.Rational(1, 1) * a / b)

    def floordiv(self, a: Value, b: Value) -> Value:
        import sympy
        return sympy.floor(sympy.Rational(1, 1) * a / b)

    def mod(self, a: Value, b: Value) -> Value:
        return index_mod()(a, b)

    def eq(self, a: Value, b: Value) -> Value:
        import sympy
        return sympy.Eq(a, b)

    def both(self, p: Value, q: Value) -> Value:
        import sympy
        return sympy.And(p, q)

    def true(self) -> Value:
        import sympy
        return sympy.true


class NumpyArithmetic(Arithmetic):
    """Python's operators on int64 arrays, with division and remainder by a
    power of two as a shift and a mask: the same floor semantics (two's
    complement), several times faster than numpy's integer division.

    >>> import numpy as np
    >>> x = np.array([-9, -1, 0, 7, 130])
    >>> NUMPY.floordiv(x, 8).tolist(), NUMPY.mod(x, 8).tolist()
    ([-2, -1, 0, 0, 16], [7, 7, 0, 7, 2])
    """

    name = "numpy"

    def floordiv(self, a: Value, b: Value) -> Value:
        if type(b) is int and b > 0 and b & (b - 1) == 0:
            return a >> (b.bit_length() - 1)
        return a // b

    def mod(self, a: Value, b: Value) -> Value:
        if type(b) is int and b > 0 and b & (b - 1) == 0:
            return a & (b - 1)
        return a % b


INT = Arithmetic()
SYMPY = SympyArithmetic()
NUMPY = NumpyArithmetic()
