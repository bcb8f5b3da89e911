"""``LayoutUtil::IsUntiledLayout`` against the spec.

Transcribed from openxla/xla ``xla/layout_util.cc`` (``LayoutUtil::IsUntiledLayout``),
commit 22eee29e01 (2026-05-20), facts carried over.  It takes the tiles and
the physical dims (major to minor) and says whether the tiling is the same
as no tiles; its header says it may answer no for unusual tilings that are.
Each tile in turn:

* ``CHECK_LE(tile_ndims, current_shape.size())``: a tile longer than the
  current dims aborts (``s32[]{:T(256)}``);
* each entry: a dim not divisible by it gives *false* at once (``d %
  INT64_MIN`` is ``d``, so a ``*`` entry on a nonzero dim says no); then
  ``CHECK_GT(tile entry, 0)`` (a ``*`` entry on a zero dim aborts there);
  once an entry other than 1 has been seen, a later entry whose tile count is
  not 1 gives *false*;
* the tiled dims are replaced by the counts, then the tile.

The spec's answer: the layout's offsets are the untiled row-major offsets
for every element, and it pads nothing (``L`` left out, as the function
does not see it).

>>> from tilespec.spec.text import parse_array_shape as shape
>>> is_untiled_layout(shape("f32[24,128]{1,0:T(8,128)}")), spec_is_untiled(shape("f32[24,128]{1,0:T(8,128)}"))
(True, True)
>>> is_untiled_layout(shape("f32[4,128]{1,0:T(*,128)}")), spec_is_untiled(shape("f32[4,128]{1,0:T(*,128)}"))
(False, True)
"""

from __future__ import annotations

import time

import numpy as np

from ...spec import COMBINE, Shape, all_offsets, concrete_dims, format_shape, padded_count, product
from ..result import Result, Side
from .cpp import Int64, XlaGivesNoValue, check
from .rule_check import (
    RuleNotApplicable,
    behaviour_result,
    require_concrete,
    yes_no_verdict,
)
from .versions import ABSL_MACROS, EVERY_VERSION, XlaModel

#: The C++ transcribed here, and the XLA versions it holds for: the
#: functions' text is the same at every modelled commit (tools/xla_model_history.py).
XLA_MODELS = (
    XlaModel("LayoutUtil::IsUntiledLayout", "xla/layout_util.cc", ABSL_MACROS, EVERY_VERSION),
)

SOURCE = "openxla/xla xla/layout_util.cc, commit 22eee29e01 (2026-05-20)"
FUNCTION = "LayoutUtil::IsUntiledLayout"

#: the most elements the spec's offsets are compared on
ENUMERATION_LIMIT = 1 << 22


def is_untiled_layout(shape: Shape) -> bool:
    """LayoutUtil::IsUntiledLayout(tiles, physical dims major to minor);
    raises :class:`~.cpp.XlaGivesNoValue` where XLA aborts."""
    c = Int64(FUNCTION, SOURCE)
    current = [int(d) for d in concrete_dims(shape)]
    current = [current[d] for d in reversed(shape.layout.minor_to_major)]
    for level, tile in enumerate(shape.layout.tiles, 1):
        t = tile.sizes
        k = len(t)
        check(k <= len(current), FUNCTION, "CHECK_LE(tile_ndims, current_shape.size())",
              SOURCE, f"tile {level} has {k} entries, the dims {len(current)}")
        tiled = current[len(current) - k:]
        counts = []
        allow_multiple = True
        for i in range(k):
            if c.rem(tiled[i], t[i], "tiled_shape[i] % tile.dimension(i)") != 0:
                return False
            entry = "*" if t[i] == COMBINE else str(t[i])
            check(t[i] > 0, FUNCTION, "CHECK_GT(tile.dimension(i), 0)", SOURCE,
                  f"tile {level} entry {i} is {entry}")
            counts.append(tiled[i] // t[i])
            if not allow_multiple and counts[i] != 1:
                return False
            if t[i] != 1:
                allow_multiple = False
        current = current[:len(current) - k] + counts + list(t)
    return True


def spec_is_untiled(shape: Shape) -> bool:
    """The spec: every element's offset is its untiled row-major offset and
    nothing is padded (``L`` left out)."""
    flat = shape.with_layout(shape.layout.replace(tail_padding_alignment_in_elements=1))
    plain = flat.with_layout(flat.layout.replace(tiles=()))
    n = product(concrete_dims(shape))
    if n > ENUMERATION_LIMIT:
        raise RuleNotApplicable(f"{n} elements: more than the {ENUMERATION_LIMIT} whose "
                                "offsets the spec compares")
    if padded_count(flat) != padded_count(plain):
        return False
    return n == 0 or bool(np.array_equal(all_offsets(flat), all_offsets(plain)))


def check_is_untiled_layout(shape: Shape, **_) -> Result:
    """IsUntiledLayout = the spec's answer, on a concrete shape."""
    start = time.perf_counter()
    require_concrete("is_untiled_layout", shape)
    text = format_shape(shape)
    try:
        xla = is_untiled_layout(shape)
    except XlaGivesNoValue as stop:
        return behaviour_result("is_untiled_layout", [shape], stop.behaviour, start,
                                (Side("xla", shape=text),
                                 Side("spec", shape=text, value=int(spec_is_untiled(shape)))))
    spec = spec_is_untiled(shape)
    return yes_no_verdict("is_untiled_layout", text, start, xla, spec,
                          f"IsUntiledLayout and the spec both say {xla}",
                          f"IsUntiledLayout says {str(xla).lower()}, the spec "
                          f"{'untiled' if spec else 'tiled'} (1 = untiled)", shapes=(shape,))
