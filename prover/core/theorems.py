"""Generic theorems about the spec's stages, proved once for all parameter values.

Every stage class of :mod:`spec.index` is proved, by Z3 on the class's own
code, to do what a layout's proof needs of it, *for every value of its
numeric parameters*: dims are symbolic (any d >= 0) and so are tile sizes
(any t >= 1).  What stays concrete is the stage's *structure*: the length
of the vector it receives, a permutation, a prepend's count, how many
entries a pad or split tiles.  The theorems (:func:`stage_theorem`), for
dims D >= 0 and the stage's box of D:

``nonneg``    every entry of dims(D) is >= 0 (so the next stage's hypothesis holds);
``into``      e in box(D)  =>  forward(e) in box(dims(D));
``injective`` e, f in box(D), forward(e) = forward(f)  =>  e = f;
``left``      e in box(D)  =>  backward(forward(e)) = e, and it is valid;
``right``     g in box(dims(D)), backward(g) valid  =>  backward(g) in box(D)
              and forward(backward(g)) = g.

A :class:`~spec.index.Split` is stated on the box a pad by the same tiles
leaves, ``Pad(t).dims(D)`` = ⌈D/t⌉·t: the split by t is a bijection from
[0, ⌈d/t⌉·t) onto [0, ⌈d/t⌉)×[0, t) for every t >= 1 and d >= 0.  A
:class:`~spec.index.Combine` is the row-major linearisation of its groups,
so it is cited through the mixed-radix lemma (:mod:`prover.core.lemma`, every
rank by induction), as the per-stage proofs of :mod:`prover.properties.proof` do.

A layout's ``in_bounds``, ``injective``, ``bijective`` and ``inverse``
(see :mod:`prover.properties.proof` for what each states) then follow without a
solver call (:func:`cite`) when:

* every stage is an instance of exactly one of the spec's stage classes
  (``type(s) is Split``, never a subclass: a mutant overrides methods the
  theorems are not about) with checked parameters (:mod:`prover.properties.stages_check`);
* every split directly follows a pad by the same tiles (the split's theorem
  is about the padded box);
* every dim is >= 0 (named dims are >= 1, :mod:`prover.core.bounds`);
* for ``in_bounds``, the pipeline's last dims are pad-reshape-transpose's
  (computed on ints, so only for concrete shapes; named dims go to Z3).

The chain is the one the per-stage proofs use: dims stay >= 0 stage after
stage (``nonneg``), each stage maps its box into the next (``into``), and
injective / bijective / inverse compose; the last box is linearised onto
[0, P) by the mixed-radix lemma.  ``formula_equals_prt``, ``packing``,
``combine_equals_reshape`` and ``in_bounds`` for named dims also need facts
these theorems do not state (they relate two definitions, or bits to
bytes): the theorems per tiling level of :mod:`prover.core.level_theorems`
state them, and cite these.

Every theorem is cached (:mod:`prover.core.cache`) under a fingerprint of the
live code it is about (the stage classes, ``spec.index``'s linearisation,
the arithmetic, this module and the lemma): changed code is proved again.

>>> from tilespec.spec.index import Split
>>> stage_theorem(Split((8, 128)), 3)["status"]
'proved'
"""

from __future__ import annotations

import sys
import time
from datetime import datetime, timezone

from ...spec import (
    Combine,
    Pad,
    Permute,
    Prepend,
    Split,
    arith as _arith,
    dims_through,
    index as _index,
    prt_final_dims,
)
from . import cache, lemma as _lemma, solve
from .encode import Z3Arithmetic, internal_ints

#: The spec's stage classes the theorems are about.
STAGE_CLASSES = (Permute, Prepend, Combine, Pad, Split)

#: What each property needs of each stage (pads: bijective skips them).
_NEEDS = {
    "in_bounds": ("nonneg", "into"),
    "injective": ("nonneg", "into", "injective"),
    "bijective": ("nonneg", "into", "left", "right"),
    "inverse": ("nonneg", "into", "left", "right"),
}
#: Properties that follow from the stage theorems and the lemma.
CITED_PROPERTIES = tuple(_NEEDS)


def _code():
    """The live code a theorem is about (see :mod:`prover.core.cache`)."""
    return _CODE


#: The fields of a theorem's record that its citation reads.
_CITED_FIELDS = ("solver", "proved_at")


def fingerprint() -> str:
    """The fingerprint of the live code the theorems are about."""
    return cache.fingerprint(_code())


def _solver() -> str:
    import z3
    return f"z3 {z3.get_version_string()}"


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


# --- the stage theorems -------------------------------------------------------

def _structure(stage, n: int) -> tuple[str, object]:
    """The stage's structure (what stays concrete) as text, and a builder of
    the stage with symbolic tile sizes."""
    kind = type(stage).__name__.lower()
    if isinstance(stage, Permute):
        return f"permute {tuple(stage.perm)} of {n} entries", lambda T: stage
    if isinstance(stage, Prepend):
        return f"prepend {stage.count} unit dims to {n} entries", lambda T: stage
    k = len(stage.sizes)
    return (f"{kind} of the last {k} of {n} entries by any tiles",
            lambda T: type(stage)(tuple(T)))


def _claims(stage, n: int, k: int):
    """The theorem's claims, Z3 implications in a fresh context."""
    import z3

    ctx = z3.Context()
    ar = Z3Arithmetic(ctx)
    t = ar.term

    def ints(prefix, m):
        return internal_ints(" ".join(f"{prefix}{i}" for i in range(m)), ctx)
    D, T = ints("D", n), ints("T", k)
    s = stage(T)
    hyp = [d >= 0 for d in D] + [x >= 1 for x in T]
    d_in = Pad(T).dims(D, ar) if isinstance(s, Split) else D
    d_out = s.dims(d_in, ar)
    e, f, g = ints("e", n), ints("f", n), ints("g", len(d_out))

    def box(v, d):
        return [z3.And(0 <= t(x), t(x) < t(m)) for x, m in zip(v, d)]

    def same(a, b):
        return [t(x) == t(y) for x, y in zip(a, b)] + [z3.BoolVal(len(a) == len(b), ctx)]

    def imply(name, hyps, conclusions):
        H = z3.And(hyp + list(hyps) + [z3.BoolVal(True, ctx)])
        return [(name, z3.Implies(H, c)) for c in conclusions]
    fe = s.forward(e, d_in, ar)
    back, valid = s.backward(fe, d_in, ar)
    bg, gvalid = s.backward(g, d_in, ar)
    return ctx, {
        "nonneg": imply("nonneg", [], [t(x) >= 0 for x in d_out]),
        "into": imply("into", box(e, d_in), box(fe, d_out) + [
            z3.BoolVal(len(fe) == len(d_out), ctx)]),
        "injective": imply("injective", box(e, d_in) + box(f, d_in)
                           + same(fe, s.forward(f, d_in, ar)), same(e, f)),
        "left": imply("left", box(e, d_in), same(back, e) + [t(valid)]),
        "right": imply("right", box(g, d_out) + [t(gvalid)],
                       box(bg, d_in) + same(s.forward(bg, d_in, ar), g)),
    }


#: Time limit for each claim of a theorem, seconds (proved once, then cached).
THEOREM_TIMEOUT = 60.0


def all_proved(ctx, claims) -> str:
    """'proved' when the negation of every claim is unsat and its hypothesis
    is satisfiable (a vacuous claim proves nothing); else why not."""
    import z3

    # One query for all: unsat of the disjunction of the negations is unsat
    # of each.  Only when Z3 cannot answer it are the claims asked one by one.
    answer, _ = solve.search(z3.Or([z3.Not(c) for c in claims]), ctx, THEOREM_TIMEOUT)
    if answer == "sat":
        return "refuted"
    if answer != "unsat":
        for c in claims:
            answer, detail = solve.search(z3.Not(c), ctx, THEOREM_TIMEOUT)
            if answer != "unsat":
                return {"sat": "refuted"}.get(answer, f"unknown: {detail}")
    # the claims share their hypotheses: each distinct one is asked once
    hypotheses = {c.arg(0).get_id(): c.arg(0) for c in claims}
    for h in hypotheses.values():
        answer, detail = solve.search(h, ctx, THEOREM_TIMEOUT)
        if answer != "sat":
            return f"vacuous: its hypothesis is {answer}"
    return "proved"


def stage_theorem(stage, n: int) -> dict:
    """The theorem for ``stage``'s class and structure, receiving ``n``
    entries: ``{"name", "status", "solver", "proved_at", "seconds", "where"}``.
    Proved by Z3 once (each claim in a fresh context with a time limit), then
    cited from the cache while the code it is about is unchanged."""
    text, build = _structure(stage, n)
    # worded as the per-stage facts of prover.properties are
    name = (f"{text}: maps its box into the next, is injective, backward undoes "
            "forward, forward undoes backward, dims stay >= 0 (every dim >= 0, "
            "tile size >= 1)")
    digest = cache.fingerprint(_code())
    hit = cache.lookup(name, digest, needs=_CITED_FIELDS)
    if hit is not None:
        return hit
    start = time.perf_counter()
    k = 0 if isinstance(stage, (Permute, Prepend)) else len(stage.sizes)
    ctx, groups = _claims(build, n, k)
    claims = [c for _, cs in groups.items() for _, c in cs]
    record = {"name": name, "status": all_proved(ctx, claims), "solver": _solver(),
              "proved_at": _now(), "seconds": round(time.perf_counter() - start, 4)}
    cache.store(name, digest, record)
    return cache.lookup(name, digest) or dict(record, where="this process")


def mixed_radix(rank: int) -> dict:
    """The mixed-radix lemma at ``rank`` (:func:`prover.core.lemma.mixed_radix`:
    base case, induction step, unfolding of the spec's code), cached like a
    stage theorem."""
    name = f"mixed-radix rank {rank}"
    digest = cache.fingerprint(_code())
    hit = cache.lookup(name, digest, needs=_CITED_FIELDS)
    if hit is not None:
        return hit
    stale = [f for f in ("linear_index", "delinearise", "product")
             if getattr(_lemma, f) is not getattr(_index, f)]
    if stale:   # the lemma's code is not the code that runs: not about it
        return {"name": name, "status": f"unknown: the lemma's {stale[0]} is not "
                "spec.index's", "solver": _solver(), "proved_at": _now(),
                "seconds": 0.0, "where": "this process"}
    # the parts about the spec's code are proved again (prover.lemma's own
    # per-process memo knows nothing of changed code); the induction step is
    # about uninterpreted functions only
    start = time.perf_counter()
    parts = [_part("base case", _lemma.base_case.__wrapped__, digest),
             _part("induction step", _lemma.induction_step, digest)] + [
        _part(f"unfolding {k}", lambda k=k: _lemma.unfolding.__wrapped__(k), digest)
        for k in range(2, rank + 1)]
    bad = [p for p in parts if p["status"] != "proved"]
    record = {"name": name, "solver": _solver(), "proved_at": _now(),
              "status": f"{bad[0]['name']}: {bad[0]['status']}" if bad else "proved",
              "seconds": round(time.perf_counter() - start, 4)}
    cache.store(name, digest, record)
    return cache.lookup(name, digest) or dict(record, where="this process")


def _part(what: str, prove, digest) -> dict:
    """One part of the lemma, proved once per code fingerprint."""
    name = f"mixed-radix {what}"
    hit = cache.lookup(name, digest)
    if hit is None:
        lem = prove()
        record = {"name": lem.name, "status": lem.status, "seconds": round(lem.seconds, 4)}
        cache.store(name, digest, record)
        # a cache that cannot be written still answers with this process's proof
        hit = cache.lookup(name, digest) or dict(record, where="this process")
    return hit


def cited_lemma(rank: int) -> "_lemma.Lemma":
    """The lemma at ``rank`` as :mod:`prover.properties.proof` cites it."""
    r = mixed_radix(rank)
    return _lemma.Lemma(r["name"], r["status"], r["seconds"])


# --- citing them for a layout ------------------------------------------------

def provenance(theorems) -> str:
    """How the cited theorems were proved: solver, when, where kept."""
    solvers = sorted({th["solver"] for th in theorems})
    when = sorted(th["proved_at"] for th in theorems)
    where = sorted({th["where"] for th in theorems})
    span = when[0] if when[0] == when[-1] else f"between {when[0]} and {when[-1]}"
    return (f"the theorems above: proved (unsat of each claim's negation, each "
            f"claim's hypothesis satisfiable) by {', '.join(solvers)} {span}, "
            f"{sum(th['seconds'] for th in theorems):.2f} s in all; cited from "
            f"{' and '.join(where)}, keyed by the code they are about")


def applies(stages) -> bool:
    """Is the pipeline built only from the spec's stage classes, every split
    right after a pad by the same tiles?"""
    for i, s in enumerate(stages):
        if type(s) not in STAGE_CLASSES:
            return False
        # the hypotheses the theorems are proved under: tiles >= 1, counts >= 0
        sizes = getattr(s, "sizes", ()) + ((s.count + 1,) if type(s) is Prepend else ())
        if any(isinstance(t, bool) or not isinstance(t, int) or t < 1 for t in sizes):
            return False
        if type(s) is Split and not (i > 0 and type(stages[i - 1]) is Pad
                                     and tuple(stages[i - 1].sizes) == tuple(s.sizes)):
            return False
    return True


_CITED: dict = cache.memo()


def cite(shape, stages, prop: str) -> tuple | None:
    """The steps of a proof of ``prop`` by citation, or None when ``prop``
    for this pipeline is not an instance of the theorems (or one of them is
    not proved): then Z3 is asked the question itself.

    ``stages`` must have been checked (:func:`prover.properties.stages_check.checked_stages`).
    The citation is kept per (property, rank, stages, code fingerprint), so
    a batch pays once per distinct pipeline.
    """
    if prop not in _NEEDS or not applies(stages):
        return None
    steps: tuple[str, ...] = ()
    if shape.is_symbolic:
        if prop == "in_bounds":
            return None     # pad-reshape-transpose's dims are compared by Z3
    else:
        dims = tuple(shape.dims)
        if any(not isinstance(d, int) or d < 0 for d in dims):
            return None
        if prop == "in_bounds":
            last = tuple(dims_through(stages, dims)[-1])
            if tuple(prt_final_dims(shape, dims)) != last:
                return None
            steps = (f"the pipeline's tiled dims {last} are pad-reshape-transpose's "
                     "(evaluated), so P is the spec's padded size",)
    cited = stage_citation(shape.rank, stages, prop)
    if cited is None:
        return None
    return cited[:1] + steps + cited[1:]


def stage_citation(rank: int, stages, prop: str) -> tuple | None:
    """The steps citing, for every stage, what ``prop`` needs of it, and the
    mixed-radix lemma for the last box; None when a theorem is not proved.
    ``stages`` are checked, as :func:`cite` says, and :func:`applies`."""
    if prop not in _NEEDS or not applies(stages):
        return None
    key = (prop, rank, tuple(stages), cache.fingerprint(_code()))
    cited = _CITED.get(key)
    if cited is None:
        cited = _CITED[key] = _citation(rank, stages, prop)
    return cited


def _citation(rank: int, stages, prop: str) -> tuple | None:
    cited: dict[str, dict] = {}
    n = rank
    for i, s in enumerate(stages):
        if type(s) is Combine:
            needed = [mixed_radix(g) for g in s.groups]
        else:   # bijective needs of a pad only nonneg and into; it has more
            needed = [stage_theorem(s, n)]
        needed += [mixed_radix(_out_length(s, n))] if i == len(stages) - 1 else []
        for th in needed:
            if th["status"] != "proved":
                return None     # not an instance after all: Z3 is asked
            cited.setdefault(th["name"], th)
        n = _out_length(s, n)
    if not stages:
        th = mixed_radix(n)
        if th["status"] != "proved":
            return None
        cited[th["name"]] = th
    what = ", ".join(_NEEDS[prop])
    return (f"by citation, no solver call for this layout: every stage is one of "
            f"the spec's classes with checked parameters; per stage: {what}; "
            "the last box is linearised by the mixed-radix lemma",
            *(f"{th['name']}: {th['status']}" for th in cited.values()),
            provenance(cited.values()))


def _out_length(s, n: int) -> int:
    if type(s) is Prepend:
        return n + s.count
    if type(s) is Combine:
        return len(s.groups)
    if type(s) is Split:
        return n + len(s.sizes)
    return n


#: The modules a theorem is about (their definitions, and those of every
#: module they reach, are its fingerprint); set once, at import, so the
#: fingerprint of a module that reaches this one reads the same value in
#: every process.
_CODE = (_index, _arith, Z3Arithmetic, _lemma, solve, sys.modules[__name__])
