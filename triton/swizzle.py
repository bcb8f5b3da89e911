"""Triton's swizzled shared-memory layout: ``SwizzledSharedEncodingAttr
(vec, perPhase, maxPhase, order)`` as the linear layout Triton gives it.

Triton writes the encoding as bases (``swizzledSharedToLinearLayout`` in
``lib/Dialect/TritonGPU/IR/LinearLayoutConversions.cpp``,
triton-lang/triton; one CTA): in-dim ``offset``, out-dims
``dim0, dim1, ...``.  The offset's low bits walk the most minor dim
(``order[0]``, the columns) as the identity; then bit ``i`` of the next
dim (``order[1]``, the rows) goes to row ``2^i`` and column
``(vec * ((2^i / perPhase) % maxPhase)) % numCols``; the other dims follow
in ``order`` as the identity.  Every shape dim must be a power of two
(Triton asserts it); ``vec``, ``perPhase`` and ``maxPhase`` need not be:
the bases are built by integer arithmetic on each power of two, which is
where a swizzle with ``perPhase = 3`` stops meaning the textbook formula.

>>> sw = SharedSwizzle(vec=2, per_phase=1, max_phase=4)
>>> sw.offset_bases((8, 8))
((0, 1), (0, 2), (0, 4), (1, 2), (2, 4), (4, 0))
>>> sw.element((8, 8), 8 + 1)  # offset 9: row 1, column 1 ^ 2
(1, 3)

An offset's element is the XOR of the bases of its set bits, so reading
the offsets row-major gives the logical index ``row * numCols + col``:
:meth:`SharedSwizzle.logical_index`, which for powers of two is CuTe's
``Swizzle<B, M, S>`` (``tilespec.triton.proofs`` proves it for all
parameters).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import reduce

from ..spec import TilespecError


class SwizzleError(TilespecError):
    """A shared swizzle or shape Triton refuses; ``reason`` names the rule
    (``"non-power-of-two"``, ``"bad parameter"``, ``"bad order"``)."""

    def __init__(self, reason: str, detail: str):
        self.reason = reason
        super().__init__(f"{reason}: {detail}")


def _power_of_two(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


@dataclass(frozen=True)
class SharedSwizzle:
    """Triton's ``SwizzledSharedEncodingAttr`` parameters; ``order`` is
    minor to major (``(1, 0)``: rows of ``dim1``-contiguous columns).

    >>> SharedSwizzle(0, 1, 1)
    Traceback (most recent call last):
    ...
    tilespec.triton.swizzle.SwizzleError: bad parameter: vec, per_phase and max_phase are >= 1, not (0, 1, 1)
    """

    vec: int
    per_phase: int
    max_phase: int
    order: tuple[int, ...] = (1, 0)

    def __post_init__(self) -> None:
        params = (self.vec, self.per_phase, self.max_phase)
        if any(isinstance(v, bool) or not isinstance(v, int) or v < 1 for v in params):
            raise SwizzleError("bad parameter", "vec, per_phase and max_phase are >= 1, "
                               f"not {params}")
        object.__setattr__(self, "order", tuple(int(d) for d in self.order))
        if sorted(self.order) != list(range(len(self.order))):
            raise SwizzleError("bad order", f"order {self.order} is not a permutation")

    def check_shape(self, shape: tuple[int, ...]) -> tuple[int, ...]:
        """The shape, if Triton accepts it for this encoding.

        >>> SharedSwizzle(1, 1, 1).check_shape((6, 8))
        Traceback (most recent call last):
        ...
        tilespec.triton.swizzle.SwizzleError: non-power-of-two: shape (6, 8): every dim must be a power of two
        """
        shape = tuple(int(n) for n in shape)
        if len(shape) != len(self.order):
            raise SwizzleError("bad order", f"order {self.order} for a shape of rank "
                               f"{len(shape)}")
        if not all(_power_of_two(n) for n in shape):
            raise SwizzleError("non-power-of-two",
                               f"shape {shape}: every dim must be a power of two")
        return shape

    def offset_bases(self, shape: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
        """The bases of the in-dim ``offset``: for each offset bit, the
        element ``(dim0, dim1, ...)`` it reaches (Triton's construction).

        >>> SharedSwizzle(1, 1, 1, (0,)).offset_bases((4,))
        ((1,), (2,))
        >>> SharedSwizzle(4, 1, 8).offset_bases((2, 8))  # vec * phase wraps: % numCols
        ((0, 1), (0, 2), (0, 4), (1, 4))
        """
        shape = self.check_shape(shape)
        rank = len(shape)

        def unit(dim: int, value: int) -> tuple[int, ...]:
            return tuple(value if d == dim else 0 for d in range(rank))

        if rank == 1:
            return tuple(unit(0, 1 << i) for i in range(shape[0].bit_length() - 1))
        col, row = self.order[0], self.order[1]
        num_cols, num_rows = shape[col], shape[row]
        bases = [unit(col, 1 << i) for i in range(num_cols.bit_length() - 1)]
        for i in range(num_rows.bit_length() - 1):
            r = 1 << i
            swizzled = (self.vec * ((r // self.per_phase) % self.max_phase)) % num_cols
            bases.append(tuple(r if d == row else swizzled if d == col else 0
                               for d in range(rank)))
        for dim in self.order[2:]:
            bases.extend(unit(dim, 1 << i) for i in range(shape[dim].bit_length() - 1))
        return tuple(bases)

    def element(self, shape: tuple[int, ...], offset: int) -> tuple[int, ...]:
        """The element at ``offset``: the XOR of the bases of its bits."""
        bases = self.offset_bases(shape)
        if not 0 <= offset < 1 << len(bases):
            raise SwizzleError("bad parameter", f"offset {offset} is not below "
                               f"{1 << len(bases)}")
        picked = [b for i, b in enumerate(bases) if offset >> i & 1]
        return reduce(lambda a, b: tuple(x ^ y for x, y in zip(a, b)), picked,
                      (0,) * len(shape))

    def logical_index(self, shape: tuple[int, int], offset: int) -> int:
        """The row-major index ``row * numCols + col`` of the element at
        ``offset`` of a 2-D shape (``order`` ``(1, 0)``).

        >>> [SharedSwizzle(1, 1, 2).logical_index((4, 2), x) for x in range(8)]
        [0, 1, 3, 2, 4, 5, 7, 6]
        """
        if len(shape) != 2 or self.order != (1, 0):
            raise SwizzleError("bad order", "the row-major index is of 2-D shapes, order (1, 0)")
        r, c = self.element(shape, offset)
        return r * shape[1] + c

    def textbook_column(self, row: int, col: int) -> int:
        """The swizzled column as Triton's ``SwizzledSharedEncodingAttr``
        documents it (``TritonGPUAttrDefs.td``): ``((col / vec) ^ phase) *
        vec + col % vec`` with ``phase = (row / perPhase) % maxPhase``;
        where element ``(row, col)`` is stored.  It is the linear layout's
        inverse when the parameters are powers of two and ``vec * maxPhase
        <= numCols``.

        >>> SharedSwizzle(2, 1, 4).textbook_column(1, 1)
        3
        """
        phase = (row // self.per_phase) % self.max_phase
        return ((col // self.vec) ^ phase) * self.vec + col % self.vec
