"""Pad-reshape-transpose as an index map, for the solver.

The second definition of a layout (:mod:`spec.physical`) works on whole
numpy arrays.  Here the same operations act on one index, so Z3 can compare
them with the closed formula: a reshape is the row-major bitcast
``delinearise(linear_index(e, old), new)``, a pad keeps the index, a
transpose permutes it.  Level dims come from :func:`prt_levels` (on ints or
solver terms), never from :mod:`spec.index`'s stages.

>>> from tilespec.spec.text import parse_array_shape as shape
>>> prt_offset(shape("f32[3,5]{1,0:T(2,2)}"), (2, 3))
17
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial
from typing import Callable, Iterator, Sequence

from .arith import INT, Arithmetic, Value
from .errors import ShapeError
from .index import concrete_dims, delinearise, linear_index
from .layout import COMBINE, Shape


@dataclass(frozen=True)
class PrtLevel:
    """One tiling level as pad-reshape-transpose, worked out from the tile."""

    unit_dims: int                 # leading size-1 dims added for a longer tile
    entering: tuple[Value, ...]    # dims after adding unit dims, before merging
    merged: tuple[Value, ...]      # dims after merging '*' entries into the next
    tile: tuple[Value, ...]        # the tile without '*' entries
    padded: tuple[Value, ...]      # merged dims padded to tile multiples
    split: tuple[Value, ...]       # (..., ceil(d/t), t, ...) interleaved
    order: tuple[int, ...]         # transpose that moves within-tile dims minor
    final: tuple[Value, ...]       # dims after the transpose


def prt_levels(shape: Shape, dims: Sequence[Value] | None = None,
               ar: Arithmetic = INT) -> list[PrtLevel]:
    """The levels of ``shape``'s tiling; ``dims`` may be symbolic terms.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> [(lv.padded, lv.final) for lv in prt_levels(shape("f32[3,5]{1,0:T(2,2)}"))]
    [((4, 6), (2, 3, 2, 2))]
    """
    if not isinstance(shape, Shape):
        raise ShapeError(f"{shape} is not an array shape")
    given = concrete_dims(shape) if dims is None else tuple(dims)
    current: tuple[Value, ...] = tuple(given[i] for i in reversed(shape.layout.minor_to_major))
    levels = []
    for tile in shape.layout.tiles:
        levels.append(prt_level(current, tile.combinable().sizes, ar))
        current = levels[-1].final
    return levels


def prt_level(current: Sequence[Value], t: Sequence[Value],
              ar: Arithmetic = INT) -> PrtLevel:
    """One level: the dims ``current`` the previous level left, tiled by the
    tile entries ``t`` (``COMBINE`` or a size, which may be a solver term).
    A level depends on nothing else, so :func:`prt_levels` is a fold of it.

    >>> prt_level((3, 5), (2, 2)).final
    (2, 3, 2, 2)
    """
    current = tuple(current)
    unit = max(0, len(t) - len(current))
    current = (1,) * unit + current
    head, window = current[:len(current) - len(t)], current[len(current) - len(t):]
    merged: list[Value] = []
    sizes: list[Value] = []
    carry: Value = 1
    for d, s in zip(window, t):
        if _is_combine(s):
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
    return PrtLevel(unit, current, tuple(head) + tuple(merged), tuple(sizes),
                    tuple(head) + tuple(padded), tuple(split), tuple(order), final)


def _is_combine(s: Value) -> bool:
    # a size may be a solver term, whose == is a formula, not a bool
    return isinstance(s, int) and s == COMBINE


def physical_size(shape: Shape) -> int:
    """Elements in the pad-reshape-transpose image, padding included.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> physical_size(shape("f32[3,5]{1,0:T(2,2)}"))
    24
    """
    levels = prt_levels(shape)
    return math.prod(levels[-1].final if levels else concrete_dims(shape))


#: One operation: (name, dims before, dims after, the map of an index).
Step = tuple[str, tuple[Value, ...], tuple[Value, ...],
             Callable[[Sequence[Value]], tuple[Value, ...]]]


def reshape_index(e: Sequence[Value], old: Sequence[Value], new: Sequence[Value],
                  ar: Arithmetic = INT) -> tuple[Value, ...]:
    """Where element ``e`` of an array of dims ``old`` lands after a
    row-major reshape to ``new``."""
    return delinearise(linear_index(e, old, ar), new, ar)


def permute_index(e: Sequence[Value], order: Sequence[int]) -> tuple[Value, ...]:
    """Entry k of the result is entry ``order[k]`` of ``e``."""
    return tuple(e[i] for i in order)


def prt_steps(shape: Shape, dims: Sequence[Value], ar: Arithmetic = INT) -> Iterator[Step]:
    """Yield (name, dims before, dims after, index map) for every operation."""
    order = tuple(reversed(shape.layout.minor_to_major))
    physical = tuple(dims[i] for i in order)
    yield ("transpose to physical order", tuple(dims), physical,
           partial(permute_index, order=order))
    for lv in prt_levels(shape, dims, ar):
        yield from level_steps(lv, ar)


def level_steps(lv: PrtLevel, ar: Arithmetic = INT) -> tuple[Step, ...]:
    """The five operations of one level, in order (:func:`prt_steps` is the
    transpose to physical order followed by these, level after level)."""
    before = lv.entering[lv.unit_dims:]
    return (("reshape: add unit dims", before, lv.entering,
             partial(reshape_index, old=before, new=lv.entering, ar=ar)),
            ("reshape: combine", lv.entering, lv.merged,
             partial(reshape_index, old=lv.entering, new=lv.merged, ar=ar)),
            ("pad", lv.merged, lv.padded, tuple),
            ("reshape: split", lv.padded, lv.split,
             partial(reshape_index, old=lv.padded, new=lv.split, ar=ar)),
            ("transpose: tile dims minor", lv.split, lv.final,
             partial(permute_index, order=lv.order)))


def prt_final_dims(shape: Shape, dims: Sequence[Value],
                   ar: Arithmetic = INT) -> tuple[Value, ...]:
    steps = list(prt_steps(shape, dims, ar))
    return steps[-1][2]


def prt_offset(shape: Shape, element: Sequence[Value], dims: Sequence[Value] | None = None,
               ar: Arithmetic = INT) -> Value:
    """The offset pad-reshape-transpose gives ``element``."""
    given = concrete_dims(shape) if dims is None else tuple(dims)
    e = tuple(element)
    last = given
    for _, _, after, step in prt_steps(shape, given, ar):
        e, last = step(e), after
    return linear_index(e, last, ar)
