"""Triton's linear layouts over F2, and the bridge to XLA's tiled layouts.

A linear layout (Triton's ``LinearLayout``) maps named input dims to named
output dims by XOR-ing the bases of the input's set bits (:mod:`.layout`
has the theory); :mod:`.algebra` holds Triton's operations with Triton's
names; :mod:`.xla` the linear layout of an XLA tiled layout's offsets
(:func:`from_xla`) and the XLA layout of a linear layout (:func:`to_xla`).
Imports :mod:`tilespec.spec` (and :mod:`tilespec.process`, to ask the real Triton in a
worker process) only: no solver and no Triton
(:mod:`tilespec.triton.proofs` proves the laws with Z3).  Inside tilespec
every import is relative, so ``import triton`` elsewhere is the real Triton.

>>> from tilespec.triton import from_xla
>>> L = from_xla("f32[8,4]{1,0:T(2,2)}")
>>> L.bases
(('dim0', ((2,), (8,), (16,))), ('dim1', ((1,), (4,))))
>>> L.apply({"dim0": 5, "dim1": 3})
{'offset': 23}
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys

if __name__ == "triton":
    # This folder was found as the top-level ``triton``: the repository's root
    # is on sys.path (Python started in the root, ``python -m pytest``).  That
    # name is the real Triton's: load it from the rest of sys.path instead, so
    # that ``import triton`` means Triton wherever it is written.
    _root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    _path = [p for p in sys.path if os.path.abspath(p or os.curdir) != _root]
    _spec = importlib.machinery.PathFinder.find_spec("triton", _path)
    if _spec is None or _spec.loader is None:
        raise ImportError("triton: the real Triton is not installed (tilespec's own "
                          "tilespec.triton was found instead, from the repository's root)")
    _real = importlib.util.module_from_spec(_spec)
    sys.modules["triton"] = _real
    _spec.loader.exec_module(_real)
else:
    from . import real
    from .algebra import (
        compose,
        divide_left,
        divide_right,
        flatten_ins,
        flatten_outs,
        get_free_variable_masks,
        get_num_consecutive_in_out,
        invert,
        invert_and_compose,
        product,
        pseudoinvert,
        reshape_ins,
        reshape_outs,
        sublayout,
        supremum,
        transpose_ins,
        transpose_outs,
    )
    from .layout import LinearLayout, TritonLayoutError, is_power_of_two, next_power_of_two
    from .swizzle import SharedSwizzle, SwizzleError
    from .xla import (
        NotLinear,
        Refutation,
        basis_layout,
        from_xla,
        in_dim,
        linear_or_refutation,
        to_xla,
    )


__all__ = ["LinearLayout", "NotLinear", "Refutation", "SharedSwizzle", "SwizzleError",
           "TritonLayoutError", "basis_layout",
           "compose",
           "divide_left", "divide_right", "flatten_ins", "flatten_outs", "from_xla",
           "get_free_variable_masks", "get_num_consecutive_in_out", "in_dim", "invert",
           "invert_and_compose", "is_power_of_two", "linear_or_refutation",
           "next_power_of_two", "product", "pseudoinvert", "real", "reshape_ins",
           "reshape_outs",
           "sublayout", "supremum", "to_xla", "transpose_ins", "transpose_outs"]
