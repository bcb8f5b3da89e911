"""JAX layouts to and from tilespec shapes.

**JAX** (``jax.experimental.layout.Layout``): ``major_to_minor`` is XLA's
``minor_to_major`` reversed; ``tiling`` is the tiles, outermost first (a
``*`` entry is XLA's INT64_MIN); ``sub_byte_element_size_in_bits`` is
``E(n)``.  Two rules of JAX decide what XLA receives (jax 0.10,
``Layout._to_xla_layout``): with ``tiling=None`` the layout is
``minor_to_major`` only, so ``E(n)`` is dropped; with a tiling (even
``()``), a sub-byte *integer* type with no ``E(n)`` gets ``E(bits)``.
:func:`from_jax` applies both; :func:`to_jax` picks the form that gives
XLA exactly the layout asked for, or says why none does.

>>> to_jax("bf16[16,300]{1,0:T(8,128)(2,1)}")
Layout(major_to_minor=(0, 1), tiling=((8, 128), (2, 1)), sub_byte_element_size_in_bits=0)
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ..spec import (
    BIT_WIDTHS,
    COMBINE,
    DimValues,
    Layout,
    LayoutError,
    Shape,
    ShapeError,
    ShapeLike,
    Tile,
    as_shape,
)

#: numpy/ml_dtypes names whose XLA name is not the generic translation.
_DTYPE_NAMES = {"bool": "pred", "bfloat16": "bf16"}


def element_type_of(dtype) -> str:
    """XLA's element type name for a numpy or JAX dtype.

    >>> element_type_of("float32"), element_type_of("int4"), element_type_of("float8_e4m3fn")
    ('f32', 's4', 'f8e4m3fn')
    """
    if isinstance(dtype, str):
        name = dtype
    else:
        try:
            name = np.dtype(dtype).name
        except TypeError:
            raise ShapeError(f"{dtype!r} is not a dtype") from None
    if name in _DTYPE_NAMES:
        return _DTYPE_NAMES[name]
    for prefix, short in (("uint", "u"), ("int", "s"), ("complex", "c"), ("float", "f")):
        if name.startswith(prefix):
            out = short + name[len(prefix):].replace("_", "")
            if out in BIT_WIDTHS:
                return out
    raise ShapeError(f"dtype {name!r} has no XLA element type tilespec knows")


def _is_sub_byte_int(element_type: str) -> bool:
    return element_type[0] in "su" and BIT_WIDTHS[element_type] < 8


def from_jax(layout, dtype=None, dims: Sequence[int] | None = None) -> Shape:
    """The shape XLA receives from a JAX layout, dtype and dims.

    ``layout`` is a ``jax.experimental.layout.Layout``, a ``Format`` (its
    layout is used) or a ``jax.Array`` (its own format, dtype and shape).
    An array's layout is the one XLA chose and reported, so its fields are
    taken as they are; a layout a user writes goes through JAX's two rules
    (see the module).
    """
    chosen = False
    if hasattr(layout, "format") and hasattr(layout, "dtype"):   # a jax.Array
        chosen = True
        array = layout
        dtype = array.dtype if dtype is None else dtype
        dims = tuple(array.shape) if dims is None else dims
        layout = array.format.layout
    if hasattr(layout, "layout") and not hasattr(layout, "major_to_minor"):  # Format
        layout = layout.layout
    if not hasattr(layout, "major_to_minor"):
        raise LayoutError(f"{type(layout).__name__} is not a jax Layout, Format or Array")
    if dtype is None or dims is None:
        raise LayoutError("a jax Layout carries no dtype or dims: pass both")
    element_type = element_type_of(dtype)
    m2m = tuple(reversed(tuple(layout.major_to_minor)))
    if layout.tiling is None:   # jax gives XLA minor_to_major only
        return Shape(element_type, tuple(dims), Layout(m2m))
    bits = layout.sub_byte_element_size_in_bits
    if not bits and not chosen and _is_sub_byte_int(element_type):
        bits = BIT_WIDTHS[element_type]
    tiles = tuple(Tile(tuple(COMBINE if t == COMBINE else t for t in tile))
                  for tile in layout.tiling)
    return Shape(element_type, tuple(dims), Layout(m2m, tiles=tiles,
                                                   element_size_in_bits=bits))


#: Layout fields a jax Layout cannot hold, with their defaults.
_NOT_IN_JAX = {
    "dim_level_types": (), "tail_padding_alignment_in_elements": 1,
    "index_primitive_type": None, "pointer_primitive_type": None,
    "memory_space": 0, "split_configs": (), "physical_shape": None,
    "dynamic_shape_metadata_prefix_bytes": 0,
}


def to_jax(shape: ShapeLike, sharding=None, *, dims: DimValues | None = None):
    """A ``jax.experimental.layout.Layout`` that gives XLA exactly this layout
    (a ``Format`` with ``sharding``); a :class:`LayoutError` when none does."""
    s = as_shape(shape, dims)
    for name, default in _NOT_IN_JAX.items():
        if getattr(s.layout, name) != default:
            raise LayoutError(f"{s}: a jax Layout has no field for {name} "
                              f"({getattr(s.layout, name)!r})")
    bits = s.layout.element_size_in_bits
    if s.layout.tiles and not bits and _is_sub_byte_int(s.element_type):
        raise LayoutError(f"{s}: jax adds E({BIT_WIDTHS[s.element_type]}) to a tiled "
                          f"{s.element_type} layout; this layout without E(n) has no "
                          "jax Layout")
    from jax.experimental.layout import Format, Layout as JaxLayout
    major_to_minor = tuple(reversed(s.layout.minor_to_major))
    if not s.layout.tiles and not bits:
        out = JaxLayout(major_to_minor)
    else:
        # A tiling, even (), makes jax pass E(n) on to XLA.
        out = JaxLayout(major_to_minor, tuple(t.sizes for t in s.layout.tiles), bits)
    return out if sharding is None else Format(out, sharding)
