"""Bitcasts that change the element count or width: XLA's byte-size rule,
then the readings that pair elements across them, decided on every element.

``ShapeVerifier::HandleBitcast`` (xla/service/hlo_verifier.cc, ROCm/xla
183fa00cb5d82384463a1a7aed1ab06bc9026974) asks only that the operand and the
result take the same bytes (``ShapeUtil::ByteSizeOf``, padding included; with
``allow_bitcast_to_have_different_size``, the same
``ShapeUtil::ArrayDataSize``).  Equal bytes say nothing of which element
lies where; these readings do, on *units* (the narrower element type; a
wider element is its ``ratio`` units in memory order, as a
``bitcast-convert`` gives them its new most-minor dim,
``ShapeInference::InferBitcastConvertShape``), each side's units taken in
row-major order:

* ``reshape`` -- equal unit counts: unit i of SRC and unit i of DST take
  the same bits (at equal widths, a reshape whose elements change type);
* ``prefix`` -- the smaller count's unit i takes the bits of the larger's
  unit i for every i of the smaller count; the larger's units beyond lie
  on the smaller's padding (the TPU compiler's ``f32[1024]{0:T(1024)}`` ->
  ``f32[1000]{0:T(1024)}``: the result keeps the operand's first 1000
  elements, the last 24 lie on its padding);
* ``suffix`` -- the same, counted from the last unit;
* ``slice`` -- at equal widths and ranks, the smaller's element at each
  *physical* index (its dims in ``minor_to_major`` order, most major first)
  takes the bits of the larger's element at the same physical index: the
  smaller is the larger's slice at the origin, its other elements on the
  padding (every TPU compiler, libtpu 0.0.42.1, folds ``x.T[:25]`` of a
  ``u4[40,50]{1,0:T(8,128)(8,1)E(4)}`` into the bitcast to
  ``u4[25,40]{0,1:T(8,128)(8,1)E(4)}``: both are 40 rows of 128 padded
  columns).

Refuted where the byte sizes differ, or the count changes at equal width
and neither prefix nor suffix keeps the bits (these are the readings of a
count change); a width change no reshape of units explains is unknown, since
a transpose after the bitcast-convert's minor dim is a reading not modelled.

A reading is proved by enumerating every unit's bit offset with the spec's
evaluator (:func:`tilespec.spec.index.all_offsets`), exhaustive up to
:data:`~tilespec.prover.core.EXHAUSTIVE` units: a proof for these
dims; beyond, or with named dims, unknown.

>>> from tilespec.spec.text import parse_array_shape as shape
>>> r = resized(shape("f32[1024]{0:T(1024)}"), shape("f32[1000]{0:T(1024)}"))
>>> r.kind, r.result.status
('prefix', 'proved')
>>> resized(shape("f32[4]{0}"), shape("f32[2]{0}")).result.counterexample.what
"the byte sizes differ: XLA's verifier rejects the bitcast"
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass

import numpy as np

from ...spec import Shape, all_offsets, byte_size, concrete_dims, num_elements
from ..core import EXHAUSTIVE
from ..names import counted
from ..result import PROVED, REFUTED, UNKNOWN, Counterexample, ProverBug, Result, Side
from .reading import shape_text, size_counterexample

#: Where the byte-size rule comes from.
SOURCE = ("ShapeVerifier::HandleBitcast, xla/service/hlo_verifier.cc "
          "(ROCm/xla 183fa00cb5d82384463a1a7aed1ab06bc9026974)")

READINGS = ("reshape", "prefix", "suffix", "slice")


@dataclass(frozen=True)
class Resized:
    """The verdict on a count- or width-changing bitcast: ``kind`` the
    reading proved (``reshape``, ``prefix``, ``suffix``) or None, ``result``
    its Result, ``tried`` each reading with its Result."""

    kind: str | None
    result: Result
    tried: tuple[tuple[str, Result], ...] = ()


def changes_size(src: Shape, dst: Shape) -> bool:
    """Whether SRC -> DST changes the element width or count (concrete dims).

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> changes_size(shape("f32[8,16]{1,0}"), shape("f16[8,32]{1,0}"))
    True
    >>> changes_size(shape("f32[8,16]{1,0}"), shape("s32[128]{0}"))
    False
    """
    return src.element_bits != dst.element_bits or _count(src) != _count(dst)


def _count(s: Shape) -> int:
    return num_elements(s)


def _units(s: Shape, bits: int) -> np.ndarray:
    """The bit offset of every unit of ``bits`` bits of ``s``, row-major."""
    ratio = s.element_bits // bits
    base = all_offsets(s).reshape(-1).astype(object if _count(s) * ratio >= 2**40
                                             else np.int64) * s.element_bits
    return (base[:, None] + np.arange(ratio) * bits).reshape(-1)


def _side(name: str, s: Shape, unit: int, bits: int, at: int) -> Side:
    ratio = s.element_bits // bits
    dims = concrete_dims(s)  # resized() asks only about concrete dims
    e = tuple(int(x) for x in np.unravel_index(unit // ratio, dims)) if dims else ()
    if ratio > 1:
        e = e + (unit % ratio,)
    return Side(name, element=e, offset=at // s.element_bits, byte_offset=at // 8,
                bit_offset=at % 8 if bits < 8 else None, shape=shape_text(s))


def resized(src: Shape, dst: Shape) -> Resized:
    """The verdict on SRC -> DST where the element count or width changes
    (concrete dims): refuted where the byte sizes differ (XLA's rule), else
    proved as the first reading of :data:`READINGS` that keeps every unit's
    bits, refuted where each fails, unknown beyond the enumeration.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> r = resized(shape("f32[8,16]{1,0}"), shape("f16[8,32]{1,0}"))
    >>> r.kind, r.result.property
    ('reshape', 'bitcast (reshape of f16 units)')
    >>> r = resized(shape("f32[8]{0}"), shape("f32[6]{0:L(8)}"))
    >>> r.kind, r.result.steps[-1]
    ('prefix', 'SRC elements 6.. lie on the padding of DST')
    >>> r = resized(shape("f32[4,6]{1,0:T(4,8)}"), shape("f32[5,4]{0,1:T(4,8)}"))
    >>> r.kind, r.result.steps[-1]
    ('slice', "the SRC elements outside DST's physical box (4, 5) lie on the padding of DST")
    """
    start = time.perf_counter()
    text = f"{shape_text(src)} -> {shape_text(dst)}"
    bits = min(src.element_bits, dst.element_bits)
    unit = (src if src.element_bits == bits else dst).element_type
    what = "bitcast" if src.element_bits == dst.element_bits else f"bitcast of {unit} units"

    def result(status, prop=what, **kw) -> Result:
        return Result(text, prop, status, time.perf_counter() - start, "concrete",
                      shapes=(src, dst), **kw)

    size = size_counterexample(src, dst)
    if size is not None:
        ce = Counterexample({}, size.sides, what="the byte sizes differ: XLA's verifier "
                            "rejects the bitcast", details={**size.details, "xla": SOURCE})
        return Resized(None, result(REFUTED, counterexample=ce,
                                    reason=f"{SOURCE} requires equal byte sizes"))
    if bits == 0:      # a non-array type (opaque, token) beside an empty array
        narrow = src if src.element_bits == 0 else dst
        return Resized(None, result(UNKNOWN, reason=(
            f"{narrow.element_type} has no element width: no reading pairs its "
            "elements with the other side's")))
    if max(src.element_bits, dst.element_bits) % bits:
        return Resized(None, result(UNKNOWN, reason=(
            f"element widths {src.element_bits} and {dst.element_bits} do not divide: "
            "no reading pairs their elements")))
    ns = _count(src) * (src.element_bits // bits)
    nd = _count(dst) * (dst.element_bits // bits)
    if max(ns, nd) > EXHAUSTIVE or src.is_symbolic or dst.is_symbolic:
        return Resized(None, result(UNKNOWN, reason=(
            f"{max(ns, nd):,} units: beyond the enumeration that decides a count- or "
            "width-changing bitcast")))
    a, b = _units(src, bits), _units(dst, bits)
    n = min(ns, nd)
    tried: list[tuple[str, Result]] = []
    for kind in READINGS:
        if (kind == "reshape") != (ns == nd):
            continue
        if kind == "slice":
            boxed = _slice_reading(src, dst, result)
            if boxed is not None:
                tried.append(("slice", boxed))
                if boxed.status == PROVED:
                    return Resized("slice", boxed, tuple(tried))
            continue
        x, y = (a[:n], b[:n]) if kind != "suffix" else (a[ns - n:], b[nd - n:])
        bad = np.flatnonzero(x != y)
        prop = (f"bitcast ({kind})" if unit == src.element_type == dst.element_type
                else f"bitcast ({kind} of {unit} units)")
        if bad.size == 0:
            steps = [f"enumeration: {counted(n, f'paired {unit} unit', grouped=True)} "
                     f"{'takes' if n == 1 else 'all take'} the same bits "
                     "(exhaustive: a proof for these dims)",
                     f"the byte sizes agree ({byte_size(src)}): {SOURCE} accepts them"]
            if ns != nd:
                longer, other = ("SRC", "DST") if ns > nd else ("DST", "SRC")
                first, last = (n, max(ns, nd) - 1) if kind == "prefix" else (0, abs(ns - nd) - 1)
                unit_name = "elements" if bits == max(src.element_bits, dst.element_bits) \
                    else f"{unit} units"
                steps.append(f"{longer} {unit_name} {first}.. lie on the padding of {other}"
                             if kind == "prefix" else
                             f"{longer} {unit_name} 0..{last} lie on the padding of {other}")
            r = result(PROVED, prop, steps=tuple(steps))
            tried.append((kind, r))
            return Resized(kind, r, tuple(tried))
        i = int(bad[0])
        ia, ib = (i, i) if kind != "suffix" else (ns - n + i, nd - n + i)
        ce = Counterexample({}, (_side("source", src, ia, bits, int(x[i])),
                                 _side("target", dst, ib, bits, int(y[i]))),
                            kind, "the offsets differ")
        tried.append((kind, result(REFUTED, prop, counterexample=ce,
                                   steps=("enumeration of every unit",))))
    witness = tried[0][1].counterexample
    if witness is None:
        raise ProverBug(f"{text}: a reading refuted without its element")
    if src.element_bits != dst.element_bits:
        # a transpose after the new minor dim is a reading too, not modelled:
        # the failed reshape of units accuses nothing
        return Resized(None, result(UNKNOWN, reason=(
            "no " + " or ".join(k for k, _ in tried) + f" of {unit} units keeps every "
            "element's bits (each enumerated); a transpose after the bitcast-convert's "
            "minor dim is not modelled")), tuple(tried))
    return Resized(None, result(REFUTED, counterexample=witness, reason=(
        "no " + " or ".join(k for k, _ in tried) + " keeps every element's bits "
        "(each enumerated)")), tuple(tried))


def _physical(s: Shape) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The permutation putting ``s``'s dims in physical order (most major
    first), and its physical dims."""
    order = tuple(reversed(s.layout.minor_to_major))
    dims = concrete_dims(s)
    return order, tuple(dims[k] for k in order)


def _slice_reading(src: Shape, dst: Shape, result) -> Result | None:
    """The ``slice`` reading of an equal-width count change, or None where
    it does not apply (other widths or ranks, or neither physical box holds
    the other)."""
    if src.element_bits != dst.element_bits or src.rank != dst.rank or not src.rank:
        return None
    (ps, ds), (pd, dd) = _physical(src), _physical(dst)
    if all(a >= b for a, b in zip(ds, dd)):
        small, large, names = (dst, pd, dd), (src, ps, ds), ("SRC", "DST")
    elif all(a <= b for a, b in zip(ds, dd)):
        small, large, names = (src, ps, ds), (dst, pd, dd), ("DST", "SRC")
    else:
        return None
    (s_shape, s_order, s_box), (l_shape, l_order, _) = small, large
    s_offsets = all_offsets(s_shape).transpose(s_order)
    l_offsets = all_offsets(l_shape).transpose(l_order)[tuple(slice(0, n) for n in s_box)]
    bad = np.argwhere(s_offsets != l_offsets)
    prop = "bitcast (slice)"
    if bad.size == 0:
        return result(PROVED, prop, steps=(
            f"enumeration: every element of {names[1]}'s physical box {s_box} takes the "
            f"bits of {names[0]}'s at the same physical index (exhaustive: a proof for "
            "these dims)",
            f"the byte sizes agree ({byte_size(src)}): {SOURCE} accepts them",
            f"the {names[0]} elements outside {names[1]}'s physical box {s_box} lie on "
            f"the padding of {names[1]}"))
    p = tuple(int(x) for x in bad[0])

    def side(name, shape, order, offset):
        e = [0] * len(p)
        for k, x in zip(order, p):
            e[k] = x
        at = int(offset) * shape.element_bits
        return Side(name, element=tuple(e), offset=int(offset), byte_offset=at // 8,
                    bit_offset=at % 8 if shape.element_bits < 8 else None,
                    shape=shape_text(shape))
    sides = {id(s_shape): side("small", s_shape, s_order, s_offsets[p]),
             id(l_shape): side("large", l_shape, l_order, l_offsets[p])}
    ce = Counterexample({}, (dataclasses.replace(sides[id(src)], name="source"),
                             dataclasses.replace(sides[id(dst)], name="target")),
                        "slice", "the offsets differ")
    return result(REFUTED, prop, counterexample=ce, steps=("enumeration of every element",))
