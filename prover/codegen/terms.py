"""Generated code as Z3 terms, and its int64 ranges checked one at a time.

:class:`Terms` is the Z3 :class:`~prover.codegen.interpret.Interpretation`
of generated code: each expression becomes a term in Python's or C's
arithmetic.  Python's ``//`` and ``%`` floor, C's ``/`` and ``%`` truncate
toward zero; the two agree with Z3's ``div``/``mod`` when the divisor is
positive and (for C) the dividend is not negative, so those conditions are
collected (``conditions``) to join the claim.  With ``int64``, every
integer subexpression's condition to lie in int64 is collected too
(``ranges``), guarded by where it runs; :func:`no_overflow` checks them.

>>> import z3
>>> from tilespec.prover.codegen.interpret import expression, interpret
>>> ctx = z3.Context()
>>> x = z3.Int("x", ctx)
>>> run = Terms({"x": x}, ctx, "c", int64=True)
>>> interpret(expression("x > 0 && x / 2 < 3", "c"), run)
And(And(0 < x), And(3 > x/2))
>>> run.conditions, [text for text, _ in run.ranges]
([2 > 0, x >= 0], ['x', '0', 'x', '2', 'x / 2', '3'])
>>> [z3.is_implies(ok) for _, ok in run.ranges]   # x / 2 < 3 runs where x > 0
[False, False, True, True, True, True]
"""

from __future__ import annotations

import ast
import contextlib
import time
from typing import Iterator

import z3

from ..core import search
from .interpret import INT64_MAX, INT64_MIN, Interpretation


class Terms(Interpretation):
    """An expression's tree as a Z3 term of ``ctx``, in ``language``'s
    arithmetic.

    ``conditions`` collects what must hold for the division to mean floor;
    with ``int64``, ``ranges`` collects, for every integer subexpression, its
    source text and the condition that it lies in int64.
    """

    # The claim is a conjunction, so order does not change it; C's locate
    # read test first is the form Z3 settles fastest.
    in_order = False

    def __init__(self, env: dict, ctx: z3.Context, language: str, int64: bool = False):
        super().__init__(language, env, int64)
        self.ctx = ctx
        self.conditions: list = []
        self.ranges: list = []

    def constant(self, value):
        return z3.IntVal(value, self.ctx)

    def divide(self, node, a, b):
        # With a positive divisor (and, for C, a dividend >= 0) Python's
        # floor, C's truncation and Z3's div all agree.  The conditions
        # join the claim, so a proof shows they hold on every input.
        # They are not guarded by where they run: a stronger claim (that
        # holds: dividends are never negative here), and the form Z3
        # settles fastest.
        self.conditions.append(b > 0)
        if self.c:
            self.conditions.append(a >= 0)
        return a % b if isinstance(node.op, ast.Mod) else a / b

    def all(self, parts):
        return z3.And(parts)

    def any(self, parts):
        return z3.Or(parts)

    def negate(self, p):
        return z3.Not(p)

    def watch(self, node, value):
        if isinstance(value, z3.ArithRef):
            self.ranges.append((ast.unparse(node), z3.And(value >= INT64_MIN,
                                                          value <= INT64_MAX)))

    @contextlib.contextmanager
    def only_where(self, runs) -> Iterator[None]:
        mark = len(self.ranges)
        yield
        self.ranges[mark:] = [(t, z3.Implies(runs, c)) for t, c in self.ranges[mark:]]


def distinct_ranges(ranges) -> list:
    """The range conditions worth a solver call: each once, none that Z3's
    simplifier already shows true (a literal, say)."""
    seen, out = set(), []
    for text, ok in ranges:
        if ok.get_id() in seen or z3.is_true(z3.simplify(ok)):
            continue
        seen.add(ok.get_id())
        out.append((text, ok))
    return out


#: The overflow checks of one function share this many time limits in all,
#: so that a long expression cannot multiply the wait by its length.
OVERFLOW_BUDGET = 4


def no_overflow(premise, checks, ctx, timeout):
    """Check each subexpression's range on its own (one conjunction of them
    all is far harder for Z3 than each alone): ('unsat', None, []) when all
    hold, ('sat', model, ...) at the first that fails, else ('unknown',
    reason, the checks left open)."""
    left, reason = [], None
    deadline = time.perf_counter() + OVERFLOW_BUDGET * timeout
    for text, ok in checks:
        remaining = deadline - time.perf_counter()
        if remaining <= 0:
            left.append((text, ok))
            reason = reason or (f"the overflow checks took their whole time "
                                f"({OVERFLOW_BUDGET * timeout:g} s)")
            continue
        answer, detail = search(z3.And(premise, z3.Not(ok)), ctx, min(timeout, remaining))
        if answer == "sat":
            return "sat", detail, []
        if answer == "unknown":
            left.append((text, ok))
            reason = reason or f"{detail} on whether {text} stays in int64"
    if left:
        return "unknown", reason, left
    return "unsat", None, []
