"""The spec's arithmetic written as expressions of Python or C source.

:class:`CodeArithmetic` is an :class:`~spec.arith.Arithmetic` whose values
are :class:`Code` (an expression's text, with what it needs to nest inside
another: its operator and binding strength) or Python ints, folded at once.
Evaluating the spec's stage pipeline on it writes the generated ``offset``
and ``locate`` (:mod:`codegen.symbolic`), the tile/untile sizes
(:mod:`codegen.tile_code`) and the copy's numpy source
(:mod:`codegen.convert`): one definition, written out.

>>> c = CodeArithmetic("c")
>>> str(c.both(c.lt(Code("o"), 8), c.eq(c.mod(Code("o"), 4), 0)))
'o < 8 && o % 4 == 0'
"""

from __future__ import annotations

from dataclasses import dataclass

from ..spec import Arithmetic, TilespecError


class CodegenError(TilespecError):
    """A layout whose code cannot be generated as asked (e.g. an unnamed
    unbounded dim)."""


# Binding strength of each operator, per language; higher binds tighter.
_ATOM = 100
_PRECEDENCE = {
    "python": {"*": 20, "//": 20, "%": 20, "+": 10, "-": 10, "<": 5, "==": 5, "and": 3},
    "c": {"*": 20, "/": 20, "%": 20, "+": 10, "-": 10, "<": 6, "==": 5, "&&": 3},
}
_ASSOCIATIVE = {"+", "*", "and", "&&"}
_COMPARISONS = {"<", "=="}


@dataclass(frozen=True)
class Code:
    """An expression in the target language, with what it needs to nest."""

    text: str
    precedence: int = _ATOM
    op: str = ""
    left: "Code | int | None" = None
    right: "Code | int | None" = None

    def __str__(self) -> str:
        return self.text


def _is(x, op: str) -> bool:
    return isinstance(x, Code) and x.op == op


def _same(a, b) -> bool:
    return isinstance(a, Code) and isinstance(b, Code) and a.text == b.text


class CodeArithmetic(Arithmetic):
    """Values are Python ints (folded at once) or :class:`Code` expressions.

    Indices and dims are never negative and divisors are positive, so C's
    truncating ``/`` and ``%`` agree with floor division here, and so do the
    few identities used to fold what the pipeline builds and undoes, such as
    ``(x // t) * t + x % t == x``.

    >>> py, c = CodeArithmetic("python"), CodeArithmetic("c")
    >>> x = Code("x")
    >>> str(py.mod(py.floordiv(py.floordiv(x, 2), 3), 4)), str(c.ceildiv(x, 8))
    ('x // 6 % 4', '(x + 7) / 8')
    >>> str(py.mul(py.add(x, 1), 1)), py.add(2, 3)
    ('x + 1', 5)
    """

    def __init__(self, language: str = "python"):
        if language not in _PRECEDENCE:
            raise CodegenError(f"no code generator for {language!r}; use python or c")
        self.name = self.language = language
        self._prec = _PRECEDENCE[language]
        self._div = "//" if language == "python" else "/"
        self._and = "and" if language == "python" else "&&"

    def literal(self, value) -> str:
        if value is True or value is False:
            return str(value) if self.language == "python" else str(int(value))
        return str(value)

    def _binary(self, op: str, a, b) -> Code:
        p = self._prec[op]

        def side(x, right: bool) -> str:
            if not isinstance(x, Code):
                return self.literal(x)
            tight = x.precedence < p or (x.precedence == p and (
                op in _COMPARISONS or right and not (op in _ASSOCIATIVE and x.op == op)))
            return f"({x.text})" if tight else x.text

        return Code(f"{side(a, False)} {op} {side(b, True)}", p, op, a, b)

    def add(self, a, b):
        if isinstance(a, int) and isinstance(b, int):
            return a + b
        if isinstance(a, int) and a == 0:
            return b
        if isinstance(b, int) and b == 0:
            return a
        # (x // t) * t + x % t == x: a split joined back up.
        if _is(a, "*") and _is(a.left, self._div) and _is(b, "%") and \
                isinstance(a.right, int) and a.right == a.left.right == b.right \
                and _same(a.left.left, b.left):
            return b.left
        return self._binary("+", a, b)

    def mul(self, a, b):
        if isinstance(a, int) and isinstance(b, int):
            return a * b
        if isinstance(a, int) and a in (0, 1):
            return b if a else 0
        if isinstance(b, int) and b in (0, 1):
            return a if b else 0
        return self._binary("*", a, b)

    def floordiv(self, a, b):
        if isinstance(a, int) and isinstance(b, int):
            return a // b
        if not isinstance(b, int) or b == 0:
            return self._binary(self._div, a, b)      # as in mod
        if b == 1:
            return a
        if _is(a, self._div) and isinstance(a.right, int):
            # (x // p) // q == x // (p*q)
            return self._binary(self._div, a.left, a.right * b)
        if _is(a, "%") and isinstance(a.right, int) and b >= a.right:
            return 0                                    # (x % p) // q, q >= p
        if _is(a, "*") and a.right == b:
            return a.left                               # (x * q) // q
        if _is(a, "+") and _is(a.left, "*") and a.left.right == b \
                and isinstance(a.right, int) and 0 <= a.right < b:
            return a.left.left                          # (x * q + c) // q, c < q
        return self._binary(self._div, a, b)

    def mod(self, a, b):
        if isinstance(a, int) and isinstance(b, int):
            return a % b
        if not isinstance(b, int) or b == 0:
            # a 0 dim: the box is empty and the code never runs; the rules
            # below assume a positive divisor
            return self._binary("%", a, b)
        if b == 1:
            return 0
        if _is(a, "%") and isinstance(a.right, int) and a.right % b == 0:
            return self.mod(a.left, b)                  # x % (k*q) % q
        if _is(a, "*") and isinstance(a.right, int) and a.right % b == 0:
            return 0                                    # (x * k*q) % q
        return self._binary("%", a, b)

    def ceildiv(self, a, b):
        if isinstance(b, int):
            return self.floordiv(self.add(a, b - 1), b)
        return self.floordiv(self._binary("-", self.add(a, b), 1), b)

    def lt(self, a, b):
        if isinstance(a, int) and isinstance(b, int):
            return a < b
        if _is(a, "%") and isinstance(a.right, int) and isinstance(b, int) \
                and b >= a.right:
            return True                                 # x % p < q, q >= p
        return self._binary("<", a, b)

    def eq(self, a, b):
        if isinstance(a, int) and isinstance(b, int):
            return a == b
        return self._binary("==", a, b)

    def both(self, p, q):
        if p is True:
            return q
        if q is True:
            return p
        if p is False or q is False:
            return False
        return self._binary(self._and, p, q)

    def true(self):
        return True
