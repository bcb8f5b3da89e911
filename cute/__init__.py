"""CuTe's layouts and their algebra, written from CuTe's definitions.

A CuTe layout (NVIDIA CUTLASS) is a nested shape and a stride: a function
from coordinates to offsets (:mod:`.layout`, on the nested int tuples of
:mod:`.int_tuple`).  :mod:`.algebra` holds composition, complement,
coalesce, the divides and products and the inverses; :mod:`.swizzle` CuTe's
``Swizzle<B,M,S>``.  :mod:`.xla` is the bridge: the CuTe layout of a
tiled XLA shape (:func:`cute_layout`) and the XLA layouts a CuTe layout may
be (:func:`xla_tilings`).  The coordinate functions run over an
:class:`~tilespec.spec.arith.Arithmetic`, so :mod:`tilespec.cute.proofs`
proves the algebra's laws and the bridge for all coordinates with Z3.
Imports :mod:`tilespec.spec` only (the proofs, the solver too).

>>> from tilespec.cute import parse_cute, logical_divide
>>> A = parse_cute("((8,3),(128,2)):((128,2048),(1,1024))")
>>> print(A)
((8, 3), (128, 2)):((128, 2048), (1, 1024))
>>> print(logical_divide(A, (4, 128)))
((4, (2, 3)), (128, 2)):((128, (512, 2048)), (1, 1024))
>>> cute_layout("f32[24,256]{1,0:T(8,128)}") == A
True
"""

from __future__ import annotations

from .algebra import (
    coalesce,
    complement,
    composition,
    left_inverse,
    logical_divide,
    logical_product,
    right_inverse,
    zipped_divide,
    zipped_product,
)
from .int_tuple import CuteError, IntTuple, LawError, crd2idx, idx2crd
from .layout import Layout, as_layout, make_layout, parse_cute
from .swizzle import Swizzle, SwizzledLayout
from .xla import cute_layout, dim_modes, logical_layout, xla_tilings

__all__ = ["CuteError", "IntTuple", "LawError", "Layout", "Swizzle", "SwizzledLayout",
           "as_layout", "coalesce", "complement", "composition", "crd2idx", "cute_layout",
           "dim_modes",
           "idx2crd", "left_inverse", "logical_divide", "logical_layout", "logical_product",
           "make_layout", "parse_cute", "right_inverse", "xla_tilings", "zipped_divide",
           "zipped_product"]

# What other packages ask of this one (`x as x`: re-exported for mypy).
from .int_tuple import (
    flatten as flatten,
)
from .xla import (
    digit_coordinate as digit_coordinate,
    digits as digits,
)
