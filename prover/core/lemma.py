"""The mixed-radix lemma: row-major linearisation is a bijection from a box
onto [0, product of its dims).

For dims D (each >= 0) and ``lin = spec.index.linear_index``,
``delin = spec.index.delinearise``, ``P = spec.index.product``:

0. size:      P(D) >= 0
1. range:     e in box(D)                 =>  0 <= lin(e, D) < P(D)
2. injective: e, f in box(D), lin(e) = lin(f)  =>  e = f
3. onto:      0 <= o < P(D)               =>  delin(o, D) in box(D) and lin(delin(o, D), D) = o
4. inverse:   e in box(D)                 =>  delin(lin(e, D), D) = e

It is proved for every rank by induction on the rank, each part by Z3:

* **Base** (:func:`base_case`): the five facts for rank 0 and rank 1, with a
  symbolic dim, on the spec's own code.
* **Step** (:func:`induction_step`): one Z3 proof that the facts for rank
  k-1 imply them for rank k, whatever k >= 2 is.  A rank-(k-1) index is a value
  of an uninterpreted sort ``Index``; ``inbox``, ``lin`` and ``delin`` of
  rank k-1 are uninterpreted functions and ``A`` (their product) an
  uninterpreted constant, about which Z3 knows only the rank-(k-1) facts
  (the induction hypothesis, instantiated at the terms the step uses; an
  instance of a true universal statement is true, so this is sound).  A
  rank-k index is a pair (h, x) of a rank-(k-1) index and a last entry, and
  the rank-k functions are built from the rank-(k-1) ones by unfolding.
* **Unfolding** (:func:`unfolding`): the spec's ``linear_index`` and
  ``delinearise`` are folds over the dims, so for every rank k >= 1
  ``lin(e, D) = lin(e[:-1], D[:-1]) * D[-1] + e[-1]``,
  ``delin(o, D) = delin(o div D[-1], D[:-1]) ++ (o mod D[-1],)`` and
  ``P(D) = P(D[:-1]) * D[-1]`` (and ``box`` is a conjunction over the
  entries).  That is what the step assumes of the rank-k functions; Z3 also
  checks the three identities on the spec's code at each rank a proof cites.

So :func:`mixed_radix` (rank k) is proved when the base case, the step and
the unfolding at ranks 1..k are: no rank rests on an argument on paper.
:func:`step_lemma` proves rank 2 directly, as an independent cross-check.
Results are cached per process: each is proved once.

>>> induction_step().status, mixed_radix(7).status
('proved', 'proved')
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import lru_cache

import z3

from ...spec import delinearise, linear_index, product
from .encode import Z3Arithmetic, internal_ints, internal_symbol
from .solve import search

#: Time limit for a lemma proof, seconds (proved once, then cached).
LEMMA_TIMEOUT = 60.0


@dataclass(frozen=True)
class Lemma:
    name: str
    status: str          # 'proved' or 'unknown: <reason>' (or 'refuted')
    seconds: float

    @property
    def proved(self) -> bool:
        return self.status == "proved"


def _prove(ctx, claim) -> str:
    answer, detail = search(z3.Not(claim), ctx, LEMMA_TIMEOUT)
    return {"unsat": "proved", "sat": "refuted"}.get(answer, f"unknown: {detail}")


def _all(name, start, ctx, claims) -> Lemma:
    """Each claim is an implication; its hypothesis must be satisfiable
    (else the claim holds vacuously, which proves nothing)."""
    statuses = []
    for c in claims:
        statuses.append(_prove(ctx, c))
        if z3.is_implies(c) and statuses[-1] == "proved":
            answer, _ = search(c.arg(0), ctx, LEMMA_TIMEOUT)
            if answer != "sat":
                statuses[-1] = f"vacuous: its hypothesis is {answer}"
    bad = [s for s in statuses if s != "proved"]
    return Lemma(name, bad[0] if bad else "proved", time.perf_counter() - start)


def _lemma_claims(ctx, ar, D, e, f, o):
    """The five facts at dims ``D`` (Z3 terms), on the spec's code."""
    def t(v):
        return ar.term(v)

    def box(v):
        return z3.And([z3.And(0 <= x, x < n) for x, n in zip(v, D)] + [z3.BoolVal(True, ctx)])

    def same(a, b):
        return z3.And([t(x) == t(y) for x, y in zip(a, b)] + [z3.BoolVal(True, ctx)])
    pos = z3.And([n >= 0 for n in D] + [z3.BoolVal(True, ctx)])
    P = t(product(D, ar))
    lin_e, lin_f = t(linear_index(e, D, ar)), t(linear_index(f, D, ar))
    g = delinearise(o, D, ar)
    return [
        z3.Implies(pos, P >= 0),
        z3.Implies(z3.And(pos, box(e)), z3.And(0 <= lin_e, lin_e < P)),
        z3.Implies(z3.And(pos, box(e), box(f), lin_e == lin_f), same(e, f)),
        z3.Implies(z3.And(pos, 0 <= o, o < P),
                   z3.And(box(g), t(linear_index(g, D, ar)) == o)),
        z3.Implies(z3.And(pos, box(e)), same(delinearise(lin_e, D, ar), e)),
    ]


@lru_cache(maxsize=None)
def base_case() -> Lemma:
    """The five facts for rank 0 and rank 1 (a symbolic dim), by Z3."""
    start = time.perf_counter()
    ctx = z3.Context()
    ar = Z3Arithmetic(ctx)
    A, o, e0, f0 = internal_ints("A o e0 f0", ctx)
    claims = (_lemma_claims(ctx, ar, (), (), (), o)
              + _lemma_claims(ctx, ar, (A,), (e0,), (f0,), o))
    return _all("mixed-radix base case (ranks 0 and 1)", start, ctx, claims)


@lru_cache(maxsize=None)
def induction_step() -> Lemma:
    """The facts at rank k-1 imply them at rank k, for every k, by Z3."""
    start = time.perf_counter()
    ctx = z3.Context()
    H = z3.DeclareSort(internal_symbol("Index"), ctx)   # a rank-(k-1) index
    inbox = z3.Function(internal_symbol("inbox"), H, z3.BoolSort(ctx))
    lin = z3.Function(internal_symbol("lin"), H, z3.IntSort(ctx))
    delin = z3.Function(internal_symbol("delin"), z3.IntSort(ctx), H)
    A, B, o, x, y = internal_ints("A B o x y", ctx)  # A = P of the first k-1 dims
    h, k = (z3.Const(internal_symbol(n), H) for n in ("h", "k"))

    # the induction hypothesis, as instances at a rank-(k-1) index or offset
    def ih_range(u):
        return z3.Implies(inbox(u), z3.And(0 <= lin(u), lin(u) < A))

    def ih_injective(u, v):
        return z3.Implies(z3.And(inbox(u), inbox(v), lin(u) == lin(v)), u == v)

    def ih_onto(p):
        return z3.Implies(z3.And(0 <= p, p < A),
                          z3.And(inbox(delin(p)), lin(delin(p)) == p))

    def ih_inverse(u):
        return z3.Implies(inbox(u), delin(lin(u)) == u)

    # rank k by unfolding: index (u, last), dims (first k-1, B)
    def box(u, last):
        return z3.And(inbox(u), 0 <= last, last < B)

    def lin_k(u, last):
        return lin(u) * B + last

    def delin_k(p):
        return delin(p / B), p % B

    P = A * B
    hyp = z3.And(A >= 0, B >= 0)
    d_h, d_x = delin_k(o)
    back_h, back_x = delin_k(lin_k(h, x))
    claims = [
        z3.Implies(hyp, P >= 0),
        z3.Implies(z3.And(hyp, ih_range(h), box(h, x)),
                   z3.And(0 <= lin_k(h, x), lin_k(h, x) < P)),
        z3.Implies(z3.And(hyp, ih_range(h), ih_range(k), ih_injective(h, k),
                          box(h, x), box(k, y), lin_k(h, x) == lin_k(k, y)),
                   z3.And(h == k, x == y)),
        z3.Implies(z3.And(hyp, ih_onto(o / B), 0 <= o, o < P),
                   z3.And(box(d_h, d_x), lin_k(d_h, d_x) == o)),
        z3.Implies(z3.And(hyp, ih_range(h), ih_inverse(h), box(h, x)),
                   z3.And(back_h == h, back_x == x)),
    ]
    return _all("mixed-radix induction step (rank k-1 to k, every k)", start, ctx, claims)


@lru_cache(maxsize=None)
def unfolding(rank: int) -> Lemma:
    """The spec's ``linear_index``, ``delinearise`` and ``product`` at rank
    ``rank`` (>= 2) unfold to rank ``rank - 1``, as the induction step assumes."""
    start = time.perf_counter()
    ctx = z3.Context()
    ar = Z3Arithmetic(ctx)
    if rank < 2:
        raise ValueError(f"unfolding starts at rank 2, not {rank}")
    D = internal_ints(" ".join(f"D{i}" for i in range(rank)), ctx)
    e = internal_ints(" ".join(f"e{i}" for i in range(rank)), ctx)
    (o,) = internal_ints("o", ctx)
    t = ar.term
    horner = t(linear_index(e, D, ar)) == t(ar.add(
        ar.mul(linear_index(e[:-1], D[:-1], ar), D[-1]), e[-1]))
    split = delinearise(o, D, ar)
    rest = delinearise(ar.floordiv(o, D[-1]), D[:-1], ar)
    digits = z3.And([t(a) == t(b) for a, b in zip(split, rest + (ar.mod(o, D[-1]),))]
                    + [z3.BoolVal(len(split) == len(rest) + 1, ctx)])
    whole = t(product(D, ar)) == t(ar.mul(product(D[:-1], ar), D[-1]))
    return _all(f"mixed-radix unfolding at rank {rank}", start, ctx,
                [z3.Implies(z3.And([d >= 1 for d in D]), z3.And(horner, digits, whole))])


@lru_cache(maxsize=None)
def mixed_radix(rank: int) -> Lemma:
    """The lemma at ``rank``: base case, induction step, and the unfolding
    of the spec's code at ranks 2..rank."""
    start = time.perf_counter()
    parts = [base_case(), induction_step()] + [unfolding(k) for k in range(2, rank + 1)]
    bad = [p for p in parts if not p.proved]
    status = f"{bad[0].name}: {bad[0].status}" if bad else "proved"
    return Lemma(f"mixed-radix rank {rank}", status, time.perf_counter() - start)


@lru_cache(maxsize=None)
def step_lemma() -> Lemma:
    """The facts for rank 2 with symbolic dims, proved directly by Z3 (a
    cross-check of the induction; no proof depends on it)."""
    start = time.perf_counter()
    ctx = z3.Context()
    ar = Z3Arithmetic(ctx)
    A, B, o = internal_ints("A B o", ctx)
    claims = _lemma_claims(ctx, ar, (A, B), internal_ints("e0 e1", ctx),
                           internal_ints("f0 f1", ctx), o)
    return _all("mixed-radix rank 2", start, ctx, claims)
