"""A tiled XLA layout as a CuTe layout, where one is exact, and back.

CuTe (NVIDIA CUTLASS) writes a layout as nested modes, each with a shape
and a stride; a coordinate of a mode of shape ``(s1, s2, ..., sk)`` splits
colexicographically, minor first: ``x % s1``, ``(x // s1) % s2``, ...,
``x // (s1 ... s(k-1))``, and the offset is the sum of each part times its
stride.  A tiling level does the same to an index: entry ``e`` of a tiled
dim becomes ``(e // t, e % t)``.  So each logical dim of a tiled layout is
one top-level mode whose parts ("digits") are the pieces the tiles cut it
into, and the strides are where those pieces land in memory.
:func:`cute_layout` writes that :class:`~tilespec.cute.layout.Layout`:

>>> print(cute_layout("f32[24,256]{1,0:T(8,128)}"))
((8, 3), (128, 2)):((128, 2048), (1, 1024))
>>> cute_layout("bf16[16,300]{1,0:T(8,128)(2,1)}").cute_text()
'((2,4,2),(128,3)):((1,256,3072),(2,1024))'

A mode of one digit is an int, and the layout of a rank-1 shape is its one
mode (:func:`dim_modes`), as CuTe writes them; a logical element's offset
is the layout called with one coordinate per dim:

>>> L = cute_layout("f32[24]{0:T(8)}")
>>> print(L)
(8, 3):(1, 8)
>>> L(13), cute_layout("f32[24,256]{1,0:T(8,128)}")(9, 130)
(13, 3202)

The CuTe layout's domain is the *padded* shape (each dim rounded up to its
tiles: ``(8,3)`` for 24 rows, ``(128,3)`` for 300 columns); on the logical
elements its offsets are the spec's (:func:`tilespec.prove_cute` proves
it), and over the padded domain they cover ``[0, padded_elements)``.

The way back, :func:`xla_tilings`, reads a compact CuTe layout's digits
as a ``minor_to_major`` and tiles (:func:`tilespec.from_cute` proves the result).

Where no CuTe layout is exact, :class:`~tilespec.spec.errors.LayoutError`
says why:

>>> cute_layout("f32[3,5]{1,0:T(2,2)(3,1)}")
Traceback (most recent call last):
...
tilespec.spec.errors.LayoutError: no exact CuTe layout for f32[3,5]{1,0:T(2,2)(3,1)}: tile level 2 cuts a piece of size 2 of dim 0 by 3, which neither divides it nor is divided by it (the level pads inside a tile)
"""

from __future__ import annotations

import itertools
import math
from typing import Sequence

from ..spec import (
    INT,
    Arithmetic,
    Combine,
    DimValues,
    Layout as XlaLayout,
    LayoutError,
    Pad,
    Permute,
    Prepend,
    Shape,
    ShapeLike,
    Split,
    Tile,
    as_shape,
    concrete_dims,
    product,
    shape_pipeline,
)
from .layout import Layout, make_layout


def dim_modes(layout: Layout, rank: int) -> list[Layout]:
    """The modes of a CuTe layout of a rank-``rank`` XLA shape, one per
    logical dim: for rank 1 the whole layout is the dim's mode.

    >>> from tilespec.cute.layout import parse_cute
    >>> [str(m) for m in dim_modes(parse_cute("(8,3):(1,8)"), 1)]
    ['(8, 3):(1, 8)']
    >>> [str(m) for m in dim_modes(parse_cute("(8,3):(1,8)"), 2)]
    ['8:1', '3:8']
    """
    return [layout] if rank == 1 else list(layout.modes())


def logical_layout(shape: ShapeLike, *, dims: DimValues | None = None) -> Layout:
    """The CuTe layout of ``shape``'s logical tensor: :func:`cute_layout`
    (the padded shape's) with each dim's mode cut to the dim's size, the
    pieces past it dropped.  Exact where each dim ends at a piece boundary
    (it is a multiple of the pieces below its last one); a
    :class:`~tilespec.spec.errors.LayoutError` says where it does not.

    >>> print(logical_layout("f32[8,16]{1,0:T(8,128)}"))
    (8, 16):(128, 1)
    >>> print(logical_layout("f32[16,100]{1,0:T(8,128)}"))
    ((8, 2), 100):((128, 1024), 1)
    >>> logical_layout("f32[24,300]{1,0:T(8,128)}")
    Traceback (most recent call last):
    ...
    tilespec.spec.errors.LayoutError: no exact CuTe layout of the logical tensor of f32[24,300]{1,0:T(8,128)}: dim 1 (300) is no multiple of 128, the pieces its tiles cut below its last (the padded layout is exact: tilespec cute without --logical)
    """
    shape = as_shape(shape, dims)
    padded = cute_layout(shape)
    modes = []
    for dim, (n, mode) in enumerate(zip(concrete_dims(shape), dim_modes(padded, shape.rank))):
        kept: list[tuple[int, int]] = []
        below = 1
        for size, stride in mode.flat():
            if below * size >= n:
                if n % below:
                    raise LayoutError(
                        f"no exact CuTe layout of the logical tensor of {shape}: dim {dim} "
                        f"({n}) is no multiple of {below}, the pieces its tiles cut below "
                        "its last (the padded layout is exact: tilespec cute without --logical)")
                kept.append((n // below, stride))
                break
            kept.append((size, stride))
            below *= size
        kept = [k for k in kept if k[0] != 1] or kept[-1:]
        modes.append(Layout(tuple(k[0] for k in kept), tuple(k[1] for k in kept))
                     if len(kept) > 1 else Layout(*kept[0]))
    return modes[0] if len(modes) == 1 else make_layout(*modes)


class _Digit:
    """A piece of one logical dim; ``top`` marks its dim's most major
    piece, the only one that may pad."""

    def __init__(self, dim, size, top):
        self.dim, self.size, self.top = dim, size, top


def cute_layout(shape: ShapeLike, *, dims: DimValues | None = None) -> Layout:
    """The CuTe layout of ``shape`` (in elements), exact on its padded
    shape: one mode per logical dim (:func:`dim_modes`); a
    :class:`~tilespec.spec.errors.LayoutError` with the reason where none is.
    ``dims`` sizes the named dims.

    >>> print(cute_layout("f32[m,5]{1,0}", dims={"m": 3}))
    (3, 5):(5, 1)
    """
    per_dim, entries = digits(as_shape(shape, dims))
    # Row-major linearisation: an entry's stride is the product of the sizes
    # after it; a digit's is its entry's times the digits before it.
    stride = 1
    strides = {}
    for entry in reversed(entries):
        for digit in entry:
            strides[id(digit)] = stride
            stride *= digit.size
    modes = [Layout(tuple(d.size for d in ds), tuple(strides[id(d)] for d in ds))
             if len(ds) > 1 else Layout(ds[0].size, strides[id(ds[0])]) for ds in per_dim]
    return modes[0] if len(modes) == 1 else make_layout(*modes)


def digits(shape: Shape, dims=None, ar: Arithmetic = INT):
    """Each logical dim's digits and each entry of the tiled array's final
    index vector as digits, both minor first: ``(per_dim, entries)``.

    An entry's value is the colexicographic number its digits' coordinates
    make; that is the fact :func:`tilespec.prove_cute` proves per entry, for
    every size (``dims`` terms of ``ar``; by default the shape's concrete dims).
    """
    dims = concrete_dims(shape) if dims is None else tuple(dims)
    symbolic = ar is not INT

    def refuse(why):
        raise LayoutError(f"no exact CuTe layout for {shape}: {why}")

    if not symbolic and any(d == 0 for d in dims):
        refuse("a dim of size 0 has no elements to lay out")
    per_dim = [[_Digit(i, d, True)] for i, d in enumerate(dims)]
    entries = [[per_dim[i][0]] for i in range(len(dims))]
    for stage in shape_pipeline(shape):
        if isinstance(stage, Permute):
            entries = [entries[p] for p in stage.perm]
        elif isinstance(stage, Prepend):
            entries = [[] for _ in range(stage.count)] + entries
        elif isinstance(stage, Combine):
            merged, start = [], 0
            for g in stage.groups:
                run = entries[start:start + g]
                start += g
                # Row-major merge: the most minor entry's digits come first.
                merged.append([d for entry in reversed(run) for d in entry])
            entries = merged
        elif isinstance(stage, Pad):
            pass  # the padding is made by the split of a top digit below
        elif isinstance(stage, Split):
            k = len(stage.sizes)
            out = entries[:len(entries) - k]
            for entry, t in zip(entries[len(entries) - k:], stage.sizes):
                inner, outer = _cut(entry, t, per_dim, stage.level, refuse, ar, symbolic)
                out += [outer, inner]
            entries = out
    return per_dim, entries


def digit_coordinate(per_dim, digit, e, ar: Arithmetic = INT):
    """The coordinate of ``digit`` for logical index ``e`` (CuTe's colex split)."""
    ds = per_dim[digit.dim]
    x = e[digit.dim]
    for d in ds:
        if d is digit:
            return x if d is ds[-1] else ar.mod(x, d.size)
        x = ar.floordiv(x, d.size)
    raise LayoutError("a digit that belongs to no dim")


def _cut(entry, t, per_dim, level, refuse, ar, symbolic):
    """Split an entry's digits at ``t``: (inner digits, outer digits)."""
    rest, inner = list(entry), []
    need = t
    while need > 1:
        if not rest:
            if not entry:
                refuse(f"tile level {level} pads a unit dim it adds (the tile is "
                       "longer than the dims it covers): no logical dim carries "
                       "that padding")
            refuse(f"tile level {level} cuts an entry of fixed size by {t}, more "
                   "than it holds (the level pads inside a tile)")
        digit = rest[0]
        last = len(rest) == 1
        if digit.top and last:
            # The most major piece of a dim pads up to a multiple of the rest
            # of the tile: (x % need, x // need), with ceil for the count.
            low = _Digit(digit.dim, need, False)
            digit.size = ar.ceildiv(digit.size, need)
            _replace(per_dim, digit, [low, digit])
            inner.append(low)
            rest[0] = digit
            need = 1
            break
        size = digit.size
        if symbolic and not isinstance(size, int):
            refuse(f"tile level {level} cuts a piece of dim {digit.dim} whose "
                   "size depends on the dims ('*' merged it under another dim)")
        if need % size == 0:
            inner.append(rest.pop(0))
            need //= size
        elif size % need == 0:
            low = _Digit(digit.dim, need, False)
            high = _Digit(digit.dim, size // need, digit.top)
            _replace(per_dim, digit, [low, high])
            inner.append(low)
            rest[0] = high
            need = 1
        else:
            # A dim's top piece that is not the entry's last lies under another
            # dim ('*' merged them): when the tile divides the merged extent
            # nothing pads, the cut only falls across a dim boundary.
            sizes = [d.size for d in rest]
            whole = all(isinstance(x, int) for x in sizes) and math.prod(sizes) % need == 0
            why = ("the tile cuts dims merged by '*' across a dim boundary" if digit.top
                   and whole else "the level pads inside a tile")
            refuse(f"tile level {level} cuts a piece of size {size} of dim {digit.dim} by "
                   f"{need}, which neither divides it nor is divided by it ({why})")
    return inner, rest


def _replace(per_dim, digit, pieces) -> None:
    digits = per_dim[digit.dim]
    at = next(i for i, d in enumerate(digits) if d is digit)
    digits[at:at + 1] = pieces


# --- the way back: a CuTe layout's digits as an XLA tiling -----------------------

#: Tile levels the search for a tiling tries at most.
MAX_LEVELS = 3
#: Up to this rank every order of the dims is tried; above it, the order of
#: the dims' most major digits.
MAX_ORDERED_RANK = 5


def xla_tilings(layout: Layout, dims: Sequence[int]) -> tuple[XlaLayout, ...]:
    """XLA layouts (``minor_to_major`` and tiles) that may give the CuTe
    layout on the logical dims ``dims`` (one mode per dim,
    :func:`dim_modes`).  The first reads the modes' ``(size, stride)``
    digits as a tiling of the mode sizes, with the fewest tile levels; where
    a dim is shorter than its mode, the second pads first: a level whose
    tile is the mode sizes.  The caller proves which one is equal (if any).

    >>> from tilespec.cute.layout import parse_cute as cute
    >>> from tilespec.spec.printer import format_layout as text
    >>> [text(x) for x in xla_tilings(cute("((8,3),(128,2)):((128,2048),(1,1024))"), (24, 256))]
    ['{1,0:T(8,128)}']
    >>> [text(x) for x in xla_tilings(cute("(3,16):(16,1)"), (3, 5))]
    ['{1,0}', '{1,0:T(3,16)}']
    >>> xla_tilings(cute("(3,5):(1,4)"), (3, 5))
    Traceback (most recent call last):
    ...
    tilespec.spec.errors.LayoutError: the CuTe layout is not compact: ...

    The digits must be compact (a bijection of the domain onto
    ``[0, size)``), as the CuTe form of every XLA layout is.  A level tiles
    the last entries of the level before's tile (a tile that reaches the
    tile counts before it is not searched).
    """
    modes = [m.flat() for m in dim_modes(layout, len(dims))]
    if len(modes) != len(dims):
        raise LayoutError(f"the CuTe layout {layout.cute_text()} has {len(modes)} modes "
                          f"for {len(dims)} dims: one mode per dim")
    digits = _compact_digits(modes)
    entries = [[d for d in digits if d[0] == dim] for dim in range(len(modes))]
    memory = sorted(digits, key=lambda d: -d[3])
    found = _tiling(entries, memory)
    if found is None:
        raise LayoutError(f"no XLA tiling of at most {MAX_LEVELS} levels, each "
                          "within the tile before, places the CuTe layout's digits in "
                          "its order")
    order, tiles = found
    layouts = [XlaLayout(tuple(reversed(order)), tuple(Tile(t) for t in tiles))]
    sizes = [product((size for size, _ in mode)) for mode in modes]
    if any(d < s for d, s in zip(dims, sizes)):
        pad = Tile(tuple(sizes[i] for i in order))
        layouts.append(XlaLayout(tuple(reversed(order)), (pad,) + layouts[0].tiles))
    return tuple(layouts)


def _tiling(entries, memory):
    for levels in range(MAX_LEVELS + 1):
        for order in _orders(entries):
            tiles = _tiles([entries[i] for i in order], memory, levels)
            if tiles is not None:
                return order, tiles
    return None


def _compact_digits(modes):
    """Each digit as (dim, position, size, stride); size-1 digits dropped,
    neighbours of one dim that continue each other merged."""
    out = []
    for dim, mode in enumerate(modes):
        merged: list[list[int]] = []
        for size, stride in mode:
            if size == 1:
                continue
            if merged and merged[-1][0] * merged[-1][1] == stride:
                merged[-1][0] *= size
            else:
                merged.append([size, stride])
        out += [(dim, k, size, stride) for k, (size, stride) in enumerate(merged)]
    expected = 1
    for _, _, size, stride in sorted(out, key=lambda d: d[3]):
        if stride != expected:
            what = (f"no coordinate reaches offset {expected} (the next stride is {stride})"
                    if stride > expected else
                    f"stride {stride} goes backwards or stays" if stride <= 0 else
                    f"two coordinates reach offset {stride} (stride {stride} again)")
            raise LayoutError(f"the CuTe layout is not compact: {what}; an XLA layout "
                              "places its padded elements densely, once each")
        expected = size * stride
    return out


def _orders(entries):
    if len(entries) <= MAX_ORDERED_RANK:
        return itertools.permutations(range(len(entries)))
    top = [max((d[3] for d in e), default=0) for e in entries]
    return [tuple(sorted(range(len(entries)), key=lambda i: -top[i]))]


def _major_first(entries):
    return [d for e in entries for d in reversed(e)]


def _tiles(entries, memory, levels):
    """The tiles (sizes, one tuple per level) that put ``entries`` (digits
    minor first, most major entry first) in ``memory`` order, or None."""
    if memory == _major_first(entries):
        return []
    if levels == 0:
        return None
    n = len(entries)
    for k in range(1, n + 1):
        tiled = entries[n - k:]
        for cuts in itertools.product(*(range(len(e) + 1) for e in tiled)):
            if not any(cuts):
                continue
            prefix = _major_first(entries[:n - k]) + _major_first(
                [e[c:] for e, c in zip(tiled, cuts)])
            if memory[:len(prefix)] != prefix:
                continue
            inner = [e[:c] for e, c in zip(tiled, cuts)]
            rest = _tiles(inner, memory[len(prefix):], levels - 1)
            if rest is not None:
                sizes = tuple(product((d[2] for d in e)) for e in inner)
                return [sizes] + rest
    return None
