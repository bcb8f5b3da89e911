"""``ShapeUtil::ArraySize`` (openxla/xla xla/shape_util.cc) against the spec."""

from __future__ import annotations

import time


from ..spec.arith import INT, Arithmetic
from ..spec.index import Pad, Split, concrete_dims, dims_through, product, shape_pipeline
from ..spec.layout import COMBINE, Shape
from ..spec.size import aligned_elements, byte_size
from ..spec.text import format_shape

from .linform import group
from .rule_check import (Setup, level_conditions, no_split_configs, physical,
                         prove_loop_identity, run)
from .solve import DEFAULT_TIMEOUT


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
    no_split_configs(shape)
    dims = concrete_dims(shape) if dims is None else tuple(dims)
    tiles = shape.layout.tiles
    P = physical(shape, dims)
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
    P = physical(shape, dims)
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

def _size_loop(shape, e, dims, ar):
    return xla_array_size(shape.with_layout(shape.layout.replace(
        tail_padding_alignment_in_elements=1)), dims, ar)


def _size_factors(shape, e, dims, ar):
    return product(xla_size_form(shape, dims, ar)[0], ar)


def size_loop_identity(layout, rank: int, element_type: str = "f32"):
    """ArraySize's loop is the product of :func:`xla_size_form`'s factors."""
    return prove_loop_identity("array_size", layout, rank, element_type,
                               _size_loop, _size_factors)


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
    no_split_configs(shape)

    def concrete(shapes):
        (s,) = shapes
        xla, spec = _size_values(s)
        if xla["elements"] == spec["elements"]:
            return None
        return {"shape": format_shape(s), "xla": xla, "spec": spec}

    return run("array_size", [shape],
               _size_setup(shape, timeout, assume_conditions, whole=False), concrete, start,
               [lambda ss: _size_conditions(ss[0])] if assume_conditions else (),
               whole=lambda: _size_setup(shape, timeout, assume_conditions, whole=True))


def _size_setup(shape: Shape, timeout, assume_conditions: bool, whole: bool) -> Setup:
    """The facts for ArraySize = the spec's aligned size: level by level
    (later levels pad nothing, the first level's dims equal XLA's factors),
    which suffices but is not needed (L(n) can absorb a later level's
    padding); or, ``whole``, the two sizes compared as one equation."""
    S = Setup([shape], timeout)
    ar, dims = S.ar, S.dims[0]
    L = shape.layout.tail_padding_alignment_in_elements
    S.facts.cite_lemma(size_loop_identity(shape.layout, shape.rank,
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
    for i in range(len(stages) if whole else first, len(stages)):
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
    if not whole and first < len(stages):
        S.facts.note("prepending unit dims, '*' combinations and permutations keep "
                     "the product of the dims")
    g = None if whole else group(T1, W)
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
    return S
