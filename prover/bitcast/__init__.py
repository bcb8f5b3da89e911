"""Is SRC -> DST a bitcast?  The door of the bitcast room: its questions and
the values they answer with; callers outside import from here only.

* :func:`is_bitcast` -- in XLA's order (``ShapeUtil::DecomposeBitcast``:
  reshape, transpose, transpose-reshape-transpose), or one reading asked;
* :func:`decompose` -- the same decision with its record, a
  :class:`Decomposition` (each reading tried, with its ``Result``), in
  ``DecomposeBitcast``'s order or ``GetBitcastMap``'s
  (:data:`DECOMPOSE_BITCAST`, :data:`GET_BITCAST_MAP`);
* :func:`prove_reading` -- one reading on its own (no order, no memory),
  for questions built on it: equal layouts, XLA's bitcast rules, which
  add their own assumptions (:class:`ReadingFacts`, :func:`group_pair`);
* :func:`memory_space_violation` -- the memory spaces XLA's verifier
  rejects in a bitcast (host memory on one side only), asked by
  :func:`is_bitcast` before any reading (by XLA version: none before
  8a84ad7ef7); :data:`HOST_MEMORY_SPACE`, :data:`UNPINNED_HOST_MEMORY_SPACE`
  and :func:`memory_space_name`, what ``S(n)`` is;
* :class:`Question` (made and checked by :func:`question`) -- SRC, DST and
  how their elements pair;
* :func:`remembering` -- a block inside which a question asked again is
  answered once; :func:`describe`, :func:`describe_decomposition` -- the
  answers for a person.

Inside: one reading (:mod:`.reading`; every element of a concrete question,
block by block: :mod:`.enumeration`), XLA's order
(:mod:`.decomposition`), the verifier's memory spaces (:mod:`.memory_space`),
XLA's reading of the layouts (:mod:`.xla_reading`), a reshape as groups of
dims (:mod:`.reshape_groups`), a reshape between untiled row-major layouts by
theorem (:mod:`.row_major`), and shapes with bounded dynamic dims decided at
every runtime size up to the bound (:mod:`.dynamic`: XLA keeps the elements at
the bound's strides).

>>> from tilespec.spec.text import parse_array_shape as shape
>>> is_bitcast(shape("f32[8]{0:L(16)}"), shape("f32[8]{0:T(8)L(16)}")).status
'proved'
"""

from .decomposition import (
    DECOMPOSE_BITCAST,
    GET_BITCAST_MAP,
    RESHAPE,
    Decomposition,
    decompose,
    describe,
    describe_decomposition,
    is_bitcast,
    transposes,
)
from .dynamic import is_dynamic_pair
from .memo import remembering
from .memory_space import (
    HOST_MEMORY_SPACE,
    UNPINNED_HOST_MEMORY_SPACE,
    memory_space_name,
    memory_space_violation,
)
from .reading import Question, ReadingFacts, group_pair, prove_reading, question
from .resize import resized
from .xla_reading import TRT

__all__ = ["DECOMPOSE_BITCAST", "GET_BITCAST_MAP", "HOST_MEMORY_SPACE", "RESHAPE", "TRT",
           "UNPINNED_HOST_MEMORY_SPACE", "Decomposition", "Question", "memory_space_name",
           "ReadingFacts", "decompose", "describe", "describe_decomposition", "group_pair",
           "is_bitcast", "is_dynamic_pair", "memory_space_violation", "prove_reading", "question",
           "remembering", "resized", "transposes"]
