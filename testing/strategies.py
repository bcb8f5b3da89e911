"""Hypothesis strategies for shapes, tiles and layouts.

Import these to test code that takes XLA shapes: every value they generate is
valid (the constructors in :mod:`spec.layout` accept it), and the strategies
for concrete shapes keep the padded size small, so a test can enumerate every
element and every offset.

* :func:`element_types`: XLA element type names, ``"f32"``, ``"s4"``, ...
* :func:`tiles`: one :class:`~spec.layout.Tile`, ``*`` entries included.
* :func:`layouts`: a :class:`~spec.layout.Layout` for a given rank: a
  ``minor_to_major`` permutation and 0 or more tiling levels, each valid for the
  vector the previous level leaves (length ``prefix + 2*k``), tiles longer
  than that vector included.
* :func:`shapes_with_layout`: a concrete, small :class:`~spec.layout.Shape`:
  odd sizes, size-1 dims, now and then a size-0 dim, scalars, ``*`` entries,
  tiles longer than the shape, ``E(n)`` and ``L(n)``.
* :func:`xla_shapes`: any shape XLA can print, for text tests: every layout
  field, dynamic dims ``<=N`` and ``?``, large sizes, tuples.
* :func:`elements` and :func:`positions`: an in-range index or offset of a
  given shape.

Arguments are keyword-only and checked when the strategy is made; a bad one
raises :class:`hypothesis.errors.InvalidArgument`, as Hypothesis's own
strategies do.

>>> from hypothesis import given, settings
>>> from tilespec.spec.index import padded_elements, offset, locate
>>> @settings(max_examples=25, database=None, deadline=None)
... @given(shapes_with_layout(max_rank=3, max_elements=256))
... def small(shape):
...     assert padded_elements(shape) <= 256
>>> small()
>>> @settings(max_examples=25, database=None, deadline=None)
... @given(shapes_with_layout(allow_zero=False).flatmap(
...     lambda s: elements(s).map(lambda e: (s, e))))
... def round_trip(case):
...     shape, element = case
...     assert locate(shape, offset(shape, element)) == element
>>> round_trip()
>>> tiles(max_size=0)
Traceback (most recent call last):
...
hypothesis.errors.InvalidArgument: max_size=0 must be at least 1
"""

from __future__ import annotations

import math
from typing import Any, Iterable, Sequence

import hypothesis.strategies as st
from hypothesis.errors import InvalidArgument

from ..spec import (
    COMBINE,
    ELEMENT_TYPES,
    NON_ARRAY_TYPES,
    Dim,
    Layout,
    Shape,
    SplitConfig,
    Tile,
    TupleShape,
    bit_width,
    combine_groups,
    padded_elements,
    storage_bits,
)

__all__ = [
    "ALL_FIELDS", "SIZE_FIELDS", "SPARSE_FIELDS",
    "element_types", "tiles", "layouts", "shapes_with_layout", "xla_shapes",
    "elements", "positions",
]

#: Optional layout fields the strategies can add, by the letter XLA prints.
#: ``T`` (tiles) is not among them: tiles have their own arguments.  The
#: sparse-only fields ``D``, ``#``, ``*`` and ``P`` are not either: XLA drops
#: ``D`` and rejects the others on dense arrays (see :data:`SPARSE_FIELDS`).
ALL_FIELDS = ("L", "E", "S", "SC", "M")

#: Layout fields of XLA's old sparse arrays: text that XLA reads and drops
#: (``D``) or rejects (``#``, ``*``, ``P``); useful to make bad input.
SPARSE_FIELDS = ("D", "#", "*", "P")

#: The fields that change a shape's size in memory but not its offsets.
SIZE_FIELDS = ("L", "E")


# --- argument checks ----------------------------------------------------------

def _check_int(name: str, value: object, min_value: int | None = None,
               max_value: int | None = None, allow_none: bool = False) -> None:
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgument(
            f"{name}={value!r} must be an integer"
            + (" or None" if allow_none else ""))
    if min_value is not None and value < min_value:
        raise InvalidArgument(f"{name}={value} must be at least {min_value}")
    if max_value is not None and value > max_value:
        raise InvalidArgument(f"{name}={value} must be at most {max_value}")


def _check_order(low_name: str, low: int, high_name: str, high: int) -> None:
    if low > high:
        raise InvalidArgument(
            f"{low_name}={low} must not be more than {high_name}={high}")


def _check_bool(name: str, value: object) -> None:
    if not isinstance(value, bool):
        raise InvalidArgument(f"{name}={value!r} must be True or False")


def _check_fields(fields: object) -> tuple[str, ...]:
    if isinstance(fields, str) or not isinstance(fields, Iterable):
        raise InvalidArgument(
            f"fields={fields!r} must be a collection of layout field letters "
            f"from {ALL_FIELDS}")
    letters = tuple(fields)
    unknown = [f for f in letters if f not in ALL_FIELDS]
    if unknown:
        raise InvalidArgument(
            f"fields: unknown layout field {unknown[0]!r}; choose from {ALL_FIELDS}")
    return letters


def _check_tiling(min_tiles: int, max_tiles: int, max_tile_size: int, max_tile_rank: int,
                  allow_combine: bool) -> None:
    _check_int("min_tiles", min_tiles, 0)
    _check_int("max_tiles", max_tiles, 0)
    _check_order("min_tiles", min_tiles, "max_tiles", max_tiles)
    _check_int("max_tile_size", max_tile_size, 1)
    _check_int("max_tile_rank", max_tile_rank, 1)
    _check_bool("allow_combine", allow_combine)


def _check_strategy(name: str, value: object) -> None:
    if not isinstance(value, st.SearchStrategy):
        raise InvalidArgument(f"{name}={value!r} must be a Hypothesis strategy")


# --- element types and tiles ------------------------------------------------------

def element_types(*, sub_byte: bool = True) -> st.SearchStrategy[str]:
    """Names of XLA array element types (not ``token`` or ``opaque``).

    ``sub_byte=False`` leaves out the types narrower than a byte (``pred``,
    ``s4``, ``f4e2m1fn``, ...).

    >>> element_types(sub_byte="no")
    Traceback (most recent call last):
    ...
    hypothesis.errors.InvalidArgument: sub_byte='no' must be True or False
    """
    _check_bool("sub_byte", sub_byte)
    names = [t for t in ELEMENT_TYPES if sub_byte or bit_width(t) >= 8]
    # Common types first: Hypothesis shrinks towards the start of the list.
    first = [t for t in ("f32", "bf16", "s32", "s8", "pred", "s4") if t in names]
    return st.sampled_from(first + [t for t in names if t not in first])


def _tile_sizes(draw: st.DrawFn, length: int, max_size: int, allow_combine: bool) -> Tile:
    sizes: list[int] = []
    for i in range(length):
        # One entry in four is '*', never the last; shrinks to no '*'.
        if allow_combine and i < length - 1 and draw(st.integers(0, 3)) == 3:
            sizes.append(COMBINE)
        else:
            sizes.append(draw(st.integers(1, max_size)))
    return Tile(tuple(sizes))


def tiles(*, rank: int | None = None, min_rank: int = 1, max_rank: int = 4,
          max_size: int = 8, allow_combine: bool = True) -> st.SearchStrategy[Tile]:
    """One tile: ``rank`` entries (or between ``min_rank`` and ``max_rank``).

    Entries are sizes in ``[1, max_size]`` or, if ``allow_combine``, now and
    then ``*`` (stored as :data:`~spec.layout.COMBINE`); the last entry is
    never ``*``.

    >>> tiles(rank=0)
    Traceback (most recent call last):
    ...
    hypothesis.errors.InvalidArgument: rank=0 must be at least 1
    """
    _check_int("rank", rank, 1, allow_none=True)
    _check_int("min_rank", min_rank, 1)
    _check_int("max_rank", max_rank, 1)
    _check_order("min_rank", min_rank, "max_rank", max_rank)
    _check_int("max_size", max_size, 1)
    _check_bool("allow_combine", allow_combine)
    lengths = st.just(rank) if rank is not None else st.integers(min_rank, max_rank)

    @st.composite
    def tile(draw: st.DrawFn) -> Tile:
        return _tile_sizes(draw, draw(lengths), max_size, allow_combine)
    return tile()


# --- layouts --------------------------------------------------------------------------

def _after(n: int, tile: Tile) -> int:
    """Length of the vector a tiling level leaves from one of length ``n``."""
    n = max(n, len(tile))
    prefix = n - len(tile)
    _, sizes = combine_groups(tile, prefix)
    return prefix + 2 * len(sizes)


def _draw_tiles(draw: st.DrawFn, rank: int, min_tiles: int, max_tiles: int,
                max_tile_size: int, max_tile_rank: int, allow_combine: bool) -> list[Tile]:
    count = draw(st.integers(min_tiles, max_tiles))
    n = rank
    out: list[Tile] = []
    for _ in range(count):
        # Most often no longer than the vector; one time in four up to two
        # entries longer (leading unit dims are then assumed).
        longer = draw(st.integers(0, 3)) == 3 or n == 0
        longest = max(1, min(n + 2 if longer else n, max_tile_rank))
        length = draw(st.integers(1, longest))
        tile = _tile_sizes(draw, length, max_tile_size, allow_combine)
        out.append(tile)
        n = _after(n, tile)
    return out


def _draw_fields(draw: st.DrawFn, rank: int, fields: Iterable[str]) -> dict[str, Any]:
    """Optional layout fields other than tiles and split configs."""
    out: dict[str, Any] = {}
    if "L" in fields and draw(st.booleans()):
        out["tail_padding_alignment_in_elements"] = draw(
            st.sampled_from((2, 4, 8, 128, 1024)) | st.integers(1, 100))
    if "E" in fields and draw(st.booleans()):
        out["element_size_in_bits"] = draw(
            st.sampled_from((1, 2, 4, 8, 16, 32)) | st.integers(1, 64))
    if "S" in fields and draw(st.booleans()):
        out["memory_space"] = draw(st.integers(1, 5) | st.integers(1, 127))
    if "M" in fields and draw(st.booleans()):
        out["dynamic_shape_metadata_prefix_bytes"] = draw(st.integers(1, 64))
    return out


def _draw_layout(draw: st.DrawFn, rank: int, min_tiles: int, max_tiles: int,
                 max_tile_size: int, max_tile_rank: int, allow_combine: bool,
                 fields: Iterable[str]) -> Layout:
    m2m = draw(st.permutations(range(rank)))
    tiles_ = _draw_tiles(draw, rank, min_tiles, max_tiles, max_tile_size,
                         max_tile_rank, allow_combine)
    return Layout(tuple(m2m), tiles=tuple(tiles_), **_draw_fields(draw, rank, fields))


def layouts(*, rank: int, min_tiles: int = 0, max_tiles: int = 3,
            max_tile_size: int = 8, max_tile_rank: int = 6,
            allow_combine: bool = True,
            fields: Iterable[str] = ()) -> st.SearchStrategy[Layout]:
    """Layouts for shapes of rank ``rank``, with up to ``max_tiles`` tiling levels.

    Each level's tile is valid for the vector the previous level leaves: from
    one entry up to two more than that vector (at most ``max_tile_rank``),
    sizes up to ``max_tile_size``, ``*`` entries if ``allow_combine``.
    ``fields`` names optional layout fields to add now and then, from
    :data:`ALL_FIELDS` except ``SC`` (split configs need the dim sizes; see
    :func:`shapes_with_layout` and :func:`xla_shapes`).

    >>> layouts(rank=2, fields=("SC",))
    Traceback (most recent call last):
    ...
    hypothesis.errors.InvalidArgument: fields: SC needs the dim sizes; use shapes_with_layout or xla_shapes
    """
    _check_int("rank", rank, 0)
    _check_tiling(min_tiles, max_tiles, max_tile_size, max_tile_rank, allow_combine)
    letters = _check_fields(fields)
    if "SC" in letters:
        raise InvalidArgument(
            "fields: SC needs the dim sizes; use shapes_with_layout or xla_shapes")

    @st.composite
    def layout(draw: st.DrawFn) -> Layout:
        return _draw_layout(draw, rank, min_tiles, max_tiles, max_tile_size,
                            max_tile_rank, allow_combine, letters)
    return layout()


def _split_configs(draw: st.DrawFn, dims: Sequence[Dim],
                   m2m: Sequence[int]) -> tuple[SplitConfig, ...]:
    """Up to two split configs on distinct physical dims of known size >= 2."""
    rank = len(dims)
    size_of = {p: dims[m2m[rank - 1 - p]] for p in range(rank)}
    usable = [p for p, d in size_of.items() if isinstance(d, int) and d >= 2]
    if not usable or not draw(st.booleans()):
        return ()
    chosen = draw(st.lists(st.sampled_from(usable), min_size=1, max_size=2,
                           unique=True))
    out = []
    for p in chosen:
        size = size_of[p]
        assert isinstance(size, int)  # usable dims have a size
        idx = draw(st.lists(st.integers(1, min(size - 1, 2**20)), max_size=3,
                            unique=True))
        out.append(SplitConfig(p, tuple(sorted(idx))))
    return tuple(out)


# --- concrete shapes --------------------------------------------------------------

def _draw_dims(draw: st.DrawFn, rank: int, max_dim: int, budget: int,
               allow_zero: bool) -> tuple[int, ...]:
    """Dims whose product is at most ``budget``; now and then a 0."""
    dims: list[int] = []
    product = 1
    for _ in range(rank):
        if allow_zero and draw(st.integers(0, 15)) == 15:
            dims.append(0)
            continue
        cap = max(1, min(max_dim, budget // product))
        d = draw(st.integers(1, cap))
        dims.append(d)
        product *= d
    # The first dims drawn may take the whole budget: spread big dims around.
    return tuple(draw(st.permutations(dims))) if rank > 1 else tuple(dims)


def _fit(shape: Shape, max_elements: int, min_tiles: int) -> Shape:
    """Drop or flatten tiling levels until the padded size is at most max_elements.

    A tile whose entries are all 1 or ``*`` pads nothing, so this ends.
    """
    layout = shape.layout
    tiles_ = list(layout.tiles)
    while padded_elements(shape.with_layout(layout.replace(tiles=tuple(tiles_)))) \
            > max_elements:
        if len(tiles_) > min_tiles:
            tiles_.pop()
            continue
        # Shrink the largest entry of the last level that still pads.
        for i in reversed(range(len(tiles_))):
            sizes = list(tiles_[i].sizes)
            big = max(sizes)
            if big > 1:
                sizes[sizes.index(big)] = 1
                tiles_[i] = Tile(tuple(sizes))
                break
    return shape.with_layout(layout.replace(tiles=tuple(tiles_)))


def shapes_with_layout(*, min_rank: int = 0, max_rank: int = 4, max_dim: int = 12,
                       min_tiles: int = 0, max_tiles: int = 3,
                       max_tile_size: int = 8, max_tile_rank: int = 6,
                       allow_combine: bool = True, allow_zero: bool = True,
                       max_elements: int = 4096, fields: Iterable[str] = SIZE_FIELDS,
                       dtypes: st.SearchStrategy[str] | None = None,
                       ) -> st.SearchStrategy[Shape]:
    """Concrete array shapes with a layout, small enough to enumerate.

    Ranks ``min_rank..max_rank``, dims up to ``max_dim`` (a 0 now and then if
    ``allow_zero``), a random ``minor_to_major`` and ``min_tiles..max_tiles``
    tiling levels as in :func:`layouts`.  The padded size
    (:func:`spec.index.padded_elements`) is at most ``max_elements``: levels
    that would pad beyond it are dropped (or, below ``min_tiles``, their
    entries set to 1).  ``fields`` as in :func:`layouts`, ``SC`` allowed;
    by default ``L(n)`` and ``E(n)`` come now and then.  ``dtypes`` draws the
    element type (default :func:`element_types`).

    >>> shapes_with_layout(min_rank=3, max_rank=2)
    Traceback (most recent call last):
    ...
    hypothesis.errors.InvalidArgument: min_rank=3 must not be more than max_rank=2
    """
    _check_int("min_rank", min_rank, 0)
    _check_int("max_rank", max_rank, 0, 32)
    _check_order("min_rank", min_rank, "max_rank", max_rank)
    _check_int("max_dim", max_dim, 1)
    _check_tiling(min_tiles, max_tiles, max_tile_size, max_tile_rank, allow_combine)
    _check_bool("allow_zero", allow_zero)
    _check_int("max_elements", max_elements, 1)
    fields = _check_fields(fields)
    if dtypes is None:
        dtypes = element_types()
    _check_strategy("dtypes", dtypes)

    @st.composite
    def shape(draw: st.DrawFn) -> Shape:
        rank = draw(st.integers(min_rank, max_rank))
        # Leave room for padding: dims take at most a quarter of the budget
        # (all of it when the budget is tiny).
        budget = max_elements if max_elements < 16 else max_elements // 4
        dims = _draw_dims(draw, rank, max_dim, budget, allow_zero)
        layout = _draw_layout(draw, rank, min_tiles, max_tiles, max_tile_size,
                              max_tile_rank, allow_combine, fields)
        if "SC" in fields:
            layout = layout.replace(split_configs=_split_configs(
                draw, dims, layout.minor_to_major))
        return _fit(Shape(draw(dtypes), dims, layout), max_elements, min_tiles)
    return shape()


# --- any printable shape ------------------------------------------------------------

def _int(d: Dim) -> int:
    """A dim known to be a size."""
    assert isinstance(d, int)
    return d


def _fit_int64(element_type: str, dims: Sequence[Dim]) -> tuple[Dim, ...]:
    """Halve the largest dims until the byte count fits int64, as XLA
    requires of every shape (see :class:`spec.layout.Shape`)."""
    dims = list(dims)

    def fits() -> bool:
        partial = storage_bits(element_type) // 8
        for d in dims:
            partial *= d if isinstance(d, int) else 1
            if partial > 2**63 - 1:
                return False
        return True
    while not fits():
        i = max((j for j, d in enumerate(dims) if isinstance(d, int)), key=lambda j: _int(dims[j]))
        dims[i] = _int(dims[i]) // 2
    return tuple(dims)


def xla_shapes(*, min_rank: int = 0, max_rank: int = 4, max_dim: int = 2**20,
               max_tiles: int = 3, allow_combine: bool = True,
               allow_dynamic: bool = True, allow_names: bool = False,
               allow_tuples: bool = True, max_leaves: int = 8,
               fields: Iterable[str] = ALL_FIELDS) -> st.SearchStrategy[Shape | TupleShape]:
    """Any shape XLA can print: for parser and printer tests, not for enumerating.

    Arrays of every element type, sizes up to ``max_dim``, every layout field
    in ``fields`` (``SC`` included), dynamic dims ``<=N`` and ``?`` if
    ``allow_dynamic``, dims that are names if ``allow_names``, ``token[]`` and
    ``opaque[]``, and, if ``allow_tuples``, tuples (nested, empty, and long
    enough for XLA's ``/*index=5*/`` comments) of up to ``max_leaves`` arrays.

    >>> xla_shapes(max_leaves=0)
    Traceback (most recent call last):
    ...
    hypothesis.errors.InvalidArgument: max_leaves=0 must be at least 1
    """
    _check_int("min_rank", min_rank, 0)
    _check_int("max_rank", max_rank, 0, 32)
    _check_order("min_rank", min_rank, "max_rank", max_rank)
    _check_int("max_dim", max_dim, 1)
    _check_int("max_tiles", max_tiles, 0)
    _check_bool("allow_combine", allow_combine)
    _check_bool("allow_dynamic", allow_dynamic)
    _check_bool("allow_names", allow_names)
    _check_bool("allow_tuples", allow_tuples)
    _check_int("max_leaves", max_leaves, 1)
    fields = _check_fields(fields)

    sizes = st.integers(0, min(max_dim, 16)) | st.integers(0, max_dim)
    names = st.from_regex(r"[a-z][a-z0-9_]{0,3}", fullmatch=True)

    @st.composite
    def dim(draw: st.DrawFn) -> tuple[Dim, bool]:
        kind = draw(st.integers(0, 7))
        if allow_dynamic and kind == 5:
            return draw(sizes), True          # <=N
        if allow_dynamic and kind == 6:
            return None, True                 # ?
        if allow_names and kind == 7:
            return draw(names), False
        return draw(sizes), False

    @st.composite
    def array(draw: st.DrawFn) -> Shape:
        if draw(st.integers(0, 15)) == 0:
            return Shape(draw(st.sampled_from(NON_ARRAY_TYPES)), ())
        rank = draw(st.integers(min_rank, max_rank))
        drawn = [draw(dim()) for _ in range(rank)]
        element_type = draw(element_types())
        dims = _fit_int64(element_type, [d for d, _ in drawn])
        dynamic = tuple(f for _, f in drawn)
        layout = _draw_layout(draw, rank, 0, max_tiles, 256, 6, allow_combine,
                              fields)
        if "SC" in fields:
            layout = layout.replace(split_configs=_split_configs(
                draw, dims, layout.minor_to_major))
        return Shape(element_type, dims, layout, dynamic)

    if not allow_tuples:
        return array()

    @st.composite
    def tree(draw: st.DrawFn) -> Shape | TupleShape:
        left = [max_leaves]      # arrays still allowed

        def node(depth: int) -> Shape | TupleShape:
            # Two in three nodes are arrays; tuples nest two deep, mostly
            # short, now and then long enough for /*index=5*/.
            if depth == 2 or draw(st.integers(0, 2)) < 2:
                left[0] -= 1
                return draw(array())
            long = draw(st.integers(0, 3)) == 3
            count = draw(st.integers(6, 7) if long else st.integers(0, 3))
            items: list[Shape | TupleShape] = []
            for _ in range(count):
                if left[0] == 0:
                    break
                items.append(node(depth + 1))
            return TupleShape(tuple(items))
        return node(0)
    return tree()


# --- indices of a given shape -------------------------------------------------------

def _concrete(shape: object, what: str) -> tuple[int, ...]:
    if not isinstance(shape, Shape):
        raise InvalidArgument(f"{what} needs an array Shape, not {shape!r}")
    sizes = tuple(d for d in shape.dims if isinstance(d, int))
    if len(sizes) != shape.rank:
        raise InvalidArgument(f"{what}: {shape} has a dim without a size")
    return sizes


def elements(shape: Shape) -> st.SearchStrategy[tuple[int, ...]]:
    """Logical indices of ``shape``'s elements: tuples, each entry in range.

    >>> from tilespec.spec.text import parse_array_shape
    >>> elements(parse_array_shape("f32[3,0]"))
    Traceback (most recent call last):
    ...
    hypothesis.errors.InvalidArgument: elements: f32[3,0]{1,0} has no elements
    """
    dims = _concrete(shape, "elements")
    if math.prod(dims) == 0:
        raise InvalidArgument(f"elements: {shape} has no elements")
    return st.tuples(*(st.integers(0, d - 1) for d in dims))


def positions(shape: Shape) -> st.SearchStrategy[int]:
    """Offsets in ``[0, padded_elements(shape))``: elements and padding alike.

    >>> from tilespec.spec.text import parse_array_shape
    >>> positions(parse_array_shape("f32[0]{0:T(4)}"))
    Traceback (most recent call last):
    ...
    hypothesis.errors.InvalidArgument: positions: f32[0]{0:T(4)} occupies no memory
    """
    _concrete(shape, "positions")
    size = padded_elements(shape)
    if size == 0:
        raise InvalidArgument(f"positions: {shape} occupies no memory")
    return st.integers(0, size - 1)
