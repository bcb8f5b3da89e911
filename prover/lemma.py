"""The mixed-radix lemma: row-major linearisation is a bijection from a box
onto [0, product of its dims).

For dims D (each >= 0) and ``lin = spec.index.linear_index``,
``delin = spec.index.delinearise``:

1. range:     e in box(D)                 =>  0 <= lin(e, D) < prod(D)
2. injective: e, f in box(D), lin(e) = lin(f)  =>  e = f
3. onto:      0 <= o < prod(D)            =>  delin(o, D) in box(D) and lin(delin(o, D), D) = o
4. inverse:   e in box(D)                 =>  delin(lin(e, D), D) = e

How it is proved for every rank and every size: Z3 proves the four facts for
rank 2 with symbolic dims A, B (:func:`step_lemma`, nonlinear but small).
For rank k > 2, Horner's rule splits the box into (the first k-1 dims, the
last): ``lin(e, D) = lin(e[:-1], D[:-1]) * D[-1] + e[-1]`` and
``delin(o, D) = delin(o div D[-1], D[:-1]) ++ (o mod D[-1],)``, so the rank-k
facts are the rank-2 facts with A = prod(D[:-1]) and the rank-(k-1) facts,
by induction.  :func:`mixed_radix` checks those two identities for the spec's
own ``linear_index`` and ``delinearise`` at rank k with Z3 (symbolic dims),
so the lemma is about the code the spec runs, not a copy of it.  Results are
cached per process: each is proved once.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import lru_cache

import z3

from ..spec.index import delinearise, linear_index, product

from .encode import Z3Arithmetic
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


@lru_cache(maxsize=None)
def step_lemma() -> Lemma:
    """The four facts for rank 2 with symbolic dims, proved by Z3."""
    start = time.perf_counter()
    ctx = z3.Context()
    ar = Z3Arithmetic(ctx)
    A, B, o = z3.Ints("A B o", ctx)
    e = z3.Ints("e0 e1", ctx)
    f = z3.Ints("f0 f1", ctx)
    D = (A, B)

    def box(v):
        return z3.And([z3.And(0 <= x, x < n) for x, n in zip(v, D)])

    pos = z3.And(A >= 0, B >= 0)
    lin_e, lin_f = linear_index(e, D, ar), linear_index(f, D, ar)
    g = delinearise(o, D, ar)
    claims = [
        z3.Implies(z3.And(pos, box(e)), z3.And(0 <= lin_e, lin_e < A * B)),
        z3.Implies(z3.And(pos, box(e), box(f), lin_e == lin_f),
                   z3.And(e[0] == f[0], e[1] == f[1])),
        z3.Implies(z3.And(pos, 0 <= o, o < A * B),
                   z3.And(box(g), linear_index(g, D, ar) == o)),
        z3.Implies(z3.And(pos, box(e)),
                   z3.And([a == b for a, b in zip(delinearise(lin_e, D, ar), e)])),
    ]
    statuses = [_prove(ctx, c) for c in claims]
    bad = [s for s in statuses if s != "proved"]
    return Lemma("mixed-radix rank 2", bad[0] if bad else "proved",
                 time.perf_counter() - start)


@lru_cache(maxsize=None)
def mixed_radix(rank: int) -> Lemma:
    """The lemma at ``rank``: the step lemma plus Horner's identities."""
    start = time.perf_counter()
    base = step_lemma()
    if rank <= 2 or not base.proved:
        return Lemma(f"mixed-radix rank {rank}", base.status,
                     time.perf_counter() - start)
    ctx = z3.Context()
    ar = Z3Arithmetic(ctx)
    D = z3.Ints(" ".join(f"D{i}" for i in range(rank)), ctx)
    e = z3.Ints(" ".join(f"e{i}" for i in range(rank)), ctx)
    o = z3.Int("o", ctx)
    horner = linear_index(e, D, ar) == ar.add(
        ar.mul(linear_index(e[:-1], D[:-1], ar), D[-1]), e[-1])
    split = delinearise(o, D, ar)
    rest = delinearise(ar.floordiv(o, D[-1]), D[:-1], ar)
    digits = z3.And([a == b for a, b in zip(split, rest + (ar.mod(o, D[-1]),))])
    whole = product(D, ar) == ar.mul(product(D[:-1], ar), D[-1])
    status = _prove(ctx, z3.Implies(z3.And([d >= 1 for d in D]),
                                    z3.And(horner, digits, whole)))
    if status == "proved":
        status = mixed_radix(rank - 1).status
    return Lemma(f"mixed-radix rank {rank}", status, time.perf_counter() - start)
