"""Pad-reshape-transpose as an index map, for the solver.

The second definition of a layout (:mod:`spec.physical`) works on whole
numpy arrays.  Here the same operations act on one index, so Z3 can compare
them with the closed formula: a reshape is the row-major bitcast
``delinearise(linear_index(e, old), new)``, a pad keeps the index, a
transpose permutes it.  Level dims come from :func:`spec.physical.prt_levels`,
never from :mod:`spec.index`'s stages.

>>> from tilespec.spec.text import parse_array_shape as shape
>>> prt_offset(shape("f32[3,5]{1,0:T(2,2)}"), (2, 3))
17
"""

from __future__ import annotations

from tilespec.spec.arith import INT, Arithmetic
from tilespec.spec.index import concrete_dims, delinearise, linear_index
from tilespec.spec.layout import Shape
from tilespec.spec.physical import prt_levels


def reshape_index(e, old, new, ar: Arithmetic = INT) -> tuple:
    """Where element ``e`` of an array of dims ``old`` lands after a
    row-major reshape to ``new``."""
    return delinearise(linear_index(e, old, ar), new, ar)


def prt_steps(shape: Shape, dims, ar: Arithmetic = INT):
    """Yield (name, dims before, dims after, index map) for every operation."""
    order = tuple(reversed(shape.layout.minor_to_major))
    physical = tuple(dims[i] for i in order)
    yield ("transpose to physical order", tuple(dims), physical,
           lambda e: tuple(e[i] for i in order))
    for lv in prt_levels(shape, dims, ar):
        before = lv.entering[lv.unit_dims:]
        yield ("reshape: add unit dims", before, lv.entering,
               lambda e, a=before, b=lv.entering: reshape_index(e, a, b, ar))
        yield ("reshape: combine", lv.entering, lv.merged,
               lambda e, a=lv.entering, b=lv.merged: reshape_index(e, a, b, ar))
        yield ("pad", lv.merged, lv.padded, lambda e: tuple(e))
        yield ("reshape: split", lv.padded, lv.split,
               lambda e, a=lv.padded, b=lv.split: reshape_index(e, a, b, ar))
        yield ("transpose: tile dims minor", lv.split, lv.final,
               lambda e, o=lv.order: tuple(e[i] for i in o))


def prt_final_dims(shape: Shape, dims, ar: Arithmetic = INT) -> tuple:
    steps = list(prt_steps(shape, dims, ar))
    return steps[-1][2]


def prt_offset(shape: Shape, element, dims=None, ar: Arithmetic = INT):
    """The offset pad-reshape-transpose gives ``element``."""
    dims = concrete_dims(shape) if dims is None else tuple(dims)
    e = tuple(element)
    last = dims
    for _, _, after, step in prt_steps(shape, dims, ar):
        e, last = step(e), after
    return linear_index(e, last, ar)
