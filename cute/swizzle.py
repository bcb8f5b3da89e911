"""CuTe's ``Swizzle<B,M,S>``: an xor of bits, applied to offsets after a
layout (CuTe's ``ComposedLayout``).

``Swizzle(B, M, S)`` keeps the ``M`` lowest bits, and xors the ``B`` bits
at ``M + max(S, 0)`` ("YYY") into the ``B`` bits at ``M - min(S, 0)``
("ZZZ"): ``x ^ ((x & YYY) >> S)``, a shift left where ``S < 0``.  Since
``|S| >= B`` the two groups of bits do not overlap, so applying it twice
gives ``x`` back: a bijection of the integers.

>>> sw = Swizzle(3, 4, 3)
>>> str(sw), sw.size, [sw(x) for x in (0, 16, 128, 144, 1024)]
('SW_3_4_3', 1024, [0, 16, 144, 128, 1024])

The xor is written with the few operations of an
:class:`~tilespec.spec.arith.Arithmetic` (``bit p of x`` is
``(x div 2^p) mod 2``, and the xor of two bits is their sum mod 2), so it
runs on ints, numpy arrays and Z3 integer terms: the prover proves
bijections with the same definition, in linear integer arithmetic.
``Swizzle(0, M, 0)`` is the identity (PR NVIDIA/cutlass#2553: pycute's
recursed forever).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..spec import INT, Arithmetic
from .int_tuple import CuteError
from .layout import Layout, as_layout


@dataclass(frozen=True)
class Swizzle:
    """``Swizzle<bits, base, shift>`` (``B``, ``M``, ``S`` in CuTe).

    >>> Swizzle(2, 0, -1)
    Traceback (most recent call last):
    ...
    tilespec.cute.int_tuple.CuteError: Swizzle(2, 0, -1): |shift| must be at least bits, so that the bits xored do not overlap the bits they come from
    """

    bits: int
    base: int
    shift: int

    def __post_init__(self) -> None:
        for name in ("bits", "base", "shift"):
            if isinstance(getattr(self, name), bool) or not isinstance(getattr(self, name), int):
                raise CuteError(f"Swizzle's {name} is an int, not {getattr(self, name)!r}")
        if self.bits < 0 or self.base < 0:
            raise CuteError(f"{self!r}: bits and base are >= 0")
        if abs(self.shift) < self.bits:
            raise CuteError(f"{self!r}: |shift| must be at least bits, so that the bits "
                            "xored do not overlap the bits they come from")

    def __repr__(self) -> str:
        return f"Swizzle({self.bits}, {self.base}, {self.shift})"

    def __str__(self) -> str:
        return f"SW_{self.bits}_{self.base}_{self.shift}"

    @property
    def source_bit(self) -> int:
        """The lowest of the bits xored in (YYY)."""
        return self.base + max(0, self.shift)

    @property
    def target_bit(self) -> int:
        """The lowest of the bits changed (ZZZ)."""
        return self.base - min(0, self.shift)

    @property
    def size(self) -> int:
        """``2^(B + M + |S|)``: the swizzle maps ``[0, size)`` onto itself,
        and each block of that many offsets onto itself."""
        return 1 << (self.bits + self.base + abs(self.shift))

    def __call__(self, x: Any, ar: Arithmetic = INT) -> Any:
        """The swizzled offset ``x ^ ((x & YYY) >> S)``, on ``ar``'s values.

        >>> Swizzle(2, 1, 2)(0b11000), Swizzle(2, 1, -2)(0b00110)
        (30, 30)
        """
        out = x
        for k in range(self.bits):
            z = _bit(x, self.target_bit + k, ar)
            y = _bit(x, self.source_bit + k, ar)
            flip = ar.add(ar.mod(ar.add(z, y), 2), ar.mul(-1, z))   # (z xor y) - z
            out = ar.add(out, ar.mul(flip, 1 << (self.target_bit + k)))
        return out

    def xor(self, x: int) -> int:
        """The same map with Python's bit operators (the second definition
        the tests compare with).

        >>> Swizzle(3, 4, 3).xor(128)
        144
        """
        y = ((1 << self.bits) - 1) << self.source_bit
        moved = x & y
        moved = moved >> self.shift if self.shift >= 0 else moved << -self.shift
        return x ^ moved


def _bit(x: Any, position: int, ar: Arithmetic) -> Any:
    return ar.mod(ar.floordiv(x, 1 << position), 2)


@dataclass(frozen=True, init=False)
class SwizzledLayout:
    """``x -> swizzle(offset + layout(x))`` (CuTe's ``ComposedLayout`` of a
    swizzle, an offset and a layout).

    >>> sl = SwizzledLayout(Swizzle(1, 2, 3), "(8,8):(8,1)")
    >>> str(sl), sl.size, sl((4, 0)), sl((4, 4))
    ('SW_1_2_3 o 0 o (8, 8):(8, 1)', 64, 36, 32)
    """

    swizzle: Swizzle
    layout: Layout
    offset: int

    def __init__(self, swizzle: Swizzle, layout: Any, offset: int = 0):
        if offset < 0:
            raise CuteError(f"a swizzled layout's offset is >= 0, not {offset}")
        object.__setattr__(self, "swizzle", swizzle)
        object.__setattr__(self, "layout", as_layout(layout))
        object.__setattr__(self, "offset", int(offset))

    def __call__(self, *coordinate: Any, ar: Arithmetic = INT) -> Any:
        return self.swizzle(ar.add(self.offset, self.layout(*coordinate, ar=ar)), ar)

    @property
    def size(self) -> int:
        """Elements in the domain (the layout's)."""
        return self.layout.size

    @property
    def span(self) -> int:
        """The offsets the swizzle permutes: ``offset + cosize(layout)``
        rounded up to a multiple of the swizzle's block (``2^(B+M+|S|)``
        where ``S < 0``, ``2^(B+M)`` where the changed bits are the low
        ones), so every offset lands below it."""
        top = self.swizzle.target_bit + self.swizzle.bits
        block = 1 << top
        reach = self.offset + self.layout.cosize
        return -(-reach // block) * block

    def __str__(self) -> str:
        return f"{self.swizzle} o {self.offset} o {self.layout}"
