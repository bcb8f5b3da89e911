"""Claims about concrete layouts for all coordinates, decided by Z3.

A claim ranges over the indices ``i`` of a domain (a CuTe shape, numbered
colexicographically): two maps are equal at every ``i``, one map stays
below a bound, one map is injective, or a plain fact about sizes.  The maps
are Python functions of ``(index, arithmetic)`` written with the same code
that computes offsets on ints (:mod:`tilespec.cute`), so the solver sees
exactly what runs: on bit-vectors of a width that holds every value the
claim computes (where a division by a constant is a circuit Z3 decides in
milliseconds, while the same claims in integer arithmetic time out), or
on the solver's integers.  Z3 searches for an index where the claim fails; only
``unsat`` proves it, and a ``sat`` model is replayed on ints and must show
the failure (else :class:`~tilespec.prover.result.ProverBug`).

>>> from tilespec.cute import Layout
>>> A = Layout((4, 2), (2, 1))
>>> r = prove_claims("A", "A is injective", [injective("A", A.size, A)])
>>> r.status
'proved'
>>> r = prove_claims("A", "A(i) below 7", [below("A(i) < 7", A.size, A, 7)])
>>> r.status, r.counterexample.lines()[0]
('refuted', 'what: A(i) < 7 fails')
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable

import z3

from ...prover.core import Z3Arithmetic, internal_ints, internal_symbol, search
from ...prover.names import DEFAULT_TIMEOUT
from ...prover.result import PROVED, REFUTED, UNKNOWN, Counterexample, ProverBug, Result, Side
from ...spec import INT, Arithmetic
from .. import IntTuple, flatten, idx2crd

#: A map of an index: ``f(i, ar)``.
Map = Callable[[Any, Arithmetic], Any]

EQUAL, BELOW, INJECTIVE, FACT = "equal", "below", "injective", "fact"


@dataclass(frozen=True)
class Claim:
    """One claim: ``kind`` says which; ``domain`` is the shape whose
    indices ``i`` range over ``[0, size)``; ``left``/``right`` name the
    sides in a counterexample."""

    kind: str
    text: str
    domain: IntTuple
    left: Map | None = None
    right: Map | None = None
    bound: int = 0
    names: tuple[str, str] = ("left", "right")
    #: a fact's two sizes (computed, and what the law says), and whether
    #: they are as the law says
    values: tuple[int, int] = (0, 0)
    holds: bool = True
    #: None: the solver's integers; a width: bit-vectors of that width,
    #: for maps made of bit operations (every value the map computes must
    #: lie in [0, 2^width), which the caller's width guarantees)
    width: int | None = None
    #: an equality only where ``g(i) < n`` (``(g, n)``), e.g. where B(i)
    #: is in A's domain
    where: tuple[Map, int] | None = None

    @property
    def size(self) -> int:
        n = 1
        for s in flatten(self.domain):
            n *= s
        return n


def _as_map(f: Any) -> Map:
    """A layout (called with ``ar=``) or a map, as a map."""
    return lambda i, ar: f(i, ar=ar)


def equal(text: str, domain: IntTuple, left: Any, right: Any,
          names: tuple[str, str] = ("result", "law"), width: int | None = None,
          where: tuple[Any, int] | None = None) -> Claim:
    """``left(i) == right(i)`` for every index of ``domain`` (each side a
    layout or a map); with ``where=(g, n)``, for the indices where
    ``g(i) < n`` only."""
    guard = None if where is None else (_as_map(where[0]), where[1])
    return Claim(EQUAL, text, domain, _as_map(left), _as_map(right), names=names, width=width,
                 where=guard)


def below(text: str, domain: IntTuple, f: Any, bound: int, width: int | None = None) -> Claim:
    """``0 <= f(i) < bound`` for every index of ``domain``."""
    return Claim(BELOW, text, domain, _as_map(f), bound=bound, names=("map", "bound"),
                 width=width)


def injective(text: str, domain: IntTuple, f: Any, width: int | None = None) -> Claim:
    """``f(i) != f(j)`` for every two indices ``i != j`` of ``domain``."""
    return Claim(INJECTIVE, text, domain, _as_map(f), names=("first", "second"), width=width)


def fact(text: str, computed: int, law: int, holds: bool) -> Claim:
    """A fact about concrete sizes: ``computed`` and what the ``law`` says
    are what a counterexample shows."""
    return Claim(FACT, text, (), values=(computed, law), holds=holds)


class BitVectorArithmetic(Arithmetic):
    """The index operations on Z3 bit-vectors of one width, unsigned: exact
    while every value divided or compared lies in ``[0, 2^width)`` (sums
    and products are exact modulo ``2^width`` in any case).

    >>> ar = BitVectorArithmetic(z3.Context(), 8)
    >>> x = z3.BitVec("x", 8, ar.ctx)
    >>> z3.simplify(z3.substitute(ar.mod(ar.floordiv(x, 4), 2), (x, ar.term(13)))).as_long()
    1
    """

    name = "bitvector"

    def __init__(self, ctx: z3.Context, width: int):
        self.ctx, self.width = ctx, width

    def term(self, v):
        if isinstance(v, z3.ExprRef):
            return v
        if isinstance(v, bool):
            return z3.BoolVal(v, self.ctx)
        return z3.BitVecVal(int(v) % (1 << self.width), self.width, self.ctx)

    def add(self, a, b):
        return a + b if _plain(a, b) else self.term(a) + self.term(b)

    def mul(self, a, b):
        return a * b if _plain(a, b) else self.term(a) * self.term(b)

    def floordiv(self, a, b):
        return a // b if _plain(a, b) else z3.UDiv(self.term(a), self.term(b))

    def mod(self, a, b):
        return a % b if _plain(a, b) else z3.URem(self.term(a), self.term(b))

    def lt(self, a, b):
        return a < b if _plain(a, b) else z3.ULT(self.term(a), self.term(b))

    def eq(self, a, b):
        return a == b if _plain(a, b) else self.term(a) == self.term(b)

    def both(self, p, q):
        return z3.And(self.term(p), self.term(q))

    def true(self):
        return z3.BoolVal(True, self.ctx)


def _plain(a, b) -> bool:
    return not isinstance(a, z3.ExprRef) and not isinstance(b, z3.ExprRef)


def _negation(claim: Claim, ctx: z3.Context):
    """The formula whose model is a failure of ``claim``, and its indices."""
    if claim.kind == FACT:
        return z3.BoolVal(not claim.holds, ctx), ()
    ar: Arithmetic
    if claim.width is None:
        ar = Z3Arithmetic(ctx)
        i, j = internal_ints("i j", ctx)
    else:
        ar = BitVectorArithmetic(ctx, claim.width)
        i, j = (z3.BitVec(internal_symbol(t), claim.width, ctx) for t in "ij")
    term = ar.term
    assert claim.left is not None
    inside = ar.lt(i, claim.size)
    if claim.width is None:
        inside = z3.And(0 <= i, inside)
    f = term(claim.left(i, ar))
    if claim.kind == EQUAL:
        assert claim.right is not None
        if claim.where is not None:
            g, n = claim.where
            inside = z3.And(inside, term(ar.lt(g(i, ar), n)))
        return z3.And(inside, f != term(claim.right(i, ar))), (i,)
    if claim.kind == BELOW:
        return z3.And(inside, z3.Or(ar.lt(f, 0), z3.Not(ar.lt(f, claim.bound)))), (i,)
    g = term(claim.left(j, ar))
    return z3.And(inside, ar.lt(i, j), ar.lt(j, claim.size), f == g), (i, j)


def _side(claim: Claim, name: str, i: int, value: int) -> Side:
    crd = idx2crd(i, claim.domain) if claim.domain != () else ()
    return Side(name, element=flatten(crd) if crd != () else (i,), offset=value)


def _replay(claim: Claim, indices: list[int]) -> Counterexample:
    """The failure at the model's indices, computed on ints."""
    what = f"{claim.text} fails"
    if claim.kind == FACT:
        if claim.holds:
            raise ProverBug(f"a fact that holds was refuted: {claim.text}")
        return Counterexample({}, (Side("computed", value=claim.values[0]),
                                   Side("law", value=claim.values[1])), what=what)
    assert claim.left is not None
    i = indices[0]
    if not 0 <= i < claim.size:
        raise ProverBug(f"{claim.text}: the solver's index {i} is outside the domain")
    a = int(claim.left(i, INT))
    details = {"index": i}
    if claim.kind == EQUAL:
        assert claim.right is not None
        b = int(claim.right(i, INT))
        if claim.where is not None and not claim.where[0](i, INT) < claim.where[1]:
            raise ProverBug(f"{claim.text}: the solver's index {i} is outside the claim")
        if a != b:
            return Counterexample({}, (_side(claim, claim.names[0], i, a),
                                       _side(claim, claim.names[1], i, b)),
                                  what=what, details=details)
    elif claim.kind == BELOW:
        if not 0 <= a < claim.bound:
            return Counterexample({}, (_side(claim, "map", i, a),
                                       Side("bound", value=claim.bound)),
                                  what=what, details=details)
    else:
        j = indices[1]
        b = int(claim.left(j, INT))
        if i != j and 0 <= j < claim.size and a == b:
            return Counterexample({}, (_side(claim, "first", i, a),
                                       _side(claim, "second", j, b)),
                                  what=what, details={"indices": [i, j]})
    raise ProverBug(f"{claim.text}: the solver's counterexample at {indices} does not replay")


def prove_claims(question: str, name: str, claims: list[Claim],
           timeout: float = DEFAULT_TIMEOUT) -> Result:
    """Every claim decided in turn: proved when Z3 answers ``unsat`` for
    each negation, refuted at the first replayed counterexample, else
    unknown with the solver's reason."""
    start = time.perf_counter()
    steps: list[str] = []
    unknown: list[str] = []
    for claim in claims:
        ctx = z3.Context()
        formula, indices = _negation(claim, ctx)
        answer, detail = search(formula, ctx, timeout)
        if answer == "sat":
            values = [detail.eval(x, model_completion=True).as_long() for x in indices]
            return Result(question, name, REFUTED, time.perf_counter() - start,
                          "concrete layouts, all coordinates",
                          counterexample=_replay(claim, values), steps=tuple(steps))
        if answer == "unknown":
            unknown.append(f"{claim.text}: {detail}")
        else:
            steps.append(f"Z3: {claim.text}" + (f" for all {claim.size} indices"
                                                if claim.kind != FACT else ""))
    seconds = time.perf_counter() - start
    if unknown:
        return Result(question, name, UNKNOWN, seconds, "concrete layouts, all coordinates",
                      reason="; ".join(unknown), steps=tuple(steps))
    return Result(question, name, PROVED, seconds, "concrete layouts, all coordinates",
                  steps=tuple(steps))


def enumerate_claim(claim: Claim) -> Counterexample | None:
    """The first failure of ``claim`` found by computing it on ints at
    every index (pairs for injectivity: the first repeated offset), or None
    where it holds: the second way of deciding a claim, for the tests and
    for small domains.

    >>> from tilespec.cute import Layout
    >>> enumerate_claim(injective("A is injective", 4, Layout(4, 1))) is None
    True
    >>> enumerate_claim(injective("A is injective", 4, Layout((2, 2), (1, 1)))).elements
    {'first': [1], 'second': [2]}
    """
    if claim.kind == FACT:
        return None if claim.holds else _replay(claim, [])
    assert claim.left is not None
    seen: dict[int, int] = {}
    for i in range(claim.size):
        if claim.kind == EQUAL:
            assert claim.right is not None
            if claim.where is not None and not claim.where[0](i, INT) < claim.where[1]:
                continue
            if claim.left(i, INT) != claim.right(i, INT):
                return _replay(claim, [i])
        elif claim.kind == BELOW:
            if not 0 <= claim.left(i, INT) < claim.bound:
                return _replay(claim, [i])
        else:
            v = int(claim.left(i, INT))
            if v in seen:
                return _replay(claim, [seen[v], i])
            seen[v] = i
    return None
