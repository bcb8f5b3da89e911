"""Theorems per tiling level: pad-reshape-transpose is the closed formula.

:mod:`prover.core.theorems` proves each stage of the closed formula a
bijection of boxes; this module proves, once per *structure* and for every
dim and tile size, that the second definition of a layout
(pad-reshape-transpose, :mod:`spec.prt`) agrees with the first
(:mod:`spec.index`) level by level, and that every ``*`` merge is a
row-major reshape.  Dims are symbolic (any D >= 0) and so are tile sizes
(any t >= 1); what stays concrete is the structure:

:func:`transpose_theorem` (per rank r)
    for every ``minor_to_major`` of rank r, pad-reshape-transpose's
    transpose to physical order and the pipeline's first stage
    (``pipeline(r, Layout(minor_to_major))[0]``) give the same dims, and the
    same index for every index in the box.
:func:`level_theorem` (per level: its number, the entries it receives, the
    tile's ``*`` pattern and the pipeline's stages of that level with their
    sizes replaced by the symbolic tile sizes)
    for dims D >= 0 and index x in box(D): the level's stages map x into
    the box of their last dims; those dims are :func:`spec.prt.prt_level`'s
    ``final`` dims; and, walking :func:`spec.prt.level_steps` one operation
    at a time, each pad or transpose gives the formula's index after the
    matching stages, and each reshape ``old -> new`` is matched by an index
    y of the formula in box(new) with ``linear_index(y, new) =
    linear_index(z, old)`` (so, by the mixed-radix lemma at len(new),
    ``reshape_index(z, old, new) = delinearise(linear_index(y, new), new) =
    y``).  Every dim of every step is >= 0 and every divisor is positive.
:func:`combine_theorem` (per Combine stage and the entries it receives)
    for D >= 0 and x in box(D): forward(x) lies in box(dims(D)) and
    ``linear_index(forward(x), dims(D)) = linear_index(x, D)``: with the
    mixed-radix lemma at len(dims(D)), the merge is the row-major reshape.
:func:`packing_theorem` (``L(n)`` or not)
    for every element width and padded size: the padded elements' bits fit
    in the byte size, and distinct offsets take disjoint bit ranges.

**Why they compose** (a proof for every layout they are cited for).
``prt_steps(shape, d)`` is, by its code, the transpose to physical order
(which reads only ``minor_to_major``) followed by ``level_steps(lv_k)`` for
k = 1, 2, ..., where ``lv_k = prt_level(current_k, tile_k)`` and
``current_k`` is ``lv_{k-1}.final`` (``prt_levels`` is a fold of
``prt_level``).  The pipeline is its first ``Permute`` followed by each
level's stages, and the formula's offset is ``linear_index`` of the last
index over the last dims (``evaluate``).  Induction on k: before level k
both paths have the same dims C_k >= 0 and the same index x_k in box(C_k)
(k = 1: the transpose theorem, and e in box(d)).  The level theorem at
D = C_k, t = tile_k's sizes, x = x_k gives the same dims after the level,
every one >= 0, and the same index, inside their box.  After the last level
both paths linearise the same index over the same dims with the same
function: same offset, and the same padded size (the product of the same
dims).  That is ``formula_equals_prt``; its dims part, with the stage
theorems' ``into``, is ``in_bounds`` for named dims, and with their
``injective`` and the packing theorem at n = P, ``packing``.
``combine_equals_reshape`` needs only the merge theorem of each ``Combine``
of the pipeline (a pipeline without one has nothing to show).  Each theorem is
cited only for a level whose stages are exactly the ones it was proved
for, sizes aside (compared field by field, :func:`level_key`), and whose
pad and split sizes are the tile's.

>>> from tilespec.spec import Permute
>>> transpose_theorem(2)["status"]
'proved'
"""

from __future__ import annotations

import sys
import time
from dataclasses import fields, replace
from datetime import datetime, timezone
from functools import partial
from itertools import permutations

from ...spec import (
    COMBINE,
    Combine,
    Layout,
    Pad,
    Permute,
    Prepend,
    Shape,
    Split,
    arith as _arith,
    bytes_of,
    dims_through,
    index as _index,
    level_steps,
    linear_index,
    pipeline,
    prt as _prt,
    prt_level,
    prt_steps,
    reshape_index,
    round_up,
    size as _size,
)
from . import cache, solve, theorems
from .encode import Z3Arithmetic, internal_ints

#: Which of the formula's stages each pad-reshape-transpose operation of a
#: level has done, by stage name (:mod:`spec.index`'s names).
PRT_TO_STAGE = {
    "transpose to physical order": ("minor_to_major",),
    "reshape: add unit dims": ("prepend unit dims",),
    "reshape: combine": ("prepend unit dims", "combine"),
    "pad": ("prepend unit dims", "combine", "pad"),
    "reshape: split": ("prepend unit dims", "combine", "pad", "split"),
    "transpose: tile dims minor": ("prepend unit dims", "combine", "pad", "split",
                                   "tile dims minor"),
}

#: The fields of a record its citation reads.
_CITED_FIELDS = ("solver", "proved_at")


def fingerprint() -> str:
    """The fingerprint of the live code the level theorems are about."""
    return cache.fingerprint(_CODE)


def _solver() -> str:
    import z3
    return f"z3 {z3.get_version_string()}"


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def _prove_once(name: str, claims_of) -> dict:
    """The record of ``name``, from the cache, or proved now by Z3 from
    ``claims_of()`` (a context and claims, or a reason they are not built)."""
    digest = cache.fingerprint(_CODE)
    hit = cache.lookup(name, digest, needs=_CITED_FIELDS)
    if hit is not None:
        return hit
    start = time.perf_counter()
    built = claims_of()
    status = built if isinstance(built, str) else theorems.all_proved(*built)
    record = {"name": name, "status": status, "solver": _solver(), "proved_at": _now(),
              "seconds": round(time.perf_counter() - start, 4)}
    cache.store(name, digest, record)
    return cache.lookup(name, digest) or dict(record, where="this process")


class _Claims:
    """Claims in one fresh context, each an implication from the theorem's
    hypotheses (dims >= 0, tile sizes >= 1) and its own."""

    def __init__(self, n: int, k: int):
        import z3
        self.z3 = z3
        self.ctx = z3.Context()
        self.ar = Z3Arithmetic(self.ctx)
        self.D = self.ints("D", n)
        self.T = self.ints("T", k)
        self.hyp = [d >= 0 for d in self.D] + [t >= 1 for t in self.T]
        self.claims: list = []

    def ints(self, prefix: str, m: int) -> tuple:
        return internal_ints(" ".join(f"{prefix}{i}" for i in range(m)), self.ctx) \
            if m else ()

    def term(self, v):
        return self.ar.term(v)

    def box(self, v, d) -> list:
        z3 = self.z3
        return [z3.And(0 <= self.term(x), self.term(x) < self.term(m)) for x, m in zip(v, d)]

    def same(self, a, b) -> list:
        return [self.term(x) == self.term(y) for x, y in zip(a, b)] + [
            self.z3.BoolVal(len(a) == len(b), self.ctx)]

    def imply(self, hyps, conclusions) -> None:
        z3 = self.z3
        h = z3.And(self.hyp + list(hyps) + [z3.BoolVal(True, self.ctx)])
        self.claims += [z3.Implies(h, c) for c in conclusions]

    def nonneg(self, dims) -> None:
        self.imply([], [self.term(d) >= 0 for d in dims])

    def positive_divisors(self) -> None:
        self.imply([], [self.term(b) >= 1 for b in dict.fromkeys(self.ar.divisors)])

    def done(self):
        return self.ctx, self.claims


# --- the transpose to physical order ------------------------------------------

#: Up to this rank one transpose theorem covers every ``minor_to_major`` (720
#: of them at rank 6); above it, each is a theorem of its own.
EVERY_ORDER_UP_TO = 6


def transpose_theorem(rank: int, minor_to_major: tuple[int, ...] | None = None) -> dict:
    """For every ``minor_to_major`` of ``rank`` (or, above
    :data:`EVERY_ORDER_UP_TO`, for the one given): pad-reshape-transpose's
    first operation is the pipeline's first stage (dims and map)."""
    if rank <= EVERY_ORDER_UP_TO or minor_to_major is None:
        which, orders = f"every minor_to_major of rank {rank}", None
    else:
        which, orders = f"minor_to_major {tuple(minor_to_major)}", [tuple(minor_to_major)]
    name = (f"for {which}: pad-reshape-transpose's transpose to physical order is "
            "the pipeline's first stage (same dims, same index on the box; every dim >= 0)")
    return _prove_once(name, lambda: _transpose_claims(rank, orders))


def _transpose_claims(rank: int, orders):
    c = _Claims(rank, 0)
    x = c.ints("x", rank)
    names = tuple(f"d{i}" for i in range(rank))
    for mtm in orders or permutations(range(rank)):
        layout = Layout(mtm)
        first = pipeline(rank, layout)[0]
        step_name, old, new, step = next(iter(prt_steps(Shape("f32", names, layout), c.D,
                                                        c.ar)))
        if step_name != "transpose to physical order" or type(first) is not Permute:
            return f"not an instance: the first operation is {step_name!r}"
        out = first.dims(c.D, c.ar)
        c.imply([], c.same(old, c.D) + c.same(new, out))
        c.imply(c.box(x, c.D), c.same(step(x), first.forward(x, c.D, c.ar))
                + c.box(first.forward(x, c.D, c.ar), out))
    return c.done()


# --- one tiling level ------------------------------------------------------------

def _symbolic(stage, sizes):
    """``stage`` with its tile sizes replaced by ``sizes`` (a stage without
    sizes as it is)."""
    return replace(stage, sizes=tuple(sizes)) if type(stage) in (Pad, Split) else stage


def level_key(stages, n: int, stars: tuple[bool, ...]) -> str:
    """The structure a level theorem is about: the tile's ``*`` pattern, the
    entries the level receives, and every field of every stage but the
    sizes (written ``t0, t1, ...``).

    >>> from tilespec.spec import pipeline, Layout, Tile
    >>> level_key(pipeline(2, Layout((1, 0), tiles=(Tile((8, 128)),)))[1:2], 2, (False, False))
    "tile (t0,t1) on 2 entries: Pad(sizes=('t0', 't1'), level=1, name='pad')"
    """
    sizes = [f"t{j}" for j in range(stars.count(False))]
    it = iter(sizes)
    tile = ",".join("*" if s else next(it) for s in stars)
    parts = []
    for s in stages:
        shown = _symbolic(s, sizes)
        parts.append(f"{type(s).__name__}(" + ", ".join(
            f"{f.name}={getattr(shown, f.name)!r}" for f in fields(shown)) + ")")
    return f"tile ({tile}) on {n} entries: " + ", ".join(parts)


def level_theorem(stages, n: int, stars: tuple[bool, ...]) -> dict:
    """The level theorem for a level whose ``stages`` (the pipeline's, of one
    level) receive ``n`` entries, tiled by a tile with ``*`` at ``stars``;
    the stages' sizes are replaced by symbolic ones."""
    name = (f"level {level_key(stages, n, stars)}: pad-reshape-transpose's "
            "operations are these stages for every dim >= 0 and tile size >= 1 "
            "(same dims, same index, into the box, dims >= 0)")
    return _prove_once(name, lambda: _level_claims(tuple(stages), n, stars))


def _level_claims(stages, n: int, stars):
    if any(type(s) not in (Permute, Prepend, Combine, Pad, Split) for s in stages):
        return "not an instance: a stage is not one of the spec's classes"
    k = stars.count(False)
    c = _Claims(n, k)
    it = iter(c.T)
    entries = tuple(COMBINE if s else next(it) for s in stars)
    mine = [_symbolic(s, c.T) for s in stages]
    through = dims_through(mine, c.D, c.ar)
    lv = prt_level(c.D, entries, c.ar)
    x = c.ints("x", n)
    inbox = c.box(x, c.D)
    steps = level_steps(lv, c.ar)
    c.imply([], c.same(steps[0][1], c.D) + c.same(lv.final, through[-1]))
    for d in through + [lv.entering, lv.merged, lv.padded, lv.split, lv.final]:
        c.nonneg(d)
    z = tuple(x)
    for step_name, old, new, step in steps:
        target, d = tuple(x), c.D
        for s in mine:
            if s.name in PRT_TO_STAGE[step_name]:
                target, d = s.forward(target, d, c.ar), s.dims(d, c.ar)
        if step_name.startswith("reshape"):
            # the code's reshape is delinearise after linear_index: the
            # mixed-radix lemma at len(new) turns these claims into equality
            if not (isinstance(step, partial) and step.func is reshape_index
                    and step.keywords.get("old") is old and step.keywords.get("new") is new):
                return f"not an instance: {step_name!r} is not reshape_index"
            c.imply(inbox, c.box(target, new) + [
                c.term(linear_index(target, new, c.ar)) == c.term(linear_index(z, old, c.ar))])
        else:
            c.imply(inbox, c.same(step(z), target))
        z = target
    end = tuple(x)
    for s, d in zip(mine, through):
        end = s.forward(end, d, c.ar)
    c.imply(inbox, c.same(z, end) + c.box(end, through[-1]))
    c.positive_divisors()
    return c.done()


# --- a '*' merge -------------------------------------------------------------------

def combine_theorem(stage: Combine, n: int) -> dict:
    """``stage`` (the spec's Combine, its groups as given) receiving ``n``
    entries keeps every index's linear index and maps its box into the next,
    for every dim >= 0."""
    name = (f"{stage!r} of {n} entries: maps its box into the next and keeps the "
            "linear index, for every dim >= 0")
    return _prove_once(name, lambda: _combine_claims(stage, n))


def _combine_claims(stage, n: int):
    if type(stage) is not Combine or sum(stage.groups) != n:
        return "not an instance: not the spec's Combine of these entries"
    c = _Claims(n, 0)
    x = c.ints("x", n)
    out = stage.dims(c.D, c.ar)
    y = stage.forward(x, c.D, c.ar)
    c.nonneg(out)
    c.imply(c.box(x, c.D), c.box(y, out) + [
        c.term(linear_index(y, out, c.ar)) == c.term(linear_index(x, c.D, c.ar))])
    return c.done()


# --- bits and bytes --------------------------------------------------------------

def packing_theorem(aligned: bool) -> dict:
    """For every element width B >= 1 bits and every padded size n >= 0,
    rounded up to ``L(A)`` with A = 1 (``aligned`` False) or any A >= 2
    (``aligned`` True: the branch :func:`spec.size.round_up` takes for every
    A but 1): ``n*B <= 8 * bytes_of(round_up(n, A), B)``, and distinct
    offsets o != o2 >= 0 have disjoint bit ranges [o*B, (o+1)*B)."""
    which = "any L(A) with A >= 2" if aligned else "no L(n) (A = 1)"
    name = (f"packing, {which}: for every element width B >= 1 and padded size n >= 0, "
            "n*B bits fit in 8 * bytes_of(round_up(n, A), B), and distinct offsets "
            "have disjoint bit ranges [o*B, (o+1)*B)")
    return _prove_once(name, lambda: _packing_claims(aligned))


def _packing_claims(aligned: bool):
    c = _Claims(0, 2)
    bits, align = c.T
    if not aligned:
        align = 1
    n, o, o2 = c.ints("n", 3)
    if aligned:
        c.hyp.append(align >= 2)
    c.imply([n >= 0], [c.term(c.ar.mul(n, bits)) <= c.term(c.ar.mul(
        8, bytes_of(round_up(n, align, c.ar), bits, c.ar)))])
    c.imply([o >= 0, o2 >= 0, o != o2], [c.z3.Not(c.z3.And(
        o * bits < (o2 + 1) * bits, o2 * bits < (o + 1) * bits))])
    c.positive_divisors()
    return c.done()


# --- citing them for a layout ------------------------------------------------

#: The properties :func:`cite_levels` answers (``in_bounds`` only for named dims:
#: :func:`prover.core.theorems.cite` answers it for concrete ones).
CITED_PROPERTIES = ("formula_equals_prt", "in_bounds", "combine_equals_reshape",
                    "packing")

_CITED: dict = cache.memo()


def cite_levels(shape, stages, prop: str) -> tuple | None:
    """The steps of a proof of ``prop`` by citing the theorems above (and
    the stage theorems and the mixed-radix lemma), or None when the layout
    is not an instance of them: then Z3 is asked the question itself.

    Only the shape's own pipeline is an instance (``stages`` equal to
    ``shape_pipeline(shape)``, stage for stage and class for class), with
    every dim a name or an int >= 0.  Kept per (property, layout, rank,
    code fingerprint).
    """
    if prop not in CITED_PROPERTIES or (prop == "in_bounds" and not shape.is_symbolic):
        return None
    if any(shape.dynamic) or any(
            not isinstance(d, str) and (isinstance(d, bool) or not isinstance(d, int) or d < 0)
            for d in shape.dims):
        return None
    stages = tuple(stages)
    if stages != pipeline(shape.rank, shape.layout):
        return None
    key = (prop, shape.layout, shape.rank, stages, cache.fingerprint(_CODE),
           theorems.fingerprint())
    cited = _CITED.get(key)
    if cited is None:
        cited = _CITED[key] = _citation(shape, stages, prop) or ()
    return cited or None


def _levels(shape, stages):
    """(level stages, entries they receive, the tile's '*' pattern) per level,
    or None when the pipeline is not grouped as the theorems need: the first
    stage alone at level 0, then each level's stages together, in order,
    their pad and split sizes the tile's."""
    if not stages or stages[0].level != 0 or any(s.level == 0 for s in stages[1:]):
        return None
    tiles = shape.layout.tiles
    out, n, i = [], shape.rank, 1
    for k, tile in enumerate(tiles, start=1):
        mine = []
        while i < len(stages) and stages[i].level == k:
            mine.append(stages[i])
            i += 1
        stars = tuple(t == COMBINE for t in tile.sizes)
        sizes = tuple(t for t in tile.sizes if t != COMBINE)
        if any(tuple(s.sizes) != sizes for s in mine if type(s) in (Pad, Split)):
            return None
        out.append((tuple(mine), n, stars))
        n = len(dims_through(mine, (1,) * n)[-1])
    return out if i == len(stages) else None


def _citation(shape, stages, prop: str) -> tuple | None:
    levels = _levels(shape, stages)
    if levels is None:
        return None
    cited: dict[str, dict] = {}
    needed: list[dict] = []
    base: tuple = ()    # the stage theorems' citation, header dropped
    if prop == "combine_equals_reshape":
        n = shape.rank
        for s in stages:
            if type(s) is Combine:
                needed += [combine_theorem(s, n), theorems.mixed_radix(len(s.groups))]
            n = len(dims_through((s,), (1,) * n)[-1])
        if not needed:
            return ("the shape combines no dims ('*'): nothing to show",)
        what = ("every '*' merge keeps the linear index and lands in its box, so by "
                "the mixed-radix lemma it is the row-major reshape of the dims it merges")
    else:
        needed.append(transpose_theorem(shape.rank, shape.layout.minor_to_major))
        for mine, n, stars in levels:
            needed.append(level_theorem(mine, n, stars))
            for length in _reshape_lengths(mine, n):
                needed.append(theorems.mixed_radix(length))
        if prop == "packing":
            bits = shape.element_bits
            align = shape.layout.tail_padding_alignment_in_elements
            if isinstance(bits, bool) or not isinstance(bits, int) or bits < 1 \
                    or isinstance(align, bool) or not isinstance(align, int) or align < 1:
                return None
            stage_steps = theorems.stage_citation(shape.rank, stages, "injective")
            if stage_steps is None:
                return None
            base = stage_steps[1:]
            needed.append(packing_theorem(align != 1))
            what = ("distinct elements have distinct offsets (the stage theorems cited "
                    "below), each below the spec's padded size P (every stage maps into "
                    "the next, and the last dims are pad-reshape-transpose's: the transpose "
                    "and level theorems), and distinct offsets below P take disjoint bit "
                    "ranges inside the spec's byte size (the packing theorem)")
        elif prop == "in_bounds":
            stage_steps = theorems.stage_citation(shape.rank, stages, "in_bounds")
            if stage_steps is None:
                return None
            base = stage_steps[1:]
            what = ("every stage maps its box into the next (the stage theorems cited "
                    "below), and the pipeline's last dims are pad-reshape-transpose's "
                    "level by level (the transpose and level theorems), so P is the "
                    "spec's padded size")
        else:
            what = ("both definitions have the same dims and the same index after the "
                    "transpose and after every level (the transpose and level theorems, "
                    "each reshape by the mixed-radix lemma), so they linearise the same "
                    "index over the same dims: the same offset and padded size")
    for th in needed:
        if th["status"] != "proved":
            return None     # not an instance after all: Z3 is asked
        cited.setdefault(th["name"], th)
    steps = (f"by citation, no solver call for this layout: {what}",
             *(f"{th['name']}: {th['status']}" for th in cited.values()),
             theorems.provenance(cited.values()))
    return steps + base


def _reshape_lengths(mine, n: int) -> list[int]:
    """The lengths of the vectors a level's reshapes produce (where the
    mixed-radix lemma is used): after the unit dims, the merge and the split."""
    d = dims_through(mine, (1,) * n)
    after = {s.name: len(d[i + 1]) for i, s in enumerate(mine)}
    first = len(d[0]) + sum(s.count for s in mine if type(s) is Prepend)
    return sorted({first, after.get("combine", first), after.get("split", first)})


#: The modules the theorems are about (their definitions, and those of every
#: module they reach, are their fingerprint).
_CODE = (_index, _prt, _size, _arith, Z3Arithmetic, solve, theorems,
         sys.modules[__name__])
