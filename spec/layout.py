"""Shapes and layouts as values: frozen, normalised in one constructor.

A :class:`Layout` holds every field XLA prints after a shape's dims; a
:class:`Shape` pairs an element type and dims with one.  Constructors accept
loose input (lists, ``"*"`` or ``-1`` for a combined tile entry) and store one
canonical form, so equal layouts compare equal however they were written.

>>> Tile((8, 128)).sizes
(8, 128)
>>> Tile(("*", 2)) == Tile((-1, 2)) == Tile((COMBINE, 2))
True
>>> s = Shape("f32", [3, 5], Layout([1, 0], tiles=[(2, 2)]))
>>> s.physical_dims, s.layout.tiles
((3, 5), (Tile(sizes=(2, 2)),))
>>> Shape("f32", [3, 5]).layout.minor_to_major   # missing layout: default
(1, 0)
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence, Union

from .dtypes import BIT_WIDTHS, NON_ARRAY_TYPES, UNSIGNED_TYPES, storage_bits
from .errors import LayoutError, ShapeError

#: How a combined ("*") tile entry is stored: XLA's ``Tile::kCombineDimension``,
#: INT64_MIN.  The source document says -1; the API accepts both and ``"*"``.
COMBINE = -(2**63)

#: The largest value of XLA's ``int64_t``: dims, tile sizes and sizes in bytes
#: are int64 in XLA, so a value above it cannot describe an XLA array.
INT64_MAX = 2**63 - 1

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")

#: A dimension size: an int, a name (for all-shapes proofs) or ``None``
#: (unbounded dynamic, ``?``).
Dim = Union[int, str, None]


def _tile_entry(value: object, where: str) -> int:
    if value == "*" or value == -1 or value == COMBINE:
        return COMBINE
    if isinstance(value, bool) or not isinstance(value, int):
        raise LayoutError(f"{where}: tile entry {value!r} is not an integer or '*'")
    if value <= 0:
        raise LayoutError(f"{where}: tile entry {value} must be positive or '*'")
    if value > INT64_MAX:
        raise LayoutError(f"{where}: tile entry {value} does not fit int64 "
                          "(at most 2^63-1; XLA's parser rejects it)")
    return value


@dataclass(frozen=True)
class Tile:
    """One level of tiling: sizes of the most minor physical dims.

    ``COMBINE`` at an entry merges that dim into the next more minor one.
    XLA reads, prints and validates ``*`` as the most minor entry too, so a
    tile holds it; the spec gives it no meaning (:meth:`combinable`).

    >>> Tile((2, "*")).sizes == (2, COMBINE)
    True
    """

    sizes: tuple[int, ...]

    def __post_init__(self) -> None:
        sizes = tuple(self.sizes)
        if not sizes:
            raise LayoutError("empty tile: a tile needs at least one entry")
        where = f"tile {_show(sizes)}"     # once: per entry it is quadratic
        sizes = tuple(_tile_entry(v, where) for v in sizes)
        object.__setattr__(self, "sizes", sizes)

    def combinable(self) -> "Tile":
        """The tile, if each ``*`` has a more minor entry to merge into; the
        index map and sizes of the spec need that.

        >>> Tile((2, "*")).combinable()
        Traceback (most recent call last):
        ...
        tilespec.spec.errors.LayoutError: tile (2,*): '*' as the most minor entry has no more minor dim to combine into (XLA reads and validates it; the layout document gives it no meaning)
        """
        if self.sizes[-1] == COMBINE:
            raise LayoutError(
                f"tile {self}: '*' as the most minor entry has no more minor dim "
                "to combine into (XLA reads and validates it; the layout "
                "document gives it no meaning)")
        return self

    def __len__(self) -> int:
        return len(self.sizes)

    @property
    def combines(self) -> bool:
        return COMBINE in self.sizes

    def __str__(self) -> str:
        return _show(self.sizes)


def _show(sizes: Sequence[object]) -> str:
    return "(" + ",".join("*" if v in (COMBINE, -1, "*") else str(v)
                          for v in sizes) + ")"


@dataclass(frozen=True)
class SplitConfig:
    """XLA's ``SC(dimension:index,index,...)``: where a dim is split in memory."""

    dimension: int
    split_indices: tuple[int, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "split_indices", tuple(self.split_indices))


def _as_tile(t: Tile | Sequence[int]) -> Tile:
    return t if isinstance(t, Tile) else Tile(tuple(t))


@dataclass(frozen=True)
class Layout:
    """Every field of an XLA layout, in the order XLA prints them.

    Defaults are the values XLA leaves unprinted.
    """

    minor_to_major: tuple[int, ...]
    tiles: tuple[Tile, ...] = ()
    dim_level_types: tuple[str, ...] = ()
    tail_padding_alignment_in_elements: int = 1
    index_primitive_type: str | None = None
    pointer_primitive_type: str | None = None
    element_size_in_bits: int = 0
    memory_space: int = 0
    split_configs: tuple[SplitConfig, ...] = ()
    physical_shape: "Shape | None" = None
    dynamic_shape_metadata_prefix_bytes: int = 0

    def __post_init__(self) -> None:
        m2m = tuple(self.minor_to_major)
        if sorted(m2m) != list(range(len(m2m))):
            raise LayoutError(
                f"minor_to_major {{{','.join(map(str, m2m))}}} is not a "
                f"permutation of 0..{len(m2m) - 1}")
        object.__setattr__(self, "minor_to_major", m2m)
        object.__setattr__(self, "tiles", tuple(_as_tile(t) for t in self.tiles))
        object.__setattr__(self, "dim_level_types", tuple(self.dim_level_types))
        object.__setattr__(self, "split_configs", tuple(
            s if isinstance(s, SplitConfig) else SplitConfig(*s)
            for s in self.split_configs))
        for name in ("index_primitive_type", "pointer_primitive_type"):
            value = getattr(self, name)
            if value is not None and value not in UNSIGNED_TYPES:
                raise LayoutError(
                    f"{name} {value!r} is not an unsigned integer type")
        if self.tail_padding_alignment_in_elements < 1:
            raise LayoutError(
                "tail padding alignment L("
                f"{self.tail_padding_alignment_in_elements}) must be at least 1")
        if self.element_size_in_bits < 0:
            raise LayoutError(f"element_size_in_bits {self.element_size_in_bits} "
                              "is negative")
        # XLA keeps the memory space in an int8_t (Layout::memory_space_, xla/layout.h)
        # and M in an int64_t that may be negative (then never printed).
        if not -128 <= self.memory_space <= 127:
            raise LayoutError(f"memory_space {self.memory_space} does not fit "
                              "XLA's 8-bit field (-128 to 127)")
        if not -(2**63) <= self.dynamic_shape_metadata_prefix_bytes <= INT64_MAX:
            raise LayoutError("dynamic_shape_metadata_prefix_bytes "
                              f"{self.dynamic_shape_metadata_prefix_bytes} does not fit int64")

    @classmethod
    def default(cls, rank: int) -> "Layout":
        """The layout XLA assumes when none is written: row-major."""
        return cls(tuple(range(rank - 1, -1, -1)))

    def replace(self, **changes: Any) -> "Layout":
        return dataclasses.replace(self, **changes)


@dataclass(frozen=True, init=False)
class Shape:
    """An array shape: element type, dims and one layout.

    ``dynamic[i]`` marks a dynamic dim: ``<=N`` (bounded, ``dims[i] == N``) or
    ``?`` (unbounded, ``dims[i] is None``).  A dim may be a name, meaning "any
    size", for proofs over all shapes.
    """

    element_type: str
    dims: tuple[Dim, ...]
    layout: Layout
    dynamic: tuple[bool, ...]

    def __init__(self, element_type: str, dims: Sequence[Dim], layout: Layout | None = None,
                 dynamic: Sequence[bool] | None = None) -> None:
        """No layout means XLA's default (row-major); no dynamic flags mean
        exactly the unbounded dims ('?') are dynamic."""
        if element_type not in BIT_WIDTHS and element_type not in NON_ARRAY_TYPES:
            raise ShapeError(f"unknown element type {element_type!r}")
        object.__setattr__(self, "element_type", element_type)
        dims = tuple(dims)
        for i, d in enumerate(dims):
            if d is None or isinstance(d, str) and _NAME.match(d):
                continue
            if isinstance(d, bool) or not isinstance(d, int) or d < 0:
                raise ShapeError(
                    f"dim {i} of {element_type}: size {d!r} is not a "
                    "non-negative integer or a name")
            if d > INT64_MAX:
                raise ShapeError(
                    f"dim {i} of {element_type}: size {d} does not fit int64 "
                    "(at most 2^63-1; XLA's parser rejects it)")
        _check_extent_product(element_type, dims)
        flags = (tuple(d is None for d in dims) if dynamic is None
                 else tuple(bool(x) for x in dynamic))
        if len(flags) != len(dims):
            raise ShapeError(f"{len(flags)} dynamic flags for {len(dims)} dims")
        if any(d is None and not f for d, f in zip(dims, flags)):
            raise ShapeError("an unbounded dim '?' must be marked dynamic")
        if any(isinstance(d, str) and f for d, f in zip(dims, flags)):
            # '<=n' has no text form XLA reads; a name already means any size
            raise ShapeError("a named dim cannot be dynamic")
        layout = Layout.default(len(dims)) if layout is None else layout
        if len(layout.minor_to_major) != len(dims):
            raise LayoutError(
                f"layout {{{','.join(map(str, layout.minor_to_major))}}} has "
                f"{len(layout.minor_to_major)} entries for a rank-{len(dims)} shape")
        if layout.dim_level_types and len(layout.dim_level_types) != len(dims):
            raise LayoutError(
                f"{len(layout.dim_level_types)} dim level types for a "
                f"rank-{len(dims)} shape")
        seen: set[int] = set()
        for sc in layout.split_configs:
            # XLA numbers a split config's dimension physically, 0 = most major.
            if not 0 <= sc.dimension < len(dims) or sc.dimension in seen:
                raise LayoutError(f"split config SC({sc.dimension}:...) names "
                                  "a physical dim out of range or twice")
            seen.add(sc.dimension)
            size = dims[layout.minor_to_major[len(dims) - 1 - sc.dimension]]
            idx = sc.split_indices
            if any(i <= 0 for i in idx) or list(idx) != sorted(set(idx)) or (
                    isinstance(size, int) and idx and idx[-1] >= size):
                raise LayoutError(
                    f"split config SC({sc.dimension}:...): split indices must "
                    "be increasing, positive and below the dim size")
        object.__setattr__(self, "dims", dims)
        object.__setattr__(self, "dynamic", flags)
        object.__setattr__(self, "layout", layout)

    @property
    def rank(self) -> int:
        return len(self.dims)

    @property
    def is_symbolic(self) -> bool:
        """True when some dim is a name rather than a size."""
        return any(isinstance(d, str) for d in self.dims)

    @property
    def names(self) -> tuple[str, ...]:
        """The dim names, each once, in the order they first appear."""
        return tuple(dict.fromkeys(d for d in self.dims if isinstance(d, str)))

    @property
    def element_bits(self) -> int:
        """Bits per element in memory: ``E(n)`` when set, else the type's width."""
        if self.layout.element_size_in_bits:
            return self.layout.element_size_in_bits
        if self.element_type in NON_ARRAY_TYPES:
            return 0
        return storage_bits(self.element_type)

    @property
    def physical_order(self) -> tuple[int, ...]:
        """Logical dim numbers from most major to most minor in memory."""
        return tuple(reversed(self.layout.minor_to_major))

    @property
    def physical_dims(self) -> tuple[Dim, ...]:
        """Dims from most major to most minor in memory."""
        return tuple(self.dims[i] for i in self.physical_order)

    def replace(self, **changes: Any) -> "Shape":
        return dataclasses.replace(self, **changes)

    def instantiate(self, values: Mapping[str, int]) -> "Shape":
        """The shape with each named dim given its value from ``values``
        (a name missing there counts as 1).

        >>> Shape("f32", ("m", 128, "n")).instantiate({"m": 8, "n": 3}).dims
        (8, 128, 3)
        """
        return dataclasses.replace(self, dims=tuple(
            values.get(d, 1) if isinstance(d, str) else d for d in self.dims))

    def with_layout(self, layout: Layout) -> "Shape":
        return dataclasses.replace(self, layout=layout)

    def __str__(self) -> str:
        return format_shape(self)


def _check_extent_product(element_type: str, dims: Sequence[Dim]) -> None:
    """Reject dims whose byte count overflows int64, as XLA does.

    XLA's parser reads any dims that fit int64, but building the shape
    (``ShapeUtil::MakeValidatedShape``, which every compile goes through)
    multiplies the element's byte width by each dim in logical order and
    rejects the shape if any partial product overflows ("overflow in static
    extent product"), even when a later dim is 0.  Unbounded dims (``?``) are
    skipped, bounded ones count at their bound; a named dim counts as 1, so
    a shape is rejected here only if it overflows for every size of its names.

    >>> Shape("f32", [2**61 - 1]).dims
    (2305843009213693951,)
    >>> Shape("f32", [2**61])
    Traceback (most recent call last):
    ...
    tilespec.spec.errors.ShapeError: f32[2305843009213693952]: 4 bytes times the dims overflows int64 at dim 0; XLA rejects the shape ("overflow in static extent product") though its parser reads it
    """
    if element_type in NON_ARRAY_TYPES:
        return
    width = storage_bits(element_type) // 8
    partial = width
    for i, d in enumerate(dims):
        if isinstance(d, int):
            partial *= d
        if partial > INT64_MAX:
            shown = ",".join("?" if d is None else str(d) for d in dims)
            raise ShapeError(
                f"{element_type}[{shown}]: {width} bytes times the dims overflows "
                f"int64 at dim {i}; XLA rejects the shape (\"overflow in static "
                "extent product\") though its parser reads it")


@dataclass(frozen=True)
class BufferShape:
    """XLA's buffer shape ``b(f32[8]{0})``: the buffer of an array shape.

    >>> BufferShape(Shape("f32", [8])).array.dims
    (8,)
    """

    array: Shape

    def __post_init__(self) -> None:
        # ShapeUtil::MakeValidatedBufferShape (xla/shape_util.cc): an array inside.
        if not isinstance(self.array, Shape) or self.array.element_type in NON_ARRAY_TYPES:
            raise ShapeError("a buffer shape b(...) holds an array shape")

    def __str__(self) -> str:
        return format_shape(self)


@dataclass(frozen=True)
class TupleShape:
    """A tuple of shapes, ``(f32[2]{0}, s32[])``."""

    elements: tuple[Shape | TupleShape | BufferShape, ...] = field(default=())

    def __post_init__(self) -> None:
        object.__setattr__(self, "elements", tuple(self.elements))

    def __str__(self) -> str:
        return format_shape(self)


# printer reads this module's types: imported once they exist.
from .printer import format_shape  # noqa: E402
