"""PjRt's ``Buffer::Bitcast``: a check of sizes only, and what it lets through.

``CommonPjRtBufferImpl::Bitcast`` (``xla/pjrt/common_pjrt_client.cc``,
ROCm/xla ec6acecead, 2026-03-02; the C API's ``PJRT_Buffer_Bitcast``,
6c46adfda9, 2026-03-03) gives a buffer new metadata (element type, dims,
layout) without moving a byte.  It refuses only when
``ShapeUtil::ArraySize`` of the old and the new on-device shape differ;
whether each element is then where a reader of the new shape looks for it
is left to the caller.

:func:`pjrt_buffer_bitcast` asks that question of the one bitcast decision
(:func:`tilespec.prover.bitcast.is_bitcast`): the reader of the new shape
expects element ``i`` (in row-major logical order) where the old shape kept
element ``i``, a reshape reading; between element types of different widths
it is XLA's reading of units (:func:`~tilespec.prover.bitcast.is_bitcast` in
XLA's order), the only pairing of elements of different widths.

Three verdicts: ``refuted`` "sizes differ: PjRt refuses"; ``proved`` "sizes
equal and every element kept"; ``refuted`` "sizes equal but element ... moves
from byte a to byte b: PjRt accepts it silently" (the counterexample is the
bitcast decision's, replayed on the spec's offsets).  A source with a ``*``
tile entry is ``unknown``: no PjRt buffer has that layout (ArraySize would
call it 0 bytes, equal to any other such layout's, whatever its elements).

>>> from tilespec.spec.text import parse_array_shape as shape
>>> r = pjrt_buffer_bitcast(shape("f32[8,128]{1,0}"), shape("f32[8,128]{0,1}"))
>>> r.status, r.reason
('refuted', 'sizes equal (4096 bytes) but element (0, 1) moves from byte 4 to byte 32: PjRt accepts it silently')
>>> pjrt_buffer_bitcast(shape("f32[8,128]{1,0:T(8,128)}"), shape("f32[1024]{0}")).status
'proved'
>>> pjrt_buffer_bitcast(shape("f32[8,130]{1,0:T(8,128)}"), shape("f32[1040]{0}")).reason
'sizes differ (8192 bytes against 4160): PjRt refuses the bitcast'
>>> r = pjrt_buffer_bitcast(shape("f32[1024]{0:T(1024)}"), shape("f32[1000]{0:T(1024)}"))
>>> r.status, r.steps[-1]
('proved', 'SRC elements 1000.. lie on the padding of DST')
"""

from __future__ import annotations

import dataclasses
import time

from ...spec import COMBINE, Holds, Shape, XlaCommit, format_shape, num_elements, resolve_xla
from ..bitcast import RESHAPE, is_bitcast, resized
from ..names import DEFAULT_TIMEOUT, counted
from ..result import PROVED, REFUTED, UNKNOWN, Counterexample, Result, Side
from .array_size import xla_array_bytes
from .versions import XlaModel

#: Where the check comes from.
SOURCE = ("CommonPjRtBufferImpl::Bitcast, xla/pjrt/common_pjrt_client.cc "
          "(ROCm/xla ec6aceceadbcd9759f6bcddd75983c118428cf17, 2026-03-02); "
          "PJRT_Buffer_Bitcast (6c46adfda9, 2026-03-03)")
#: ``Buffer::Bitcast`` exists since ec6acecead (before it:
#: ``Unimplemented``), unchanged to the newest modelled (read at 183fa00cb5).
HOLDS = Holds(since=resolve_xla("ec6acecead"))
XLA_MODELS = (
    XlaModel("CommonPjRtBufferImpl::Bitcast", "xla/pjrt/common_pjrt_client.cc",
             resolve_xla("183fa00cb5"), HOLDS),
)

PROPERTY = "PjRt Buffer::Bitcast keeps every element"


def pjrt_buffer_bitcast(src: Shape, dst: Shape, *, timeout: float = DEFAULT_TIMEOUT,
                        xla: str | XlaCommit | None = None) -> Result:
    """Does PjRt's ``Buffer::Bitcast`` from ``src`` to ``dst`` keep every
    element where a reader of ``dst`` expects it?  The Result's ``details``
    (in its counterexample) and ``steps`` say what PjRt checks and what
    tilespec found.  The new buffer stays in the old one's memory space
    (``MakeDefaultShapeForMemorySpace(memory_space(), ...)``): a memory
    space written in ``dst`` is replaced by ``src``'s, and no verifier is
    asked.  ``xla``: a version since ec6acecead (the default, the newest).

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> r = pjrt_buffer_bitcast(shape("f32[4]{0}"), shape("u8[4,4]{1,0}"))
    >>> r.status, r.steps[0]
    ('proved', 'sizes equal (16 bytes): PjRt accepts the bitcast')
    """
    start = time.perf_counter()
    resolve_xla(xla)  # every modelled XLA has it: HOLDS starts at the oldest
    text = f"{format_shape(src)} -> {format_shape(dst)}"
    if dst.layout.memory_space != src.layout.memory_space:
        dst = Shape(dst.element_type, dst.dims,
                    dataclasses.replace(dst.layout, memory_space=src.layout.memory_space),
                    dst.dynamic)
    if any(COMBINE in t.sizes for t in src.layout.tiles):
        # ArraySize of such a layout would be 0 bytes (array_size.py), so two
        # of them compare equal: there is no buffer that size describes
        why = ("no PjRt buffer has this source layout: a '*' tile entry is INT64_MIN, and "
               "XLA's layout check rejects a negative tile entry (RET_CHECK dimension >= 0, "
               "xla/layout.h), so there is no buffer to bitcast")
        return Result(text, PROPERTY, UNKNOWN, time.perf_counter() - start, reason=why,
                      shapes=(src, dst))
    a, b = xla_array_bytes(src), xla_array_bytes(dst)
    if a != b:
        why = f"sizes differ ({counted(a, 'byte')} against {b}): PjRt refuses the bitcast"
        ce = Counterexample({}, (Side("source", shape=format_shape(src), value=a),
                                 Side("target", shape=format_shape(dst), value=b)),
                            what=why, details={"xla": SOURCE})
        return Result(text, PROPERTY, REFUTED, time.perf_counter() - start,
                      counterexample=ce, reason=why, shapes=(src, dst))
    reading = RESHAPE if src.element_bits == dst.element_bits else None
    if reading == RESHAPE and not (src.is_symbolic or dst.is_symbolic) \
            and num_elements(src) != num_elements(dst):
        # PjRt takes any dims of the same size: the reader of DST expects
        # its element i where SRC kept element i, a prefix of the longer
        rs = resized(src, dst)
        r = dict(rs.tried).get("prefix", rs.result)
    else:
        r = is_bitcast(src, dst, reading, timeout=timeout)
    accepted = f"sizes equal ({counted(a, 'byte')}): PjRt accepts the bitcast"
    if r.status == PROVED:
        return dataclasses.replace(
            r, property=PROPERTY, seconds=time.perf_counter() - start,
            steps=(accepted, "every element kept where the reader of the target "
                   "expects it: proved", *r.steps))
    if r.status == REFUTED and r.counterexample is not None:
        why = f"sizes equal ({counted(a, 'byte')}) but {_moved(r.counterexample)}: " \
            "PjRt accepts it silently"
        ce = r.counterexample.with_details(xla=SOURCE)
        return dataclasses.replace(r, property=PROPERTY, reason=why,
                                   seconds=time.perf_counter() - start,
                                   counterexample=dataclasses.replace(ce, what=why))
    return dataclasses.replace(r, property=PROPERTY, steps=(accepted, *r.steps))


def _moved(ce: Counterexample) -> str:
    """Which element moves, and from which byte to which, in words."""
    src, dst = ce.sides[0], ce.sides[-1]
    if src.element is not None and src.byte_offset is not None \
            and dst.byte_offset is not None:
        return (f"element {src.element} moves from byte {src.byte_offset} "
                f"to byte {dst.byte_offset}")
    return ce.what
