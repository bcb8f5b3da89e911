"""Every element of a concrete bitcast question, in SRC's row-major order,
block by block: the first whose offset moves, found without the offsets of
the whole array.

A block is a run of consecutive row-major positions of SRC that is a box:
fixed indices in the leading dims, a range in one dim, every index of the
dims after it.  Its indices are open grids (one ``arange`` per dim, shaped
to broadcast), so the stage pipeline (:func:`tilespec.spec.index.evaluate`
on Python's operators, exact on int64 arrays as on ints) works on small
per-dim arrays until the linearisation sums them; the values are those of
the dense evaluation (:func:`~tilespec.spec.index.all_offsets`), element for
element.  A reshape pairs the
elements group by group (:func:`~.reshape_groups.reshape_groups`: dims with
equal products, whose row-major positions agree inside each group; Horner's
rule makes the groups together the whole reshape), so DST's indices stay
grids over SRC's dims too.  The scan stops at the first block with an
element that moves: a refuted question costs the blocks up to its
counterexample, and no array is larger than :data:`BLOCK` elements.

>>> from tilespec.spec.text import parse_array_shape as shape
>>> first_moved(shape("f32[8,256]{1,0:T(8,128)}"), shape("f32[2048]{0}"))
128
>>> first_moved(shape("f32[8,256]{1,0}"), shape("f32[2048]{0}")) is None
True
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence

import numpy as np

from ...spec import (
    INT,
    Shape,
    concrete_dims,
    delinearise,
    evaluate,
    linear_index,
    shape_pipeline,
)
from .reshape_groups import reshape_groups

#: Elements of one block: 96 KiB of int64 per array, below glibc's mmap
#: threshold (128 KiB, and fixed there when ``MALLOC_TRIM_THRESHOLD_`` is set,
#: as Dask's nanny does), so a block's temporaries come from the heap and are
#: reused instead of mapped and unmapped one by one.
BLOCK = 12 << 10

Pairing = Callable[[tuple], tuple]


def pairing(src_dims: Sequence[int], dst_dims: Sequence[int],
            transpose: Sequence[int] | None = None) -> Pairing:
    """The DST index of SRC index ``e`` (arrays that broadcast): the
    transpose's ``f[i] = e[P[i]]``, or the reshape's same row-major position,
    group by group.

    >>> pair = pairing((4, 6), (4, 2, 3))
    >>> pair((3, 5)), pairing((2, 3), (3, 2), (1, 0))((1, 2))
    ((3, 1, 2), (2, 1))
    """
    if transpose is not None:
        perm = tuple(transpose)
        return lambda e: tuple(e[p] for p in perm)
    groups = [(g.src, g.dst) for g in reshape_groups(tuple(src_dims), tuple(dst_dims))]
    ds, dd = tuple(src_dims), tuple(dst_dims)

    def pair(e: tuple) -> tuple:
        out: list = []
        for (a, b), (c, d) in groups:
            out.extend(delinearise(linear_index(e[a:b], ds[a:b], INT), dd[c:d], INT))
        return tuple(out)
    return pair


def blocks(dims: Sequence[int], size: int = BLOCK) -> Iterator[tuple[int, tuple, tuple]]:
    """(first row-major position, index grids, the block's dims) of each
    block of at most ``size`` elements, in row-major order; the grids of
    the leading dims are ints.

    >>> [(start, shape) for start, _, shape in blocks((3, 4), 8)]
    [(0, (2, 4)), (8, (1, 4))]
    >>> [(start, [int(x) if isinstance(x, int) else x.tolist() for x in grids])
    ...  for start, grids, _ in blocks((2, 3), 2)]
    [(0, [0, [0, 1]]), (2, [0, [2]]), (3, [1, [0, 1]]), (5, [1, [2]])]
    """
    r = len(dims)
    axis, inner = r, 1                # dims[axis:] hold at most ``size`` elements
    while axis > 0 and inner * dims[axis - 1] <= size:
        axis -= 1
        inner *= dims[axis]

    def grid(i: int, start: int, stop: int) -> np.ndarray:
        # dim i of the block: broadcasting aligns the trailing dims
        return np.arange(start, stop, dtype=np.int64).reshape((-1,) + (1,) * (r - 1 - i))

    if axis == 0:
        yield 0, tuple(grid(i, 0, dims[i]) for i in range(r)), tuple(dims)
        return
    split = axis - 1                  # the dim a block takes a range of
    rows = max(1, size // inner)
    after = tuple(grid(i, 0, dims[i]) for i in range(split + 1, r))
    for lead in itertools.product(*map(range, dims[:split])):
        base = linear_index(lead, dims[:split]) * dims[split]
        for s in range(0, dims[split], rows):
            t = min(s + rows, dims[split])
            yield ((base + s) * inner, lead + (grid(split, s, t),) + after,
                   (t - s,) + tuple(dims[split + 1:]))


def first_moved(src: Shape, dst: Shape, transpose: Sequence[int] | None = None,
                size: int = BLOCK) -> int | None:
    """The row-major position in SRC of the first element whose offset
    differs from its DST partner's (by the reshape, or ``transpose``), or
    None when every element keeps its offset.  Concrete dims, no zero dim;
    the offsets are int64 (exact where
    :func:`~.reading.exact_in_int64` says so, as for the dense scan).

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> first_moved(shape("f32[8,256]{1,0}"), shape("f32[256,8]{0,1}"), (1, 0)) is None
    True
    """
    ds, dd = concrete_dims(src), concrete_dims(dst)
    pair = pairing(ds, dd, transpose)
    sp, dp = shape_pipeline(src), shape_pipeline(dst)
    for start, e, shape in blocks(ds, size):
        moved = np.not_equal(evaluate(sp, e, ds, INT), evaluate(dp, pair(e), dd, INT))
        if moved.any():
            return start + int(np.argmax(np.broadcast_to(moved, shape)))
    return None
