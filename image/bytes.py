"""The exact bytes of a laid-out array, and the array back from them.

``to_bytes(shape, array)`` is the buffer XLA would hold: ``byte_size(shape)``
bytes (:mod:`spec.size`, tail alignment ``L(n)`` included), each element's
code (:mod:`image.elements`) at its place in the pad-reshape-transpose image
(:func:`spec.prt.prt_levels`), ``E(n)`` bits per element when the layout
sets it (sub-byte types packed, element 0 in the low bits,
:mod:`image.packing`), else the type's whole bytes.  Padding elements, those of the tiles and those
``L(n)`` adds, are zero bits, or hold the value ``pad``; bits after the
last element up to the end of the last byte are 0 (on XLA's device they are
unspecified).  ``from_bytes`` reads such a buffer back; padding is ignored.  Multi-byte elements are little-endian, as on XLA's platforms.

Fast by construction (:mod:`image.strided`): the data moves once per padded
tiling level, through strided views, and packing (:mod:`image.packing`) reads
those views block by block, on the process's cores for large arrays (the
bytes do not depend on how many), never an array of per-element indices.
With the C kernel (:mod:`image.kernel`), dims that are multiples of the
tiles are one pass, tiling and word interleave at once; a layout whose only
padding is its first level's, on dims it does not merge with ``*``
(``s8[33,130]{1,0:T(32,128)(4,1)}``: :func:`strided.pad_first`), pads the
array to whole tiles first (a row-by-row copy) and then takes that one
pass; any other layout runs its levels as above.  The plain definition it must equal
is :func:`spec.physical.physical_bytes` (``tests/image``).

>>> import numpy as np
>>> a = np.arange(15, dtype=np.int8).reshape(3, 5)
>>> to_bytes("s8[3,5]{1,0:T(2,2)}", a, pad=-1)[:8].tolist()
[0, 1, 5, 6, 2, 3, 7, 8]
>>> b = to_bytes("s4[3,5]{1,0:T(2,2)E(4)}", a % 8)
>>> len(b), [hex(x) for x in b[:4]]
(12, ['0x10', '0x65', '0x32', '0x7'])
>>> from_bytes("s4[3,5]{1,0:T(2,2)E(4)}", b).tolist()[0]
[0, 1, 2, 3, 4]
>>> to_bytes("bf16[m,2]{1,0}", [[1.0, 2.0]], dims={"m": 1}).tolist()
[128, 63, 0, 64]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..spec import (
    DimValues,
    Shape,
    ShapeError,
    ShapeLike,
    aligned_elements,
    as_shape,
    bit_width,
    byte_size,
    storage_bits,
)
from . import kernel
from .blocks import copy
from .elements import SUB_BYTE_INTS, code_dtype, decode, encode, encode_value
from .packing import load, pack, store, unpack, word_group
from .strided import Plan, backward, forward, layout_plan, pad_first


def _checked(shape: ShapeLike, dims: DimValues | None) -> tuple[Shape, Plan, int]:
    """The shape, its plan and bits per element; E(n) must hold the type."""
    s = as_shape(shape, dims)
    code_dtype(s.element_type)  # token, opaque: no values
    bits = s.element_bits
    if s.layout.element_size_in_bits and bits < bit_width(s.element_type):
        raise ShapeError(f"{s}: E({bits}) holds fewer bits than a "
                         f"{s.element_type} ({bit_width(s.element_type)})")
    p = layout_plan(s)
    if p.size > aligned_elements(s):  # two definitions of the padded size
        raise AssertionError(f"{s}: image of {p.size} elements, "
                             f"{aligned_elements(s)} allocated")
    return s, p, bits


def _pad_first(s: Shape, array: np.ndarray | None, pad: Any,
               code: np.dtype) -> tuple[Plan, np.ndarray, tuple[slice, ...]] | None:
    """With the C kernel, a layout whose first level pads into a temporary
    that the next copies (:func:`strided.pad_first`): its plan without
    padding, the array padded first (``array`` given; else uninitialised, to
    be read into) and the box that holds the array in it."""
    if kernel.library() is None:
        return None
    first = pad_first(s)
    if first is None:
        return None
    box = tuple(slice(0, n) for n in layout_plan(s).logical)
    padded = np.empty(first.dims, code)
    if array is not None:
        for k, n in enumerate(array.shape):
            if first.dims[k] > n:
                padded[(slice(None),) * k + (slice(n, None),)] = pad
        copy(padded[box], array)
    return first.plan, padded, box


def to_bytes(shape: ShapeLike, array: Any, *, pad: Any = None,
             dims: DimValues | None = None) -> np.ndarray:
    """The ``byte_size(shape)`` bytes of ``array`` laid out by ``shape``,
    as a 1-D ``uint8`` array; padding elements are zero bits, or hold the
    value ``pad`` when it is given.

    ``array`` has the shape's dims and values of its element type: floats
    or integers for the float types (``bf16`` and the 8-bit floats as
    ``ml_dtypes``), integers that fit for the integer types (the sub-byte
    ones as int8/uint8 values or ``ml_dtypes.int4``...), bools for ``pred``.

    >>> to_bytes("s4[3]{0:E(4)}", [1, -1, 7]).tolist()
    [241, 7]
    >>> to_bytes("f32[2]{0}", [1.0])
    Traceback (most recent call last):
    ...
    tilespec.spec.errors.ShapeError: array of shape (1,) does not match f32[2]{0}
    """
    s, p, bits = _checked(shape, dims)
    t = s.element_type
    codes = encode(t, array)
    if codes.array.shape != p.logical:
        raise ShapeError(f"array of shape {codes.array.shape} does not match {s}")
    padcode = codes.array.dtype.type(0) if pad is None else encode_value(t, pad, name="pad")
    per = storage_bits(t)
    n, total = p.size, aligned_elements(s)
    out = np.empty(byte_size(s), np.uint8)
    code = codes.array.dtype
    array = codes.array
    first = _pad_first(s, array, padcode, code)
    if first is not None:
        p, array, _ = first
    if bits == per:
        elements = out.view(code)

        def copy_last(x: np.ndarray) -> None:
            g = word_group(x, bits)
            if g is None:
                copy(elements[:n].reshape(x.shape), x)
            else:
                store(out[:n * bits // 8], x, bits, None, g)

        forward(p, array, elements[:n], padcode, copy_last)
        elements[n:] = padcode
        if codes.mask is not None:
            np.bitwise_and(elements, codes.mask, out=elements)
        return out
    if p.segments[-1].is_copy:
        direct: list[bool] = []

        def pack_last(x: np.ndarray) -> None:
            g = word_group(x, bits)
            if g is not None:
                store(out[:n * bits // 8], x, bits, codes.mask, g)
                direct.append(True)
            else:
                copy(image[:n].reshape(x.shape), x)

        image = np.empty(total, code)
        forward(p, array, image[:n], padcode, pack_last)
        if direct:
            out[n * bits // 8:] = pack(np.full(total - n, padcode, code), bits)
            return out
    else:
        image = np.empty(total, code)
        forward(p, array, image[:n], padcode)
    image[n:] = padcode
    out[...] = pack(image, bits, codes.mask)
    return out


def _buffer(buffer: Any) -> np.ndarray:
    if isinstance(buffer, memoryview) and not buffer.c_contiguous:
        buffer = np.asarray(buffer)  # np.frombuffer refuses it (BufferError)
    if isinstance(buffer, np.ndarray):
        if buffer.dtype not in (np.uint8, np.int8) or buffer.ndim != 1:
            raise ShapeError(f"a buffer is 1-D bytes (uint8), not a {buffer.ndim}-D "
                             f"array of {buffer.dtype}")
        return np.ascontiguousarray(buffer).view(np.uint8)
    try:
        return np.frombuffer(buffer, np.uint8)
    except TypeError:
        raise ShapeError(f"a buffer is bytes or a uint8 array, not "
                         f"{type(buffer).__name__}") from None


def from_bytes(shape: ShapeLike, buffer: Any, *,
               dims: DimValues | None = None) -> np.ndarray:
    """The array held in ``buffer`` (exactly ``byte_size(shape)`` bytes),
    in the element type's numpy dtype (see :mod:`image.elements`).

    >>> from_bytes("s4[3]{0:E(4)}", bytes([0xF1, 0x07])).tolist()
    [1, -1, 7]
    >>> from_bytes("s4[3]{0:E(4)}", bytes(3))
    Traceback (most recent call last):
    ...
    tilespec.spec.errors.ShapeError: buffer of 3 bytes; s4[3]{0:E(4)} takes 2
    """
    s, p, bits = _checked(shape, dims)
    t = s.element_type
    buf = _buffer(buffer)
    size = byte_size(s)
    if buf.size != size:
        raise ShapeError(f"buffer of {buf.size} bytes; {s} takes {size}")
    code = code_dtype(t)
    n = p.size
    first = _pad_first(s, None, None, code)
    if first is not None:
        p, result, box = first
    else:
        result = np.empty(p.logical, code)
    per = storage_bits(t)
    width = bit_width(t) if bit_width(t) < 8 else per
    signed = t in SUB_BYTE_INTS and t.startswith("s")
    extended: list[bool] = []

    def load_last(x: np.ndarray) -> None:
        g = word_group(x, bits)
        if g is not None:
            load(buf[:n * bits // 8], x, bits, g, min(width, bits), signed)
            extended.append(signed)
        elif bits == per:
            copy(x, buf[:n * per // 8].view(code).reshape(x.shape))
        else:
            np.copyto(x, unpack(buf, n, bits, code).reshape(x.shape))

    if p.segments[-1].is_copy:
        backward(p, np.empty(0, code), result, load_last)
    elif bits == per:
        backward(p, buf[:n * per // 8].view(code), result)
    else:
        backward(p, unpack(buf, n, bits, code), result)
    if first is not None:
        inside = np.empty(tuple(b.stop for b in box), code)
        copy(inside, result[box])
        result = inside
    return decode(t, result, extended=bool(extended and extended[0]))
