"""A reshape between untiled row-major layouts keeps every element's offset:
proved without looking at the elements, whatever the rank.

The proof, for SRC dims ``Ds`` and DST dims ``Dd`` with the same product:

1. each side's offset is the row-major position of the element,
   ``offset(e) = linear_index(e, D)``: Z3 shows it (``unsat`` of the
   negation) on the spec's own pipeline for the layout, with every dim a
   symbolic ``D >= 0``;
2. the reshape pairs ``e`` with ``f = delinearise(linear_index(e, Ds), Dd)``;
   by the mixed-radix lemma (range, then onto; proved for the rank by
   induction, cited through :class:`prover.core.Facts`), ``f`` is in DST's box and
   ``linear_index(f, Dd) = linear_index(e, Ds)``.

So ``offset_dst(f) = offset_src(e)`` for every element; the element bits
and the buffers' bytes are compared by the caller.  A rank-40 reshape takes
milliseconds here, where scanning its elements or handing the whole
formula to the solver grows with the rank.

>>> from tilespec.spec.text import parse_array_shape as shape
>>> steps = reshape_proof(shape("f32[2,3,4]{2,1,0}"), shape("f32[6,4]{1,0}"))
>>> steps[1].startswith("the reshape pairs e with")
True
>>> reshape_proof(shape("f32[2,3]{0,1}"), shape("f32[6]{0}")) is None
True
"""

from __future__ import annotations

import z3

from ...spec import Shape, evaluate, linear_index, pipeline
from ..core import DEFAULT_TIMEOUT, Facts, Z3Arithmetic, internal_ints


def untiled_row_major(shape: Shape) -> bool:
    """No tiles, and the minor-to-major order is descending (row-major).

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> untiled_row_major(shape("f32[2,3]{1,0:L(8)}")), untiled_row_major(shape("f32[2,3]{0,1}"))
    (True, False)
    """
    return (not shape.layout.tiles
            and shape.layout.minor_to_major == tuple(range(shape.rank - 1, -1, -1)))


def reshape_proof(src: Shape, dst: Shape, *,
                  timeout: float = DEFAULT_TIMEOUT) -> tuple[str, ...] | None:
    """The steps proving that the reshape SRC -> DST keeps every element's
    offset, when both layouts are untiled and row-major and every part is
    proved (asked afresh: about the code that runs now); None otherwise,
    and the caller decides it another way.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> reshape_proof(shape("f32[2,3]{1,0}"), shape("f32[3,2]{1,0}"))[0]
    'mixed-radix rank 2: proved'
    """
    if not (untiled_row_major(src) and untiled_row_major(dst)):
        return None
    ctx = z3.Context()
    ar = Z3Arithmetic(ctx)
    F = Facts(ctx, timeout=timeout)
    for name, s in (("SRC", src), ("DST", dst)):
        n = s.rank
        xs = internal_ints(" ".join([f"{name}_D{i}" for i in range(n)]
                                    + [f"{name}_e{i}" for i in range(n)]), ctx) if n else ()
        D, e = xs[:n], xs[n:]
        F.assume(z3.And([z3.And(d >= 0, x >= 0, x < d) for d, x in zip(D, e)]
                        + [z3.BoolVal(True, ctx)]))
        offset = evaluate(pipeline(n, s.layout), e, D, ar)
        F.fact(f"{name}'s offset is the row-major position of the element, for every dims "
               f"(the spec's pipeline for {{{','.join(map(str, s.layout.minor_to_major))}}})",
               ar.term(offset) != ar.term(linear_index(e, D, ar)))
    F.cite(max(src.rank, dst.rank))
    F.note("the reshape pairs e with delinearise(linear_index(e, SRC dims), DST dims): by the "
           "mixed-radix lemma (range, then onto) it is in DST's box at the same row-major "
           "position, so at the same offset")
    status, _ = F.check()
    return F.steps() if status == "proved" else None
