"""Layouts to and from the tools users already have: JAX layouts
(:mod:`.jax`), numpy and DLPack strides (:mod:`.strides`).  CuTe's layouts
are :mod:`tilespec.cute`.  Imports :mod:`tilespec.spec` only.
"""

from __future__ import annotations

from .jax import element_type_of, from_jax, to_jax
from .strides import from_strides, strides

__all__ = ["element_type_of", "from_jax", "from_strides", "strides", "to_jax"]
