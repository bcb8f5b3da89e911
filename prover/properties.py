"""Properties of a layout, proved by Z3 for one shape or for all shapes.

A layout is the pipeline of coordinate maps in :mod:`spec.index` (permute,
prepend unit dims, combine, pad, split, move tile dims minor) followed by one
row-major linearisation.  Each property is proved *compositionally*: Z3
checks small facts about each stage on its own box of indices (linear
arithmetic: tile sizes are constants, so division is by constants) and the
linearisation facts come from the mixed-radix lemma (:mod:`prover.lemma`),
proved once per rank.  The facts chain: each stage maps its input box into
the next stage's input box, so a property of every stage is a property of
the whole layout.  Because no fact mentions the array's size except as a
bound, a proof for f32[65536,65536] costs what one for f32[3,5] costs, and
dims given as names are proved for every size at once.

What each property states (e ranges over the elements, P is the padded size
``spec.index.padded_elements``, offset/locate are ``spec.index``'s):

``in_bounds``
    0 <= offset(e) < P.
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
    offset (:mod:`prover.prt`) for every e, where each reshape is the
    row-major bitcast and the transpose moves tile dims minor: the two give
    the same memory image.
``combine_equals_reshape``
    every ``*`` combination equals a row-major reshape of the dims it merges.
``packing``
    with E(n) bits per element, distinct elements occupy disjoint bit ranges
    [n·offset, n·(offset+1)) inside the byte size.

When a fact fails, the prover searches the whole layout (with the failing
fact's dim values, for all-shapes questions) for a counterexample and replays
it on the concrete evaluator before reporting ``refuted``.  If none is found
the answer is ``unknown``, never ``proved``.
"""

from __future__ import annotations

import time
from typing import Callable

import numpy as np
import z3

from ..spec.index import (Combine, Pad, dims_through, evaluate, linear_index,
                        product, shape_pipeline, unevaluate)
from ..spec.arith import INT
from ..spec.layout import Shape
from ..spec.text import format_shape

from .encode import Encoding, SmtEncoding, scope
from .lemma import mixed_radix
from .prt import prt_steps
from .result import PROVED, REFUTED, UNKNOWN, ProverBug, Result
from .solve import DEFAULT_TIMEOUT, all_unsat, decide, lemma_gap, probe_values, search


class _Proof:
    """The facts one property needs, gathered then checked in one query.

    The facts are built once, as SMT-LIB text (fast to build, read by Z3 in
    one call, and the very text a second solver can be given).  Only if that
    query is not ``unsat`` is the same text parsed into Z3 terms, to name
    the facts that fail and read a model: the names in the model are the
    one naming scheme's (:mod:`prover.encode`).
    """

    def __init__(self, shape: Shape, stages, timeout: float, bounds):
        self.shape = shape
        self.ctx = z3.Context()
        self.enc = SmtEncoding(shape, bounds, self.ctx)
        self.ar = self.enc.ar
        self.stages = tuple(stages) if stages is not None else shape_pipeline(shape)
        self.through = dims_through(self.stages, self.enc.dims, self.ar)
        self.timeout = timeout
        self.facts: list[tuple[str, object]] = []   # (label, violation)
        self.lemmas: dict[int, object] = {}

    # -- gathering ---------------------------------------------------------
    def fact(self, label: str, violation) -> None:
        """Record a fact as the formula that holds exactly when it fails."""
        self.facts.append((label, self.enc.term(violation)))

    def cite(self, rank: int) -> None:
        self.lemmas[rank] = mixed_radix(rank)

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
    def lemma_gap(self):
        return lemma_gap(v for _, v in sorted(self.lemmas.items()))

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

    def check(self, avoid=()):
        """('proved', None) | ('failed', (labels, model)) | ('unknown', reason).

        ``avoid`` lists dim values (dicts) a failing model must differ from.
        """
        gap = self.lemma_gap()
        if gap:
            return "unknown", gap
        L = self.enc
        parts = list(L.assumptions) + [
            L.or_(*[L.distinct(L.names[n], v) for n, v in values.items()])
            for values in avoid]
        terms = L.to_z3(parts + [v for _, v in self.facts])
        facts = [(label, t) for (label, _), t in zip(self.facts, terms[len(parts):])]
        return decide(facts, terms[:len(parts)], self.ctx, self.timeout)

    def steps(self) -> tuple:
        lemmas = [f"{l.name}: {l.status}" for _, l in sorted(self.lemmas.items())]
        return tuple(lemmas) + tuple(label for label, _ in self.facts)


# --- global searches for counterexamples (concrete dims only) ---------------

def _ints(model, enc, terms):
    return [enc.value(model, t) for t in terms]


def _replay_offset(stages, shape, element):
    return evaluate(stages, tuple(element), tuple(shape.dims), INT)


def _witness(kind: str, shape: Shape, stages, timeout) -> dict | None | str:
    """A replayed counterexample dict, None if there is none, or a reason.

    A numpy scan looks first (small shapes); Z3's formula for the whole
    layout is built only when the scan finds nothing.
    """
    if kind == "bijective":
        return _stage_witness(shape, stages, timeout)
    dims = tuple(shape.dims)
    P = product(dims_through(stages, dims)[-1])
    if kind == "formula_equals_prt":
        from .prt import prt_final_dims
        P_prt = product(prt_final_dims(shape, dims))
        if P_prt != P:
            return {"dims": list(dims),
                    "padded_size": {"formula": P, "pad_reshape_transpose": P_prt}}
    found = _scan(kind, shape, stages, P)
    if found is None:
        found = _z3_witness(kind, shape, stages, P, timeout)
        if not isinstance(found, dict):
            return found
    return _replay(kind, shape, stages, found, P)


def _z3_witness(kind: str, shape: Shape, stages, P, timeout):
    """Z3's search of the whole layout at concrete dims: a candidate
    ``{"e", "f", "o"}``, None when there is none, or why it gave up."""
    ctx = z3.Context()
    enc = Encoding(shape, ctx)
    ar = enc.ar
    dims = tuple(shape.dims)

    def offset(x):
        return ar._term(evaluate(stages, x, dims, ar))
    e, f = enc.fresh("e", len(dims)), enc.fresh("f", len(dims))
    o = z3.Int("o", ctx)
    box_e = enc.box(e, dims)
    if kind == "in_bounds":
        formula = z3.And(box_e, z3.Not(z3.And(0 <= offset(e), offset(e) < P)))
    elif kind in ("injective", "packing"):
        formula = z3.And(box_e, enc.box(f, dims), z3.Not(enc.equal(e, f)),
                         offset(e) == offset(f))
        if kind == "packing":
            from ..spec.size import byte_size
            bits = shape.element_bits
            limit = 8 * byte_size(shape) if bits else 0
            # with the spec's sizes; a broken pipeline may reach beyond them
            formula = z3.Or(formula, z3.And(box_e, (offset(e) + 1) * bits > limit))
    elif kind == "inverse":
        back, valid = unevaluate(stages, o, dims, ar)
        bad_o = z3.And(0 <= o, o < P, ar._term(valid), offset(back) != o)
        off_e = offset(e)
        back_e, valid_e = unevaluate(stages, off_e, dims, ar)
        bad_e = z3.And(box_e, z3.Not(z3.And(0 <= off_e, off_e < P, enc.equal(back_e, e),
                                            ar._term(valid_e))))
        formula = z3.Or(bad_o, bad_e)
    elif kind == "formula_equals_prt":
        from .prt import prt_offset
        formula = z3.And(box_e, offset(e) != ar._term(prt_offset(shape, e, dims, ar)))
    elif kind == "combine_equals_reshape":
        from .prt import reshape_index
        parts = []
        x, d = tuple(e), dims
        for s in stages:
            if isinstance(s, Combine):
                merged = s.dims(d, INT)
                parts.append(z3.Not(enc.equal(s.forward(x, d, ar),
                                              reshape_index(x, d, merged, ar))))
            x, d = s.forward(x, d, ar), s.dims(d, INT)
        formula = z3.And(box_e, z3.Or(parts) if parts else False)
    else:
        raise ValueError(kind)
    answer, m = search(formula, ctx, timeout)
    if answer == "unknown":
        return m
    if answer == "unsat":
        return None
    return {"e": _ints(m, enc, e), "f": _ints(m, enc, f),
            "o": m.eval(o, model_completion=True).as_long()}


def _replay(kind, shape, stages, found, P) -> dict:
    """Check a witness on plain ints and describe it; ProverBug if it does
    not show the property failing."""
    dims = tuple(shape.dims)
    ce = {"dims": list(dims)}
    if kind == "inverse":
        ce.update(_replay_inverse(kind, shape, stages, found["e"], found.get("o", 0), P))
    elif kind in ("injective", "packing"):
        a, b = found["e"], found["f"]
        oa, ob = (_replay_offset(stages, shape, v) for v in (a, b))
        if a != b and oa == ob and all(0 <= x < n for v in (a, b)
                                       for x, n in zip(v, dims)):
            ce.update(elements=[a, b], offsets=[oa, ob])
        elif kind == "packing":
            from ..spec.size import byte_size
            bits = shape.element_bits
            if (oa + 1) * bits <= 8 * byte_size(shape):
                raise ProverBug(f"packing witness {a} replays inside the bytes")
            ce.update(element=a, offset=oa, bit_range=[oa * bits, (oa + 1) * bits],
                      byte_size=byte_size(shape))
        else:
            raise ProverBug(f"{kind} witness {a}, {b} does not replay: {oa}, {ob}")
    elif kind == "in_bounds":
        a = found["e"]
        oa = _replay_offset(stages, shape, a)
        if 0 <= oa < P:
            raise ProverBug(f"in_bounds witness {a} replays in bounds: {oa}")
        ce.update(element=a, offset=oa, padded_size=P)
    elif kind == "formula_equals_prt":
        from .prt import prt_offset
        a = found["e"]
        oa, ob = _replay_offset(stages, shape, a), prt_offset(shape, a)
        if oa == ob:
            raise ProverBug(f"formula/prt witness {a} replays equal: {oa}")
        ce.update(element=a, offsets={"formula": oa, "pad_reshape_transpose": ob})
    elif kind == "combine_equals_reshape":
        from .prt import reshape_index
        a = found["e"]
        x, d, found = tuple(a), dims, None
        for s in stages:
            if isinstance(s, Combine):
                merged = s.dims(d, INT)
                got, want = s.forward(x, d, INT), reshape_index(x, d, merged)
                if tuple(got) != tuple(want):
                    found = {"combined": list(got), "reshaped": list(want)}
                    break
            x, d = s.forward(x, d, INT), s.dims(d, INT)
        if found is None:
            raise ProverBug(f"combine witness {a} does not replay")
        ce.update(element=a, **found)
    return ce


#: Largest element (and offset) count scanned with numpy for a witness
#: before asking Z3; a scan only finds witnesses, it never proves.
SCAN_LIMIT = 1 << 16


def _scan(kind, shape: Shape, stages, P) -> dict | None:
    """A candidate witness found by evaluating every element (and every
    offset) with numpy, or None.  Candidates are replayed like Z3's."""
    dims = tuple(shape.dims)
    n = product(dims)
    if n == 0 or n > SCAN_LIMIT or P > SCAN_LIMIT or kind == "bijective":
        return None
    grid = np.indices(dims).reshape(len(dims), -1) if dims else np.zeros((0, 1), np.int64)
    cols = tuple(grid[i] for i in range(len(dims)))

    def full(v):
        return np.broadcast_to(np.asarray(v, dtype=np.int64), (n,))

    def element(i):
        return [int(c[i]) for c in cols]
    with np.errstate(all="ignore"):
        offs = full(evaluate(stages, cols, dims, INT))
        outside = np.flatnonzero((offs < 0) | (offs >= P))
        if kind == "in_bounds":
            return {"e": element(outside[0])} if outside.size else None
        if kind in ("injective", "packing"):
            order = np.argsort(offs, kind="stable")
            same = np.flatnonzero(offs[order][1:] == offs[order][:-1])
            if same.size:
                i, j = order[same[0]], order[same[0] + 1]
                return {"e": element(i), "f": element(j)}
            if kind == "packing" and shape.element_bits:
                from ..spec.size import byte_size
                over = np.flatnonzero((offs + 1) * shape.element_bits > 8 * byte_size(shape))
                if over.size:
                    return {"e": element(over[0]), "f": element(over[0])}
            return None
        if kind == "inverse":
            if outside.size:
                return {"e": element(outside[0])}
            back, ok = unevaluate(stages, offs, dims, INT)
            ok = np.broadcast_to(np.asarray(ok), (n,))
            wrong = ~ok
            for b, c in zip(back, cols):
                wrong |= full(b) != c
            if wrong.any():
                return {"e": element(np.flatnonzero(wrong)[0])}
            o = np.arange(P)
            back, ok = unevaluate(stages, o, dims, INT)
            back = tuple(np.broadcast_to(np.asarray(b), (P,)) for b in back)
            again = np.broadcast_to(np.asarray(evaluate(stages, back, dims, INT)), (P,))
            bad = np.flatnonzero(np.broadcast_to(np.asarray(ok), (P,)) & (again != o))
            return {"e": element(0), "o": int(bad[0])} if bad.size else None
        if kind == "formula_equals_prt":
            from .prt import prt_offset
            theirs = full(prt_offset(shape, cols, dims, INT))
            bad = np.flatnonzero(offs != theirs)
            return {"e": element(bad[0])} if bad.size else None
    return None


def _stage_witness(shape: Shape, stages, timeout):
    """A stage (not a pad) of the concrete pipeline that is not a bijection
    between its boxes, with the index that shows it, replayed on ints."""
    dims = dims_through(stages, tuple(shape.dims))
    for i, s in enumerate(stages):
        if type(s) is Pad:
            continue
        ctx = z3.Context()
        enc = Encoding(shape, ctx)
        ar = enc.ar
        d_in, d_out = dims[i], dims[i + 1]
        e = enc.fresh("e", len(d_in))
        g = enc.fresh("g", len(d_out))
        fe = s.forward(e, d_in, ar)
        be, _ = s.backward(fe, d_in, ar)
        bg, _ = s.backward(g, d_in, ar)
        bad_e = z3.And(enc.box(e, d_in), z3.Not(z3.And(enc.box(fe, d_out),
                                                       enc.equal(be, e))))
        bad_g = z3.And(enc.box(g, d_out), z3.Not(z3.And(
            enc.box(bg, d_in), enc.equal(s.forward(bg, d_in, ar), g))))
        answer, m = search(z3.Or(bad_e, bad_g), ctx, timeout)
        if answer == "unknown":
            return m
        if answer == "unsat":
            continue
        ev, gv = _ints(m, enc, e), _ints(m, enc, g)

        def inside(v, d):
            return all(0 <= x < n for x, n in zip(v, d))
        f_e = list(s.forward(tuple(ev), d_in, INT))
        b_e = list(s.backward(tuple(f_e), d_in, INT)[0])
        if inside(ev, d_in) and not (inside(f_e, d_out) and b_e == ev):
            return {"dims": list(shape.dims), "stage": i, "stage_name": s.name,
                    "box": list(d_in), "index": ev, "forward": f_e, "backward_of_forward": b_e}
        b_g = list(s.backward(tuple(gv), d_in, INT)[0])
        f_b = list(s.forward(tuple(b_g), d_in, INT))
        if inside(gv, d_out) and not (inside(b_g, d_in) and f_b == gv):
            return {"dims": list(shape.dims), "stage": i, "stage_name": s.name,
                    "box": list(d_out), "index": gv, "backward": b_g, "forward_of_backward": f_b}
        raise ProverBug(f"bijective witness at stage {i} does not replay")
    return None


def _replay_inverse(kind, shape, stages, elem, ov, P):
    dims = tuple(shape.dims)
    oe = evaluate(stages, tuple(elem), dims, INT)
    back, valid = unevaluate(stages, oe, dims, INT) if 0 <= oe < P else (None, False)
    if tuple(elem) != back or not valid:
        if all(0 <= x < n for x, n in zip(elem, dims)):
            return {"element": elem, "offset": oe,
                    "located": None if back is None else list(back),
                    "located_is_padding": not valid}
    back, valid = unevaluate(stages, ov, dims, INT)
    again = evaluate(stages, back, dims, INT)
    if again != ov and (valid or kind == "bijective"):
        return {"offset": ov, "located": list(back), "offset_of_located": again,
                "located_is_padding": not valid}
    raise ProverBug(f"{kind} witness (element {elem}, offset {ov}) does not replay")


# --- the properties -----------------------------------------------------------

def _in_bounds(p: _Proof):
    p.per_stage("into")


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
    o, o2, n = p.fresh("o", 3)
    L, ar = p.enc, p.ar
    if bits <= 0:
        p.fact("elements take a positive number of bits", True)
        return
    aligned = ar.mul(ar.ceildiv(n, align), align)
    p.fact("padded elements fit in the byte size",
           L.and_(L.le(0, n), L.not_(L.le(ar.mul(n, bits),
                                          ar.mul(8, ar.ceildiv(ar.mul(aligned, bits), 8))))))
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


def _formula_equals_prt(p: _Proof):
    # Walk the closed formula's stages and pad-reshape-transpose's steps side
    # by side: they agree on each step's box, and the dims agree after it.
    enc, ar = p.enc, p.ar
    steps = list(prt_steps(p.shape, enc.dims, ar))
    formula = list(zip(p.stages, p.through, p.through[1:]))
    level_of = {}
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
               enc.not_(enc.equal(prt[0][1], d_in)))
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
               enc.not_(enc.equal(prt[-1][2], d)))
        for i, s in enumerate(p.stages):
            if s.level == level and not p.is_lemma_stage(i):
                p.stage_into(i)
    p.cite(len(p.through[-1]))


_PRT_TO_STAGE = {
    "transpose to physical order": ("minor_to_major",),
    "reshape: add unit dims": ("prepend unit dims",),
    "reshape: combine": ("prepend unit dims", "combine"),
    "pad": ("prepend unit dims", "combine", "pad"),
    "reshape: split": ("prepend unit dims", "combine", "pad", "split"),
    "transpose: tile dims minor": ("prepend unit dims", "combine", "pad", "split",
                                   "tile dims minor"),
}


def _formula_after(p: _Proof, mine, x, d_in, prt_name):
    """The formula's index after the stages matching a prt step."""
    wanted = _PRT_TO_STAGE[prt_name]
    y, d = x, d_in
    for s, _, _ in mine:
        if s.name in wanted:
            y, d = s.forward(y, d, p.ar), s.dims(d, p.ar)
    return y


def _combine_equals_reshape(p: _Proof):
    found = False
    for i, s in enumerate(p.stages):
        if isinstance(s, Combine):
            found = True
            d_in, d_out = p.through[i], p.through[i + 1]
            x = p.fresh("x", len(d_in))
            if not p.is_lemma_stage(i):
                p.stage_into(i)
            _reshape_fact(p, f"stage {i}: combine is the row-major reshape",
                          x, d_in, s.forward(x, d_in, p.ar), d_out)
            for g in s.groups:
                p.cite(g)
    if not found:
        p.fact("the layout combines no dims ('*'): nothing to show", False)


PROPERTIES: dict[str, Callable[[_Proof], None]] = {
    "in_bounds": _in_bounds,
    "injective": _injective,
    "bijective": _bijective,
    "inverse": _inverse,
    "formula_equals_prt": _formula_equals_prt,
    "combine_equals_reshape": _combine_equals_reshape,
    "packing": _packing,
}


def prove(shape: Shape, prop: str, *, timeout: float = DEFAULT_TIMEOUT,
          bounds: dict | None = None, stages=None) -> Result:
    """Prove ``prop`` for ``shape`` (all sizes of its named dims).

    ``stages`` replaces the spec's pipeline, to check a variant (a compiler's
    formula, or a deliberately broken one).

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> prove(shape("f32[3,5]{1,0:T(2,2)}"), "injective").status
    'proved'
    >>> r = prove(shape("bf16[m,n]{1,0:T(8,128)(2,1)}"), "bijective")
    >>> r.status, r.scope
    ('proved', 'all shapes: m >= 1, n >= 1')
    """
    if prop not in PROPERTIES:
        from ..spec.errors import TilespecError
        raise TilespecError(f"unknown property {prop!r}; choose from "
                            + ", ".join(PROPERTIES))
    start = time.perf_counter()
    text = format_shape(shape)
    where = scope(shape, bounds)
    proof = _Proof(shape, stages, timeout, bounds)
    PROPERTIES[prop](proof)
    if proof.check_text() == "proved":
        return Result(text, prop, PROVED, time.perf_counter() - start, where,
                      steps=proof.steps())
    status, detail = proof.check()

    def done(status, **kw):
        return Result(text, prop, status, time.perf_counter() - start, where,
                      steps=proof.steps(), **kw)

    if status == "proved":
        return done(PROVED)
    if status == "unknown":
        return done(UNKNOWN, reason=detail)
    # A per-stage fact failed.  Search the whole layout for a counterexample:
    # at the failing model's dims, then (for all-shapes questions) at other
    # dims the facts fail for, then at a few small sizes.
    failed, model = detail
    tried, reasons = [], []
    for values in _candidate_dims(proof, model):
        concrete = shape.instantiate(values)
        witness = _witness(prop, concrete, proof.stages, timeout)
        if isinstance(witness, dict):
            if values:
                witness["dim_values"] = values
            witness["failed_facts"] = failed
            return done(REFUTED, counterexample=witness)
        if witness is None and not shape.is_symbolic:
            return Result(text, prop, PROVED, time.perf_counter() - start, where,
                          steps=(f"per-stage facts failed ({'; '.join(failed)}); "
                                 "proved on the whole layout instead",))
        tried.append(list(concrete.dims))
        reasons.append("none there" if witness is None else witness)
    return done(UNKNOWN, reason=f"a per-stage fact fails ({'; '.join(failed)}) "
                f"but no counterexample was found at dims {tried}: "
                f"{'; '.join(dict.fromkeys(map(str, reasons)))}")


_MAX_MODELS = 4


def _candidate_dims(proof: _Proof, model):
    values = proof.enc.dim_values(model)
    yield values
    if not proof.shape.is_symbolic:
        return
    seen = [values]
    for _ in range(_MAX_MODELS - 1):
        status, detail = proof.check(avoid=seen)
        if status != "failed":
            break
        values = proof.enc.dim_values(detail[1])
        seen.append(values)
        yield values
    for values in probe_values(proof.shape.names):
        if values not in seen:
            seen.append(values)
            yield values


def prove_all(shape: Shape, properties=None, **kw) -> list[Result]:
    return [prove(shape, name, **kw) for name in (properties or PROPERTIES)]
