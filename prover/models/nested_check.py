"""XLA's nested-tiling index functions checked against the spec, at the
XLA version asked (:mod:`.nested_tiling` holds the two versions of the
functions): LinearIndexForNestedTiling equals the spec's offset, and
DelinearizeIndexForNestedTiling gives back the element at its offset, for
every element; where XLA gives no value (an abort, undefined behaviour) the
result says so.

>>> from tilespec.spec.text import parse_array_shape as shape
>>> r = check_nested_linear_index(shape("f32[200]{0:T(8,128)}"), xla="2026-05-22")
>>> r.status, r.xla.kind, r.xla_version.short
('refuted', 'aborts', '2c731115ef')
>>> r = check_nested_linear_index(shape("f32[200]{0:T(8,128)}"))
>>> r.status, r.xla_version.short
('proved', '183fa00cb5')
"""

from __future__ import annotations

import dataclasses
import functools
import time

import numpy as np
import z3

from ...spec import Shape, format_shape, offset, offsets
from ..core import DEFAULT_TIMEOUT, add_same_offset, element_grid, internal_symbol, spec_form
from ..result import Counterexample, ProverBug, Result, Side
from .cpp import XlaGivesNoValue
from .nested_tiling import (
    XLA_MODELS,
    check_tile_ranks,
    delinearize_reads_in_bounds,
    final_dims,
    nested_delinearize_int64,
    nested_form,
    nested_linear_index_int64,
    reassemble,
    source_at,
    xla_nested_delinearize,
    xla_nested_linear_index,
)
from .rule_check import Setup, behaviour_result, int64_check, no_split_configs, offsets_differ, run
from .versions import XlaCommit, resolve

# The checks are of the nested-tiling functions, in their versions.
__all__ = ["XLA_MODELS", "check_nested_delinearize", "check_nested_linear_index"]


def _offsets_agree(shape: Shape, timeout, whole: bool, label: str, xla: XlaCommit):
    """A setup stating that LinearIndexForNestedTiling equals the spec's
    offset for every element (per fact, or ``whole`` as one equation); both
    checks start from it.  Returns the setup, the element, its box and XLA's
    form."""
    S = Setup([shape], timeout)
    ar, dims = S.ar, S.dims[0]
    e = tuple(z3.Int(internal_symbol(f"element{i}"), S.ctx) for i in range(shape.rank))
    box = S.box(e, dims)
    A, B = spec_form(shape, e, dims, ar), nested_form(shape, e, dims, ar, xla)
    if whole or not add_same_offset(S.facts, A, B, box, ar):
        S.facts.fact(label, z3.And(box, ar.term(A.offset(ar)) != ar.term(B.offset(ar))))
    return S, e, box, B


def check_nested_linear_index(shape: Shape, *, timeout=DEFAULT_TIMEOUT,
                              xla: XlaCommit | str | None = None, **_) -> Result:
    """LinearIndexForNestedTiling at ``xla`` = the spec's offset, for every
    element.  Where XLA aborts (a tile longer than the dims, before
    1f375f52d4) or overflows (a ``*`` entry, at every version), the result
    says so (:attr:`Result.xla`); it names the version it is about."""
    at = resolve(xla)
    source_at(at)
    return dataclasses.replace(_check_linear(shape, timeout, at), xla_version=at)


def _check_linear(shape: Shape, timeout, at: XlaCommit) -> Result:
    start = time.perf_counter()
    no_split_configs(shape)
    try:
        check_tile_ranks(shape, at)
    except XlaGivesNoValue as stop:
        zero = (0,) * shape.rank
        return behaviour_result("linear_index_nested", [shape], stop.behaviour, start, (
            Side("xla", shape=format_shape(shape)),
            Side("spec", element=zero, offset=0, shape=format_shape(shape))))
    if any(t.combines for t in shape.layout.tiles):
        return int64_check("linear_index_nested", shape,
                           functools.partial(nested_linear_index_int64, xla=at), start)

    def setup(whole: bool) -> Setup:
        return _offsets_agree(shape, timeout, whole, "LinearIndexForNestedTiling = "
                              "the spec's offset for every element", at)[0]

    def concrete(shapes):
        (s,) = shapes
        return _index_counterexample(s, at)

    return run("linear_index_nested", [shape], setup(False), concrete, start,
               whole=lambda: setup(True))


def check_nested_delinearize(shape: Shape, *, timeout=DEFAULT_TIMEOUT,
                             xla: XlaCommit | str | None = None, **_) -> Result:
    """DelinearizeIndexForNestedTiling(the spec's offset of e) = e, for every
    element e: the spec's offset (= LinearIndexForNestedTiling, facts as in
    :func:`check_nested_linear_index`) has the final indices V as its digits
    in the final dims W (the mixed-radix lemma, V in the box of W), and
    undoing the splits of V gives e back (division by constants).  A tile
    longer than the dims (an out-of-bounds read) and a ``*`` entry (``% 0``)
    are undefined behaviour for every size: the result says so.  The result
    names the version ``xla`` it is about."""
    at = resolve(xla)
    source_at(at)
    return dataclasses.replace(_check_delinearize(shape, timeout, at), xla_version=at)


def _check_delinearize(shape: Shape, timeout, at: XlaCommit) -> Result:
    start = time.perf_counter()
    no_split_configs(shape)
    text = format_shape(shape)
    try:
        delinearize_reads_in_bounds(shape, at)
        if any(t.combines for t in shape.layout.tiles) and shape.rank:
            ones = shape.instantiate({n: 1 for n in shape.names})
            nested_delinearize_int64(ones, 0, at)
            raise ProverBug(f"DelinearizeIndexForNestedTiling divides by a nonzero "
                            f"'*' count on {text}")
    except XlaGivesNoValue as stop:
        return behaviour_result("delinearize_nested", [shape], stop.behaviour, start,
                                (Side("xla", shape=text),
                                 Side("spec", element=(0,) * shape.rank, offset=0,
                                      shape=text)))

    def setup(whole: bool) -> Setup:
        S, e, box, B = _offsets_agree(shape, timeout, whole, "the spec's offset = "
                                      "LinearIndexForNestedTiling for every element", at)
        ar = S.ar
        S.facts.cite(len(B.dims))
        inside = [z3.And(ar.term(0) <= ar.term(v), ar.term(ar.lt(v, w)))
                  for v, w in zip(B.vector, B.dims)]
        S.facts.fact("every final index lies in its final dim (so the offset's digits "
                     "are the final indices: mixed-radix lemma)",
                     z3.And(box, z3.Not(z3.And(inside)) if inside else False))
        _, steps = final_dims(shape, S.dims[0], ar) if shape.rank else ([], [])
        back = reassemble(shape, list(B.vector), steps, ar)
        differs = [ar.term(x) != ar.term(y) for x, y in zip(back, e)]
        S.facts.fact("undoing each tile's split of the final indices gives the element",
                     z3.And(box, z3.Or(differs)) if differs else False)
        return S

    def concrete(shapes):
        (s,) = shapes
        return _delinearize_counterexample(s, at)

    return run("delinearize_nested", [shape], setup(False), concrete, start,
               whole=lambda: setup(True))


def _index_counterexample(s: Shape, at: XlaCommit):
    grid = element_grid(s)
    if grid is None:
        return None
    cols = tuple(grid[:, i] for i in range(grid.shape[1]))
    xla = np.broadcast_to(np.asarray(xla_nested_linear_index(s, cols, xla=at), dtype=np.int64),
                          grid.shape[:1])
    bad = np.flatnonzero(xla != offsets(s, grid))
    if not bad.size:
        return None
    element = tuple(int(x) for x in grid[bad[0]])
    xla_v, spec_v = int(xla_nested_linear_index(s, element, xla=at)), offset(s, element)
    if xla_v == spec_v:
        raise ProverBug(f"nested linear index witness {element} does not replay")
    return offsets_differ(s, element, xla_v, spec_v)


def _delinearize_counterexample(s: Shape, at: XlaCommit):
    grid = element_grid(s)
    if grid is None:
        return None
    for row in grid[:4096]:
        element = tuple(int(x) for x in row)
        o = offset(s, element)
        back = tuple(int(x) for x in xla_nested_delinearize(s, o, xla=at))
        if back != element:
            text = format_shape(s)
            return Counterexample(
                {}, (Side("spec", element=element, offset=o, shape=text),
                     Side("xla", element=back, offset=o, shape=text)),
                what=f"XLA delinearizes offset {o} to {back}, not {element}")
    return None

