"""``ShapeUtil::ArrayDataSize`` against the spec.

Transcribed from openxla/xla ``xla/shape_util.cc`` (``ShapeUtil::ArrayDataSize``)
and ``xla/layout_util.cc`` (``LayoutUtil::LinearIndex``), commit 22eee29e01
(2026-05-20), facts carried over:

* the index of the last element (every dim minus 1) goes through
  ``LinearIndex``, and one is added: the elements up to and including the
  last one;
* ``LinearIndex`` reads the *first* tile only (rank 0: 0; rank 1: the index
  itself, whatever the tiles); its products and sums are ``int64_t``;
* then bytes: ``CeilOfRatio(n * E, 8)`` with ``E(n)``, else ``n`` times the
  element's byte width.

The spec's answer to the same question, the bytes the elements reach, is
the largest offset of any element plus one
(:func:`spec_data_elements`), in bytes.  They differ where the first tile is
not the whole layout (``bf16[16,256]{1,0:T(8,128)(2,1)}``), on rank 1 with a
longer tile (``f32[200]{0:T(8,128)}``: LinearIndex is the index, the spec
prepends a unit dim), and where the last element is not the one furthest in
memory.  openxla/xla#47378 reports the first-tile reading
(``f32[28,1,1]{2,1,0:T(2,128)}``: 27,652 bytes, where 112 are data).

>>> from tilespec.spec.text import parse_array_shape as shape
>>> array_data_size_int64(shape("f32[28,1,1]{2,1,0:T(2,128)}"))[0]
27652
>>> spec_data_bytes(shape("f32[200]{0:T(8,128)}")), array_data_size_int64(shape("f32[200]{0:T(8,128)}"))[0]
(4384, 800)
"""

from __future__ import annotations

import time

import numpy as np

from ...spec import Shape, all_offsets, bytes_of, concrete_dims, format_shape, product
from ..result import PROVED, REFUTED, Counterexample, Result, Side
from .cpp import Int64, XlaGivesNoValue
from .linear_index import linear_index_int64
from .rule_check import RuleNotApplicable, behaviour_result, require_concrete
from .versions import ABSL_MACROS, EVERY_VERSION, XlaModel

#: The C++ transcribed here, and the XLA versions it holds for: the
#: functions' text is the same at every modelled commit (tools/xla_model_history.py).
XLA_MODELS = (
    XlaModel("ShapeUtil::ArrayDataSize", "xla/shape_util.cc", ABSL_MACROS, EVERY_VERSION),
    XlaModel("LayoutUtil::LinearIndex", "xla/layout_util.cc", ABSL_MACROS, EVERY_VERSION),
)

SOURCE = ("openxla/xla xla/shape_util.cc (ShapeUtil::ArrayDataSize) and xla/layout_util.cc "
          "(LayoutUtil::LinearIndex), commit 22eee29e01 (2026-05-20)")
FUNCTION = "ShapeUtil::ArrayDataSize"

#: the most elements the spec's largest offset is found among by enumeration
ENUMERATION_LIMIT = 1 << 22


def array_data_size_int64(shape: Shape) -> tuple[int, Int64]:
    """ShapeUtil::ArrayDataSize in bytes, in ``int64_t``: the value XLA
    returns and the evaluation (its first overflow, if any)."""
    c = Int64(FUNCTION, SOURCE)
    last = tuple(d - 1 for d in concrete_dims(shape))
    n = c.add(linear_index_int64(shape, last, c), 1, "LinearIndex(...) + 1")
    bits = shape.layout.element_size_in_bits
    if bits:
        return c.ceil_of_ratio(c.mul(n, bits, "size * element_size_in_bits"), 8), c
    return c.mul(n, shape.element_bits // 8, "size * ByteSizeOfPrimitiveType"), c


def spec_data_elements(shape: Shape) -> int:
    """The spec's elements up to the one furthest in memory: its offset
    plus one (0 with no elements), found by enumeration."""
    n = product(concrete_dims(shape))
    if n == 0:
        return 0
    if n > ENUMERATION_LIMIT:
        raise RuleNotApplicable(f"{n} elements: more than the {ENUMERATION_LIMIT} the "
                                "spec's furthest element is searched among")
    return int(np.max(all_offsets(shape))) + 1


def spec_data_bytes(shape: Shape) -> int:
    """:func:`spec_data_elements` in bytes (E(n) bits each, rounded up)."""
    bits = shape.layout.element_size_in_bits or shape.element_bits
    return int(bytes_of(spec_data_elements(shape), bits))


def check_array_data_size(shape: Shape, **_) -> Result:
    """ArrayDataSize = the spec's bytes up to the furthest element, on a
    concrete shape (both computed, compared)."""
    start = time.perf_counter()
    require_concrete("array_data_size", shape)
    text = format_shape(shape)
    try:
        xla, c = array_data_size_int64(shape)
    except XlaGivesNoValue as stop:
        return behaviour_result("array_data_size", [shape], stop.behaviour, start,
                                (Side("xla", shape=text),))
    spec = spec_data_bytes(shape)
    sides = (Side("xla", shape=text, value=xla), Side("spec", shape=text, value=spec))
    overflow = c.undefined(xla)
    if overflow is not None:
        return behaviour_result("array_data_size", [shape], overflow, start, sides)
    seconds = time.perf_counter() - start
    if xla == spec:
        return Result(text, "rule array_data_size", PROVED, seconds, "concrete",
                      steps=("XLA's ArrayDataSize and the spec's bytes up to the furthest "
                             f"element computed: both {spec}",), shapes=(shape,))
    return Result(text, "rule array_data_size", REFUTED, seconds, "concrete",
                  counterexample=Counterexample(
                      {}, sides, what=f"XLA's ArrayDataSize is {xla} bytes, the spec's "
                      f"data reaches {spec} bytes"), shapes=(shape,))
