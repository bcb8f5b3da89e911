"""Models of XLA's C++ functions, written over an Arithmetic after what
openxla/xla's source states, each compared with the spec: ``ShapeUtil::ArraySize``
(:mod:`.array_size`), ``LayoutUtil::LinearIndex`` (:mod:`.linear_index`), the
nested-tiling index functions (:mod:`.nested_tiling`), ``ReshapeIsBitcast`` and
``TransposeIsBitcast`` and the verifier's size precondition for a bitcast
(:mod:`.bitcast_rules`); the catalogue is :mod:`.rules`.

These are models, not XLA: the real XLA (from jaxlib) is :mod:`tilespec.xla`.

The door for the rooms above: XLA's size of a buffer (:func:`xla_array_bytes`)
and whether XLA's verifier lets a bitcast join two buffers
(:func:`same_byte_size`); whether PjRt's ``Buffer::Bitcast`` keeps every
element (:func:`pjrt_buffer_bitcast`)."""

from .array_size import xla_array_bytes
from .bitcast_rules import same_byte_size
from .pjrt_bitcast import pjrt_buffer_bitcast

__all__ = ["pjrt_buffer_bitcast", "same_byte_size", "xla_array_bytes"]

# What other packages ask of this one (`x as x`: re-exported for mypy).
from .array_size import (
    array_size_behaviour as array_size_behaviour,
)
from .bitcast_rules import (
    spec_verdict as spec_verdict,
    verdict as verdict,
)
from .rules import (
    RULES as RULES,
    check as check,
    level_conditions as level_conditions,
    prove_conditions as prove_conditions,
)
