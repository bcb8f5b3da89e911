"""What dividing an XLA tiled layout by a tile gives, and which XLA tiling
that is.

An XLA layout's CuTe form (:func:`tilespec.cute.xla.cute_layout`) has
one mode per logical dim.  Dividing it by a tile (CuTe's
``zipped_divide``) regroups each element's coordinate into the place
inside its tile (mode 0) and the tile it is in (mode 1).  That divided
layout *is* an XLA tiling when it gives, at every element, the offset of
an XLA layout with that tile as one of its tile levels: then each tile is
one contiguous block of memory, laid out as XLA lays out that level.
:func:`tile_division` tries, in order, the tile alone (``T(tile)``), the
tile in place of the first level (keeping the later ones, e.g. ``(2,1)``
for bf16), and the tile nested inside the layout's own tiles, and proves
the first that holds with Z3 for every element; where none does, the
result is the refutation of ``T(tile)``, with the element where the
offsets differ.

>>> d = tile_division("f32[24,256]{1,0:T(8,128)}", (8, 128))
>>> print(d.cute, d.divided, sep="\\n")
((8, 3), (128, 2)):((128, 2048), (1, 1024))
((8, 128), (3, 2)):((128, 1), (2048, 1024))
>>> d.xla, d.result.status
('f32[24,256]{1,0:T(8,128)}', 'proved')
>>> d = tile_division("f32[24,256]{1,0:T(8,128)}", (4, 128))
>>> d.xla
'f32[24,256]{1,0:T(8,128)(4,128)}'
>>> tile_division("f32[24,256]{1,0}", (8, 128)).xla is None
True

The tile is written as XLA writes a tile, in physical order: its last
size covers the most minor dim.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...prover.names import DEFAULT_TIMEOUT
from ...prover.result import Result
from ...spec import (
    INT,
    Arithmetic,
    Shape,
    ShapeError,
    ShapeLike,
    Tile,
    as_shape,
    concrete_dims,
    evaluate,
    format_shape,
    padded_elements,
    shape_pipeline,
)
from .. import CuteError, Layout, cute_layout, idx2crd, zipped_divide
from .claims import equal, fact, prove_claims
from .laws import width


@dataclass(frozen=True)
class TileDivision:
    """The XLA layout ``shape``, its CuTe form ``cute``, the divide by
    ``tile`` (``divided``: mode 0 the place in a tile, mode 1 the tile),
    and ``xla``, the XLA layout that divide is (None where no candidate
    holds); ``result`` is the proof (or the refutation of ``T(tile)``)."""

    shape: str
    tile: tuple[int, ...]
    cute: Layout
    divided: Layout
    xla: str | None
    result: Result
    #: the tile as one size per logical dim (:func:`tiler`)
    per_dim: tuple[int, ...] = ()

    def offset(self, element, ar: Arithmetic = INT):
        """The divide's offset of a logical element: at the place
        ``element mod tile`` of the tile ``element div tile``.

        >>> tile_division("f32[24,256]{1,0:T(8,128)}", (8, 128)).offset((9, 130))
        3202
        """
        return divided_offset(self.divided, self.per_dim, element, ar)

    @property
    def tile_layout(self) -> Layout:
        """Offsets inside one tile (the divide's mode 0)."""
        return self.divided[0]

    @property
    def tiles_layout(self) -> Layout:
        """Where each tile starts (the divide's mode 1)."""
        return self.divided[1]

    def lines(self) -> list[str]:
        """The answer in words.

        >>> print("\\n".join(tile_division("f32[24,256]{1,0:T(8,128)}", (8, 128)).lines()))
        f32[24,256]{1,0:T(8,128)} in CuTe: ((8, 3), (128, 2)):((128, 2048), (1, 1024))
        divided by the tile (8,128): ((8, 128), (3, 2)):((128, 1), (2048, 1024))
          inside a tile: (8, 128):(128, 1)
          the tiles: (3, 2):(2048, 1024)
        that is f32[24,256]{1,0:T(8,128)}: proved
        """
        out = [f"{self.shape} in CuTe: {self.cute}",
               f"divided by the tile {Tile(self.tile)}: {self.divided}",
               f"  inside a tile: {self.tile_layout}",
               f"  the tiles: {self.tiles_layout}"]
        if self.xla is not None:
            out.append(f"that is {self.xla}: {self.result.status}")
        else:
            out.append(f"no XLA tiling with the tile {Tile(self.tile)} gives these offsets "
                       f"({self.result.status})")
            if self.result.counterexample is not None:
                out += ["  " + line for line in self.result.counterexample.lines()]
        return out


def tiler(shape: Shape, tile: tuple[int, ...]) -> tuple[int, ...]:
    """The tile as one size per logical dim (1 where the tile does not
    reach): XLA's tile covers the most minor dims, its last size the most
    minor.

    >>> from tilespec.spec.text import parse_array_shape
    >>> tiler(parse_array_shape("f32[24,256,4]{1,2,0}"), (8, 128))
    (1, 128, 8)
    """
    if not tile or len(tile) > shape.rank or any(t < 1 for t in tile):
        raise CuteError(f"a tile of {len(tile)} sizes >= 1 for the rank-{shape.rank} "
                        f"{format_shape(shape)} is needed, not {tile}")
    per_dim = [1] * shape.rank
    m2m = shape.layout.minor_to_major
    for k, t in enumerate(reversed(tile)):
        per_dim[m2m[k]] = t
    return tuple(per_dim)


def candidates(shape: Shape, tile: tuple[int, ...]) -> list[Shape]:
    """The XLA layouts tried: ``T(tile)``, the tile in place of the first
    level, the tile nested inside the layout's levels (each once)."""
    levels = shape.layout.tiles
    out: list[Shape] = []
    for tiles in ((Tile(tile),), (Tile(tile),) + levels[1:], levels + (Tile(tile),)):
        candidate = Shape(shape.element_type, shape.dims, shape.layout.replace(tiles=tiles))
        if candidate not in out:
            out.append(candidate)
    return out


def tile_sizes(tile: object) -> tuple[int, ...]:
    """A tile's sizes from a tuple of ints or its text (``8,128`` or ``(8,128)``).

    >>> tile_sizes("(8,128)"), tile_sizes((2, 1))
    ((8, 128), (2, 1))
    >>> tile_sizes("8,x")
    Traceback (most recent call last):
    tilespec.spec.errors.ShapeError: a tile is sizes like (8,128), not '8,x'
    """
    parts: list[object] = (list(tile.strip().strip("()").split(",")) if isinstance(tile, str)
                           else list(tile) if isinstance(tile, (tuple, list)) else [])
    texts = [t for t in parts if isinstance(t, (int, str)) and not isinstance(t, bool)]
    try:
        sizes = tuple(int(t) for t in texts)
    except ValueError:
        sizes = ()
    if not sizes or len(sizes) != len(parts):
        raise ShapeError(f"a tile is sizes like (8,128), not {tile!r}")
    return sizes


def tile_division(shape: ShapeLike, tile: tuple[int, ...], *,
                  timeout: float = DEFAULT_TIMEOUT) -> TileDivision:
    """Divide ``shape``'s CuTe form by ``tile`` and prove which XLA tiling
    the result is (see the module's text)."""
    shape = as_shape(shape)
    tile = tile_sizes(tile)
    per_dim = tiler(shape, tile)
    cute = cute_layout(shape)
    try:
        divided = zipped_divide(cute, per_dim)
    except CuteError as e:
        raise ShapeError(f"the tile {Tile(tile)} does not divide {format_shape(shape)}'s "
                         f"CuTe layout {cute}: {e}") from None
    dims = concrete_dims(shape)
    first = None
    for candidate in candidates(shape, tile):
        result = _prove_equal(divided, per_dim, dims, candidate, timeout)
        if result.proved:
            return TileDivision(format_shape(shape), tile, cute, divided,
                                format_shape(candidate), result, per_dim)
        first = first or result
    assert first is not None
    return TileDivision(format_shape(shape), tile, cute, divided, None, first, per_dim)


def divided_offset(divided: Layout, per_dim: tuple[int, ...], element, ar: Arithmetic = INT):
    """``divided`` (a zipped divide by ``per_dim``) at a logical element."""
    return divided((tuple(ar.mod(x, t) for x, t in zip(element, per_dim)),
                    tuple(ar.floordiv(x, t) for x, t in zip(element, per_dim))), ar=ar)


def _prove_equal(divided: Layout, per_dim: tuple[int, ...], dims: tuple[int, ...],
                 candidate: Shape, timeout: float) -> Result:
    """At every element ``e``: the divide at ((e mod tile), (e div tile))
    is ``candidate``'s offset of ``e``; and both cover as many offsets."""
    stages = shape_pipeline(candidate)
    text = format_shape(candidate)

    def split(i, ar):
        return divided_offset(divided, per_dim, idx2crd(i, dims, ar=ar), ar)

    def spec(i, ar):
        return evaluate(stages, idx2crd(i, dims, ar=ar), dims, ar)

    padded = padded_elements(candidate)
    w = width(divided, Layout(padded))
    return prove_claims(f"the divide by {Tile(tuple(per_dim))} of {text}", "divide is the XLA tiling",
                  [equal(f"the divide's offset == {text}'s offset", dims, split, spec,
                         names=("cute", "spec"), width=w),
                   fact(f"the divide has {text}'s padded elements", divided.size, padded,
                        divided.size == padded)], timeout)
