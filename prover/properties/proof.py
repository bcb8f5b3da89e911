"""Properties of a layout, proved by Z3 for one shape or for all shapes.

A layout is the pipeline of coordinate maps in :mod:`spec.index` (permute,
prepend unit dims, combine, pad, split, move tile dims minor) followed by one
row-major linearisation.  Each property is proved *compositionally*: Z3
checks small facts about each stage on its own box of indices (linear
arithmetic: tile sizes are constants, so division is by constants) and the
linearisation facts come from the mixed-radix lemma (:mod:`prover.core.lemma`),
proved once per rank.  The facts chain: each stage maps its input box into
the next stage's input box, so a property of every stage is a property of
the whole layout.  Because no fact mentions the array's size except as a
bound, a proof for f32[65536,65536] costs what one for f32[3,5] costs, and
dims given as names are proved for every size at once.

What each property states (e ranges over the elements, P is the padded size
``spec.index.padded_elements``, offset/locate are ``spec.index``'s):

``in_bounds``
    0 <= offset(e) < P.  When other stages are judged, P is their own
    padded size and the offsets must also lie below the spec's (computed by
    pad-reshape-transpose from the shape alone).
``injective``
    e != f implies offset(e) != offset(f).
``bijective``
    The padded index space maps one-to-one onto [0, P), level by level: every
    stage but the pads is a bijection from its box onto the next box, shown
    with its explicit inverse (the stage's backward map: forward then
    backward and backward then forward are identities, both map into the
    boxes); a pad only enlarges the box, so each level's padded box maps
    one-to-one onto the next level's input box, and the last level's padded
    box onto [0, P) by the mixed-radix lemma.  (Padding added in front of a
    tile longer than the shape has no logical coordinates, which is why the
    statement is per level and not about logical indices.)
``inverse``
    locate(offset(e)) = e, and offset(locate(o)) = o for every offset o in
    [0, P) that is not padding.
``formula_equals_prt``
    the padded sizes agree and offset(e) equals pad-reshape-transpose's
    offset (:mod:`spec.prt`) for every e, where each reshape is the
    row-major bitcast and the transpose moves tile dims minor: the two give
    the same memory image.
``combine_equals_reshape``
    every ``*`` combination equals a row-major reshape of the dims it merges.
``packing``
    with E(n) bits per element, distinct elements occupy disjoint bit ranges
    [n·offset, n·(offset+1)) inside the byte size.

``packing`` is judged against the spec's byte size, computed from the shape
(spec/size.py; pad-reshape-transpose's dims for named dims), never from the
stages being judged.

Most questions never reach Z3: ``in_bounds``, ``injective``, ``bijective``
and ``inverse`` of a pipeline built from the spec's stage classes are
instances of stage theorems proved once for every dim and tile size
(:mod:`prover.core.theorems`); ``formula_equals_prt``,
``combine_equals_reshape``, ``packing`` and ``in_bounds`` for named dims of
a shape's own pipeline are instances of theorems per tiling level, also
for every dim and tile size (:mod:`prover.core.level_theorems`); and every
property of a shape whose dims are
>= 1 is an instance of its layout's all-shapes proof, made once per
signature (:mod:`prover.properties.instances`); both are cached under a fingerprint of
the code they are about (:mod:`prover.core.cache`), and the steps say which
theorems were cited, proved when and by which solver.

Before anything is proved, the bounds (:mod:`prover.core.bounds`) and the stages'
parameters (:mod:`prover.properties.stages_check`) are checked: bad ones are bad input.

A stage that is not exactly one of the spec's classes is never trusted on
solver terms: it only sees traced values (:mod:`prover.properties.traced`), so a Python
decision on a symbolic index (``if e[0] == e[1]``, ``sorted``) stops the
facts from being built, and the question is decided on ints instead.  Every
division by something other than a positive int is either Python's floor
division written exactly (a negative int) or comes with the fact that the
divisor is positive.

When a fact fails, or Z3 does not settle the facts (:mod:`prover.properties.beyond_facts`):
a concrete layout is decided as a whole (:mod:`prover.properties.witness`: by enumerating every index when
there are at most 2^20, :mod:`prover.properties.exhaustive`, else by Z3's search of the
whole layout); for named dims, a counterexample is searched at dim values
inside the bounds, then every size up to some K is enumerated
(:mod:`prover.properties.dim_search`).  Every counterexample is replayed on the
concrete evaluator before ``refuted`` is reported.  When nothing decides,
the answer is ``unknown`` with the reason and how far exhaustive checking
went, never ``proved``.
"""

from __future__ import annotations

import time
from typing import Any, Callable

import z3

from ...spec import (
    Combine,
    Pad,
    Shape,
    ShapeError,
    TilespecError,
    bytes_of,
    dims_through,
    format_shape,
    linear_index,
    parse_array_shape,
    prt_final_dims,
    prt_steps,
    round_up,
    shape_pipeline,
)
from ..core import (
    DEFAULT_TIMEOUT,
    PRT_TO_STAGE,
    Facts,
    SmtEncoding,
    all_unsat,
    cache,
    cite,
    cite_levels,
    cited_lemma,
    crosscheck,
    dim_ranges,
    readable,
    scope,
    smt,
)
from ..names import PROPERTY_NAMES
from ..result import PROVED, REFUTED, Result
from . import instances as _instances
from .beyond_facts import (
    QUICK_SECONDS,
    beyond_facts_all_shapes,
    beyond_facts_concrete,
)
from .exhaustive import EXHAUSTIVE_LIMIT, domain_size
from .instances import cite as instance_of
from .stages_check import checked_stages, combine_stages
from .traced import NotSymbolic, guarded


class _Proof(Facts):
    """The facts one property needs, gathered then checked in one query.

    The facts are built once, as SMT-LIB text (fast to build, read by Z3 in
    one call, and the very text a second solver can be given).  Only if that
    query is not ``unsat`` is the same text parsed into Z3 terms, to name
    the facts that fail and read a model: the names in the model are the
    one naming scheme's (:mod:`prover.core.encode`).
    """

    def __init__(self, shape: Shape, stages, timeout: float, bounds):
        super().__init__(z3.Context(), timeout=timeout)
        self.shape = shape
        self.enc = SmtEncoding(shape, bounds, self.ctx)
        self.ar = self.enc.ar
        # a stage the spec did not write only ever sees traced values
        # (prover/properties/traced.py): it cannot branch on a symbolic term unseen
        self.raw_stages = tuple(stages) if stages is not None else shape_pipeline(shape)
        self.stages = guarded(self.raw_stages)
        self.through = dims_through(self.stages, self.enc.dims, self.ar)

    # -- gathering ---------------------------------------------------------
    def fact(self, label: str, violation) -> None:
        """Record a fact as the formula that holds exactly when it fails
        (as SMT-LIB text until :meth:`formulas` reads it into Z3)."""
        self.facts.append((label, self.enc.term(violation)))

    def positive_divisors(self) -> None:
        """Every division by something other than a positive int divides
        by a positive value: only there do the solver's Euclidean div/mod
        mean Python's floor division (prover/core/encode.py)."""
        L = self.enc
        for b in dict.fromkeys(self.ar.divisors):
            self.fact(f"the divisor {readable(smt(b))} is positive", L.le(b, 0))

    def cite(self, rank: int) -> None:
        self.cite_lemma(cited_lemma(rank))   # proved once, cached; rank as the stages have it

    def fresh(self, prefix, n):
        return self.enc.fresh(prefix, n)

    def stage_into(self, i):
        s, d_in, d_out = self.stages[i], self.through[i], self.through[i + 1]
        L = self.enc
        e = self.fresh("e", len(d_in))
        self.fact(f"stage {i} ({s.name}) maps its box into the next",
                  L.and_(L.box(e, d_in), L.not_(L.box(s.forward(e, d_in, self.ar), d_out))))

    def stage_injective(self, i):
        s, d_in = self.stages[i], self.through[i]
        L = self.enc
        e, f = self.fresh("e", len(d_in)), self.fresh("f", len(d_in))
        self.fact(f"stage {i} ({s.name}) is injective",
                  L.and_(L.box(e, d_in), L.box(f, d_in),
                         L.equal(s.forward(e, d_in, self.ar), s.forward(f, d_in, self.ar)),
                         L.not_(L.equal(e, f))))

    def stage_left_inverse(self, i):
        s, d_in = self.stages[i], self.through[i]
        L = self.enc
        e = self.fresh("e", len(d_in))
        back, valid = s.backward(s.forward(e, d_in, self.ar), d_in, self.ar)
        self.fact(f"stage {i} ({s.name}): backward undoes forward",
                  L.and_(L.box(e, d_in), L.not_(L.and_(L.equal(back, e), valid))))

    def stage_right_inverse(self, i):
        s, d_in, d_out = self.stages[i], self.through[i], self.through[i + 1]
        L = self.enc
        g = self.fresh("g", len(d_out))
        back, valid = s.backward(g, d_in, self.ar)
        self.fact(f"stage {i} ({s.name}): forward undoes backward",
                  L.and_(L.box(g, d_out), valid, L.not_(L.and_(
                      L.box(back, d_in), L.equal(s.forward(back, d_in, self.ar), g)))))

    def is_lemma_stage(self, i) -> bool:
        # Only the spec's own Combine is a row-major linearisation by
        # construction; any other class (a mutant, say) is checked directly.
        return type(self.stages[i]) is Combine

    def per_stage(self, *kinds, skip_pad=False):
        for i, s in enumerate(self.stages):
            if skip_pad and type(s) is Pad:
                continue
            if self.is_lemma_stage(i):
                for g in s.groups:
                    self.cite(g)
                continue
            for kind in kinds:
                getattr(self, f"stage_{kind}")(i)
        self.cite(len(self.through[-1]))

    # -- checking ----------------------------------------------------------
    def check_text(self):
        """'proved', or None when the fast query does not settle it."""
        gap = self.lemma_gap()
        if gap:
            return None
        if not self.facts:
            return "proved"
        L = self.enc
        assumptions = "".join(f"(assert {a})" for a in L.assumptions)
        facts = [L.term(v) for _, v in self.facts]
        ok = all_unsat(assumptions, L.declarations(), facts, self.ctx, self.timeout)
        return "proved" if ok else None

    def formulas(self, avoid, names=None):
        """The text facts and assumptions, read into Z3 in one parse."""
        L = self.enc
        parts = list(L.assumptions) + [
            L.or_(*[L.distinct(L.names[n], v) for n, v in values.items()])
            for values in avoid]
        terms = L.to_z3(parts + [v for _, v in self.facts])
        facts = [(label, t) for (label, _), t in zip(self.facts, terms[len(parts):])]
        return facts, terms[:len(parts)]


# --- the properties -----------------------------------------------------------

def _in_bounds(p: _Proof):
    p.per_stage("into")
    _spec_size(p)


def _spec_size(p: _Proof):
    """The pipeline's last dims are pad-reshape-transpose's (spec/physical.py,
    which never runs the stages judged here), so the last box, which holds
    every offset, has the spec's padded size: a pipeline that pads more
    than the spec is not measured against its own, larger, size."""
    prt = prt_final_dims(p.shape, p.enc.dims, p.ar)
    p.fact("the pipeline's tiled dims are the spec's (pad-reshape-transpose), "
           "so its offsets lie below the spec's padded size",
           _differ(p.enc, p.through[-1], prt))


def _injective(p: _Proof):
    p.per_stage("into", "injective")


def _bijective(p: _Proof):
    p.per_stage("into", "left_inverse", "right_inverse", skip_pad=True)


def _inverse(p: _Proof):
    p.per_stage("into", "left_inverse", "right_inverse")


def _packing(p: _Proof):
    p.per_stage("into", "injective")
    bits = p.shape.element_bits
    align = p.shape.layout.tail_padding_alignment_in_elements
    L, ar = p.enc, p.ar
    if bits <= 0:
        p.fact("elements take a positive number of bits", True)
        return
    # the byte size is the spec's (spec/size.py), from the shape alone
    _spec_size(p)
    o, o2, n = p.fresh("o", 3)
    p.fact("padded elements fit in the byte size",
           L.and_(L.le(0, n), L.not_(L.le(ar.mul(n, bits), ar.mul(
               8, bytes_of(round_up(n, align, ar), bits, ar))))))
    p.fact("distinct offsets have disjoint bit ranges",
           L.and_(L.le(0, o), L.le(0, o2), L.distinct(o, o2),
                  ar.lt(ar.mul(o, bits), ar.mul(ar.add(o2, 1), bits)),
                  ar.lt(ar.mul(o2, bits), ar.mul(ar.add(o, 1), bits))))


def _reshape_fact(p: _Proof, label, x, old, y, new):
    """reshape(x: old -> new) == y, from lin(y, new) == lin(x, old), y in
    box(new), and the mixed-radix lemma (delin . lin = id on a box)."""
    p.cite(len(new))
    L = p.enc
    p.fact(label, L.and_(L.box(x, old), L.not_(L.and_(
        L.box(y, new), p.ar.eq(linear_index(y, new, p.ar), linear_index(x, old, p.ar))))))


def _canonical(p: _Proof) -> bool:
    """Do the stages come in the spec's order, level by level, each named
    for a step of pad-reshape-transpose?  Only then does walking the two
    paths side by side compare every stage; otherwise a stage the walk does
    not know would be skipped, and the proof would say nothing about it."""
    last = (0, -1)
    for s in p.stages:
        order = _LEVEL_ORDER if s.level else ("minor_to_major",)
        if s.level > len(p.shape.layout.tiles) or s.name not in order:
            return False
        here = (s.level, order.index(s.name))
        if here <= last:
            return False
        last = here
    return True


_LEVEL_ORDER = ("prepend unit dims", "combine", "pad", "split", "tile dims minor")


def _formula_equals_prt(p: _Proof):
    # Walk the closed formula's stages and pad-reshape-transpose's steps side
    # by side: they agree on each step's box, and the dims agree after it.
    if not _canonical(p):
        p.fact("the stages follow the spec's order, one known step at a time "
               "(otherwise the whole layout is compared)", True)
        return
    enc, ar = p.enc, p.ar
    steps = list(prt_steps(p.shape, enc.dims, ar))
    formula = list(zip(p.stages, p.through, p.through[1:]))
    level_of: dict = {}
    for s, d_in, d_out in formula:
        level_of.setdefault(s.level, []).append((s, d_in, d_out))
    per_level = [steps[0:1]] + [steps[1 + 5 * k: 6 + 5 * k]
                                for k in range(len(p.shape.layout.tiles))]
    for level, prt in enumerate(per_level):
        mine = level_of.get(level, [])
        d_in = mine[0][1] if mine else prt[0][1]
        x = p.fresh("x", len(d_in))
        d = d_in
        for s, _, _ in mine:
            d = s.dims(d, ar)
        p.fact(f"level {level}: both paths start from the same dims",
               _differ(enc, prt[0][1], d_in))
        z = x
        for name, old, new, step in prt:
            if name.startswith("reshape"):
                # the formula's value after the same operation
                target = _formula_after(p, mine, x, d_in, name)
                _reshape_fact(p, f"level {level}: {name} is the formula's map",
                              z, old, target, new)
                z = target
            else:
                target = _formula_after(p, mine, x, d_in, name)
                p.fact(f"level {level}: {name} is the formula's map",
                       enc.and_(enc.box(z, old), enc.not_(enc.equal(step(z), target))))
                z = target
        p.fact(f"level {level}: both paths end with the same dims",
               _differ(enc, prt[-1][2], d))
        for i, s in enumerate(p.stages):
            if s.level == level and not p.is_lemma_stage(i):
                p.stage_into(i)
    p.cite(len(p.through[-1]))


def _differ(enc, a, b):
    # vectors of different lengths differ: equal() alone would zip them short
    return enc.not_(enc.equal(a, b)) if len(a) == len(b) else True




def _formula_after(p: _Proof, mine, x, d_in, prt_name):
    """The formula's index after the stages matching a prt step."""
    wanted = PRT_TO_STAGE[prt_name]
    y, d = x, d_in
    for s, _, _ in mine:
        if s.name in wanted:
            y, d = s.forward(y, d, p.ar), s.dims(d, p.ar)
    return y


def _combine_equals_reshape(p: _Proof):
    # which stages merge, and where the shape says they must: from the shape
    found, missing = combine_stages(p.shape, p.raw_stages)
    for level in missing:
        p.fact(f"the shape combines dims ('*') at level {level}, but no stage there "
               "is a combine: the merge is not found", True)
    for i in found:
        s = p.stages[i]
        d_in, d_out = p.through[i], p.through[i + 1]
        x = p.fresh("x", len(d_in))
        if p.is_lemma_stage(i):
            for g in s.groups:
                p.cite(g)
        else:
            p.stage_into(i)
        _reshape_fact(p, f"stage {i}: combine is the row-major reshape",
                      x, d_in, s.forward(x, d_in, p.ar), d_out)
    if not found and not missing:
        p.fact("the shape combines no dims ('*'): nothing to show", False)


#: Each property's facts, under its name (the names are defined once, in
#: :mod:`prover.names`, which the command line reads without loading Z3).
PROPERTIES: dict[str, Callable[[_Proof], None]] = dict(zip(PROPERTY_NAMES, (
    _in_bounds, _injective, _bijective, _inverse, _formula_equals_prt,
    _combine_equals_reshape, _packing), strict=True))


#: Results proved by citation, by (shape, property): the same question again
#: is a lookup, while the code the citations are about is unchanged (its
#: fingerprint is compared on every call) and no cross-check is running.
_CITED_RESULTS: dict = cache.memo()


def _fingerprints() -> str:
    """The fingerprint of every module a citation rests on: the all-shapes
    proofs' code holds the theorems' code (a test checks it), so one
    fingerprint covers both kinds of citation."""
    return _instances.fingerprint()


def prove(shape: Shape, prop: str, *, timeout: float = DEFAULT_TIMEOUT,
          bounds=None, stages=None) -> Result:
    """Prove ``prop`` for ``shape`` (all sizes of its named dims).

    ``bounds`` limits named dims (``{"n": 4096}`` or ``{"n": (lo, hi)}``;
    see :mod:`prover.core.bounds`).  ``stages`` replaces the spec's pipeline, to
    check a variant (a compiler's formula, or a deliberately broken one);
    its parameters are checked first (:mod:`prover.properties.stages_check`).

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> prove(shape("f32[3,5]{1,0:T(2,2)}"), "injective").status
    'proved'
    >>> r = prove(shape("bf16[m,n]{1,0:T(8,128)(2,1)}"), "bijective")
    >>> r.status, r.scope
    ('proved', 'all shapes: m >= 1, n >= 1')
    """
    start = time.perf_counter()
    if bounds is None and stages is None and type(shape) is Shape \
            and not isinstance(timeout, bool) and isinstance(timeout, (int, float)) \
            and timeout > 0:
        warm = _CITED_RESULTS.get((shape, prop))
        if warm is not None and warm[0] == _fingerprints() and crosscheck.active() is None:
            return Result(warm[1], prop, PROVED, time.perf_counter() - start, warm[2],
                          steps=warm[3], shapes=(shape,))
    if prop not in PROPERTIES:
        raise TilespecError(f"unknown property {prop!r}; choose from "
                            + ", ".join(PROPERTIES))
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) \
            or not timeout > 0:
        raise TilespecError(f"timeout {timeout!r} is not a positive number of seconds")
    if isinstance(shape, str):
        shape = parse_array_shape(shape)
    if not isinstance(shape, Shape):
        raise ShapeError(f"{shape!r} is not an array shape")
    for i, d in enumerate(shape.dims):
        if d is None:
            raise ShapeError(f"dim {i} of {format_shape(shape)} is unbounded ('?'): "
                             "give it a bound (<=N) or a name (all sizes)")
    ranges = dim_ranges(shape, bounds)      # bad bounds are bad input
    own_pipeline = stages is None
    stages = checked_stages(shape, stages)  # so is a malformed stage
    text = format_shape(shape)
    where = scope(shape, bounds)
    # an instance of the generic theorems, or of the layout's all-shapes proof?
    # (not under --cross-check, which re-checks every answer given now)
    cited = None
    if crosscheck.active() is None:
        cited = cite(shape, stages, prop)
        if cited is None and own_pipeline:
            cited = cite_levels(shape, stages, prop)
        if cited is None and own_pipeline:
            cited = instance_of(shape, prop, timeout, prove)
    if cited is not None:
        if own_pipeline and bounds is None:
            _CITED_RESULTS[(shape, prop)] = (_fingerprints(), text, where, cited)
        return Result(text, prop, PROVED, time.perf_counter() - start, where,
                      steps=cited, shapes=(shape,))
    facts_timeout = timeout
    if not shape.is_symbolic and \
            domain_size(prop, tuple(shape.dims), stages) <= EXHAUSTIVE_LIMIT:
        # small enough to decide by enumeration: Z3 gets a short try first
        facts_timeout = min(timeout, QUICK_SECONDS)
    proof: _Proof | None
    detail: Any
    try:
        built = _Proof(shape, stages, facts_timeout, bounds)
        PROPERTIES[prop](built)
        built.positive_divisors()
    except NotSymbolic as err:
        # a custom stage that cannot be read symbolically: no facts at all
        proof, status, detail = None, "unknown", f"not built: {err}"
    else:
        proof = built
        if built.check_text() == "proved":
            return Result(text, prop, PROVED, time.perf_counter() - start, where,
                          steps=built.steps(), shapes=(shape,))
        status, detail = built.check()

    def done(status, steps=None, **kw):
        if steps is None:
            steps = proof.steps() if proof is not None else ()
        return Result(text, prop, status, time.perf_counter() - start, where,
                      steps=steps, **kw, shapes=(shape,))

    if status == "proved":
        return done(PROVED)
    failed, model = detail if status == "failed" else ([], None)
    why = (f"a per-stage fact fails ({'; '.join(failed)})" if status == "failed"
           else f"the per-stage facts are not settled ({detail})")
    if shape.is_symbolic:
        status, kw = beyond_facts_all_shapes(prop, shape, proof, stages, ranges, model,
                                             timeout, why)
    else:
        status, kw = beyond_facts_concrete(prop, shape, stages, timeout, why)
    if status == REFUTED:
        kw["counterexample"] = kw["counterexample"].with_details(failed_facts=failed)
    return done(status, **kw)


def prove_all(shape: Shape, properties=None, **kw) -> list[Result]:
    return [prove(shape, name, **kw) for name in (properties or PROPERTIES)]
