"""CuTe's layouts and their algebra, written from CuTe's definitions.

A CuTe layout (NVIDIA CUTLASS) is a nested shape and a stride: a function
from coordinates to offsets (:mod:`.layout`, on the nested int tuples of
:mod:`.int_tuple`).  :mod:`.algebra` holds composition, complement,
coalesce, the divides and products and the inverses; :mod:`.swizzle` CuTe's
``Swizzle<B,M,S>``.  The coordinate functions run over an
:class:`~tilespec.spec.arith.Arithmetic`, so :mod:`tilespec.prover` proves
the algebra's laws for all coordinates with Z3.  Imports :mod:`tilespec.spec`
only.

>>> from tilespec.cute import parse_cute
>>> print(parse_cute("((8,3),(128,2)):((128,2048),(1,1024))"))
((8, 3), (128, 2)):((128, 2048), (1, 1024))
"""

from __future__ import annotations

from tilespec.cute.int_tuple import CuteError, IntTuple, crd2idx, idx2crd
from tilespec.cute.layout import Layout, as_layout, make_layout, parse_cute

__all__ = ["CuteError", "IntTuple", "Layout", "as_layout", "crd2idx", "idx2crd",
           "make_layout", "parse_cute"]
