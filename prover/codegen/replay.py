"""Generated code run on Python ints, as C or Python would run it.

:mod:`prover.codegen.generated` proves generated ``offset``/``locate`` with Z3; a
witness Z3 finds is replayed here, independently of Z3: the code's
expressions (read with Python's ``ast``) are evaluated on exact integers
with the language's division (C truncates toward zero, Python floors) and
its short-circuit ``&&``/``and``, watching every subexpression for a value
outside int64.

>>> import ast
>>> run = Replay("c", {"x": -7, "y": 2}, int64=True)
>>> run.value(ast.parse("x / y", mode="eval").body), run.fault
(-3, {'division': 'x / y', 'dividend': -7, 'divisor': 2})
>>> run = Replay("c", {"y": 2**62}, int64=True)
>>> run.value(ast.parse("y * 4 - 1", mode="eval").body), run.fault["overflow"]
(18446744073709551615, 'y * 4')
"""

from __future__ import annotations

import ast

#: int64_t's range, [INT64_MIN, INT64_MAX].
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1

_COMPARE = {ast.Lt: lambda a, b: a < b, ast.LtE: lambda a, b: a <= b,
            ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b,
            ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b}


class Replay:
    """Evaluate expressions of one language at one input (``values``).

    ``fault`` is None, or a dict naming the first subexpression that left
    int64 (with ``int64``) and its exact value, or the first division C
    would not do as floor (a divisor <= 0, or for C a negative dividend).
    """

    def __init__(self, language: str, values: dict, int64: bool = True):
        self.c = language == "c"
        self.values, self.int64 = values, int64
        self.fault: dict | None = None   # the first fault met, if any

    def value(self, node):
        v = self._eval(node)
        if self.int64 and isinstance(v, int) and not isinstance(v, bool) and \
                not INT64_MIN <= v <= INT64_MAX and self.fault is None:
            self.fault = {"overflow": ast.unparse(node), "value": v}
        return v

    def _eval(self, n):
        if isinstance(n, ast.Expression):
            return self.value(n.body)
        if isinstance(n, ast.Name):
            return self.values[n.id]
        if isinstance(n, ast.Constant):
            return n.value
        if isinstance(n, ast.Tuple):
            return tuple(self.value(x) for x in n.elts)
        if isinstance(n, ast.UnaryOp):
            v = self.value(n.operand)
            return (not v) if isinstance(n.op, ast.Not) else -v
        if isinstance(n, ast.BoolOp):
            conj = isinstance(n.op, ast.And)
            for x in n.values:            # stopping early, as the code does
                if bool(self.value(x)) != conj:
                    return not conj
            return conj
        if isinstance(n, ast.Compare):
            left, ok = self.value(n.left), True
            for op, right in zip(n.ops, n.comparators):
                r = self.value(right)
                ok = ok and _COMPARE[type(op)](left, r)
                left = r
            return ok
        a, b = self.value(n.left), self.value(n.right)
        kind = type(n.op)
        if kind is ast.Add:
            return a + b
        if kind is ast.Sub:
            return a - b
        if kind is ast.Mult:
            return a * b
        if b <= 0 or (self.c and a < 0):
            if self.fault is None:
                self.fault = {"division": ast.unparse(n), "dividend": a, "divisor": b}
            if b == 0:
                return 0
        q = a // b
        if self.c and q < 0 and q * b != a:
            q += 1                                  # C truncates toward zero
        return a - q * b if kind is ast.Mod else q
