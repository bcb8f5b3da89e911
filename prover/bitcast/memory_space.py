"""Which memory spaces a bitcast may join: XLA's verifier's condition, by version.

Since 8a84ad7ef7 (2026-04-06, "Added an assert in hlo_verifier for bitcast
on memory space consistency"), ``ShapeVerifier::HandleBitcast``
(``xla/service/hlo_verifier.cc``, read again at ROCm/xla 183fa00cb5, the
newest modelled: unchanged) rejects a layout-sensitive bitcast whose operand
and result are on different sides of host memory: one in
``Layout::kHostMemorySpace`` (``S(5)``, ``xla/layout.h``), the other not.
It lets every other pair through (``S(0)`` and ``S(1)``, ``S(5)`` and
``S(5)``), and a bitcast of a constant (through copies) change memory space
freely.  The check is the same in every computation: ``HloVerifier::RunImpl``
has the shape verifier visit each computation of the module, fused ones
included.  Before 8a84ad7ef7 the verifier compared no memory spaces: every
pair passes (:data:`CHECKED`, :data:`UNCHECKED`).

``S(6)`` is ``Layout::kUnpinnedHostMemorySpace``, named in ``xla/layout.h``
since c56c6be6b8 (2026-05-15); the verifier's rule compares with ``S(5)``
only, so it lets a bitcast join unpinned host memory ``S(6)`` with device
memory ``S(0)``, and rejects ``S(5)`` against ``S(6)``
(``tilespec.spec.memory.memory_space_name`` says what each is).

Bytes that stay in place are the readings' question; this is the other half
of "is SRC -> DST a bitcast": :func:`memory_space_violation` is asked first
by :func:`~tilespec.prover.bitcast.is_bitcast`, whatever the reading.

>>> from tilespec.spec.text import parse_array_shape as shape
>>> print(memory_space_violation(shape("f32[8]{0:S(5)}"), shape("f32[8]{0}")).what)
one side in host memory S(5), the other not (S(5) against S(0)): XLA's verifier rejects the bitcast
>>> memory_space_violation(shape("f32[8]{0:S(5)}"), shape("f32[8]{0}"), xla="2026-04-01") is None
True
>>> memory_space_violation(shape("f32[8]{0:S(6)}"), shape("f32[8]{0}")) is None
True
"""

from __future__ import annotations

from ...spec import (
    HOST_MEMORY_SPACE,
    UNPINNED_HOST_MEMORY_SPACE,
    Holds,
    Shape,
    XlaCommit,
    format_shape,
    memory_space_name,
    resolve_xla,
)
from ..result import Counterexample, Side

#: ``S(5)``, ``S(6)`` and their names come from :mod:`tilespec.spec.memory`.
__all__ = ["HOST_MEMORY_SPACE", "UNPINNED_HOST_MEMORY_SPACE", "memory_space_name",
           "memory_space_violation", "memory_spaces_note"]

#: The commit that added the check.
BITCAST_MEMORY_SPACE = resolve_xla("8a84ad7ef7")
#: The verifier compares host memory on both sides of a bitcast; before, nothing.
CHECKED = Holds(since=BITCAST_MEMORY_SPACE)
UNCHECKED = Holds(until=BITCAST_MEMORY_SPACE)

#: Where the condition comes from.
SOURCE = ("ShapeVerifier::HandleBitcast, xla/service/hlo_verifier.cc "
          "(since 8a84ad7ef7954874745731a7e16a53cecaf24338; read at ROCm/xla "
          "183fa00cb5d82384463a1a7aed1ab06bc9026974)")


def memory_space_violation(src: Shape, dst: Shape, *, constant_operand: bool = False,
                           xla: str | XlaCommit | None = None) -> Counterexample | None:
    """Why XLA's verifier at ``xla`` (default the newest modelled) rejects a
    bitcast from ``src`` to ``dst`` for its memory spaces, as a
    counterexample (each side's ``value`` its memory space), or None where
    it accepts them.  ``constant_operand``: the bitcast's operand is a
    constant, or copies of one, which the verifier lets change memory space.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> ce = memory_space_violation(shape("f32[8]{0}"), shape("f32[8]{0:S(5)}"))
    >>> [(s.name, s.value) for s in ce.sides], ce.details["xla_version"]
    ([('source', 0), ('target', 5)], '183fa00cb5 (2026-08-22)')
    >>> memory_space_violation(shape("f32[8]{0}"), shape("f32[8]{0:S(5)}"),
    ...                        constant_operand=True) is None
    True
    """
    commit = resolve_xla(xla)
    a, b = src.layout.memory_space, dst.layout.memory_space
    if UNCHECKED.holds_at(commit) or constant_operand \
            or (a == HOST_MEMORY_SPACE) == (b == HOST_MEMORY_SPACE):
        return None
    return Counterexample(
        {}, (Side("source", shape=format_shape(src), value=a),
             Side("target", shape=format_shape(dst), value=b)),
        what=(f"one side in host memory S({HOST_MEMORY_SPACE}), the other not "
              f"(S({a}) against S({b})): XLA's verifier rejects the bitcast"),
        details={"xla": SOURCE, "xla_version": commit.label})


def memory_spaces_note(src: Shape, dst: Shape, *, constant_operand: bool = False,
                       xla: str | XlaCommit | None = None) -> str | None:
    """A step for a proof between different memory spaces the verifier
    accepts, or None where they are the same.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> memory_spaces_note(shape("f32[8]{0:S(1)}"), shape("f32[8]{0}"))
    "memory spaces S(1) and S(0) differ: XLA's verifier accepts the bitcast (it rejects only host memory S(5) against another space; XLA 183fa00cb5 (2026-08-22))"
    >>> memory_spaces_note(shape("f32[8]{0:S(5)}"), shape("f32[8]{0}"), xla="2026-04-01")
    "memory spaces S(5) and S(0) differ: XLA's verifier accepts the bitcast (it compares no memory spaces before 8a84ad7ef7 (2026-04-06); XLA 5d1dc54c5f (2026-03-27))"
    """
    commit = resolve_xla(xla)
    a, b = src.layout.memory_space, dst.layout.memory_space
    if a == b:
        return None
    if UNCHECKED.holds_at(commit):
        why = f"it compares no memory spaces before {BITCAST_MEMORY_SPACE.label}"
    elif constant_operand and (a == HOST_MEMORY_SPACE) != (b == HOST_MEMORY_SPACE):
        why = "its operand is a constant"
    else:
        why = f"it rejects only host memory S({HOST_MEMORY_SPACE}) against another space"
    return (f"memory spaces S({a}) and S({b}) differ: XLA's verifier accepts the "
            f"bitcast ({why}; XLA {commit.label})")
