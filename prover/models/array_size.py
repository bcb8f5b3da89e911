"""``ShapeUtil::ArraySize`` and ``LayoutUtil::MaxSplitSize`` against the spec.

Transcribed from openxla/xla at commit 22eee29e01 (2026-05-20):
``xla/shape_util.cc`` ``ShapeUtil::ArraySize`` and
``ShapeUtil::ByteSizeOfElements``, ``xla/layout_util.cc``
``LayoutUtil::MaxSplitSize``, ``xla/util.h`` ``RoundUpTo`` over
``tsl::MathUtil::CeilOfRatio`` (facts carried over, no code); checked against
the binary in jaxlib 0.10.2 (``on_device_size_in_bytes()`` on the CPU):

* untiled: ``ByteSizeOfElements``, the element count times the width (or
  ``ceil(count * E / 8)`` with ``E(n)``); ``L(n)`` is not applied
  (``f32[3]{0:L(4)}``: 12 bytes, the binary agrees);
* tiled: the *first* tile only -- each of its entries rounds the matching
  minor dim (or 1 past the rank) up to a multiple, the other dims are
  multiplied as they are -- then ``L(n)``, then ``E(n)`` or the width;
* every dim is first replaced by ``MaxSplitSize``: with a split config
  ``SC(d:i1,...)`` on the dim at physical position ``d`` (0 = most major), the
  largest of the parts ``i1, i2-i1, ..., dim-ik`` (the split indices are read
  as 32-bit ``int``); ``f32[10,6]{1,0:T(2,2)SC(0:3,5)}``: 144 bytes, binary too;
* a ``*`` entry (``kCombineDimension``, INT64_MIN) is not implemented:
  ``RoundUpTo(d, INT64_MIN)`` is ``CeilOfRatio(d, INT64_MIN) * INT64_MIN = 0``
  for every ``d >= 0``, so ArraySize is 0.  jaxlib 0.10.2 does not get that
  far: its layout check rejects a negative tile entry (``RET_CHECK dimension
  >= 0``, ``xla/layout.h``);
* every step is ``int64_t``: past 2^63-1 a product overflows (undefined
  behaviour) and the binary returns the wrapped value, which
  :func:`xla_array_bytes` returns too (``f32[2]{0:T(2)L(4611686018427387904)}``:
  0 bytes; ``...L(9223372036854775807)}``: -4, which the CPU client reports
  as the unsigned 2^64-4); :func:`array_size_behaviour` names the overflow.
"""

from __future__ import annotations

import time

from ...spec import (
    COMBINE,
    INT,
    Arithmetic,
    Pad,
    Shape,
    Split,
    aligned_elements,
    byte_size,
    concrete_dims,
    dims_through,
    format_shape,
    product,
    shape_pipeline,
)
from ..core import DEFAULT_TIMEOUT, group
from ..result import WRAPS, Counterexample, Result, Side, XlaBehaviour
from .cpp import Int64, wrap32, wrap64
from .rule_check import (
    RuleNotApplicable,
    Setup,
    behaviour_result,
    level_conditions,
    physical,
    prove_loop_identity,
    run,
)
from .versions import ABSL_MACROS, EVERY_VERSION, XlaModel

#: The C++ transcribed here, and the XLA versions it holds for: the
#: functions' text is the same at every modelled commit (tools/xla_model_history.py).
XLA_MODELS = (
    XlaModel("ShapeUtil::ArraySize", "xla/shape_util.cc", ABSL_MACROS, EVERY_VERSION),
    XlaModel("ShapeUtil::ByteSizeOfElements", "xla/shape_util.cc", ABSL_MACROS, EVERY_VERSION),
    XlaModel("LayoutUtil::MaxSplitSize", "xla/layout_util.cc", ABSL_MACROS, EVERY_VERSION),
)

SOURCE = ("openxla/xla xla/shape_util.cc (ShapeUtil::ArraySize, ByteSizeOfElements) and "
          "xla/layout_util.cc (LayoutUtil::MaxSplitSize), commit 22eee29e01 (2026-05-20)")
ARRAY_SIZE = "ShapeUtil::ArraySize"


def max_split_size(shape: Shape, dim: int, dims=None, ar: Arithmetic = INT):
    """LayoutUtil::MaxSplitSize: the largest part of logical dim ``dim``
    under its split config, else the dim itself.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> s = shape("f32[10,6]{1,0:T(2,2)SC(0:3,5)}")
    >>> max_split_size(s, 0), max_split_size(s, 1)
    (5, 6)
    """
    dims = concrete_dims(shape) if dims is None else tuple(dims)
    layout, rank = shape.layout, len(dims)
    for config in layout.split_configs:
        # Major(layout, p) = minor_to_major[rank - 1 - p]: p counts from the major end
        if layout.minor_to_major[rank - 1 - config.dimension] != dim:
            continue
        if not isinstance(dims[dim], int):
            raise RuleNotApplicable(
                f"split config on dim {dim}, whose size is a name: give it a size")
        best, last = 0, 0
        for index in config.split_indices:
            index = wrap32(index)
            best, last = max(best, index - last), index
        return max(best, dims[dim] - last)
    return dims[dim]


def _round_up(d, t, ar):
    """RoundUpTo(d, t); a '*' entry is INT64_MIN, and CeilOfRatio(d, INT64_MIN)
    truncates toward zero with no adjustment for a negative divisor: 0."""
    if t == COMBINE:
        return 0
    return ar.mul(ar.ceildiv(d, t), t)


def _split_physical(shape: Shape, dims, ar):
    """MaxSplitSize of each dim, in physical order (i = 0 most minor)."""
    if not shape.layout.split_configs:
        return physical(shape, dims)
    return [max_split_size(shape, d, dims, ar) for d in shape.layout.minor_to_major]


def xla_array_size(shape: Shape, dims=None, ar: Arithmetic = INT):
    """ShapeUtil::ArraySize, in elements: first tile only, L only if tiled,
    each dim its MaxSplitSize, a '*' entry makes it 0.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> xla_array_size(shape("bf16[3,5]{1,0:T(8,128)(2,1)}")), xla_array_size(shape("f32[3]{0:L(4)}"))
    (1024, 3)
    >>> xla_array_size(shape("f32[3,5]{1,0:T(*,2)}"))
    0
    """
    dims = concrete_dims(shape) if dims is None else tuple(dims)
    tiles = shape.layout.tiles
    if not tiles:
        # ByteSizeOfElements: ElementsIn, no split configs, no L
        return product(physical(shape, dims), ar)
    P = _split_physical(shape, dims, ar)
    t = tiles[0].sizes
    k, r = len(t), len(P)
    n = 1
    for i in range(k):
        n = ar.mul(n, _round_up(P[i] if i < r else 1, t[k - 1 - i], ar))
    for i in range(k, r):
        n = ar.mul(n, P[i])
    L = shape.layout.tail_padding_alignment_in_elements
    return n if L == 1 else ar.mul(ar.ceildiv(n, L), L)


def xla_array_bytes(shape: Shape) -> int:
    """ArraySize in bytes, as XLA returns it: ceil(N*E/8) with E(n), else N
    times the byte width, every step in int64 (wrapped where it overflows:
    :func:`array_size_int64` says where).

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> xla_array_bytes(shape("f32[2]{0:T(2)L(4611686018427387904)}"))
    0
    >>> xla_array_bytes(shape("f32[2]{0:T(2)L(9223372036854775807)}"))
    -4
    """
    return array_size_int64(shape)[0]


def array_size_int64(shape: Shape) -> tuple[int, Int64]:
    """ShapeUtil::ArraySize in bytes on concrete dims, step by step in
    ``int64_t`` (``RoundUpTo(v, t)`` is ``CeilOfRatio(v, t) * t``): the
    value XLA returns (two's-complement wrap-around where a product
    overflows) and the evaluation, whose :meth:`~.cpp.Int64.undefined` names
    the first overflow.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> v, c = array_size_int64(shape("f32[2]{0:T(2)L(4611686018427387904)}"))
    >>> v, c.overflow
    (0, 'num_of_elements * ByteSizeOfPrimitiveType = 18446744073709551616 overflows int64')
    """
    c = Int64(ARRAY_SIZE, SOURCE)
    dims = concrete_dims(shape)
    layout = shape.layout
    if not layout.tiles:
        n = 1
        for d in dims:
            n = c.mul(n, d, "ElementsIn")
    else:
        P = _split_physical(shape, dims, INT)
        t = layout.tiles[0].sizes
        k, r = len(t), len(P)
        n = 1
        for i in range(k):
            d = P[i] if i < r else 1
            n = c.mul(n, c.mul(c.ceil_of_ratio(d, t[k - 1 - i], "RoundUpTo(dim_size, tile)"),
                               t[k - 1 - i], "RoundUpTo(dim_size, tile)"),
                      "num_of_elements *= RoundUpTo(...)")
        for i in range(k, r):
            n = c.mul(n, P[i], "num_of_elements *= dim_size")
        L = layout.tail_padding_alignment_in_elements
        if L != 1:
            n = c.mul(c.ceil_of_ratio(n, L, "RoundUpTo(num_of_elements, L)"), L,
                      "RoundUpTo(num_of_elements, L)")
    if layout.element_size_in_bits:
        bits = c.mul(n, layout.element_size_in_bits, "num_elements * element_size_in_bits")
        return c.ceil_of_ratio(bits, 8, "CeilOfRatio(num_bits, CHAR_BIT)"), c
    return c.mul(n, shape.element_bits // 8, "num_of_elements * ByteSizeOfPrimitiveType"), c


def split_index_wraps(shape: Shape) -> XlaBehaviour | None:
    """MaxSplitSize reads each split index into a C++ ``int``: an index past
    2^31-1 wraps (defined, modulo 2^32, since C++20), and ArraySize is
    computed from the wrapped index.  None where no index wraps.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> b = split_index_wraps(shape("f32[4294967296]{0:T(2)SC(0:3000000000)}"))
    >>> b.kind, b.value
    ('wraps', 22359738368)
    """
    for config in shape.layout.split_configs:
        for index in config.split_indices:
            if wrap32(index) != index:
                return XlaBehaviour(
                    WRAPS, "LayoutUtil::MaxSplitSize",
                    f"split index {index} read as a 32-bit int is {wrap32(index)}, so "
                    "ShapeUtil::ArraySize sizes the split from it", xla_array_bytes(shape),
                    SOURCE)
    return None


def array_size_behaviour(shape: Shape) -> XlaBehaviour | None:
    """How ArraySize overflows on this concrete shape (None if it does
    not): the operation and the wrapped value XLA returns.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> array_size_behaviour(shape("f32[2]{0:T(2)L(9223372036854775807)}")).value
    -4
    """
    value, c = array_size_int64(shape)
    return c.undefined(value)


def xla_size_form(shape: Shape, dims, ar) -> tuple[tuple, bool]:
    """ArraySize's factors before L, most major first, and whether L applies:
    untiled major dims, then each tiled dim's tile count, then the tile (a
    '*' entry: count 0, size 1)."""
    tiles = shape.layout.tiles
    if not tiles:
        return tuple(reversed(physical(shape, dims))), False
    P = _split_physical(shape, dims, ar)
    t = tiles[0].sizes
    k, r = len(t), len(P)
    major = [P[i] for i in range(r - 1, k - 1, -1)]
    counts, sizes = [], []
    for i in range(k - 1, -1, -1):
        ti = t[k - 1 - i]
        if ti == COMBINE:
            counts.append(0)
            sizes.append(1)
            continue
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
    xla = {"elements": wrap64(xla_array_size(shape)), "bytes": xla_array_bytes(shape)}
    spec = {"elements": aligned_elements(shape), "bytes": byte_size(shape)}
    return xla, spec


def _size_conditions(shape: Shape, dims=None, ar=INT):
    levels = range(2, len(shape.layout.tiles) + 1)
    return level_conditions(shape, concrete_dims(shape) if dims is None else dims,
                            ar, set(levels), order=False)


def check_array_size(shape: Shape, *, timeout=DEFAULT_TIMEOUT,
                     assume_conditions=False) -> Result:
    """ArraySize in bytes = the spec's byte size; on a concrete shape where
    XLA's int64 arithmetic overflows, the result says so and gives the
    value XLA returns (:attr:`Result.xla`)."""
    start = time.perf_counter()
    if not shape.is_symbolic:
        wrapped = array_size_behaviour(shape) or split_index_wraps(shape)
        if wrapped is not None:
            text = format_shape(shape)
            return behaviour_result("array_size", [shape], wrapped, start, (
                Side("xla", shape=text, value=wrapped.value),
                Side("spec", shape=text, value=byte_size(shape))),
                details={"elements": {"xla": wrap64(xla_array_size(shape)),
                                      "spec": aligned_elements(shape)}})

    def concrete(shapes):
        (s,) = shapes
        xla, spec = _size_values(s)
        # ArraySize is a byte count: with E(n), equal bytes can hold
        # different element counts (padding inside the last byte)
        if xla["bytes"] == spec["bytes"]:
            return None
        text = format_shape(s)
        return Counterexample(
            {}, (Side("xla", shape=text, value=xla["bytes"]),
                 Side("spec", shape=text, value=spec["bytes"])),
            what=f"XLA's ArraySize is {xla['bytes']} bytes, the spec's {spec['bytes']}",
            details={"elements": {"xla": xla["elements"], "spec": spec["elements"]}})

    return run("array_size", [shape],
               _size_setup(shape, timeout, assume_conditions, whole=False), concrete, start,
               [lambda ss: _size_conditions(ss[0])] if assume_conditions else (),
               whole=lambda: _size_setup(shape, timeout, assume_conditions, whole=True))


def _size_setup(shape: Shape, timeout, assume_conditions: bool, whole: bool) -> Setup:
    """The facts for ArraySize = the spec's byte size: level by level
    (later levels pad nothing, the first level's dims equal XLA's factors:
    equal elements, so equal bytes), which suffices but is not needed (L(n)
    can absorb a later level's padding, E(n) padding inside the last byte);
    or, ``whole``, the two byte sizes compared as one equation."""
    S = Setup([shape], timeout)
    ar, dims = S.ar, S.dims[0]
    L = shape.layout.tail_padding_alignment_in_elements
    # the identity holds for any dims, so for the MaxSplitSize of each
    S.facts.cite_lemma(size_loop_identity(shape.layout.replace(split_configs=()),
                                          shape.rank, shape.element_type))
    if shape.layout.split_configs:
        S.facts.note("XLA replaces each dim by its MaxSplitSize before the loop")
    stages = shape_pipeline(shape)
    through = dims_through(stages, dims, ar)
    W, tiled = xla_size_form(shape, dims, ar)
    if assume_conditions:
        for label, c in _size_conditions(shape, dims, ar):
            S.facts.assume(ar.term(c))
            S.facts.note(f"assumed: {label}")
    # The spec's size after the first level, T1; later levels keep the
    # product when they pad nothing (linear facts, stage by stage).
    first = max([i for i, st in enumerate(stages) if st.level <= 1], default=-1) + 1
    T1 = through[first]
    for i in range(len(stages) if whole else first, len(stages)):
        st, d_in, d_out = stages[i], through[i], through[i + 1]
        sizes = st.sizes if isinstance(st, (Pad, Split)) else ()
        k = len(sizes)
        for j in range(k):
            x, t = d_in[len(d_in) - k + j], sizes[j]
            if isinstance(st, Pad) and t != 1:
                S.facts.fact(f"level {st.level} pads no entry {j}: its dim stays",
                             ar.term(d_out[len(d_out) - k + j]) != ar.term(x))
            elif isinstance(st, Split) and t != 1:
                S.facts.fact(f"level {st.level} splits entry {j} into factors of it",
                             ar.term(ar.mul(ar.ceildiv(x, t), t)) != ar.term(x))
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
                             ar.term(a) != ar.term(b))
        S.facts.note("the other factors are constants with equal products")
    else:
        spec = byte_size(shape, dims, ar)
        xla = product(W, ar)
        if tiled and L != 1:
            xla = _round_up(xla, L, ar)   # XLA's RoundUpTo, not the spec's
        # XLA's bytes, as xla_array_bytes computes them (without E(n) the
        # bits are whole bytes and nothing is rounded)
        S.facts.fact("spec's byte size = XLA's ArraySize in bytes",
                     ar.term(spec)
                     != ar.term(ar.ceildiv(ar.mul(xla, shape.element_bits), 8)))
    return S
