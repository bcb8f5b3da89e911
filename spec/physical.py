"""Tiling as pad-reshape-transpose on real numpy arrays: the second,
independent definition of a layout (the source document's "Tiling as
pad-reshape-transpose"), plain numpy that calls neither :mod:`spec.index`
nor :mod:`spec.prt`.  Per tiling level, on the dims in physical order: unit
dims for a tile longer than them, each ``*`` dim merged into the next, tiled
dims padded to whole tiles and split into (d/t, t), within-tile dims
transposed minor.  Memory is the row-major order of the last array; in bytes
each element takes ``E(n)`` bits (else its type's), element 0 lowest, and
``L(n)`` pads the image to a multiple of n elements.

>>> import numpy as np
>>> a = np.arange(15).reshape(3, 5)
>>> image = to_physical("f32[3,5]{1,0:T(2,2)}", a, pad_value=-1)
>>> image.tolist()
[0, 1, 5, 6, 2, 3, 7, 8, 4, -1, 9, -1, 10, 11, -1, -1, 12, 13, -1, -1, 14, -1, -1, -1]
>>> from_physical("f32[3,5]{1,0:T(2,2)}", image).tolist()[2]
[10, 11, 12, 13, 14]
>>> physical_bytes("s4[3]{0:E(4)}", [1, 15, 7]).tolist()
[241, 7]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .errors import ShapeError
from .layout import COMBINE
from .shapes import DimValues, ShapeLike, as_shape, logical_dims, shape_and_data


def tile_level(a: np.ndarray, tile: tuple[int, ...], pad_value: Any) -> np.ndarray:
    """One tiling level: pad, reshape and transpose ``a`` by ``tile``."""
    a = a.reshape((1,) * (len(tile) - a.ndim) + a.shape)    # unit dims for a longer tile
    h = a.ndim - len(tile)
    merged: list[int] = list(a.shape[:h])
    sizes: list[int] = []
    carry = 1
    for d, t in zip(list[int](a.shape[h:]), tile):
        carry *= d
        if t != COMBINE:                    # a '*' dim merges into the next one
            merged, sizes, carry = merged + [carry], sizes + [t], 1
    a = np.pad(a.reshape(merged), [(0, 0)] * h + [(0, -m % t) for m, t in zip(merged[h:], sizes)],
               constant_values=pad_value)
    a = a.reshape(merged[:h] + [n for m, t in zip(a.shape[h:], sizes) for n in (m // t, t)])
    k = len(sizes)
    moved: np.ndarray = a.transpose([*range(h), *range(h, h + 2 * k, 2),
                                     *range(h + 1, h + 2 * k, 2)])
    return moved


def to_physical(shape: ShapeLike, array: Any, pad_value: Any = 0, *,
                dims: DimValues | None = None) -> np.ndarray:
    """The 1-D memory image of ``array`` laid out by ``shape``; padding holds
    ``pad_value``.  ``to_physical(array, shape)`` is accepted too."""
    s, data = shape_and_data(shape, array, "to_physical", dims)
    a = np.asarray(data)
    if a.shape != logical_dims(s):
        raise ShapeError(f"array of shape {a.shape} does not match {s}")
    a = a.transpose(tuple(reversed(s.layout.minor_to_major)))
    for tile in s.layout.tiles:
        a = tile_level(a, tile.combinable().sizes, pad_value)
    return a.flatten()


def from_physical(shape: ShapeLike, buffer: Any, *,
                  dims: DimValues | None = None) -> np.ndarray:
    """The array held in a memory image (where :func:`to_physical` puts each
    element); padding is dropped.  ``from_physical(buffer, shape)`` too."""
    s, data = shape_and_data(shape, buffer, "from_physical", dims)
    b = np.asarray(data).reshape(-1)
    n = logical_dims(s)
    where = to_physical(s, np.arange(np.prod(n, dtype=np.int64)).reshape(n), -1)
    if b.size != where.size:
        raise ShapeError(f"buffer of {b.size} elements; {s} needs {where.size}")
    out = np.empty(where.size - np.count_nonzero(where < 0), b.dtype)
    out[where[where >= 0]] = b[where >= 0]
    return out.reshape(n)


def physical_bytes(shape: ShapeLike, codes: Any, pad_code: int = 0) -> np.ndarray:
    """The bytes of ``codes`` (each element's bits, as unsigned ints of at
    most 64 bits) laid out by ``shape``, padding holding ``pad_code``."""
    s = as_shape(shape)
    image = to_physical(s, np.asarray(codes, np.uint64), pad_code)
    image = np.pad(image, (0, -image.size % s.layout.tail_padding_alignment_in_elements),
                   constant_values=pad_code)
    bits = (image[:, None] >> np.arange(s.element_bits, dtype=np.uint64)) & np.uint64(1)
    return np.packbits(bits.astype(np.uint8).reshape(-1), bitorder="little")

