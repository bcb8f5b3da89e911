"""Numpy and DLPack strides to and from untiled layouts.

**Strides** (numpy, DLPack): :func:`strides` gives an untiled layout's
strides, :func:`from_strides` a layout from dense strides.  ``unit`` says
whether strides count elements (DLPack) or bytes (numpy); a byte is
``storage_bits`` of the type (one byte per ``s4`` element, as numpy and
ml_dtypes store it).

>>> strides("f32[3,5]{0,1}")
(1, 3)
>>> from_strides((3, 5), (4, 12), "f32", unit="bytes")
Shape(element_type='f32', dims=(3, 5), layout=Layout(minor_to_major=(0, 1), ...), dynamic=(False, False))
"""

from __future__ import annotations

from typing import Sequence

from ..spec import (
    BIT_WIDTHS,
    DimValues,
    Layout,
    LayoutError,
    Shape,
    ShapeError,
    ShapeLike,
    as_shape,
    concrete_dims,
    storage_bits,
)

_UNITS = ("elements", "bytes")


def _unit_size(element_type: str, unit: str) -> int:
    if unit not in _UNITS:
        raise ShapeError(f"unit {unit!r} is not one of {', '.join(_UNITS)}")
    return storage_bits(element_type) // 8 if unit == "bytes" else 1


def strides(shape: ShapeLike, unit: str = "elements", *,
            dims: DimValues | None = None) -> tuple[int, ...]:
    """Each dim's stride in an untiled layout: the product of the more minor dims.

    A tiled layout has none (an offset is not a sum of index times stride),
    nor has a packed sub-byte one in bytes.

    >>> strides("f32[3,5]{1,0}", unit="bytes")
    (20, 4)
    """
    s = as_shape(shape, dims)
    if s.layout.tiles:
        raise LayoutError(f"{s} is tiled: its offsets are not index times stride "
                          "(cute_layout gives nested strides)")
    if unit == "bytes" and s.layout.element_size_in_bits:
        raise LayoutError(f"{s} packs elements into E({s.layout.element_size_in_bits}) "
                          "bits: a stride in bytes would be a fraction")
    size = _unit_size(s.element_type, unit)
    d = concrete_dims(s)
    out = [0] * s.rank
    step = size
    for i in s.layout.minor_to_major:
        out[i] = step
        step *= d[i]
    return tuple(out)


def from_strides(dims: Sequence[int], strides: Sequence[int], element_type: str,
                 unit: str = "elements") -> Shape:
    """The shape whose untiled layout has these (dense) strides.

    A dim of size 1 may have any stride (numpy gives it one anyway); dims
    with equal strides keep their numbering order (row-major).  Strides that
    leave gaps, repeat elements (0), run backwards (negative) or are not
    whole elements have no XLA layout: a :class:`LayoutError` says which.

    >>> from_strides((2, 1, 3), (3, 3, 1), "s32").layout.minor_to_major   # numpy C order
    (2, 1, 0)
    >>> from_strides((4, 6), (1, 8), "f32")
    Traceback (most recent call last):
    ...
    tilespec.spec.errors.LayoutError: strides (1,8) of dims (4,6) are not dense: dim 1 has a stride of 8 elements where a dense layout has 4
    """
    if element_type not in BIT_WIDTHS:
        raise ShapeError(f"unknown element type {element_type!r}")
    dims, given = tuple(dims), tuple(strides)
    if len(dims) != len(given):
        raise LayoutError(f"{len(given)} strides for {len(dims)} dims")
    size = _unit_size(element_type, unit)
    show = f"strides ({','.join(map(str, given))}) of dims ({','.join(map(str, dims))})"
    st = []
    for i, (d, s) in enumerate(zip(dims, given)):
        if isinstance(s, bool) or not isinstance(s, int):
            raise LayoutError(f"{show}: stride {s!r} of dim {i} is not an integer")
        if d == 1:
            st.append(s if s > 0 and s % size == 0 else None)
            continue
        if s < 0:
            raise LayoutError(f"{show}: dim {i} runs backwards (stride {s}); "
                              "no XLA layout reverses a dim")
        if s % size:
            raise LayoutError(f"{show}: dim {i}'s stride {s} is not a whole number "
                              f"of {size}-byte elements")
        st.append(s // size)
    if 0 in dims:
        order = sorted(range(len(dims)), key=lambda i: (-(st[i] or 0), i))
    else:
        order = _dense_order(dims, st, show)
    return Shape(element_type, dims, Layout(tuple(reversed(order))))


def _dense_order(dims, st, show) -> list[int]:
    """Dims major to minor, checking that each stride is the product of the
    more minor dims; unit dims (stride None or any) fit anywhere."""
    big = sorted((i for i in range(len(dims)) if dims[i] != 1),
                 key=lambda i: (-st[i], i))
    expected = 1
    for i in reversed(big):
        if st[i] == 0:
            raise LayoutError(f"{show}: dim {i} has stride 0 (a broadcast repeats "
                              "elements); no layout stores an element twice")
        if st[i] != expected:
            raise LayoutError(f"{show} are not dense: dim {i} has a stride of {st[i]} "
                              f"elements where a dense layout has {expected}")
        expected *= dims[i]
    # Put each unit dim where its stride says (by the stride the dims after
    # it hold), ties in dim order.
    order = list(big)
    for u in (i for i in range(len(dims)) if dims[i] == 1):
        s = st[u]
        at = len(order)
        if s is not None:
            at = next((k for k, j in enumerate(order) if st[j] < s or
                       (st[j] == s and j > u)), len(order))
        order.insert(at, u)
    return order
