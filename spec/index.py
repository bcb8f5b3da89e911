"""The linear index of an element: a layout as a pipeline of coordinate maps.

A layout maps an element's logical index to an offset in memory in stages,
each a small map on (index vector, dims vector), most major entry first:

1. ``Permute``: put the dims in physical order (``minor_to_major`` reversed).
2. For each tile, in order (each tile sees the previous level's whole vector):

   a. ``Prepend``: unit dims in front when the tile is longer than the vector;
   b. ``Combine``: merge each ``*`` dim into the next more minor one, row-major;
   c. ``Pad``: round the tiled dims up to multiples of the tile;
   d. ``Split``: each tiled entry e of dim d becomes (e // t, e % t) of dims
      (ceil(d/t), t), side by side;
   e. ``Permute`` ("tile dims minor"): the within-tile entries move after all
      tile-count entries, keeping their order.

3. ``linear_index``: row-major (mixed-radix) linearisation of the last vector.

Each stage is written once over an :class:`~spec.arith.Arithmetic`, so the same
code computes offsets on ints, numpy arrays, sympy expressions and Z3 terms.

The source document's example, element (2,3) of f32[3,5] tiled 2x2:

>>> from tilespec.spec.text import parse_array_shape as shape
>>> offset(shape("f32[3,5]{1,0:T(2,2)}"), (2, 3))
17
>>> locate(shape("f32[3,5]{1,0:T(2,2)}"), 17), locate(shape("f32[3,5]{1,0:T(2,2)}"), 9)
((2, 3), None)
>>> tiled_dims(shape("bf16[1024,1024]{1,0:T(8,128)(2,1)}"))
(128, 8, 4, 128, 2, 1)
>>> padded_elements(shape("s32[]{:T(128)}"))
128
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import reduce
from typing import Any, Iterable, Iterator, Sequence

import numpy as np

from .arith import INT, NUMPY, SYMPY, Arithmetic, Value
from .errors import OutOfRangeError, ShapeError, SymbolicShapeError
from .layout import COMBINE, Layout, Shape, Tile
from .naming import names

#: An index, or dims, as a sequence of values of an arithmetic.
Index = Sequence[Value]

# --- the stages -------------------------------------------------------------

@dataclass(frozen=True)
class Permute:
    """Entry k of the output is entry ``perm[k]`` of the input."""

    perm: tuple[int, ...]
    level: int = 0
    name: str = "minor_to_major"

    def dims(self, d: Index, ar: Arithmetic) -> tuple[Value, ...]:
        return tuple(d[p] for p in self.perm)

    def forward(self, e: Index, d: Index, ar: Arithmetic) -> tuple[Value, ...]:
        return tuple(e[p] for p in self.perm)

    def backward(self, e: Index, d: Index, ar: Arithmetic) -> tuple[tuple[Value, ...], Value]:
        out: list[Value] = [None] * len(self.perm)
        for k, p in enumerate(self.perm):
            out[p] = e[k]
        return tuple(out), ar.true()


@dataclass(frozen=True)
class Prepend:
    """``count`` unit dims in front, so that a longer tile has dims to cover."""

    count: int
    level: int = 0
    name: str = "prepend unit dims"

    def dims(self, d: Index, ar: Arithmetic) -> tuple[Value, ...]:
        return (1,) * self.count + tuple(d)

    def forward(self, e: Index, d: Index, ar: Arithmetic) -> tuple[Value, ...]:
        return (0,) * self.count + tuple(e)

    def backward(self, e: Index, d: Index, ar: Arithmetic) -> tuple[tuple[Value, ...], Value]:
        return tuple(e[self.count:]), ar.true()


@dataclass(frozen=True)
class Combine:
    """Merge runs of entries row-major; ``groups`` are the run lengths."""

    groups: tuple[int, ...]
    level: int = 0
    name: str = "combine"

    def _runs(self, v: Index) -> Iterator[tuple[Value, ...]]:
        start = 0
        for g in self.groups:
            yield tuple(v[start:start + g])
            start += g

    def dims(self, d: Index, ar: Arithmetic) -> tuple[Value, ...]:
        return tuple(product(run, ar) for run in self._runs(d))

    def forward(self, e: Index, d: Index, ar: Arithmetic) -> tuple[Value, ...]:
        return tuple(linear_index(ei, di, ar)
                     for ei, di in zip(self._runs(e), self._runs(d)))

    def backward(self, e: Index, d: Index, ar: Arithmetic) -> tuple[tuple[Value, ...], Value]:
        out: list[Value] = []
        for ei, di in zip(e, self._runs(d)):
            out.extend(delinearise(ei, di, ar))
        return tuple(out), ar.true()


@dataclass(frozen=True)
class Pad:
    """Round the last ``len(sizes)`` dims up to multiples of ``sizes``."""

    sizes: tuple[int, ...]
    level: int = 0
    name: str = "pad"

    def dims(self, d: Index, ar: Arithmetic) -> tuple[Value, ...]:
        k = len(self.sizes)
        head, tail = tuple(d[:len(d) - k]), d[len(d) - k:]
        return head + tuple(ar.mul(ar.ceildiv(x, t), t)
                            for x, t in zip(tail, self.sizes))

    def forward(self, e: Index, d: Index, ar: Arithmetic) -> tuple[Value, ...]:
        return tuple(e)

    def backward(self, e: Index, d: Index, ar: Arithmetic) -> tuple[tuple[Value, ...], Value]:
        # An index beyond the unpadded dim is padding: the only place an
        # offset can fail to be an element.
        k = len(self.sizes)
        valid = ar.true()
        for x, bound in zip(e[len(e) - k:], d[len(d) - k:]):
            valid = ar.both(valid, ar.lt(x, bound))
        return tuple(e), valid


@dataclass(frozen=True)
class Split:
    """Each of the last ``len(sizes)`` entries e becomes (e // t, e % t)."""

    sizes: tuple[int, ...]
    level: int = 0
    name: str = "split"

    def dims(self, d: Index, ar: Arithmetic) -> tuple[Value, ...]:
        k = len(self.sizes)
        out = list(d[:len(d) - k])
        for x, t in zip(d[len(d) - k:], self.sizes):
            out += [ar.ceildiv(x, t), t]
        return tuple(out)

    def forward(self, e: Index, d: Index, ar: Arithmetic) -> tuple[Value, ...]:
        k = len(self.sizes)
        out = list(e[:len(e) - k])
        for x, t in zip(e[len(e) - k:], self.sizes):
            out += [ar.floordiv(x, t), ar.mod(x, t)]
        return tuple(out)

    def backward(self, e: Index, d: Index, ar: Arithmetic) -> tuple[tuple[Value, ...], Value]:
        k = len(self.sizes)
        head = len(e) - 2 * k
        out = list(e[:head])
        for j, t in enumerate(self.sizes):
            q, r = e[head + 2 * j], e[head + 2 * j + 1]
            out.append(ar.add(ar.mul(q, t), r))
        return tuple(out), ar.true()


Stage = Permute | Prepend | Combine | Pad | Split


# --- the layout as a pipeline -----------------------------------------------

def combine_groups(tile: Tile, prefix: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Run lengths that ``tile``'s ``*`` entries merge, and the tile left.

    The ``prefix`` entries the tile does not reach stay runs of one.

    >>> combine_groups(Tile(("*", "*", 2, "*", 3)), prefix=0)
    ((3, 2), (2, 3))
    >>> combine_groups(Tile((8, 128)), prefix=1)
    ((1, 1, 1), (8, 128))
    """
    groups, sizes, run = [1] * prefix, [], 0
    for t in tile.combinable().sizes:
        run += 1
        if t != COMBINE:
            groups.append(run)
            sizes.append(t)
            run = 0
    return tuple(groups), tuple(sizes)


def pipeline(rank: int, layout: Layout) -> tuple[Stage, ...]:
    """The stages that map a logical index to the index of the tiled array.

    The pipeline depends only on the rank and the layout, never on the dim
    sizes, so it serves symbolic dims too.

    >>> from tilespec.spec.layout import Layout
    >>> [s.name for s in pipeline(2, Layout((1, 0), tiles=[(2, 2)]))]
    ['minor_to_major', 'pad', 'split', 'tile dims minor']
    """
    stages: list[Stage] = [Permute(tuple(reversed(layout.minor_to_major)))]
    n = rank
    for level, tile in enumerate(layout.tiles, start=1):
        if len(tile) > n:
            stages.append(Prepend(len(tile) - n, level))
            n = len(tile)
        prefix = n - len(tile)
        groups, sizes = combine_groups(tile, prefix)
        if len(groups) < n:
            stages.append(Combine(groups, level))
        k = len(sizes)
        stages.append(Pad(sizes, level))
        stages.append(Split(sizes, level))
        move = (tuple(range(prefix)) + tuple(prefix + 2 * j for j in range(k))
                + tuple(prefix + 2 * j + 1 for j in range(k)))
        stages.append(Permute(move, level, "tile dims minor"))
        n = prefix + 2 * k
    return tuple(stages)


def shape_pipeline(shape: Shape) -> tuple[Stage, ...]:
    return pipeline(shape.rank, shape.layout)


def dims_through(stages: Sequence[Stage], dims: Index,
                 ar: Arithmetic = INT) -> list[tuple[Value, ...]]:
    """The dims vector before each stage and after the last."""
    out: list[tuple[Value, ...]] = [tuple(dims)]
    for s in stages:
        out.append(s.dims(out[-1], ar))
    return out


# --- linearisation ----------------------------------------------------------

def product(values: Iterable[Value], ar: Arithmetic = INT) -> Value:
    return reduce(ar.mul, values, 1)


def linear_index(e: Index, d: Index, ar: Arithmetic = INT) -> Value:
    """Row-major position of index ``e`` in a box of dims ``d`` (Horner form).

    >>> linear_index((1, 1, 0, 1), (2, 3, 2, 2))
    17
    """
    acc: Value = 0
    for x, n in zip(e, d):
        acc = ar.add(ar.mul(acc, n), x)
    return acc


def delinearise(o: Value, d: Index, ar: Arithmetic = INT) -> tuple[Value, ...]:
    """The index in a box of dims ``d`` whose row-major position is ``o``.

    The most major entry is the quotient left over, so an ``o`` beyond the
    box shows as an out-of-range most major entry.

    >>> delinearise(17, (2, 3, 2, 2))
    (1, 1, 0, 1)
    """
    out: list[Value] = []
    for n in reversed(tuple(d)[1:]):
        out.append(ar.mod(o, n))
        o = ar.floordiv(o, n)
    out.append(o)
    return tuple(reversed(out)) if d else ()


# --- concrete evaluation ----------------------------------------------------

def concrete_dims(shape: Shape) -> tuple[int, ...]:
    """The dims as ints; a bounded dynamic dim counts at its bound."""
    out: list[int] = []
    for i, d in enumerate(shape.dims):
        if isinstance(d, str):
            raise SymbolicShapeError(
                f"dim {i} of {shape} is the name {d!r}; give a size to evaluate")
        if d is None:
            raise ShapeError(f"dim {i} of {shape} is unbounded ('?'); it has no size")
        out.append(d)
    return tuple(out)


def tiled_dims(shape: Shape) -> tuple[int, ...]:
    """Dims of the fully tiled array, whose row-major order is memory order."""
    return dims_through(shape_pipeline(shape), concrete_dims(shape))[-1]


def padded_elements(shape: Shape) -> int:
    """Elements the tiled array occupies, padding included (before ``L(n)``)."""
    return int(product(tiled_dims(shape)))


def check_element(shape: Shape, element: Sequence[int]) -> tuple[int, ...]:
    dims = concrete_dims(shape)
    element = tuple(element)
    if len(element) != len(dims):
        raise OutOfRangeError(
            f"element {_show(element)} has {len(element)} indices for the "
            f"rank-{len(dims)} shape {shape}")
    for i, (x, d) in enumerate(zip(element, dims)):
        if isinstance(x, bool) or not isinstance(x, (int, np.integer)):
            raise OutOfRangeError(f"index {x!r} in dim {i} is not an integer")
        if not 0 <= x < d:
            raise OutOfRangeError(
                f"index {x} in dim {i} is outside [0, {d}) for {shape}")
    return tuple(int(x) for x in element)


def _show(v: Sequence[object]) -> str:
    return "(" + ",".join(map(str, v)) + ")"


def evaluate(stages: Sequence[Stage], element: Index, dims: Index,
             ar: Arithmetic = INT) -> Value:
    """Run an index through the stages and linearise: the offset."""
    e = tuple(element)
    d = tuple(dims)
    for s in stages:
        e, d = s.forward(e, d, ar), s.dims(d, ar)
    return linear_index(e, d, ar)


def unevaluate(stages: Sequence[Stage], offset: Value, dims: Index,
               ar: Arithmetic = INT) -> tuple[tuple[Value, ...], Value]:
    """The inverse of :func:`evaluate`: (logical index, is-an-element)."""
    through = dims_through(stages, dims, ar)
    e = delinearise(offset, through[-1], ar)
    valid = ar.true()
    for s, d in zip(reversed(stages), reversed(through[:-1])):
        e, ok = s.backward(e, d, ar)
        valid = ar.both(valid, ok)
    return e, valid


def offset(shape: Shape, element: Sequence[int]) -> int:
    """The linear offset, in elements, of ``element`` (a logical index)."""
    element = check_element(shape, element)
    return int(evaluate(shape_pipeline(shape), element, concrete_dims(shape)))


def _buffer_elements(shape: Shape) -> tuple[int, int]:
    """(padded elements, the buffer's elements: rounded up to ``L(n)``)."""
    n = padded_elements(shape)
    a = shape.layout.tail_padding_alignment_in_elements
    return n, -(-n // a) * a


def locate(shape: Shape, position: int) -> tuple[int, ...] | None:
    """The logical index stored at ``position``, or ``None`` for padding.

    Every offset of the buffer is valid, the ``L(n)`` tail padding too:

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> locate(shape("f32[3]{0:T(2)L(8)}"), 2), locate(shape("f32[3]{0:T(2)L(8)}"), 6)
    ((2,), None)
    """
    padded, size = _buffer_elements(shape)
    if isinstance(position, bool) or not isinstance(position, (int, np.integer)):
        raise OutOfRangeError(f"offset {position!r} is not an integer")
    if not 0 <= position < size:
        raise OutOfRangeError(f"offset {position} is outside [0, {size}) for {shape}")
    if position >= padded:
        return None                 # the tail padding L(n) adds
    e, valid = unevaluate(shape_pipeline(shape), int(position), concrete_dims(shape))
    return tuple(int(x) for x in e) if valid else None


def offsets(shape: Shape, elements: Any) -> np.ndarray:
    """Vectorised :func:`offset`: ``elements`` is an int array (..., rank).

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> offsets(shape("f32[3,5]{1,0:T(2,2)}"), [[0, 0], [2, 3], [2, 4]])
    array([ 0, 17, 20])
    """
    dims = concrete_dims(shape)
    idx = np.asarray(elements, dtype=np.int64)
    if idx.shape[-1:] != (len(dims),):
        raise OutOfRangeError(
            f"elements array of shape {idx.shape} needs a last axis of {len(dims)}")
    bad = (idx < 0) | (idx >= np.asarray(dims, dtype=np.int64))
    if bad.any():
        where = tuple(int(x) for x in np.argwhere(bad)[0])
        raise OutOfRangeError(f"element index at {where} is out of range for {shape}")
    cols = tuple(idx[..., i] for i in range(len(dims)))
    out = np.asarray(evaluate(shape_pipeline(shape), cols, dims, NUMPY), dtype=np.int64)
    result: np.ndarray = np.broadcast_to(out, idx.shape[:-1]).copy()
    return result


def locate_many(shape: Shape, positions: Any) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised :func:`locate`: (indices (..., rank), is-element mask).

    Indices of padding positions are unspecified where the mask is False.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> idx, ok = locate_many(shape("f32[3,5]{1,0:T(2,2)}"), [17, 9])
    >>> idx.tolist(), ok.tolist()
    ([[2, 3], [0, 5]], [True, False])
    """
    dims = concrete_dims(shape)
    pos = np.asarray(positions, dtype=np.int64)
    padded, size = _buffer_elements(shape)
    if ((pos < 0) | (pos >= size)).any():
        raise OutOfRangeError(f"an offset is outside [0, {size}) for {shape}")
    tail = pos >= padded            # the tail padding L(n) adds
    e, valid = unevaluate(shape_pipeline(shape), np.where(tail, 0, pos), dims)
    cols = [np.broadcast_to(np.asarray(x, dtype=np.int64), pos.shape) for x in e]
    idx = np.stack(cols, axis=-1) if cols else np.zeros(pos.shape + (0,), np.int64)
    return idx, np.broadcast_to(np.asarray(valid, dtype=bool), pos.shape) & ~tail


def all_offsets(shape: Shape) -> np.ndarray:
    """The offset of every element, as an array of the shape's dims."""
    dims = concrete_dims(shape)
    grids = np.indices(dims, dtype=np.int64) if dims else np.zeros((0,), np.int64)
    cols = tuple(grids[i] for i in range(len(dims)))
    out = np.asarray(evaluate(shape_pipeline(shape), cols, dims, NUMPY), dtype=np.int64)
    result: np.ndarray = np.broadcast_to(out, dims).copy()
    return result


# --- the document's notation --------------------------------------------------

def linear_index_with_tile(e: Sequence[int], d: Sequence[int], t: Sequence[int]) -> int:
    """The document's ``linear_index_with_tile(e, d, t)``: one tile, row-major.

    >>> linear_index_with_tile((2, 3), (3, 5), (2, 2))
    17
    """
    shape = Shape("f32", tuple(d), Layout(tuple(range(len(d) - 1, -1, -1)),
                                          tiles=(Tile(tuple(t)),)))
    return offset(shape, e)


# --- symbolic forms ------------------------------------------------------------

def index_symbols(rank: int, names: Sequence[str] | None = None) -> tuple[Any, ...]:
    """Sympy symbols e0, e1, ... (or ``names``) for the logical index of a
    rank-``rank`` array."""
    import sympy
    names = names or tuple(f"e{i}" for i in range(rank))
    return tuple(sympy.Symbol(names[i], integer=True, nonnegative=True)
                 for i in range(rank))


def dim_symbols(shape: Shape, symbolic: bool = False) -> tuple[Any, ...]:
    """Each dim as a sympy value: names (or, if ``symbolic``, d0, d1, ...,
    never a name the user gave: :mod:`spec.naming`)."""
    import sympy

    written = names(shape, "sympy", symbolic).dims
    out = []
    for i, d in enumerate(shape.dims):
        if isinstance(d, str) or symbolic:
            name = written[i]
            out.append(sympy.Symbol(name, integer=True, positive=True))
        elif d is None:
            raise ShapeError(f"dim {i} is unbounded ('?'); name it to reason about it")
        else:
            out.append(sympy.Integer(d))
    return tuple(out)


def offset_expr(shape: Shape, symbolic: bool = False) -> Any:
    """The closed-form offset as a sympy expression of e0, e1, ... .

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> offset_expr(shape("f32[m,n]{1,0:T(8,128)}"))
    128*(Mod(e0, 8)) + Mod(e1, 128) + 1024*ceiling(n/128)*floor(e0/8) + 1024*floor(e1/128)
    """
    e = index_symbols(shape.rank, names(shape).indices)
    d = dim_symbols(shape, symbolic)
    return evaluate(shape_pipeline(shape), e, d, SYMPY)
