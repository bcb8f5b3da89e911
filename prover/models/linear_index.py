"""``LayoutUtil::LinearIndex`` against the spec.

Transcribed from openxla/xla ``xla/layout_util.cc`` (``LayoutUtil::LinearIndex``),
commit 22eee29e01 (2026-05-20), facts carried over: rank 0 gives 0, rank 1
the index itself (whatever the tiles); otherwise only the *first* tile is
read: the multiplier starts at the tile's element count, and for each
physical dim from the most minor, while tile entries remain (from the last),
``index / t`` times the tile multiplier plus ``index % t`` times the
within-tile multiplier, the tile multiplier growing by ``CeilOfRatio(d, t)``
and the within-tile one by ``t``; past the tile, ``index`` times the tile
multiplier, growing by ``d``.  All in ``int64_t``
(:func:`linear_index_int64`): a ``*`` entry (INT64_MIN) makes the starting
multiplier's product overflow (undefined behaviour; the binaries wrap).
"""

from __future__ import annotations

import time

import numpy as np
import z3

from ...spec import COMBINE, INT, Arithmetic, Shape, concrete_dims, offset, offsets, product
from ..core import (
    DEFAULT_TIMEOUT,
    EXHAUSTIVE,
    Form,
    Z3Arithmetic,
    add_same_offset,
    element_grid,
    internal_symbol,
    search,
    spec_form,
)
from ..result import Counterexample, ProverBug
from .cpp import Int64
from .rule_check import (
    RuleNotApplicable,
    Setup,
    int64_check,
    level_conditions,
    no_split_configs,
    offsets_differ,
    prove_loop_identity,
    run,
)
from .versions import ABSL_MACROS, EVERY_VERSION, XlaModel

#: The C++ transcribed here, and the XLA versions it holds for: the
#: functions' text is the same at every modelled commit (tools/xla_model_history.py).
XLA_MODELS = (
    XlaModel("LayoutUtil::LinearIndex", "xla/layout_util.cc", ABSL_MACROS, EVERY_VERSION),
)

SOURCE = "openxla/xla xla/layout_util.cc, commit 22eee29e01 (2026-05-20)"


def linear_index_int64(shape: Shape, index, c: Int64) -> int:
    """LayoutUtil::LinearIndex in ``int64_t`` (C++ division, wrap recorded
    in ``c``): first tile only, rank 1 the index unchanged.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> linear_index_int64(shape("f32[8,4]{1,0:T(2,2)}"), (3, 1), Int64())
    11
    """
    rank = shape.rank
    if rank == 0:
        return 0
    if rank == 1:
        return int(index[0])
    dims = concrete_dims(shape)
    tile = shape.layout.tiles[0].sizes if shape.layout.tiles else ()
    tile_multiplier = 1
    for t in tile:
        tile_multiplier = c.mul(tile_multiplier, t, "tile_multiplier *= i")
    within, value = 1, 0
    for minor in range(rank):
        d = shape.layout.minor_to_major[minor]
        size, i = dims[d], int(index[d])
        if minor < len(tile):
            t = tile[len(tile) - 1 - minor]
            value = c.add(value, c.add(c.mul(tile_multiplier, c.div(i, t, "index / tile"),
                                             "tile_multiplier * (index / tile)"),
                                       c.mul(within, c.rem(i, t, "index % tile"),
                                             "within_tile_multiplier * (index % tile)")),
                          "linear_index += ...")
            tile_multiplier = c.mul(tile_multiplier, c.ceil_of_ratio(size, t),
                                    "tile_multiplier *= CeilOfRatio(size, tile)")
            within = c.mul(within, t, "within_tile_multiplier *= tile")
        else:
            value = c.add(value, c.mul(i, tile_multiplier, "index * tile_multiplier"),
                          "linear_index += ...")
            tile_multiplier = c.mul(tile_multiplier, size, "tile_multiplier *= size")
    return value



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
    no_split_configs(shape)
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

def _index_loop(shape, e, dims, ar):
    return xla_linear_index(shape, e, dims, ar)


def _index_form(shape, e, dims, ar):
    return xla_linear_index_form(shape, e, dims, ar).offset(ar)


def index_loop_identity(layout, rank: int, element_type: str = "f32"):
    """LinearIndex's loop is :func:`xla_linear_index_form`'s ``lin(V, W)``."""
    return prove_loop_identity("linear_index", layout, rank, element_type,
                               _index_loop, _index_form)


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
    no_split_configs(shape)
    if shape.layout.tiles and shape.layout.tiles[0].combines and shape.rank > 1:
        return int64_check("linear_index", shape, _evaluate_int64, start)
    _first_tile(shape)

    def concrete(shapes):
        (s,) = shapes
        return _index_counterexample(s, timeout)

    return run("linear_index", [shape],
               _index_setup(shape, timeout, assume_conditions, whole=False), concrete, start,
               [lambda ss: _index_conditions(ss[0])] if assume_conditions else (),
               whole=lambda: _index_setup(shape, timeout, assume_conditions, whole=True))


def _index_setup(shape: Shape, timeout, assume_conditions: bool, whole: bool) -> Setup:
    """LinearIndex = the spec's offset, group by group (sufficient), or
    ``whole``: one equation for every element of the box."""
    S = Setup([shape], timeout)
    ar, dims = S.ar, S.dims[0]
    e = tuple(z3.Int(internal_symbol(f"element{i}"), S.ctx) for i in range(shape.rank))
    box = S.box(e, dims)
    S.facts.cite_lemma(index_loop_identity(shape.layout, shape.rank,
                                           shape.element_type))
    A = spec_form(shape, e, dims, ar)
    B = xla_linear_index_form(shape, e, dims, ar)
    if assume_conditions:
        for label, c in _index_conditions(shape, dims, ar):
            S.facts.assume(ar.term(c))
            S.facts.note(f"assumed: {label}")
    if whole or not add_same_offset(S.facts, A, B, box, ar):
        if not whole:
            S.facts.note("the dims do not group: the offsets are compared whole")
        S.facts.fact("XLA's LinearIndex = the spec's offset for every element",
                     z3.And(box, ar.term(A.offset(ar)) != ar.term(B.offset(ar))))
    return S


def _index_counterexample(s: Shape, timeout: float):
    """An element where XLA's LinearIndex and the spec differ, or None."""
    dims = concrete_dims(s)
    grid = element_grid(s)
    if grid is None:
        return None
    n = product(dims)
    cols = tuple(grid[:, i] for i in range(len(dims)))
    xla = np.broadcast_to(np.asarray(xla_linear_index(s, cols, dims), dtype=np.int64),
                          grid.shape[:1])
    spec = offsets(s, grid)
    bad = np.flatnonzero(xla != spec)
    if bad.size:
        return _replay_index(s, grid[bad[0]])
    if n <= EXHAUSTIVE:
        return None
    # Sampled only: ask Z3 for an element at these dims (linear: constants).
    ctx = z3.Context()
    ar = Z3Arithmetic(ctx)
    e = tuple(z3.Int(internal_symbol(f"e{i}"), ctx) for i in range(len(dims)))
    box = z3.And([z3.And(x >= 0, x < d) for x, d in zip(e, dims)])
    spec_t = spec_form(s, e, dims, ar).offset(ar)
    answer, model = search(z3.And(box, ar.term(spec_t) != ar.term(
        xla_linear_index(s, e, dims, ar))), ctx, timeout)
    if answer == "sat":
        return _replay_index(s, [model.eval(x, model_completion=True).as_long() for x in e])
    return None


def _replay_index(s: Shape, element) -> Counterexample:
    element = tuple(int(x) for x in element)
    xla, spec = int(xla_linear_index(s, element)), offset(s, element)
    if xla == spec:
        raise ProverBug(f"linear_index witness {element} does not replay: both {xla}")
    return offsets_differ(s, element, xla, spec)



def _evaluate_int64(s: Shape, element) -> tuple[int, Int64]:
    c = Int64("LayoutUtil::LinearIndex", SOURCE)
    return linear_index_int64(s, element, c), c
