"""XLA's own layout rules, as its open-source code states them, against the spec.

Each rule is written once over an :class:`~spec.arith.Arithmetic` (so it runs
on ints, numpy arrays and Z3 terms) after the behaviour XLA's source shows
(``/tmp/xla_facts.md`` restates it; no code is copied), and compared with the
spec for one shape (or pair), concrete or with named dims:

``array_size``  -- ``ShapeUtil::ArraySize`` (openxla/xla shape_util.cc).
    Elements from the *first* tile only (later tiles are assumed to add no
    padding), ``L(n)`` applied only when the layout is tiled, a ``*`` entry
    replaced by the second tile's matching entry or ``max(1, 32/bits)``.
    Spec: :func:`spec.size.aligned_elements` (bytes follow from elements
    with the same rule on both sides).
``linear_index`` -- ``LayoutUtil::LinearIndex`` (xla/layout_util.cc).
    Rank 0: 0; rank 1: the index unchanged; otherwise the first tile only.
    Spec: :func:`spec.index.offset`.
``reshape_is_bitcast`` -- ``ShapeUtil::ReshapeIsBitcast``.  Unit indices
    in both directions compared by ``minor_to_major`` strides only: tiles,
    ``L`` and ``E`` ignored.  Spec: :func:`prover.bitcast.decide`.
``transpose_is_bitcast`` -- ``ShapeUtil::TransposeIsBitcast``.  The
    permutation composed with the output's ``minor_to_major`` must be the
    input's; tiles ignored.  Spec: :func:`prover.bitcast.decide`.

A check returns a :class:`~prover.result.Result`: ``proved`` (the rule gives
the spec's answer for this shape, or for every size of its named dims),
``refuted`` (a counterexample computed by both the rule and the spec on
concrete ints), or ``unknown``.  Offsets and sizes are proved the way
:mod:`prover.linform` compares two row-major linearisations: XLA's loop is
first shown (as a polynomial identity over free atoms, :func:`loop_identity`)
to be ``lin(V, W)`` for an explicit vector and dims, then ``(V, W)`` is
matched with the spec's pipeline.

Each rule lists the *conditions* under which it agrees with the spec: layout
conditions (checked on the text) and size conditions (a Z3 formula over the
dims; ``assume_conditions=True`` proves agreement wherever they hold).
:func:`prove_conditions` proves that theorem layout by layout over a family
(ranks 0-3, two dim orders, ten tilings, with and without ``L``), each for
every size of its named dims; the bitcast rules' conditions are checked pair
by pair (and, for untiled layouts, exhaustively on small shapes in the tests).

>>> from tilespec.spec.text import parse_array_shape as shape
>>> check("linear_index", [shape("f32[m,n]{1,0:T(8,128)}")]).status
'proved'
>>> r = check("linear_index", [shape("bf16[16,256]{1,0:T(8,128)(2,1)}")])
>>> r.status, r.counterexample["xla"] != r.counterexample["spec"]
('refuted', True)
>>> check("array_size", [shape("bf16[m,n]{1,0:T(8,128)(2,1)}")]).status
'proved'
>>> check("array_size", [shape("f32[3]{0:L(4)}")]).counterexample["spec"]["elements"]
4
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable

import numpy as np
import z3

from ..spec.arith import INT, Arithmetic
from ..spec.errors import TilespecError
from ..spec.index import (Pad, Split, concrete_dims, dims_through, linear_index,
                        offset, offsets, product, shape_pipeline)
from ..spec.layout import COMBINE, Shape
from ..spec.size import aligned_elements, byte_size
from ..spec.text import format_shape

from . import bitcast
from .encode import Z3Arithmetic, scope, user_symbol
from .facts import Facts
from .lemma import Lemma
from .linform import Form, add_same_offset, group, spec_form
from .result import PROVED, REFUTED, UNKNOWN, ProverBug, Result
from .solve import DEFAULT_TIMEOUT, probe_values, search


class RuleNotApplicable(TilespecError):
    """XLA's code does not handle this layout (it would compute garbage or
    CHECK-fail), so there is nothing to compare."""


# --- the rules on any arithmetic ------------------------------------------------

def _physical(shape: Shape, dims):
    """P(i) = dims[minor_to_major[i]]: i = 0 is the most minor."""
    return [dims[d] for d in shape.layout.minor_to_major]


def _no_split_configs(shape: Shape):
    if shape.layout.split_configs:
        raise RuleNotApplicable("split configs (SC) are not modelled by these rules")


def combine_replacement(shape: Shape, i: int) -> int:
    """What ArraySize pads a '*' entry at minor position i to: the second
    tile's entry at the same place from the minor end, else max(1, 32/bits)."""
    tiles = shape.layout.tiles
    if len(tiles) > 1 and i < len(tiles[1]):
        v = tiles[1].sizes[len(tiles[1]) - 1 - i]
        if v != COMBINE:
            return v
    return max(1, 32 // shape.element_bits)


def xla_array_size(shape: Shape, dims=None, ar: Arithmetic = INT):
    """ShapeUtil::ArraySize, in elements: first tile only, L only if tiled.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> xla_array_size(shape("bf16[3,5]{1,0:T(8,128)(2,1)}")), xla_array_size(shape("f32[3]{0:L(4)}"))
    (1024, 3)
    """
    _no_split_configs(shape)
    dims = concrete_dims(shape) if dims is None else tuple(dims)
    tiles = shape.layout.tiles
    P = _physical(shape, dims)
    if not tiles:
        return product(P, ar)
    t = tiles[0].sizes
    k, r = len(t), len(P)
    n = 1
    for i in range(k):
        ti = t[k - 1 - i]
        if ti == COMBINE:
            ti = combine_replacement(shape, i)
        n = ar.mul(n, ar.mul(ar.ceildiv(P[i] if i < r else 1, ti), ti))
    for i in range(k, r):
        n = ar.mul(n, P[i])
    L = shape.layout.tail_padding_alignment_in_elements
    return n if L == 1 else ar.mul(ar.ceildiv(n, L), L)


def xla_array_bytes(shape: Shape) -> int:
    """ArraySize in bytes: ceil(N*E/8) with E(n), else N times the byte width."""
    n = xla_array_size(shape)
    if shape.layout.element_size_in_bits:
        return -(-n * shape.layout.element_size_in_bits // 8)
    return n * (shape.element_bits // 8)


def xla_size_form(shape: Shape, dims, ar) -> tuple[tuple, bool]:
    """ArraySize's factors before L, most major first, and whether L applies:
    untiled major dims, then each tiled dim's tile count, then the tile."""
    tiles = shape.layout.tiles
    P = _physical(shape, dims)
    if not tiles:
        return tuple(reversed(P)), False
    t = tiles[0].sizes
    k, r = len(t), len(P)
    major = [P[i] for i in range(r - 1, k - 1, -1)]
    counts, sizes = [], []
    for i in range(k - 1, -1, -1):
        ti = t[k - 1 - i]
        if ti == COMBINE:
            ti = combine_replacement(shape, i)
        counts.append(ar.ceildiv(P[i] if i < r else 1, ti))
        sizes.append(ti)
    return tuple(major + counts + sizes), True


def _first_tile(shape: Shape) -> tuple:
    tiles = shape.layout.tiles
    t = tiles[0].sizes if tiles else ()
    if COMBINE in t:
        raise RuleNotApplicable(
            "XLA's LayoutUtil::LinearIndex does not handle '*' (kCombineDimension) "
            "in the first tile")
    return t


def xla_linear_index(shape: Shape, index, dims=None, ar: Arithmetic = INT):
    """LayoutUtil::LinearIndex: the first tile only; rank 1 unchanged.

    Works on numpy arrays of indices too (``index`` a tuple of columns).

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> s = shape("bf16[16,256]{1,0:T(8,128)(2,1)}")
    >>> xla_linear_index(s, (0, 1)), offset(s, (0, 1))
    (1, 2)
    """
    _no_split_configs(shape)
    dims = concrete_dims(shape) if dims is None else tuple(dims)
    r = len(dims)
    if r == 0:
        return 0
    if r == 1:
        return index[0]
    t = _first_tile(shape)
    k = len(t)
    tm, wm, li = product(t, ar), 1, 0
    for m, d in enumerate(shape.layout.minor_to_major):
        D, e = dims[d], index[d]
        if m < k:
            s = t[k - 1 - m]
            li = ar.add(li, ar.add(ar.mul(tm, ar.floordiv(e, s)), ar.mul(wm, ar.mod(e, s))))
            tm = ar.mul(tm, ar.ceildiv(D, s))
            wm = ar.mul(wm, s)
        else:
            li = ar.add(li, ar.mul(e, tm))
            tm = ar.mul(tm, D)
    return li


def xla_linear_index_form(shape: Shape, index, dims, ar) -> Form:
    """LinearIndex as ``lin(V, W)``: untiled major indices, then the tile
    counts' indices, then zeros for tile entries beyond the rank, then the
    within-tile indices -- the radices the loop multiplies by."""
    r = len(dims)
    if r == 0:
        return Form((), ())
    if r == 1:
        return Form((index[0],), (dims[0],))
    t = _first_tile(shape)
    k = len(t)
    m2m = shape.layout.minor_to_major
    major_v = [index[m2m[m]] for m in range(r - 1, k - 1, -1)]
    major_w = [dims[m2m[m]] for m in range(r - 1, k - 1, -1)]
    tiled = range(min(r, k) - 1, -1, -1)
    q_v = [ar.floordiv(index[m2m[m]], t[k - 1 - m]) for m in tiled]
    q_w = [ar.ceildiv(dims[m2m[m]], t[k - 1 - m]) for m in tiled]
    extra = list(t[:max(0, k - r)])
    r_v = [ar.mod(index[m2m[m]], t[k - 1 - m]) for m in tiled]
    r_w = [t[k - 1 - m] for m in tiled]
    return Form(tuple(major_v + q_v + [0] * len(extra) + r_v),
                tuple(major_w + q_w + extra + r_w))


def xla_untiled_index(shape: Shape, index, dims=None, ar: Arithmetic = INT):
    """IndexUtil::MultidimensionalIndexToLinearIndex: minor_to_major strides."""
    dims = concrete_dims(shape) if dims is None else tuple(dims)
    order = shape.physical_order
    return linear_index([index[i] for i in order], [dims[i] for i in order], ar)


def _unit(rank: int, i: int) -> tuple:
    return tuple(1 if k == i else 0 for k in range(rank))


def xla_reshape_unit_checks(a: Shape, b: Shape, dims_a=None, dims_b=None, ar=INT):
    """ReshapeIsBitcast's checks: for each dim of size > 1 (each direction),
    the unit index, its partner by row-major position, and the two untiled
    linear indices.  Yields (direction, dim, unit, partner, li_from, li_to,
    applies) where ``applies`` is the size > 1 condition."""
    dims_a = concrete_dims(a) if dims_a is None else tuple(dims_a)
    dims_b = concrete_dims(b) if dims_b is None else tuple(dims_b)
    for direction, x, y, dx, dy in (("SRC->DST", a, b, dims_a, dims_b),
                                    ("DST->SRC", b, a, dims_b, dims_a)):
        for i in range(x.rank):
            u = _unit(x.rank, i)
            v = delinearise_via(u, dx, dy, ar)
            yield (direction, i, u, v, xla_untiled_index(x, u, dx, ar),
                   xla_untiled_index(y, v, dy, ar), ar.lt(1, dx[i]))


def delinearise_via(u, dx, dy, ar):
    from ..spec.index import delinearise
    return tuple(delinearise(linear_index(u, dx, ar), dy, ar))


def xla_reshape_is_bitcast(a: Shape, b: Shape) -> bool:
    """ShapeUtil::ReshapeIsBitcast on concrete shapes (element types must match).

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> xla_reshape_is_bitcast(shape("f32[16,256]{1,0:T(8,128)}"), shape("f32[4096]{0}"))
    True
    """
    if a.element_type != b.element_type:
        return False
    if product(concrete_dims(a)) != product(concrete_dims(b)):
        return False
    if product(concrete_dims(a)) == 0:
        return True
    return all(li_x == li_y for *_, li_x, li_y, applies in xla_reshape_unit_checks(a, b)
               if applies)


def xla_transpose_is_bitcast(a: Shape, b: Shape, mapping) -> bool:
    """ShapeUtil::TransposeIsBitcast: ComposePermutations(mapping,
    b.minor_to_major) == a.minor_to_major; tiles ignored.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> xla_transpose_is_bitcast(shape("f32[1,8]{1,0}"), shape("f32[8,1]{1,0}"), (1, 0))
    False
    """
    if a.element_type != b.element_type:
        return False
    composed = tuple(mapping[i] for i in b.layout.minor_to_major)
    return composed == a.layout.minor_to_major


# --- identities: XLA's loop is lin(V, W) ----------------------------------------

class AtomArithmetic(Z3Arithmetic):
    """Z3 terms where every division, remainder and ceil division is a fresh
    free variable (one per distinct operands).  An identity proved here
    holds whatever those quotients are, so it holds for the real ones."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.atoms = {}

    def _atom(self, kind, a, b):
        key = (kind, _key(a), _key(b))
        if key not in self.atoms:
            self.atoms[key] = z3.Int(f"{kind}{len(self.atoms)}", self.ctx)
        return self.atoms[key]

    def floordiv(self, a, b):
        if _plain(a) and _plain(b):
            return a // b
        return self._atom("q", a, b)

    def mod(self, a, b):
        if _plain(a) and _plain(b):
            return a % b
        return self._atom("r", a, b)

    def ceildiv(self, a, b):
        if _plain(a) and _plain(b):
            return -(-a // b)
        return self._atom("c", a, b)


def _plain(v):
    return not isinstance(v, z3.ExprRef)


def _key(v):
    return ("z3", v.get_id()) if isinstance(v, z3.ExprRef) else ("int", v)


@lru_cache(maxsize=None)
def loop_identity(kind: str, layout, rank: int, element_type: str = "f32") -> Lemma:
    """Prove, for every size and index (free variables), that XLA's loop
    equals its :class:`Form` (``linear_index``) or its factor list
    (``array_size``): a polynomial identity over free atoms."""
    start = time.perf_counter()
    ctx = z3.Context()
    ar = AtomArithmetic(ctx)
    shape = Shape(element_type, tuple(f"d{i}" for i in range(rank)), layout)
    dims = tuple(z3.Int(f"d{i}", ctx) for i in range(rank))
    if kind == "linear_index":
        e = tuple(z3.Int(f"e{i}", ctx) for i in range(rank))
        lhs = xla_linear_index(shape, e, dims, ar)
        rhs = xla_linear_index_form(shape, e, dims, ar).offset(ar)
    else:
        lhs = xla_array_size(shape.with_layout(layout.replace(
            tail_padding_alignment_in_elements=1)), dims, ar)
        rhs = product(xla_size_form(shape, dims, ar)[0], ar)
    answer, detail = search(ar._term(lhs) != ar._term(rhs), ctx, 20.0)
    status = {"unsat": "proved", "sat": "refuted"}.get(answer, f"unknown: {detail}")
    return Lemma(f"XLA's {kind} loop is a row-major linearisation (rank {rank})",
                 status, time.perf_counter() - start)


# --- conditions -----------------------------------------------------------------

def level_conditions(shape: Shape, dims, ar, levels, order: bool):
    """Size conditions for the given tiling levels: each adds no padding and,
    if ``order``, keeps the row-major order (no within-tile entry of an
    earlier dim moves past a tile count greater than 1 of a later one).

    A list of (text, formula); formulas are bools on ints, Z3 on terms.
    """
    stages = shape_pipeline(shape)
    through = dims_through(stages, dims, ar)
    out = []
    for i, s in enumerate(stages):
        if s.level not in levels:
            continue
        d = through[i]
        k = len(s.sizes) if isinstance(s, (Pad, Split)) else 0
        tail = d[len(d) - k:]
        if isinstance(s, Pad):
            for j, (x, t) in enumerate(zip(tail, s.sizes)):
                if t != 1:
                    out.append((f"level {s.level} pads no entry {j} (tile {t} divides it)",
                                ar.eq(ar.mod(x, t), 0)))
        elif isinstance(s, Split) and order:
            counts = [ar.floordiv(x, t) for x, t in zip(tail, s.sizes)]
            for j, t in enumerate(s.sizes):
                if t == 1:
                    continue
                for l in range(j + 1, k):
                    out.append((f"level {s.level} keeps the order: tile count "
                                f"{l} is 1 (entry {j}'s tile is {t})",
                                ar.eq(counts[l], 1)))
    return out


@dataclass(frozen=True)
class Condition:
    """When a rule agrees with the spec.  ``layout`` conditions are checked
    on the shape's text; ``size`` conditions hold for some dims only."""

    text: str
    kind: str                                    # 'layout' or 'size'
    holds: Callable | None = None                # layout: shapes -> bool
    required: bool = True                        # False: a hint, implied by the others


@dataclass(frozen=True)
class Rule:
    name: str
    xla: str
    summary: str
    shapes: int                                  # how many shapes it takes
    conditions: tuple[Condition, ...]
    agree: tuple = ()                            # examples (shape texts)
    disagree: tuple = ()
    options: tuple = field(default=())           # extra arguments it takes

    def layout_conditions(self, shapes) -> list[tuple[str, bool]]:
        return [(c.text, bool(c.holds(*shapes))) for c in self.conditions
                if c.kind == "layout"]


# --- checking a rule -------------------------------------------------------------

class _Setup:
    """Z3 names for one or two shapes in a fresh context."""

    def __init__(self, shapes, timeout):
        self.shapes = shapes
        self.ctx = z3.Context()
        self.ar = Z3Arithmetic(self.ctx)
        self.names = {}
        for s in shapes:
            for n in s.names:
                self.names.setdefault(n, z3.Int(user_symbol(n), self.ctx))
        self.dims = [tuple(self.names[d] if isinstance(d, str) else d for d in s.dims)
                     for s in shapes]
        self.facts = Facts(self.ctx, [v >= 1 for v in self.names.values()], timeout)
        self.symbolic = bool(self.names)

    def box(self, e, dims):
        parts = [z3.And(self.ar._term(0) <= x, self.ar.lt(x, n)) for x, n in zip(e, dims)]
        return z3.And(parts) if parts else z3.BoolVal(True, self.ctx)

    def value(self, model, term):
        if _plain(term):
            return int(term)
        return model.eval(self.ar._term(term), model_completion=True).as_long()

    def dim_values(self, model):
        return {n: self.value(model, v) for n, v in self.names.items()}


def _where(shapes) -> str:
    for s in shapes:
        if s.is_symbolic:
            return scope(s)
    return "concrete"


def _run(rule: str, shapes, S: _Setup, concrete: Callable, start: float,
         conditions=()) -> Result:
    """Check the facts; on failure try the failing dims and probe sizes on
    ``concrete(shapes) -> counterexample | None`` (which replays).
    ``conditions`` (size conditions assumed by the facts) restrict the
    dims tried, and the scope says so."""
    text = " ; ".join(format_shape(s) for s in shapes)
    where = _where(shapes)
    if conditions:
        where += "; wherever the size conditions hold"
        answer, _ = search(z3.And(S.facts.assumptions + [z3.BoolVal(True, S.ctx)]),
                           S.ctx, S.facts.timeout)
        if answer == "unsat":
            # Say so: a proof under conditions that never hold proves nothing.
            where += " (they hold for no dims: vacuous)"
            S.facts.note("the size conditions hold for no dims: the agreement is vacuous")
    status, detail = S.facts.check()

    def done(status, **kw):
        return Result(text, f"rule {rule}", status, time.perf_counter() - start,
                      where, steps=S.facts.steps(), **kw)

    if status == "proved":
        return done(PROVED)
    tried = []
    for values in _candidates(S, status, detail):
        inst = [s.instantiate(values) for s in shapes]
        if conditions and not all(_holds(f, inst, values) for f in conditions):
            continue
        tried.append(values)
        ce = concrete(inst)
        if ce is not None:
            if values:
                ce = {"dim_values": values, **ce}
            return done(REFUTED, counterexample=ce)
    why = (f"failing facts: {'; '.join(detail[0])}" if status == "failed" else str(detail))
    if not S.symbolic and status == "failed":
        raise ProverBug(f"rule {rule}: facts fail for {text} ({why}) but nothing replays")
    at = ", ".join("{" + ", ".join(f"{k}={v}" for k, v in t.items()) + "}" for t in tried)
    return done(UNKNOWN, reason=f"not proved ({why}); no counterexample at dims {at or 'none'}")


def _holds(condition_fn, shapes, values) -> bool:
    return all(bool(c) for _, c in condition_fn(shapes))


def _candidates(S: _Setup, status, detail):
    seen = []
    if status == "failed":
        model = detail[1]
        for _ in range(bitcast.MAX_MODELS):
            values = S.dim_values(model)
            if values in seen:
                break
            seen.append(values)
            yield values
            if not S.symbolic:
                return
            st, det = S.facts.check(avoid=seen, names=S.names)
            if st != "failed":
                break
            model = det[1]
    if not S.symbolic:
        if not seen:
            yield {}
        return
    for values in probe_values(list(S.names)):
        if values not in seen:
            seen.append(values)
            yield values


# array_size ------------------------------------------------------------------------

def _size_values(shape: Shape) -> tuple[dict, dict]:
    xla = {"elements": xla_array_size(shape), "bytes": xla_array_bytes(shape)}
    spec = {"elements": aligned_elements(shape), "bytes": byte_size(shape)}
    return xla, spec


def _size_conditions(shape: Shape, dims=None, ar=INT):
    levels = range(2, len(shape.layout.tiles) + 1)
    return level_conditions(shape, concrete_dims(shape) if dims is None else dims,
                            ar, set(levels), order=False)


def check_array_size(shape: Shape, *, timeout=DEFAULT_TIMEOUT, assume_conditions=False):
    start = time.perf_counter()
    _no_split_configs(shape)
    S = _Setup([shape], timeout)
    ar, dims = S.ar, S.dims[0]
    L = shape.layout.tail_padding_alignment_in_elements
    S.facts.cite_lemma(loop_identity("array_size", shape.layout, shape.rank,
                                      shape.element_type))
    stages = shape_pipeline(shape)
    through = dims_through(stages, dims, ar)
    W, tiled = xla_size_form(shape, dims, ar)
    if assume_conditions:
        for label, c in _size_conditions(shape, dims, ar):
            S.facts.assume(ar._term(c))
            S.facts.note(f"assumed: {label}")
    # The spec's size after the first level, T1; later levels keep the
    # product when they pad nothing (linear facts, stage by stage).
    first = max([i for i, st in enumerate(stages) if st.level <= 1], default=-1) + 1
    T1 = through[first]
    for i in range(first, len(stages)):
        st, d_in, d_out = stages[i], through[i], through[i + 1]
        k = len(st.sizes) if isinstance(st, (Pad, Split)) else 0
        for j in range(k):
            x, t = d_in[len(d_in) - k + j], st.sizes[j]
            if isinstance(st, Pad) and t != 1:
                S.facts.fact(f"level {st.level} pads no entry {j}: its dim stays",
                             ar._term(d_out[len(d_out) - k + j]) != ar._term(x))
            elif isinstance(st, Split) and t != 1:
                S.facts.fact(f"level {st.level} splits entry {j} into factors of it",
                             ar._term(ar.mul(ar.ceildiv(x, t), t)) != ar._term(x))
    if first < len(stages):
        S.facts.note("prepending unit dims, '*' combinations and permutations keep "
                     "the product of the dims")
    g = group(T1, W)
    if g is not None and (tiled or L == 1):
        # Equal grouped dims make equal products; L rounds both alike.
        for k, anchor in enumerate(g.anchor):
            if anchor:
                a, b = T1[g.a[k][0]], W[g.b[k][0]]
                S.facts.fact(f"spec's first-level dim {g.a[k][0]} = XLA's factor {g.b[k][0]}",
                             ar._term(a) != ar._term(b))
        S.facts.note("the other factors are constants with equal products")
    else:
        spec = ar.mul(ar.ceildiv(product(through[-1], ar), L), L)
        xla = product(W, ar)
        if tiled and L != 1:
            xla = ar.mul(ar.ceildiv(xla, L), L)
        S.facts.fact("spec's aligned elements = XLA's ArraySize elements",
                     ar._term(spec) != ar._term(xla))

    def concrete(shapes):
        (s,) = shapes
        xla, spec = _size_values(s)
        if xla["elements"] == spec["elements"]:
            return None
        return {"shape": format_shape(s), "xla": xla, "spec": spec}

    return _run("array_size", [shape], S, concrete, start,
                [lambda ss: _size_conditions(ss[0])] if assume_conditions else ())


# linear_index ------------------------------------------------------------------------

def _index_conditions(shape: Shape, dims=None, ar=INT):
    dims = concrete_dims(shape) if dims is None else dims
    n = len(shape.layout.tiles)
    if shape.rank == 0:
        return []
    levels = set(range(1 if shape.rank == 1 else 2, n + 1))
    out = level_conditions(shape, dims, ar, levels, order=True)
    if shape.rank == 1:
        # padding at the end of the first level moves no element
        out = [(t, c) for t, c in out if not (t.startswith("level 1 pads"))]
    return out


def check_linear_index(shape: Shape, *, timeout=DEFAULT_TIMEOUT, assume_conditions=False):
    start = time.perf_counter()
    _no_split_configs(shape)
    _first_tile(shape)
    S = _Setup([shape], timeout)
    ar, dims = S.ar, S.dims[0]
    e = tuple(z3.Int(f"element!{i}", S.ctx) for i in range(shape.rank))
    box = S.box(e, dims)
    S.facts.cite_lemma(loop_identity("linear_index", shape.layout, shape.rank,
                                      shape.element_type))
    A = spec_form(shape, e, dims, ar)
    B = xla_linear_index_form(shape, e, dims, ar)
    if assume_conditions:
        for label, c in _index_conditions(shape, dims, ar):
            S.facts.assume(ar._term(c))
            S.facts.note(f"assumed: {label}")
    if not add_same_offset(S.facts, A, B, box, ar):
        S.facts.note("the dims do not group: the offsets are compared whole")
        S.facts.fact("XLA's LinearIndex = the spec's offset for every element",
                     z3.And(box, ar._term(A.offset(ar)) != ar._term(B.offset(ar))))

    def concrete(shapes):
        (s,) = shapes
        return _index_counterexample(s, timeout)

    return _run("linear_index", [shape], S, concrete, start,
                [lambda ss: _index_conditions(ss[0])] if assume_conditions else ())


def _index_counterexample(s: Shape, timeout: float):
    """An element where XLA's LinearIndex and the spec differ, or None."""
    dims = concrete_dims(s)
    if product(dims) == 0:
        return None
    n = product(dims)
    rng = np.random.default_rng(0)
    if n <= bitcast.EXHAUSTIVE:
        grid = np.indices(dims, dtype=np.int64).reshape(len(dims), -1).T
    else:
        q = bitcast.Question(s, s)
        grid = bitcast._candidates(q, rng)
    cols = tuple(grid[:, i] for i in range(len(dims)))
    xla = np.broadcast_to(np.asarray(xla_linear_index(s, cols, dims), dtype=np.int64),
                          grid.shape[:1])
    spec = offsets(s, grid)
    bad = np.flatnonzero(xla != spec)
    if bad.size:
        return _replay_index(s, grid[bad[0]])
    if n <= bitcast.EXHAUSTIVE:
        return None
    # Sampled only: ask Z3 for an element at these dims (linear: constants).
    ctx = z3.Context()
    ar = Z3Arithmetic(ctx)
    e = tuple(z3.Int(f"e{i}", ctx) for i in range(len(dims)))
    box = z3.And([z3.And(x >= 0, x < d) for x, d in zip(e, dims)])
    spec_t = spec_form(s, e, dims, ar).offset(ar)
    answer, model = search(z3.And(box, ar._term(spec_t) != ar._term(
        xla_linear_index(s, e, dims, ar))), ctx, timeout)
    if answer == "sat":
        return _replay_index(s, [model.eval(x, model_completion=True).as_long() for x in e])
    return None


def _replay_index(s: Shape, element) -> dict:
    element = tuple(int(x) for x in element)
    xla, spec = int(xla_linear_index(s, element)), offset(s, element)
    if xla == spec:
        raise ProverBug(f"linear_index witness {element} does not replay: both {xla}")
    return {"shape": format_shape(s), "element": list(element), "xla": xla, "spec": spec}


# reshape_is_bitcast --------------------------------------------------------------------

def _bitcast_disagreement(a: Shape, b: Shape, transpose, timeout) -> dict | None:
    """Concrete: the rule's verdict against the spec's; a replayed
    counterexample where they differ, else None."""
    if transpose is None:
        xla = xla_reshape_is_bitcast(a, b)
    else:
        xla = xla_transpose_is_bitcast(a, b, transpose)
    spec = bitcast.decide(a, b, transpose, timeout=timeout)
    if spec.status == UNKNOWN:
        return None
    if xla == (spec.status == PROVED):
        return None
    ce = {"src": format_shape(a), "dst": format_shape(b), "xla_says_bitcast": xla,
          "spec_says_bitcast": spec.status == PROVED}
    if spec.status == REFUTED:
        ce["spec_counterexample"] = spec.counterexample
    elif transpose is None:
        fails = [c for c in xla_reshape_unit_checks(a, b) if c[6] and c[4] != c[5]]
        direction, dim, u, v, li_x, li_y, _ = fails[0]
        ce["xla_failing_check"] = {"direction": direction, "dim": dim,
                                   "unit_index": list(u), "partner": list(v),
                                   "untiled_indices": [li_x, li_y]}
        ce["spec_proof"] = list(spec.steps)
    else:
        composed = [transpose[i] for i in b.layout.minor_to_major]
        ce["xla_failing_check"] = {"composed_minor_to_major": composed,
                                   "src_minor_to_major": list(a.layout.minor_to_major)}
        ce["spec_proof"] = list(spec.steps)
    return ce


def check_bitcast_rule(a: Shape, b: Shape, transpose=None, *, timeout=DEFAULT_TIMEOUT):
    """Compare ReshapeIsBitcast (or TransposeIsBitcast) with the spec.

    Concrete shapes: both verdicts, compared.  Named dims: where the rule
    says "bitcast", the spec must prove it (one all-shapes proof with the
    rule's verdict as an assumption); where it says "no", the spec must
    refute it at the rule's own failing unit index.  Both proved: the rule
    is right for every size.
    """
    start = time.perf_counter()
    name = "reshape_is_bitcast" if transpose is None else "transpose_is_bitcast"
    q = bitcast.question(a, b, transpose)
    text = f"{format_shape(a)} -> {format_shape(b)}"
    if not q.is_symbolic:
        ce = _bitcast_disagreement(a, b, transpose, timeout)
        spec = None
        if ce is None:
            spec = bitcast.decide(a, b, transpose, timeout=timeout)
            if spec.status == UNKNOWN:
                return Result(text, f"rule {name}", UNKNOWN,
                              time.perf_counter() - start, "concrete",
                              reason=f"the spec's verdict is unknown: {spec.reason}")
        xla = (xla_reshape_is_bitcast(a, b) if transpose is None
               else xla_transpose_is_bitcast(a, b, transpose))
        steps = (f"XLA says {'bitcast' if xla else 'not a bitcast'}",
                 f"spec: {spec.status if spec else 'differs'}") + tuple(
                     spec.steps if spec else ())
        return Result(text, f"rule {name}", REFUTED if ce else PROVED,
                      time.perf_counter() - start, "concrete",
                      counterexample=ce, steps=steps)
    return _symbolic_bitcast_rule(q, name, timeout, start)


def _rule_verdict(b: "bitcast._Build"):
    """The rule's verdict on the symbolic dims, as a Z3 formula."""
    q, ar = b.q, b.ar
    if q.transpose is not None:
        return z3.BoolVal(xla_transpose_is_bitcast(q.src, q.dst, q.transpose), b.ctx)
    if q.src.element_type != q.dst.element_type:
        return z3.BoolVal(False, b.ctx)
    parts = []
    for direction, x, y, dx, dy, i, u, v, defs in _unit_partners(b):
        same = ar.eq(xla_untiled_index(x, u, dx, ar), xla_untiled_index(y, v, dy, ar))
        # XLA checks only dims of size > 1, where u is inside the box
        parts.append(z3.Implies(ar._term(ar.lt(1, dx[i])),
                                z3.And(*defs, ar._term(same))))
    return z3.And(parts) if parts else z3.BoolVal(True, b.ctx)


def _unit_partners(b: "bitcast._Build"):
    """For both directions of a reshape and each dim i: the unit index u
    along i and its partner v by row-major position, with the definitions
    that pin v down.  The partner is shown to be the reshape, group by group,
    for every index in the box (so for each unit index)."""
    q, ar = b.q, b.ar
    ds, dd = b.enc.dims, b.dd
    for direction, x, y, dx, dy in (("SRC->DST", q.src, q.dst, ds, dd),
                                    ("DST->SRC", q.dst, q.src, dd, ds)):
        sub = bitcast.Question(x, y)
        anyone = b.enc.fresh("u", x.rank)
        _, group_parts, defs = bitcast.group_pair(sub, anyone, dx, dy, ar, b.enc.fresh)
        b.group_facts(sub, group_parts, dx, dy, defs)
        for i in range(x.rank):
            u = _unit(x.rank, i)
            v, _, defs = bitcast.group_pair(sub, u, dx, dy, ar, b.enc.fresh)
            yield direction, x, y, dx, dy, i, u, v, defs


def _symbolic_bitcast_rule(q, name, timeout, start) -> Result:
    text = q.text
    where = scope(q.src) if q.src.is_symbolic else scope(q.dst)
    # 1. Where the rule says bitcast, the spec proves it.
    yes = bitcast._symbolic(q, timeout, start, assume=_rule_verdict)
    steps = ["where XLA says bitcast: " + yes.status] + [f"  {s}" for s in yes.steps]

    def done(status, **kw):
        return Result(text, f"rule {name}", status, time.perf_counter() - start, where,
                      steps=tuple(steps), **kw)

    def disagreement(values):
        inst = q.instantiate(values)
        ce = _bitcast_disagreement(inst.src, inst.dst, q.transpose, timeout)
        return None if ce is None else {"dim_values": values, **ce}

    if yes.status == REFUTED:
        ce = disagreement(yes.counterexample["dim_values"])
        if ce:
            return done(REFUTED, counterexample=ce)
    # 2. Where the rule says no, the spec refutes it at the rule's witness.
    no = _rule_no_is_right(q, timeout)
    steps.append("where XLA says no, the spec differs at XLA's failing unit index: "
                 + no[0])
    if yes.status == PROVED and no[0] == PROVED:
        return done(PROVED)
    for values in ([no[1]] if no[0] == REFUTED and no[1] else []) + list(
            probe_values(q.names)):
        ce = disagreement(values)
        if ce:
            return done(REFUTED, counterexample=ce)
    return done(UNKNOWN, reason=f"bitcast where XLA says so: {yes.status}"
                f"{' (' + yes.reason + ')' if yes.reason else ''}; "
                f"not a bitcast where XLA says no: {no[0]}; no disagreement at the probe sizes")


def _rule_no_is_right(q, timeout):
    """(status, dims): for every size where the rule says no, the spec's
    offsets differ at the rule's failing unit index (or the sizes differ)."""
    if q.transpose is not None:
        if xla_transpose_is_bitcast(q.src, q.dst, q.transpose):
            return PROVED, None
        return UNKNOWN, None
    b = bitcast._Build(q, timeout)
    ar, F = b.ar, b.facts
    ds, dd = b.enc.dims, b.dd
    la = q.src.layout.tail_padding_alignment_in_elements
    lb = q.dst.layout.tail_padding_alignment_in_elements
    size_a = ar.mul(ar.ceildiv(product(spec_form(q.src, (0,) * q.src.rank, ds, ar).dims, ar), la), la)
    size_b = ar.mul(ar.ceildiv(product(spec_form(q.dst, (0,) * q.dst.rank, dd, ar).dims, ar), lb), lb)
    same_size = ar._term(ar.eq(size_a, size_b))
    for direction, x, y, dx, dy, i, u, v, defs in _unit_partners(b):
        fails = ar._term(ar.lt(1, dx[i]))
        for d in defs:
            F.assume(z3.Implies(fails, d))
        xla_same = ar._term(ar.eq(xla_untiled_index(x, u, dx, ar),
                                  xla_untiled_index(y, v, dy, ar)))
        spec_same = ar._term(ar.eq(spec_form(x, u, dx, ar).offset(ar),
                                   spec_form(y, v, dy, ar).offset(ar)))
        F.fact(f"{direction} dim {i}: where XLA's check fails, the spec's "
               "offsets or sizes differ",
               z3.And(fails, z3.Not(xla_same), spec_same, same_size))
    status, detail = F.check()
    if status == "proved":
        return PROVED, None
    if status == "failed":
        return REFUTED, {n: b.enc.value(detail[1], b.names[n]) for n in q.names}
    return UNKNOWN, None


# --- the catalogue ---------------------------------------------------------------------

def _no_combine_first(s: Shape) -> bool:
    return not (s.layout.tiles and s.layout.tiles[0].combines)


RULES: dict[str, Rule] = {
    "array_size": Rule(
        "array_size",
        "ShapeUtil::ArraySize (xla/shape_util.cc, openxla/xla @0186c155)",
        "padded elements from the first tile only; L(n) only when tiled",
        1,
        (Condition("tiled, or L(1): XLA applies L(n) only to tiled layouts", "layout",
                   lambda s: bool(s.layout.tiles) or
                   s.layout.tail_padding_alignment_in_elements == 1),
         Condition("no '*' in the first tile: XLA pads each combined dim on its own",
                   "layout", _no_combine_first),
         Condition("levels after the first add no padding", "size")),
        agree=("f32[m,n]{1,0:T(8,128)}", "bf16[m,n]{1,0:T(8,128)(2,1)}",
               "f32[]{:T(128)}", "f32[m]{0}"),
        disagree=("f32[3]{0:L(4)}", "f32[8,128]{1,0:T(8,128)(2,1,1,1)}",
                  "f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}",
                  "bf16[16,128]{1,0:T(8,128)(3,1)}")),
    "linear_index": Rule(
        "linear_index",
        "LayoutUtil::LinearIndex (xla/layout_util.cc, forks of openxla/xla)",
        "offset from the first tile only; rank 1 unchanged, rank 0 zero",
        1,
        (Condition("no '*' in the first tile (XLA does not handle it)", "layout",
                   _no_combine_first),
         Condition("a single tiling level (or later levels that change nothing: "
                   "the size condition)", "layout", lambda s: len(s.layout.tiles) <= 1,
                   required=False),
         Condition("levels after the first add no padding and keep the order "
                   "(rank 1: every level keeps the order)", "size")),
        agree=("f32[m,n]{1,0:T(8,128)}", "f32[a,m,n]{0,2,1:T(8,128)}",
               "f32[m,n]{1,0:T(2,8,128)}", "f32[5]{0:T(128)}", "s32[]{:T(128)}",
               "f32[m,n]{1,0:T(8,128)(1,1)}"),
        disagree=("bf16[16,256]{1,0:T(8,128)(2,1)}", "f32[200]{0:T(8,128)}",
                  "bf16[256]{0:T(128)(2,1)}")),
    "reshape_is_bitcast": Rule(
        "reshape_is_bitcast",
        "ShapeUtil::ReshapeIsBitcast (xla/shape_util.cc, openxla/xla @0186c155)",
        "unit indices compared by minor_to_major strides: tiles, L and E ignored",
        2,
        (Condition("both layouts untiled with the same L", "layout",
                   lambda a, b: not a.layout.tiles and not b.layout.tiles and
                   a.layout.tail_padding_alignment_in_elements ==
                   b.layout.tail_padding_alignment_in_elements),
         Condition("same tiles and L on both sides, and the dims the tiles reach "
                   "are the same minor dims", "layout", lambda a, b: _same_tiled_tail(a, b))),
        agree=(("f32[m,4,32]{2,1,0}", "f32[m,128]{1,0}"),
               ("f32[6,m,n]{2,1,0:T(8,128)}", "f32[2,3,m,n]{3,2,1,0:T(8,128)}"),
               ("f32[2,m]{1,0}", "f32[m,2]{1,0}")),
        disagree=(("f32[16,256]{1,0:T(8,128)}", "f32[4096]{0}"),
                  ("f32[3,128]{1,0:T(8,128)}", "f32[384]{0}"),
                  ("f32[m,n]{1,0:T(8,128)}", "f32[m,n,1]{2,1,0:T(8,128)}"))),
    "transpose_is_bitcast": Rule(
        "transpose_is_bitcast",
        "ShapeUtil::TransposeIsBitcast (xla/shape_util.cc, openxla/xla @0186c155)",
        "minor_to_major composed with the permutation: tiles ignored",
        2,
        (Condition("same tiles and L on both sides", "layout",
                   lambda a, b: a.layout.tiles == b.layout.tiles and
                   a.layout.tail_padding_alignment_in_elements ==
                   b.layout.tail_padding_alignment_in_elements),
         Condition("no dim of size 1 (a unit dim may sit anywhere in memory)", "layout",
                   lambda a, b: all(d != 1 for d in a.dims))),
        agree=(("f32[m,n]{1,0:T(8,128)}", "f32[n,m]{0,1:T(8,128)}", (1, 0)),
               ("f32[m,n]{1,0}", "f32[n,m]{0,1}", (1, 0))),
        disagree=(("f32[8,256]{1,0:T(8,128)}", "f32[256,8]{0,1:T(2,128)}", (1, 0)),
                  ("f32[1,n]{1,0}", "f32[n,1]{1,0}", (1, 0))),
        options=("transpose",)),
}


#: Tilings for the condition theorems: one level, longer than the rank,
#: later levels that do or do not pad or reorder, with and without L(n).
_FAMILY_TILES = (
    (), ((128,),), ((8, 128),), ((2, 8, 128),), ((8, 128), (2, 1)),
    ((8, 128), (1, 1)), ((8, 128), (1, 128)), ((8, 128), (2, 1, 1, 1)),
    ((4,), (2,)), ((8, 128), (3, 1)),
)


def condition_family(name: str) -> list[Shape]:
    """Shapes with named dims (ranks 0 to 3, row-major and reversed, the
    tilings above, L(1) and L(1024)) whose layout conditions for rule
    ``name`` hold: the layouts a condition theorem is proved on."""
    from ..spec.layout import Layout
    rule = RULES[name]
    if rule.shapes != 1:
        raise TilespecError(f"rule {name} compares two shapes; its conditions are "
                            "checked pair by pair")
    out = []
    for rank in range(4):
        dims = tuple("abc"[3 - rank:]) if rank else ()
        orders = {tuple(range(rank - 1, -1, -1)), tuple(range(rank))}
        for m2m in sorted(orders):
            for tiles in _FAMILY_TILES:
                for L in (1, 1024):
                    s = Shape("bf16", dims, Layout(m2m, tiles=tiles,
                                                   tail_padding_alignment_in_elements=L))
                    if all(c.holds(s) for c in rule.conditions
                           if c.kind == "layout" and c.required):
                        out.append(s)
    return out


def prove_conditions(name: str, *, timeout: float = DEFAULT_TIMEOUT) -> list[Result]:
    """The condition theorem of a single-shape rule, layout by layout: on
    every shape of :func:`condition_family`, for every size of its dims
    where the size conditions hold, the rule agrees with the spec."""
    return [check(name, [s], timeout=timeout, assume_conditions=True)
            for s in condition_family(name)]


def _same_tiled_tail(a: Shape, b: Shape) -> bool:
    la, lb = a.layout, b.layout
    if la.tiles != lb.tiles or (la.tail_padding_alignment_in_elements !=
                                lb.tail_padding_alignment_in_elements):
        return False
    reach = max([len(t) for t in la.tiles] or [0])
    pa, pb = a.physical_dims, b.physical_dims
    if reach > min(len(pa), len(pb)):
        return False
    oa = a.physical_order[len(pa) - reach:]
    ob = b.physical_order[len(pb) - reach:]
    # the tiled dims are the same sizes and the trailing logical dims
    return (pa[len(pa) - reach:] == pb[len(pb) - reach:]
            and list(oa) == list(range(a.rank - reach, a.rank))
            and list(ob) == list(range(b.rank - reach, b.rank)))


def check(name: str, shapes, *, transpose=None, timeout: float = DEFAULT_TIMEOUT,
          assume_conditions: bool = False) -> Result:
    """Check rule ``name`` against the spec on ``shapes`` (one or two)."""
    if name not in RULES:
        raise TilespecError(f"unknown rule {name!r}; choose from {', '.join(RULES)}")
    rule = RULES[name]
    shapes = list(shapes)
    if len(shapes) != rule.shapes:
        raise TilespecError(f"rule {name} takes {rule.shapes} shape"
                            f"{'s' if rule.shapes > 1 else ''}, not {len(shapes)}")
    for s in shapes:
        if not isinstance(s, Shape):
            raise TilespecError(f"rule {name} needs array shapes, not a tuple")
        if any(d is None for d in s.dims):
            raise TilespecError(f"{format_shape(s)} has an unbounded dim ('?')")
    if name == "array_size":
        return check_array_size(shapes[0], timeout=timeout, assume_conditions=assume_conditions)
    if name == "linear_index":
        return check_linear_index(shapes[0], timeout=timeout,
                                  assume_conditions=assume_conditions)
    if name == "transpose_is_bitcast":
        if transpose is None:
            raise TilespecError("rule transpose_is_bitcast needs --transpose P")
        return check_bitcast_rule(shapes[0], shapes[1], tuple(transpose), timeout=timeout)
    if transpose is not None:
        raise TilespecError(f"rule {name} takes no transpose")
    return check_bitcast_rule(shapes[0], shapes[1], None, timeout=timeout)
