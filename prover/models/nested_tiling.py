"""XLA's nested-tiling index functions against the spec.

``LayoutUtil::LinearIndexForNestedTiling`` and
``LayoutUtil::DelinearizeIndexForNestedTiling`` were added to openxla/xla's
``xla/layout_util.cc`` in 2026.  Neither definition is in the stored
snapshot of openxla/xla that this project can read (only callers, in
downstream repositories), and jaxlib 0.10.2 does not contain them (its
``xla::LayoutUtil`` symbols stop at ``LinearIndex`` and ``MaxSplitSize``), so
no binary can answer for them here.  They are modelled as their callers and
a downstream port (zml's ``tiledElementOffset``, which says it follows the
function) describe them:

* the physical dims, major to minor (``minor_to_major`` reversed), and the
  index likewise;
* each tile in turn: while there are fewer dims than the tile has entries,
  a unit dim (index 0) goes in front; the tile's ``k`` entries split the
  last ``k`` dims, each into a tile count ``ceil(d/t)`` (index ``i / t``) kept
  in place and a within-tile dim ``t`` (index ``i % t``) appended at the end;
* the offset is the row-major position in the final dims.

That is the document's pad-reshape-transpose for tiles without ``*``: a
later tile splits the previous tile's within-tile dims (``(8,128)(2,1)``
pairs rows inside each tile).  A ``*`` entry (INT64_MIN) has no described
meaning there (the port rejects it), so the rules here do not apply to it
(exit 2); which CHECKs XLA's functions make cannot be read from the
available source and is not claimed.  ``DelinearizeIndexForNestedTiling``
is modelled as the inverse: the offset's digits in the final dims, each
split undone (``count * t + within``) from the last tile back.

>>> from tilespec.spec.text import parse_array_shape as shape
>>> s = shape("bf16[16,256]{1,0:T(8,128)(2,1)}")
>>> xla_nested_linear_index(s, (0, 1)), xla_nested_linear_index(s, (1, 0))
(2, 1)
>>> xla_nested_delinearize(s, 2)
(0, 1)
"""

from __future__ import annotations

import time

import numpy as np
import z3

from tilespec.prover.bitcast import reading
from tilespec.prover.core.encode import internal_symbol
from tilespec.prover.core.linform import Form, add_same_offset, spec_form
from tilespec.prover.core.solve import DEFAULT_TIMEOUT
from tilespec.prover.models.rule_check import (
    RuleNotApplicable,
    Setup,
    no_split_configs,
    offsets_differ,
    run,
)
from tilespec.prover.result import Counterexample, ProverBug, Result, Side
from tilespec.spec.arith import INT, Arithmetic
from tilespec.spec.index import concrete_dims, delinearise, offset, offsets, product
from tilespec.spec.layout import COMBINE, Shape
from tilespec.spec.text import format_shape


def _tiles(shape: Shape) -> tuple:
    tiles = tuple(t.sizes for t in shape.layout.tiles)
    if any(COMBINE in t for t in tiles):
        raise RuleNotApplicable(
            "'*' (kCombineDimension) in a tile: what LinearIndexForNestedTiling does "
            "with it is not described by any available source")
    return tiles


def nested_form(shape: Shape, index, dims, ar: Arithmetic = INT) -> Form:
    """LinearIndexForNestedTiling as ``lin(V, W)``: the final indices and dims."""
    m2m = shape.layout.minor_to_major
    W = [dims[d] for d in reversed(m2m)]
    V = [index[d] for d in reversed(m2m)]
    for t in _tiles(shape):
        k = len(t)
        while len(W) < k:
            W.insert(0, 1)
            V.insert(0, 0)
        start = len(W) - k
        for j, tj in enumerate(t):
            d = start + j
            W.append(tj)
            V.append(ar.mod(V[d], tj))
            W[d] = ar.ceildiv(W[d], tj)
            V[d] = ar.floordiv(V[d], tj)
    return Form(tuple(V), tuple(W))


def xla_nested_linear_index(shape: Shape, index, dims=None, ar: Arithmetic = INT):
    """LayoutUtil::LinearIndexForNestedTiling (works on numpy columns too)."""
    no_split_configs(shape)
    dims = concrete_dims(shape) if dims is None else tuple(dims)
    return nested_form(shape, index, dims, ar).offset(ar)


def xla_nested_delinearize(shape: Shape, position, dims=None, ar: Arithmetic = INT) -> tuple:
    """LayoutUtil::DelinearizeIndexForNestedTiling: the element at ``position``
    (for a padding position, the indices the splits give, which may lie
    outside the dims)."""
    no_split_configs(shape)
    dims = concrete_dims(shape) if dims is None else tuple(dims)
    m2m = shape.layout.minor_to_major
    W = [dims[d] for d in reversed(m2m)]
    steps = []                                   # (start, tile, units prepended)
    for t in _tiles(shape):
        k, units = len(t), 0
        while len(W) < k:
            W.insert(0, 1)
            units += 1
        start = len(W) - k
        for j, tj in enumerate(t):
            W.append(tj)
            W[start + j] = ar.ceildiv(W[start + j], tj)
        steps.append((start, t, units))
    V = list(delinearise(position, tuple(W), ar))
    for start, t, units in reversed(steps):
        k = len(t)
        within = V[len(V) - k:]
        del V[len(V) - k:]
        for j, tj in enumerate(t):
            V[start + j] = ar.add(ar.mul(V[start + j], tj), within[j])
        del V[:units]
    out = [None] * len(m2m)
    for p, d in enumerate(reversed(m2m)):
        out[d] = V[p]
    return tuple(out)


# --- checks ---------------------------------------------------------------------------

def _offsets_agree(shape: Shape, timeout, whole: bool, label: str):
    """A setup stating that LinearIndexForNestedTiling equals the spec's
    offset for every element (per fact, or ``whole`` as one equation); both
    checks start from it.  Returns the setup, the element, its box and XLA's
    form."""
    S = Setup([shape], timeout)
    ar, dims = S.ar, S.dims[0]
    e = tuple(z3.Int(internal_symbol(f"element{i}"), S.ctx) for i in range(shape.rank))
    box = S.box(e, dims)
    A, B = spec_form(shape, e, dims, ar), nested_form(shape, e, dims, ar)
    if whole or not add_same_offset(S.facts, A, B, box, ar):
        S.facts.fact(label, z3.And(box, ar._term(A.offset(ar)) != ar._term(B.offset(ar))))
    return S, e, box, B


def check_nested_linear_index(shape: Shape, *, timeout=DEFAULT_TIMEOUT, **_) -> Result:
    """LinearIndexForNestedTiling = the spec's offset, for every element."""
    start = time.perf_counter()
    no_split_configs(shape)
    _tiles(shape)

    def setup(whole: bool) -> Setup:
        return _offsets_agree(shape, timeout, whole, "LinearIndexForNestedTiling = "
                              "the spec's offset for every element")[0]

    def concrete(shapes):
        (s,) = shapes
        return _index_counterexample(s)

    return run("linear_index_nested", [shape], setup(False), concrete, start,
               whole=lambda: setup(True))


def check_nested_delinearize(shape: Shape, *, timeout=DEFAULT_TIMEOUT, **_) -> Result:
    """DelinearizeIndexForNestedTiling(the spec's offset of e) = e, for every
    element e: the spec's offset (= LinearIndexForNestedTiling, facts as in
    :func:`check_nested_linear_index`) has the final indices V as its digits
    in the final dims W (the mixed-radix lemma, V in the box of W), and
    undoing the splits of V gives e back (division by constants)."""
    start = time.perf_counter()
    no_split_configs(shape)
    _tiles(shape)

    def setup(whole: bool) -> Setup:
        S, e, box, B = _offsets_agree(shape, timeout, whole, "the spec's offset = "
                                      "LinearIndexForNestedTiling for every element")
        ar = S.ar
        S.facts.cite(len(B.dims))
        inside = [z3.And(ar._term(0) <= ar._term(v), ar._term(ar.lt(v, w)))
                  for v, w in zip(B.vector, B.dims)]
        S.facts.fact("every final index lies in its final dim (so the offset's digits "
                     "are the final indices: mixed-radix lemma)",
                     z3.And(box, z3.Not(z3.And(inside)) if inside else False))
        back = _undo_splits(shape, list(B.vector), ar)
        differs = [ar._term(x) != ar._term(y) for x, y in zip(back, e)]
        S.facts.fact("undoing each tile's split of the final indices gives the element",
                     z3.And(box, z3.Or(differs)) if differs else False)
        return S

    def concrete(shapes):
        (s,) = shapes
        return _delinearize_counterexample(s)

    return run("delinearize_nested", [shape], setup(False), concrete, start,
               whole=lambda: setup(True))


def _undo_splits(shape: Shape, V: list, ar) -> tuple:
    """The element whose final indices are V: the splits undone (the same
    reassembly as :func:`xla_nested_delinearize`, after its digits)."""
    m2m = shape.layout.minor_to_major
    n, steps = len(m2m), []
    for t in _tiles(shape):
        k, units = len(t), 0
        while n < k:
            n += 1
            units += 1
        steps.append((n - k, t, units))
        n += k
    for start, t, units in reversed(steps):
        k = len(t)
        within = V[len(V) - k:]
        del V[len(V) - k:]
        for j, tj in enumerate(t):
            V[start + j] = ar.add(ar.mul(V[start + j], tj), within[j])
        del V[:units]
    out = [None] * len(m2m)
    for p, d in enumerate(reversed(m2m)):
        out[d] = V[p]
    return tuple(out)


def _grid(s: Shape):
    dims = concrete_dims(s)
    if product(dims) == 0:
        return None
    if product(dims) <= reading.EXHAUSTIVE:
        return np.indices(dims, dtype=np.int64).reshape(len(dims), -1).T
    return reading.sample_elements(reading.Question(s, s), np.random.default_rng(0))


def _index_counterexample(s: Shape):
    grid = _grid(s)
    if grid is None:
        return None
    cols = tuple(grid[:, i] for i in range(grid.shape[1]))
    xla = np.broadcast_to(np.asarray(xla_nested_linear_index(s, cols), dtype=np.int64),
                          grid.shape[:1])
    bad = np.flatnonzero(xla != offsets(s, grid))
    if not bad.size:
        return None
    element = tuple(int(x) for x in grid[bad[0]])
    xla_v, spec_v = int(xla_nested_linear_index(s, element)), offset(s, element)
    if xla_v == spec_v:
        raise ProverBug(f"nested linear index witness {element} does not replay")
    return offsets_differ(s, element, xla_v, spec_v)


def _delinearize_counterexample(s: Shape):
    grid = _grid(s)
    if grid is None:
        return None
    for row in grid[:4096]:
        element = tuple(int(x) for x in row)
        o = offset(s, element)
        back = tuple(int(x) for x in xla_nested_delinearize(s, o))
        if back != element:
            text = format_shape(s)
            return Counterexample(
                {}, (Side("spec", element=element, offset=o, shape=text),
                     Side("xla", element=back, offset=o, shape=text)),
                what=f"XLA delinearizes offset {o} to {back}, not {element}")
    return None

