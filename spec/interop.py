"""Layouts to and from the tools users already have: JAX, strides, CuTe.

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

**Strides** (numpy, DLPack): :func:`strides` gives an untiled layout's
strides, :func:`from_strides` a layout from dense strides.  ``unit`` says
whether strides count elements (DLPack) or bytes (numpy); a byte is
``storage_bits`` of the type (one byte per ``s4`` element, as numpy and
ml_dtypes store it).

>>> strides("f32[3,5]{0,1}")
(1, 3)
>>> from_strides((3, 5), (4, 12), "f32", unit="bytes")
Shape(element_type='f32', dims=(3, 5), layout=Layout(minor_to_major=(0, 1), ...), dynamic=(False, False))

**CuTe**: :func:`cute_layout` (from :mod:`.cute`).
"""

from __future__ import annotations

from typing import Sequence

from .cute import CuteLayout
from .cute import cute_layout as _cute_layout
from .dtypes import BIT_WIDTHS, storage_bits
from .errors import LayoutError, ShapeError
from .index import concrete_dims
from .layout import COMBINE, Layout, Shape
from .shapes import DimValues, ShapeLike, as_shape

_UNITS = ("elements", "bytes")


# --- CuTe ---------------------------------------------------------------------

def cute_layout(shape: ShapeLike, *, dims: DimValues | None = None) -> CuteLayout:
    """The CuTe shape:stride layout of ``shape`` (in elements), exact on its
    padded shape; a :class:`LayoutError` with the reason where none is.

    >>> str(cute_layout("f32[24,256]{1,0:T(8,128)}"))
    '((8,3),(128,2)):((128,2048),(1,1024))'
    """
    return _cute_layout(as_shape(shape, dims))


# --- strides -------------------------------------------------------------------

def _unit_size(element_type: str, unit: str) -> int:
    if unit not in _UNITS:
        raise ShapeError(f"unit {unit!r} is not one of {', '.join(_UNITS)}")
    return storage_bits(element_type) // 8 if unit == "bytes" else 1


def strides(shape: ShapeLike, unit: str = "elements", *,
            dims: DimValues | None = None) -> tuple[int, ...]:
    """Each dim's stride in an untiled layout: the product of the more minor dims.

    A tiled layout has none (an offset is not a sum of index times stride),
    nor has a packed sub-byte one in bytes.

    >>> strides("f32[3,5]{1,0}", unit="bytes")
    (20, 4)
    """
    s = as_shape(shape, dims)
    if s.layout.tiles:
        raise LayoutError(f"{s} is tiled: its offsets are not index times stride "
                          "(cute_layout gives nested strides)")
    if unit == "bytes" and s.layout.element_size_in_bits:
        raise LayoutError(f"{s} packs elements into E({s.layout.element_size_in_bits}) "
                          "bits: a stride in bytes would be a fraction")
    size = _unit_size(s.element_type, unit)
    d = concrete_dims(s)
    out = [0] * s.rank
    step = size
    for i in s.layout.minor_to_major:
        out[i] = step
        step *= d[i]
    return tuple(out)


def from_strides(dims: Sequence[int], strides: Sequence[int], element_type: str,
                 unit: str = "elements") -> Shape:
    """The shape whose untiled layout has these (dense) strides.

    A dim of size 1 may have any stride (numpy gives it one anyway); dims
    with equal strides keep their numbering order (row-major).  Strides that
    leave gaps, repeat elements (0), run backwards (negative) or are not
    whole elements have no XLA layout: a :class:`LayoutError` says which.

    >>> from_strides((2, 1, 3), (3, 3, 1), "s32").layout.minor_to_major   # numpy C order
    (2, 1, 0)
    >>> from_strides((4, 6), (1, 8), "f32")
    Traceback (most recent call last):
    ...
    tilespec.spec.errors.LayoutError: strides (1,8) of dims (4,6) are not dense: dim 1 has a stride of 8 elements where a dense layout has 4
    """
    if element_type not in BIT_WIDTHS:
        raise ShapeError(f"unknown element type {element_type!r}")
    dims, given = tuple(dims), tuple(strides)
    if len(dims) != len(given):
        raise LayoutError(f"{len(given)} strides for {len(dims)} dims")
    size = _unit_size(element_type, unit)
    show = f"strides ({','.join(map(str, given))}) of dims ({','.join(map(str, dims))})"
    st = []
    for i, (d, s) in enumerate(zip(dims, given)):
        if isinstance(s, bool) or not isinstance(s, int):
            raise LayoutError(f"{show}: stride {s!r} of dim {i} is not an integer")
        if d == 1:
            st.append(s if s > 0 and s % size == 0 else None)
            continue
        if s < 0:
            raise LayoutError(f"{show}: dim {i} runs backwards (stride {s}); "
                              "no XLA layout reverses a dim")
        if s % size:
            raise LayoutError(f"{show}: dim {i}'s stride {s} is not a whole number "
                              f"of {size}-byte elements")
        st.append(s // size)
    if 0 in dims:
        order = sorted(range(len(dims)), key=lambda i: (-(st[i] or 0), i))
    else:
        order = _dense_order(dims, st, show)
    return Shape(element_type, dims, Layout(tuple(reversed(order))))


def _dense_order(dims, st, show) -> list[int]:
    """Dims major to minor, checking that each stride is the product of the
    more minor dims; unit dims (stride None or any) fit anywhere."""
    big = sorted((i for i in range(len(dims)) if dims[i] != 1),
                 key=lambda i: (-st[i], i))
    expected = 1
    for i in reversed(big):
        if st[i] == 0:
            raise LayoutError(f"{show}: dim {i} has stride 0 (a broadcast repeats "
                              "elements); no layout stores an element twice")
        if st[i] != expected:
            raise LayoutError(f"{show} are not dense: dim {i} has a stride of {st[i]} "
                              f"elements where a dense layout has {expected}")
        expected *= dims[i]
    # Put each unit dim where its stride says (by the stride the dims after
    # it hold), ties in dim order.
    order = list(big)
    for u in (i for i in range(len(dims)) if dims[i] == 1):
        s = st[u]
        at = len(order)
        if s is not None:
            at = next((k for k, j in enumerate(order) if st[j] < s or
                       (st[j] == s and j > u)), len(order))
        order.insert(at, u)
    return order


# --- JAX -------------------------------------------------------------------------

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
        import numpy as np
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
    tiles = tuple(tuple(COMBINE if t == COMBINE else t for t in tile)
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
