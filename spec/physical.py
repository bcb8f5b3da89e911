"""Tiling as pad-reshape-transpose on real numpy arrays.

This is the second, independent definition of a layout (the source document's
"Tiling as pad-reshape-transpose"): it never calls :mod:`spec.index`.  Each
tiling level pads the array, reshapes every tiled dim d into (ceil(d/t), t),
and transposes the within-tile dims to the minor end; a ``*`` entry is a
reshape that merges two neighbouring dims first.  Memory order is the
row-major order of the final array.  :func:`prt_levels` states the levels;
:mod:`spec.strided` runs them as views with one copy per padded level.

>>> import numpy as np
>>> a = np.arange(15).reshape(3, 5)
>>> to_physical("f32[3,5]{1,0:T(2,2)}", a, pad_value=-1).tolist()
[0, 1, 5, 6, 2, 3, 7, 8, 4, -1, 9, -1, 10, 11, -1, -1, 12, 13, -1, -1, 14, -1, -1, -1]
>>> b = from_physical("f32[3,5]{1,0:T(2,2)}", to_physical("f32[3,5]{1,0:T(2,2)}", a))
>>> bool((a == b).all())
True

The shape comes first, as in every other function.  The older order,
``to_physical(array, shape)``, still works: an array is never a shape or
shape text, so the two orders cannot be confused.

>>> bool((to_physical(a, "f32[3,5]{1,0:T(2,2)}") == to_physical("f32[3,5]{1,0:T(2,2)}", a)).all())
True
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from .arith import INT, Arithmetic, Value
from .blocks import copy
from .errors import ShapeError, SymbolicShapeError
from .layout import COMBINE, Shape, TupleShape
from .packing import load, store, word_group
from .shapes import DimValues, ShapeLike, as_shape
from .strided import Plan, backward, forward, plan


@dataclass(frozen=True)
class PrtLevel:
    """One tiling level as pad-reshape-transpose, worked out from the tile."""

    unit_dims: int                 # leading size-1 dims added for a longer tile
    entering: tuple[Value, ...]    # dims after adding unit dims, before merging
    merged: tuple[Value, ...]      # dims after merging '*' entries into the next
    tile: tuple[int, ...]          # the tile without '*' entries
    padded: tuple[Value, ...]      # merged dims padded to tile multiples
    split: tuple[Value, ...]       # (..., ceil(d/t), t, ...) interleaved
    order: tuple[int, ...]         # transpose that moves within-tile dims minor
    final: tuple[Value, ...]       # dims after the transpose


def prt_levels(shape: Shape, dims: Sequence[Value] | None = None,
               ar: Arithmetic = INT) -> list[PrtLevel]:
    """The levels of ``shape``'s tiling; ``dims`` may be symbolic terms."""
    given = _dims(shape) if dims is None else tuple(dims)
    current: tuple[Value, ...] = tuple(given[i] for i in reversed(shape.layout.minor_to_major))
    levels = []
    for tile in shape.layout.tiles:
        t = tile.combinable().sizes
        unit = max(0, len(t) - len(current))
        current = (1,) * unit + current
        head, window = current[:len(current) - len(t)], current[len(current) - len(t):]
        merged: list[Value] = []
        sizes: list[int] = []
        carry: Value = 1
        for d, s in zip(window, t):
            if s == COMBINE:
                carry = ar.mul(carry, d)
            else:
                merged.append(ar.mul(carry, d))
                sizes.append(s)
                carry = 1
        padded = [ar.mul(ar.ceildiv(d, s), s) for d, s in zip(merged, sizes)]
        split = list(head)
        for d, s in zip(padded, sizes):
            split += [ar.floordiv(d, s), s]
        h, k = len(head), len(sizes)
        order = (list(range(h)) + [h + 2 * j for j in range(k)]
                 + [h + 2 * j + 1 for j in range(k)])
        final = tuple(split[i] for i in order)
        levels.append(PrtLevel(unit, current, tuple(head) + tuple(merged),
                               tuple(sizes), tuple(head) + tuple(padded),
                               tuple(split), tuple(order), final))
        current = final
    return levels


def _dims(shape: object) -> tuple[int, ...]:
    if not isinstance(shape, Shape):
        raise ShapeError(f"{shape} is not an array shape")
    out: list[int] = []
    for i, d in enumerate(shape.dims):
        if isinstance(d, str):
            raise SymbolicShapeError(f"dim {i} is the name {d!r}; give a size")
        if d is None:
            raise ShapeError(f"dim {i} is unbounded ('?'); it has no size")
        out.append(d)
    return tuple(out)


def physical_size(shape: Shape) -> int:
    """Elements in the physical buffer, padding included."""
    levels = prt_levels(shape)
    dims = levels[-1].final if levels else _dims(shape)
    return int(np.prod(dims, dtype=object))


def _shape_first(first: object, second: Any, what: str,
                 dims: DimValues | None = None) -> tuple[Shape, Any]:
    """(shape, data) from either argument order.

    A shape is a :class:`Shape` or a ``str``; the data is an array-like (a
    numpy array, a list of numbers), which is neither, so the order in which
    the two were passed is never ambiguous.
    """
    if isinstance(first, (Shape, TupleShape, str)):
        return as_shape(first, dims), second
    if isinstance(second, (Shape, TupleShape, str)):
        return as_shape(second, dims), first  # the older (data, shape) order
    raise ShapeError(f"{what}: neither argument is a shape or shape text "
                     f"(got {type(first).__name__} and {type(second).__name__})")


def layout_plan(shape: Shape) -> Plan:
    """The levels of a concrete ``shape`` as strided-copy segments
    (:mod:`spec.strided`), kept for the shapes used last."""
    return _plan(shape)


@functools.lru_cache(maxsize=256)
def _plan(shape: Shape) -> Plan:
    return plan(_dims(shape), shape.layout.minor_to_major, prt_levels(shape))


def to_physical(shape: ShapeLike, array: Any, pad_value: Any = 0, *,
                dims: DimValues | None = None) -> np.ndarray:
    """The 1-D memory image of ``array`` laid out by ``shape``'s layout.

    Padding elements hold ``pad_value`` (XLA leaves them unspecified);
    ``dims`` gives named dims their sizes.  ``to_physical(array, shape)``
    is accepted too (see the module).
    """
    s, data = _shape_first(shape, array, "to_physical", dims)
    a = np.asarray(data)
    if a.shape != _dims(s):
        raise ShapeError(f"array of shape {a.shape} does not match {s}")
    p = layout_plan(s)
    out = np.empty(p.size, a.dtype)

    def copy_last(x: np.ndarray) -> None:
        code = _word_code(x)
        g = None if code is None else word_group(x.view(code), code.itemsize * 8)
        if code is None or g is None:
            copy(out.reshape(x.shape), x)
        else:  # short strided rows, e.g. a (2,1) tile: joined into words
            store(out.view(np.uint8), x.view(code), code.itemsize * 8, None, g)

    return forward(p, np.asarray(a, order="C"), out, pad_value, copy_last)


def from_physical(shape: ShapeLike, buffer: Any, *,
                  dims: DimValues | None = None) -> np.ndarray:
    """The logical array held in a memory image; padding is dropped.

    ``from_physical(buffer, shape)`` is accepted too (see the module).
    """
    s, data = _shape_first(shape, buffer, "from_physical", dims)
    b = np.asarray(data).reshape(-1)
    p = layout_plan(s)
    if b.size != p.size:
        raise ShapeError(f"buffer of {b.size} elements; {s} needs {p.size}")
    flat = np.ascontiguousarray(b)

    def load_last(x: np.ndarray) -> None:
        code = _word_code(x)
        g = None if code is None else word_group(x.view(code), code.itemsize * 8)
        if code is None or g is None:
            copy(x, flat.reshape(x.shape))
        else:
            bits = code.itemsize * 8
            load(flat.view(np.uint8), x.view(code), bits, g, bits)

    return backward(p, flat, np.empty(p.logical, b.dtype), load_last)


def _word_code(x: np.ndarray) -> np.dtype | None:
    """The unsigned integer that ``x``'s elements can be moved as, if any."""
    if x.dtype.kind in "OSU" or x.dtype.itemsize not in (1, 2, 4):
        return None
    return np.dtype(f"<u{x.dtype.itemsize}")
