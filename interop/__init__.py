"""Layouts to and from the tools users already have: JAX layouts
(:mod:`.jax`), numpy and DLPack strides (:mod:`.strides`), CuTe shape:stride
layouts (:mod:`.cute`).  Imports :mod:`tilespec.spec` only.
"""

from __future__ import annotations

from ..spec.shapes import DimValues, ShapeLike, as_shape
from . import cute as _cute
from .cute import CuteLayout
from .jax import element_type_of, from_jax, to_jax
from .strides import from_strides, strides


def cute_layout(shape: ShapeLike, *, dims: DimValues | None = None) -> CuteLayout:
    """The CuTe shape:stride layout of ``shape`` (in elements), exact on its
    padded shape; a :class:`~tilespec.spec.errors.LayoutError` with the reason
    where none is.

    >>> str(cute_layout("f32[24,256]{1,0:T(8,128)}"))
    '((8,3),(128,2)):((128,2048),(1,1024))'
    """
    return _cute.cute_layout(as_shape(shape, dims))


__all__ = ["CuteLayout", "cute_layout", "element_type_of", "from_jax", "from_strides",
           "strides", "to_jax"]
