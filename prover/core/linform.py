"""Two offsets compared as row-major linearisations, one linear fact at a time.

Every offset the spec computes is ``lin(x, T)``: the stage pipeline's last
index ``x`` in the box of its last dims ``T``, linearised row-major
(:func:`spec.index.evaluate`).  A rule from elsewhere (XLA's loop, a
reshape's other side) is written the same way: a :class:`Form`.  To show two
forms give the same number for every element and every size of the named
dims, without handing Z3 one nonlinear formula:

1. *Group the dims.*  An entry of ``T`` that is not a constant (a name,
   ``ceil(n/128)``, ``m*n``) is an *anchor*; the constants between two
   anchors form a *run*.  The two sides must have as many anchors, pairwise
   equal (a fact, usually linear: ``ceil(n/128)`` written two ways), and runs
   with equal products (plain integers).
2. *Regroup.*  Horner's rule gives ``lin(x, T) = lin(G(x), Q)``, where ``G``
   linearises each run on its own (constant dims: a linear term) and keeps
   each anchor's entry, and ``Q`` is the anchors and run products.  This is
   a polynomial identity, proved by Z3 once per pattern of anchors and
   constants (:func:`horner`).
3. *Compare.*  Equal ``Q`` on both sides, so the padded sizes agree, and the
   offsets agree wherever ``G_a(x_a) = G_b(x_b)``: one linear fact per
   group.  Conversely, where a group differs and both indices lie in their
   boxes, the offsets differ (the mixed-radix lemma: ``lin`` is injective on
   a box), which is why a failing fact is worth replaying.

>>> import z3
>>> from tilespec.spec.text import parse_array_shape as shape
>>> from tilespec.prover.core.encode import Encoding
>>> from tilespec.prover.core.facts import Facts
>>> a, b = shape("f32[m,n]{1,0:T(8,128)}"), shape("f32[1,m,n]{2,1,0:T(8,128)}")
>>> ctx = z3.Context(); enc = Encoding(a, ctx)
>>> e = enc.fresh("e", 2)
>>> fa = spec_form(a, e, enc.dims, enc.ar)
>>> fb = spec_form(b, (0,) + e, (1,) + enc.dims, enc.ar)
>>> [_show(x) for x in fa.dims]
['(((m + 7)/8)*8 + 7)/8', '(((n + 127)/128)*128 + 127)/128', '8', '128']
>>> facts = Facts(ctx, enc.assumptions)
>>> add_same_offset(facts, fa, fb, enc.box(e, enc.dims), enc.ar)
True
>>> facts.check()[0]
'proved'
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import lru_cache

import z3

from ...spec import Shape, linear_index, product, shape_pipeline
from .encode import Z3Arithmetic, internal_symbol, readable
from .lemma import Lemma
from .solve import search

#: Time limit for one Horner identity (proved once per pattern, cached).
HORNER_TIMEOUT = 20.0


@dataclass(frozen=True)
class Form:
    """An offset as ``lin(vector, dims)``: terms, most major entry first."""

    vector: tuple
    dims: tuple

    def offset(self, ar):
        return linear_index(self.vector, self.dims, ar)

    def size(self, ar):
        return product(self.dims, ar)


def spec_form(shape: Shape, element, dims, ar, stages=None) -> Form:
    """The spec's offset of ``element`` as a :class:`Form`: the stage
    pipeline's last index and dims (what :func:`spec.index.evaluate`
    linearises)."""
    e, d = tuple(element), tuple(dims)
    for s in (shape_pipeline(shape) if stages is None else stages):
        e, d = s.forward(e, d, ar), s.dims(d, ar)
    return Form(tuple(e), tuple(d))


def constant(v):
    """``v`` as an int when it is a constant (an int or a Z3 numeral)."""
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, int):
        return v
    if isinstance(v, z3.ExprRef):
        s = z3.simplify(v)
        if z3.is_int_value(s):
            return s.as_long()
    return None


def same(a, b) -> bool:
    """Syntactically the same value (no solver)."""
    ca, cb = constant(a), constant(b)
    if ca is not None or cb is not None:
        return ca == cb
    return a.eq(b)


def _segments(dims):
    """[run, anchor, run, anchor, ..., run] as (start, stop) pairs."""
    runs, anchors, start = [], [], 0
    for i, v in enumerate(dims):
        if constant(v) is None:
            runs.append((start, i))
            anchors.append(i)
            start = i + 1
    runs.append((start, len(dims)))
    return runs, anchors


@dataclass(frozen=True)
class Grouping:
    """Matching groups of two dims vectors: (start, stop) on each side."""

    a: tuple
    b: tuple
    anchor: tuple      # True where the group is one anchor on each side


def group(da, db) -> Grouping | None:
    """Anchors paired in order, the runs between with equal products; None
    when the anchor counts or a run product differ.

    >>> g = group((5, 8, 128), (5, 1024))
    >>> g.a, g.b
    (((0, 3),), ((0, 2),))
    """
    runs_a, anchors_a = _segments(da)
    runs_b, anchors_b = _segments(db)
    if len(anchors_a) != len(anchors_b):
        return None
    ga, gb, anchor = [], [], []
    for k, (ra, rb) in enumerate(zip(runs_a, runs_b)):
        pa = product(constant(v) for v in da[ra[0]:ra[1]])
        pb = product(constant(v) for v in db[rb[0]:rb[1]])
        if pa != pb:
            return None
        if ra[0] != ra[1] or rb[0] != rb[1]:
            ga.append(ra)
            gb.append(rb)
            anchor.append(False)
        if k < len(anchors_a):
            ga.append((anchors_a[k], anchors_a[k] + 1))
            gb.append((anchors_b[k], anchors_b[k] + 1))
            anchor.append(True)
    return Grouping(tuple(ga), tuple(gb), tuple(anchor))


def regroup(form: Form, runs, ar) -> Form:
    """``G(x)`` and ``Q``: each run linearised on its own."""
    vector, dims = [], []
    for start, stop in runs:
        x, d = form.vector[start:stop], form.dims[start:stop]
        if stop - start == 1:       # an anchor: kept as it is
            vector.append(x[0])
            dims.append(d[0])
            continue
        vector.append(linear_index(x, d, ar))
        dims.append(product(d, ar))
    return Form(tuple(vector), tuple(dims))


def _pattern(dims) -> tuple:
    """Constants as themselves, anchors as None: what :func:`horner` needs."""
    return tuple(constant(v) for v in dims)


def horner_for(dims, runs) -> Lemma:
    return horner(_pattern(dims), tuple(tuple(r) for r in runs))


@lru_cache(maxsize=None)
def horner(pattern: tuple, runs: tuple) -> Lemma:
    """Prove ``lin(x, D) == lin(G(x), Q)`` for every ``x`` and every value of
    the anchors (``None`` in ``pattern``): a polynomial identity in free
    variables, so it holds whatever the anchors stand for.

    >>> horner((None, 8, 128), ((0, 1), (1, 3))).status
    'proved'
    """
    start = time.perf_counter()
    ctx = z3.Context()
    ar = Z3Arithmetic(ctx)
    x = tuple(z3.Int(internal_symbol(f"x{i}"), ctx) for i in range(len(pattern)))
    d = tuple(z3.Int(internal_symbol(f"D{i}"), ctx) if v is None else v
              for i, v in enumerate(pattern))
    lhs = linear_index(x, d, ar)
    rhs = regroup(Form(x, d), runs, ar).offset(ar)
    size_l, size_r = product(d, ar), regroup(Form(x, d), runs, ar).size(ar)
    claim = z3.And(ar.term(ar.eq(lhs, rhs)), ar.term(ar.eq(size_l, size_r)))
    answer, detail = search(z3.Not(claim), ctx, HORNER_TIMEOUT)
    status = {"unsat": "proved", "sat": "refuted"}.get(answer, f"unknown: {detail}")
    shown = ",".join("*" if v is None else str(v) for v in pattern)
    return Lemma(f"Horner regrouping of ({shown})", status, time.perf_counter() - start)


def add_same_offset(facts, a: Form, b: Form, box, ar, label: str = "") -> bool:
    """Add the facts that make ``a`` and ``b`` the same offset for every
    index in ``box`` (and the same size).  False if the dims do not group;
    then nothing is added and the caller must compare another way."""
    g = group(a.dims, b.dims)
    if g is None:
        return False
    facts.cite_lemma(horner_for(a.dims, g.a))
    facts.cite_lemma(horner_for(b.dims, g.b))
    facts.cite(len(a.dims))
    facts.cite(len(b.dims))
    ga, gb = regroup(a, g.a, ar), regroup(b, g.b, ar)
    for k, is_anchor in enumerate(g.anchor):
        qa, qb = ga.dims[k], gb.dims[k]
        if is_anchor and not same(qa, qb):
            facts.fact(f"{label}dims group {k}: {_show(qa)} = {_show(qb)}",
                       ar.term(qa) != ar.term(qb))
    for k in range(len(g.anchor)):
        xa, xb = ga.vector[k], gb.vector[k]
        if not same(xa, xb):
            facts.fact(f"{label}index group {k} agrees",
                       z3.And(box, ar.term(xa) != ar.term(xb)))
    return True


def _show(v) -> str:
    return readable(v) if constant(v) is None else str(constant(v))
