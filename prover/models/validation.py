"""XLA's layout validator and ``Layout::DeleteDimension``, version by version.

Transcribed from openxla/xla ``xla/layout_util.cc``
(``LayoutUtil::ValidateLayoutForShape``) and ``xla/layout.cc``
(``Layout::DeleteDimension``), facts carried over, at three commits
(:data:`XLA_MODELS`):

* before 1f375f52d4 (read at 22eee29e01): a tile is invalid when it is empty
  or has a dim equal to 0 (a negative dim other than ``*`` passes); split
  configs are not looked at;
* since 1f375f52d4 (2026-05-28): a tile dim ``<= 0`` other than ``*``
  (INT64_MIN) is invalid; a tile longer than the dims stays valid (nested
  tiling pads it);
* since cbb23d1d64 (2026-06-01): each split config's physical dim lies in
  ``[0, rank)`` and appears once; its split indices are strictly increasing,
  positive and below the size of the logical dim ``Major(layout, dim)``.
  ``Layout::DeleteDimension`` drops the split config of the deleted dim and
  renumbers those after it (before, it left them as they were).

Whatever the version, XLA's text parser builds the layout with
``LayoutUtil::MakeLayout``, which stops the process (``LOG(FATAL)``) on a
negative tile dim other than ``*``: from text, ``T(2,-2)`` never reaches the
validator.

The checks run in XLA's order and the first failing one is the answer, in
XLA's words (the shape it appends is left off):

>>> f = LayoutFields((8, 8), (1, 0), split_configs=((5, (2,)),))
>>> validate_layout(f, xla="2026-05-31") is None
True
>>> validate_layout(f)
'split config has out-of-bounds physical dimension: 5'
>>> validate_layout(LayoutFields((8, 8), (1, 0), tiles=((2, 0),)), xla="2026-05-22")
'layout has invalid tiles'
"""

from __future__ import annotations

from dataclasses import dataclass

from ...spec import COMBINE, Shape
from .cpp import check
from .versions import (
    ABSL_MACROS,
    NESTED_PADDING,
    NEWEST_READ,
    SPLIT_VALIDATION,
    Holds,
    XlaCommit,
    XlaModel,
    model_at,
    resolve,
)

VALIDATE = "LayoutUtil::ValidateLayoutForShape"
DELETE = "Layout::DeleteDimension"

XLA_MODELS = (
    XlaModel(VALIDATE, "xla/layout_util.cc", ABSL_MACROS, Holds(until=NESTED_PADDING)),
    XlaModel(VALIDATE, "xla/layout_util.cc", NESTED_PADDING,
             Holds(since=NESTED_PADDING, until=SPLIT_VALIDATION)),
    XlaModel(VALIDATE, "xla/layout_util.cc", NEWEST_READ, Holds(since=SPLIT_VALIDATION)),
    XlaModel(DELETE, "xla/layout.cc", ABSL_MACROS, Holds(until=SPLIT_VALIDATION)),
    XlaModel(DELETE, "xla/layout.cc", NEWEST_READ, Holds(since=SPLIT_VALIDATION)),
)

#: XLA's ``Tile::kCombineDimension`` (``*``).
COMBINE_DIMENSION = COMBINE


@dataclass(frozen=True)
class LayoutFields:
    """The fields of an array shape and its layout the validator reads, as
    the plain integers XLA's ``Layout`` holds before anything checks them
    (so a field no spec :class:`~tilespec.spec.Shape` could hold can be
    asked about): ``split_configs`` as ``(physical dim, split indices)``
    pairs, ``*`` as INT64_MIN."""

    dims: tuple[int, ...]
    minor_to_major: tuple[int, ...]
    tiles: tuple[tuple[int, ...], ...] = ()
    split_configs: tuple[tuple[int, tuple[int, ...]], ...] = ()
    tail_padding_alignment_in_elements: int = 1
    element_size_in_bits: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "dims", tuple(self.dims))
        object.__setattr__(self, "minor_to_major", tuple(self.minor_to_major))
        object.__setattr__(self, "tiles", tuple(tuple(t) for t in self.tiles))
        object.__setattr__(self, "split_configs",
                           tuple((int(d), tuple(i)) for d, i in self.split_configs))

    @classmethod
    def of(cls, shape: Shape) -> "LayoutFields":
        """The fields of a spec shape with concrete dims.

        >>> from tilespec.spec import parse_shape
        >>> LayoutFields.of(parse_shape("f32[8,8]{1,0:T(2,*)SC(0:3)}")).tiles
        ((2, -9223372036854775808),)
        """
        layout = shape.layout
        return cls(tuple(int(d) for d in shape.dims),  # type: ignore[arg-type]
                   layout.minor_to_major, tuple(t.sizes for t in layout.tiles),
                   tuple((s.dimension, s.split_indices) for s in layout.split_configs),
                   layout.tail_padding_alignment_in_elements, layout.element_size_in_bits)


def validate_layout(fields: LayoutFields, xla: XlaCommit | str | None = None) -> str | None:
    """Why ``LayoutUtil::ValidateLayoutForShape`` at ``xla`` rejects the
    layout (XLA's message without the shape it appends), or None when it
    accepts it.

    >>> validate_layout(LayoutFields((8, 8), (1, 0), tiles=((2, 2), (2, 2, 2, 2, 2)))) is None
    True
    >>> validate_layout(LayoutFields((8,), (0,), tiles=((2, -2),)))
    'layout has invalid tiles: tile dimension -2 must be positive or kCombineDimension'
    >>> validate_layout(LayoutFields((8,), (0,), tiles=((2, -2),)), xla="2026-05-27") is None
    True
    """
    at = resolve(xla)
    model = model_at(XLA_MODELS[:3], at)
    rank = len(fields.dims)
    m2m = fields.minor_to_major
    if len(m2m) != rank:
        return (f"layout minor_to_major field contains {len(m2m)} elements, but shape has "
                f"{rank} dimensions: {{{', '.join(map(str, m2m))}}}")
    seen: set[int] = set()
    for d in m2m:
        if not 0 <= d < rank:
            return ("layout minor_to_major field has out-of-bounds value: "
                    f"{{{', '.join(map(str, m2m))}}}")
        if d in seen:
            return ("layout minor_to_major field has duplicate values: "
                    f"{{{', '.join(map(str, m2m))}}}")
        seen.add(d)
    if fields.tail_padding_alignment_in_elements <= 0:
        return ("layout tail_padding_alignment_in_elements field is <= 0: "
                f"{{{fields.tail_padding_alignment_in_elements}}}")
    for tile in fields.tiles:
        if not tile:
            return "layout has invalid tiles"
        if model is XLA_MODELS[0]:
            if 0 in tile:
                return "layout has invalid tiles"
            continue
        for d in tile:
            if d <= 0 and d != COMBINE_DIMENSION:
                return (f"layout has invalid tiles: tile dimension {d} must be positive or "
                        "kCombineDimension")
    if fields.element_size_in_bits < 0:
        return ("layout element_size_in_bits field is negative: "
                f"{fields.element_size_in_bits}")
    if model is XLA_MODELS[2]:
        return _split_configs_invalid(fields)
    return None


def _split_configs_invalid(fields: LayoutFields) -> str | None:
    rank = len(fields.dims)
    seen: set[int] = set()
    for physical, indices in fields.split_configs:
        if not 0 <= physical < rank:
            return f"split config has out-of-bounds physical dimension: {physical}"
        if physical in seen:
            return f"split config has duplicate physical dimension: {physical}"
        seen.add(physical)
        # Major(layout, physical): the logical dim at that physical place
        size = fields.dims[fields.minor_to_major[rank - 1 - physical]]
        last = 0
        for index in indices:
            if index <= last:
                return ("split config split indices must be strictly increasing and "
                        f"positive: {{{', '.join(map(str, indices))}}}")
            if index >= size:
                return (f"split config split index is out of bounds: {index} "
                        f"(dim size {size})")
            last = index
    return None


def delete_dimension(minor_to_major: tuple[int, ...],
                     split_configs: tuple[tuple[int, tuple[int, ...]], ...], dim: int,
                     xla: XlaCommit | str | None = None
                     ) -> tuple[tuple[int, ...], tuple[tuple[int, tuple[int, ...]], ...]]:
    """``Layout::DeleteDimension(dim)`` at ``xla`` on the minor-to-major
    order and the split configs: the order loses ``dim`` and the dims above
    it move down by one; since cbb23d1d64 the split config of ``dim``'s
    physical place is dropped and those after it renumbered.

    >>> sc = ((0, (10,)), (1, (20,)), (2, (30,)))
    >>> delete_dimension((2, 0, 1), sc, 0)
    ((1, 0), ((0, (10,)), (1, (30,))))
    >>> delete_dimension((2, 0, 1), sc, 0, xla="2026-05-31")
    ((1, 0), ((0, (10,)), (1, (20,)), (2, (30,))))
    """
    at = resolve(xla)
    model = model_at(XLA_MODELS[3:], at)
    check(0 <= dim < len(minor_to_major), DELETE,
          "CHECK_GE(dim_to_delete, 0) and CHECK_LT(dim_to_delete, minor_to_major_.size())",
          model.cites, f"dim {dim}, rank {len(minor_to_major)}")
    order = tuple(d - (d > dim) for d in minor_to_major if d != dim)
    if model is XLA_MODELS[3]:
        return order, split_configs
    physical = len(minor_to_major) - 1 - minor_to_major.index(dim)
    kept = tuple((d - (d > physical), i) for d, i in split_configs if d != physical)
    return order, kept
