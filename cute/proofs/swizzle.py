"""CuTe's swizzle proved a bijection by Z3.

:class:`~tilespec.cute.swizzle.Swizzle` is written with ``div`` and ``mod``
by powers of two (a bit is ``(x div 2^p) mod 2``, an xor of two bits their
sum mod 2), and the solver reads that very definition on bit-vectors
(:class:`~tilespec.cute.proofs.claims.BitVectorArithmetic`), where
division by a power of two is a shift: the same claims in integer
arithmetic time out.  The width holds every value the map computes (the
offsets stay below the span, the index below the layout's size), so
bit-vector arithmetic is integer arithmetic here; a counterexample is
replayed on Python ints.

>>> from tilespec.cute.swizzle import Swizzle, SwizzledLayout
>>> prove_swizzle(Swizzle(3, 4, 3)).status
'proved'
>>> prove_swizzle(SwizzledLayout(Swizzle(3, 3, 3), "(8,64):(64,1)")).status
'proved'
>>> r = prove_swizzle(SwizzledLayout(Swizzle(1, 0, 1), "(2,2):(1,1)"))
>>> r.status, r.counterexample.what
('refuted', 'SW_1_0_1 o 0 o (2, 2):(1, 1) is injective fails')
"""

from __future__ import annotations

from dataclasses import replace
from typing import Union

from ...prover.names import DEFAULT_TIMEOUT
from ...prover.result import Result
from .. import Swizzle, SwizzledLayout
from .claims import below, injective, prove_claims


def width(bound: int) -> int:
    """Bits for every value below ``bound``, and one more, so that a value
    from ``bound`` up to twice it is itself in the solver, not wrapped.

    >>> width(1024)
    12
    """
    return bound.bit_length() + 1


def prove_swizzle(swizzled: Union[Swizzle, SwizzledLayout],
                  timeout: float = DEFAULT_TIMEOUT) -> Result:
    """A swizzle: a bijection of ``[0, size)`` (injective, and every offset
    below ``size``).  A swizzled layout: injective on its layout's domain,
    and every offset below its span (so a bijection onto ``[0, span)``
    where the layout has ``span`` elements)."""
    text = str(swizzled)
    if isinstance(swizzled, Swizzle):
        n = swizzled.size
        w = width(n)
        return prove_claims(text, "swizzle is a bijection",
                      [injective(f"{text} is injective on [0, {n})", n, swizzled, w),
                       below(f"{text}(x) < {n}", n, swizzled, n, w)], timeout)
    shape, span = swizzled.layout.shape, swizzled.span
    w = width(max(span, swizzled.size))
    result = prove_claims(text, "swizzled layout is injective",
                    [injective(f"{text} is injective", shape, swizzled, w),
                     below(f"{text}(i) < {span}", shape, swizzled, span, w)], timeout)
    if result.proved and swizzled.size == span:
        return replace(result, steps=result.steps + (
            f"so it is a bijection onto [0, {span}): {swizzled.size} elements, injective",))
    return result
