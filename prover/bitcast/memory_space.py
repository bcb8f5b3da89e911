"""Which memory spaces a bitcast may join: XLA's verifier's condition.

``ShapeVerifier::HandleBitcast`` (``xla/service/hlo_verifier.cc``, ROCm/xla
commit 183fa00cb5d8) rejects a layout-sensitive bitcast whose operand and
result are on different sides of host memory: one in
``Layout::kHostMemorySpace`` (``S(5)``, ``xla/layout.h``), the other not.
It lets every other pair through (``S(0)`` and ``S(1)``, ``S(5)`` and
``S(5)``; ``S(6)``, unpinned host memory, is "another" space), and a bitcast
of a constant (through copies) change memory space freely.  The check is the
same in every computation: ``HloVerifier::RunImpl`` has the shape verifier
visit each computation of the module, fused ones included.

Bytes that stay in place are the readings' question; this is the other half
of "is SRC -> DST a bitcast": :func:`memory_space_violation` is asked first
by :func:`~tilespec.prover.bitcast.is_bitcast`, whatever the reading.

>>> from tilespec.spec.text import parse_array_shape as shape
>>> print(memory_space_violation(shape("f32[8]{0:S(5)}"), shape("f32[8]{0}")).what)
one side in host memory S(5), the other not (S(5) against S(0)): XLA's verifier rejects the bitcast
>>> memory_space_violation(shape("f32[8]{0:S(1)}"), shape("f32[8]{0}")) is None
True
"""

from __future__ import annotations

from ...spec import Shape, format_shape
from ..result import Counterexample, Side

#: ``Layout::kHostMemorySpace`` (xla/layout.h).
HOST_MEMORY_SPACE = 5

#: Where the condition comes from.
SOURCE = ("ShapeVerifier::HandleBitcast, xla/service/hlo_verifier.cc "
          "(ROCm/xla 183fa00cb5d82384463a1a7aed1ab06bc9026974)")


def memory_space_violation(src: Shape, dst: Shape, *,
                           constant_operand: bool = False) -> Counterexample | None:
    """Why XLA's verifier rejects a bitcast from ``src`` to ``dst`` for its
    memory spaces, as a counterexample (each side's ``value`` its memory
    space), or None where it accepts them.  ``constant_operand``: the
    bitcast's operand is a constant, or copies of one, which the verifier
    lets change memory space.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> ce = memory_space_violation(shape("f32[8]{0}"), shape("f32[8]{0:S(5)}"))
    >>> [(s.name, s.value) for s in ce.sides]
    [('source', 0), ('target', 5)]
    >>> memory_space_violation(shape("f32[8]{0}"), shape("f32[8]{0:S(5)}"),
    ...                        constant_operand=True) is None
    True
    """
    a, b = src.layout.memory_space, dst.layout.memory_space
    if constant_operand or (a == HOST_MEMORY_SPACE) == (b == HOST_MEMORY_SPACE):
        return None
    return Counterexample(
        {}, (Side("source", shape=format_shape(src), value=a),
             Side("target", shape=format_shape(dst), value=b)),
        what=(f"one side in host memory S({HOST_MEMORY_SPACE}), the other not "
              f"(S({a}) against S({b})): XLA's verifier rejects the bitcast"),
        details={"xla": SOURCE})


def memory_spaces_note(src: Shape, dst: Shape, *,
                       constant_operand: bool = False) -> str | None:
    """A step for a proof between different memory spaces the verifier
    accepts, or None where they are the same.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> memory_spaces_note(shape("f32[8]{0:S(1)}"), shape("f32[8]{0}"))
    "memory spaces S(1) and S(0) differ: XLA's verifier accepts the bitcast (it rejects only host memory S(5) against another space)"
    """
    a, b = src.layout.memory_space, dst.layout.memory_space
    if a == b:
        return None
    why = ("its operand is a constant" if constant_operand and (
        (a == HOST_MEMORY_SPACE) != (b == HOST_MEMORY_SPACE)) else
        f"it rejects only host memory S({HOST_MEMORY_SPACE}) against another space")
    return (f"memory spaces S({a}) and S({b}) differ: XLA's verifier accepts the "
            f"bitcast ({why})")
