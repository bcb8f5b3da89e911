"""``ShapeUtil::IsDecomposableBitcast`` (and when ``DecomposeBitcast``
returns nothing) against the spec.

Transcribed from openxla/xla ``xla/shape_util.cc`` (``ShapeUtil::IsDecomposableBitcast``,
``ShapeUtil::DecomposeBitcast``, ``ShapeUtil::DecomposeBitcastToTrt``), commit
22eee29e01 (2026-05-20), facts carried over:

* decomposable: both shapes have a layout and the same element count
  (``ElementsIn``); element types are not compared;
* ``DecomposeBitcast`` returns nothing exactly when the pair is not
  decomposable; otherwise a reshape (``ReshapeIsBitcast`` with
  ``ignore_element_type``), else a transpose (``DeduceTransposeDimensionsForBitcast``),
  else a transpose-reshape-transpose -- whose three ``CHECK``s (that each
  part is a bitcast) abort XLA where they fail.

The spec's question: can the bitcast be read as a relabelling of the same
elements (a reshape or transpose of them)?  That needs the same element
count *and* the same element width.  They differ on pairs of equal counts
and different widths (``f32[4]{0}`` to ``bf16[4]{0}``: XLA decomposes it, the
elements are not the same bytes) -- on pairs of different counts they agree
(XLA: nothing; the spec: not a relabelling).

>>> from tilespec.spec.text import parse_array_shape as shape
>>> is_decomposable_bitcast(shape("s4[3,2]{1,0}"), shape("s8[3]{0}"))
False
>>> is_decomposable_bitcast(shape("f32[4]{0}"), shape("bf16[4]{0}")), spec_relabels(shape("f32[4]{0}"), shape("bf16[4]{0}"))
(True, False)
"""

from __future__ import annotations

import time

from ...spec import Shape, concrete_dims, format_shape, product
from ..result import Result
from .rule_check import require_concrete, yes_no_verdict
from .versions import ABSL_MACROS, EVERY_VERSION, XlaModel

#: The C++ transcribed here, and the XLA versions it holds for: the
#: functions' text is the same at every modelled commit (tools/xla_model_history.py).
XLA_MODELS = (
    XlaModel("ShapeUtil::IsDecomposableBitcast", "xla/shape_util.cc", ABSL_MACROS, EVERY_VERSION),
    XlaModel("ShapeUtil::DecomposeBitcast", "xla/shape_util.cc", ABSL_MACROS, EVERY_VERSION),
    XlaModel("ShapeUtil::DecomposeBitcastToTrt", "xla/shape_util.cc", ABSL_MACROS, EVERY_VERSION),
)

SOURCE = ("openxla/xla xla/shape_util.cc ShapeUtil::IsDecomposableBitcast and "
          "ShapeUtil::DecomposeBitcast, commit 22eee29e01 (2026-05-20)")


def is_decomposable_bitcast(a: Shape, b: Shape) -> bool:
    """ShapeUtil::IsDecomposableBitcast: layouts on both, equal ElementsIn."""
    return (a.layout is not None and b.layout is not None
            and product(concrete_dims(a)) == product(concrete_dims(b)))


def spec_relabels(a: Shape, b: Shape) -> bool:
    """The spec: the same elements, relabelled (equal counts, equal widths)."""
    return (product(concrete_dims(a)) == product(concrete_dims(b))
            and a.element_bits == b.element_bits)


def check_is_decomposable_bitcast(a: Shape, b: Shape, **_) -> Result:
    """IsDecomposableBitcast = the spec's answer, on concrete shapes."""
    start = time.perf_counter()
    require_concrete("is_decomposable_bitcast", a, b)
    text = f"{format_shape(a)} ; {format_shape(b)}"
    xla, spec = is_decomposable_bitcast(a, b), spec_relabels(a, b)
    return yes_no_verdict("is_decomposable_bitcast", text, start, xla, spec,
                          f"IsDecomposableBitcast and the spec both say {xla}",
                          f"IsDecomposableBitcast says {str(xla).lower()} (DecomposeBitcast "
                          f"returns {'a decomposition' if xla else 'nothing'}); the elements "
                          f"are {'' if spec else 'not '}the same ({a.element_type} and "
                          f"{b.element_type})", shapes=(a, b))
