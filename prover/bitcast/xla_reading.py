"""A bitcast decomposed as XLA's ``ShapeUtil::DecomposeBitcast`` does, judged
on physical bytes.

XLA reads a bitcast from SRC to DST as one of three logical operations, tried
in this order:

* a *reshape* (``ReshapeIsBitcast``);
* a *transpose* whose permutation XLA deduces from the two layouts
  (``DeduceTransposeDimensionsForBitcast``: DST dim ``mtm_dst[k]`` is SRC dim
  ``mtm_src[k]``, ``mtm`` the dims from most major to most minor), when the
  ranks agree and the dims line up;
* a *transpose-reshape-transpose* (TRT): SRC transposed into its dims in
  physical order with a descending layout (the same bytes), a row-major
  reshape, then a transpose into DST.  Its two transposes move no byte by
  construction, so the TRT is a bitcast exactly when the middle reshape is.

XLA's predicates look at dims and layouts only.  This module holds XLA's
reading of the layouts (the permutation it deduces, the TRT's shapes) and
maps a TRT's counterexample back to SRC and DST elements; the decision, in
this order and judged on bytes, is :func:`tilespec.prover.bitcast.decomposition.is_bitcast`.

>>> from tilespec.spec.text import parse_array_shape as shape
>>> transpose_candidates(shape("f32[4,8]{1,0}"), shape("f32[8,4]{0,1}"))
[(1, 0)]
"""

from __future__ import annotations

import dataclasses

from ...spec import Shape
from ..result import Counterexample
from .reading import moved_element, size_counterexample

TRT = "transpose-reshape-transpose"
#: At most this many permutations are tried for a transpose (repeated dims).
MAX_PERMUTATIONS = 24


# --- XLA's reading of the layouts ---------------------------------------------------------

def major_to_minor(shape: Shape) -> tuple[int, ...]:
    """Dim numbers from most major to most minor (XLA's ``LayoutPerm``)."""
    return tuple(reversed(shape.layout.minor_to_major))


def inverse(p) -> tuple[int, ...]:
    out = [0] * len(p)
    for i, x in enumerate(p):
        out[x] = i
    return tuple(out)


def xla_transpose_permutation(src: Shape, dst: Shape) -> tuple[int, ...] | None:
    """The permutation XLA's ``DeduceTransposeDimensionsForBitcast`` gives, or
    None: DST dim ``i`` is SRC dim ``P[i]`` where both sit at the same
    physical position.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> xla_transpose_permutation(shape("f32[2,3,4]{2,1,0}"), shape("f32[2,4,3]{1,2,0}"))
    (0, 2, 1)
    """
    if src.rank != dst.rank:
        return None
    a, b = major_to_minor(src), major_to_minor(dst)
    p = tuple(a[k] for k in inverse(b))
    if tuple(src.dims[x] for x in p) != tuple(dst.dims):
        return None
    return p


def transpose_candidates(src: Shape, dst: Shape) -> list[tuple[int, ...]]:
    """Every permutation P with ``dst.dims[i] == src.dims[P[i]]`` (XLA's first),
    at most :data:`MAX_PERMUTATIONS`."""
    if src.rank != dst.rank:
        return []
    out = []
    first = xla_transpose_permutation(src, dst)
    if first is not None:
        out.append(first)

    def extend(prefix, used):
        if len(out) >= MAX_PERMUTATIONS:
            return
        i = len(prefix)
        if i == dst.rank:
            if prefix not in out:
                out.append(prefix)
            return
        for j in range(src.rank):
            if j not in used and src.dims[j] == dst.dims[i]:
                extend(prefix + (j,), used | {j})

    extend((), frozenset())
    return out


def normalized(shape: Shape) -> Shape:
    """The same bytes as a shape whose dims are in physical order with a
    descending layout (XLA's ``MakeShapeWithDescendingLayoutAndSamePhysicalLayout``):
    tiles and every other field stay, since they act on physical dims."""
    mtm = major_to_minor(shape)
    return Shape(shape.element_type, tuple(shape.dims[i] for i in mtm),
                 shape.layout.replace(minor_to_major=tuple(range(shape.rank - 1, -1, -1))),
                 tuple(shape.dynamic[i] for i in mtm))


# --- counterexamples in SRC and DST elements --------------------------------------------

def trt_counterexample(src: Shape, dst: Shape, reshape_ce: Counterexample) -> Counterexample:
    """The TRT's counterexample in SRC and DST elements, from the middle
    reshape's (between the physically ordered shapes); replayed on the
    spec's offsets (ProverBug if it does not).  A reshape refuted on its
    sizes is refuted on SRC's and DST's (the same bytes)."""
    values = dict(reshape_ce.dim_values)
    s, d = (src.instantiate(values), dst.instantiate(values)) if values else (src, dst)
    ce = dataclasses.replace(reshape_ce, reading=TRT)
    source, target = reshape_ce.side("source"), reshape_ce.side("target")
    if source.element is None or target.element is None:
        size = size_counterexample(s, d)
        return ce if size is None else dataclasses.replace(size, dim_values=values, reading=TRT)
    e, f = [0] * src.rank, [0] * dst.rank
    for i, x in enumerate(major_to_minor(src)):
        e[x] = source.element[i]
    for k, x in enumerate(major_to_minor(dst)):
        f[x] = target.element[k]
    moved = moved_element(s, d, e, f, TRT)
    return dataclasses.replace(ce, sides=moved.sides)
