"""Triton's linear layouts (the F2 layouts of Triton's ``LinearLayout``).

Imports :mod:`tilespec.spec` only; the real Triton is asked in a worker
process (:mod:`.real`), never imported here.
"""
# What other packages ask of this one (`x as x`: re-exported for mypy).
from . import real as real
from .swizzle import (
    SharedSwizzle as SharedSwizzle,
    SwizzleError as SwizzleError,
)
