"""Swizzles across systems: Triton's shared swizzle ``(vec, perPhase,
maxPhase)`` and CuTe's ``Swizzle<B, M, S>``, one map of offsets, proved for
all parameters; and a refutation, replayed, where the obvious translation
differs.

With ``numCols = 2^k`` columns (``order (1, 0)``), ``vec = 2^m``,
``perPhase = 2^p`` and ``maxPhase = 2^b``, the row-major index of the
element at offset ``x`` of Triton's layout
(:meth:`~tilespec.triton.swizzle.SharedSwizzle.logical_index`) is CuTe's

    ``Swizzle<min(b, k - m), m, k + p - m>(x)``

(the identity ``Swizzle<0, 0, 0>`` where ``vec >= numCols``): the phase is
row bits ``[p, p + b)``, i.e. offset bits ``[k + p, k + p + b)``, xored
into the column bits ``[m, m + b)``; Triton's ``% numCols`` drops the phase
bits that would land at or above bit ``k``, so ``B`` is cut to ``k - m``.
:func:`prove_translation` proves it; :func:`refute_uncut` shows the
uncut ``Swizzle<b, m, k + p - m>`` differs once ``vec * maxPhase >
numCols``, replayed on :class:`~tilespec.triton.swizzle.SharedSwizzle`
and :class:`~tilespec.cute.Swizzle`.

>>> from tilespec.triton import SharedSwizzle
>>> to_cute(SharedSwizzle(8, 4, 8), 64)
Swizzle(3, 3, 5)
>>> from_cute(Swizzle(3, 3, 5), 64)
SharedSwizzle(vec=8, per_phase=4, max_phase=8, order=(1, 0))
"""

from __future__ import annotations

import time

import z3

from ...cute import Swizzle
from ...prover.core import search
from ...prover.names import DEFAULT_TIMEOUT
from ...prover.result import PROVED, REFUTED, UNKNOWN, Counterexample, ProverBug, Result, Side
from .. import SharedSwizzle, SwizzleError

#: The proof's default bound on exponents: shapes up to ``2^16`` offsets,
#: each parameter up to ``2^16`` (``max_bits=30`` proved in 266 s on a loaded
#: 2-core machine).
MAX_BITS = 16


def width(max_bits: int) -> int:
    """Bits of the vectors: the largest term, a basis ``< 2^maxPhase``
    shifted by ``vec``'s exponent, is below ``2^(2 * max_bits)``, so no term
    wraps and bit-vector arithmetic is integer arithmetic.

    >>> width(16)
    33
    """
    return 2 * max_bits + 1


def _log2(n: int, what: str) -> int:
    if n < 1 or n & (n - 1):
        raise SwizzleError("non-power-of-two", f"{what} {n} is not a power of two")
    return n.bit_length() - 1


def to_cute(shared: SharedSwizzle, num_cols: int) -> Swizzle:
    """CuTe's swizzle of Triton's, on row-major offsets of ``num_cols``
    columns (parameters powers of two, order ``(1, 0)``).

    >>> to_cute(SharedSwizzle(4, 1, 8), 8), to_cute(SharedSwizzle(8, 1, 8), 8)
    (Swizzle(1, 2, 1), Swizzle(0, 0, 0))
    """
    if shared.order != (1, 0):
        raise SwizzleError("bad order", "the translation is of 2-D shapes, order (1, 0)")
    k = _log2(num_cols, "numCols")
    m, p, b = (_log2(v, n) for v, n in ((shared.vec, "vec"), (shared.per_phase, "perPhase"),
                                        (shared.max_phase, "maxPhase")))
    bits = min(b, max(k - m, 0))
    return Swizzle(bits, m, k + p - m) if bits else Swizzle(0, 0, 0)


def from_cute(swizzle: Swizzle, num_cols: int) -> SharedSwizzle:
    """Triton's swizzle equal to CuTe's on rows of ``num_cols``, or
    :class:`~tilespec.triton.swizzle.SwizzleError` saying why none is.

    >>> from_cute(Swizzle(3, 4, 3), 64)
    Traceback (most recent call last):
    ...
    tilespec.triton.swizzle.SwizzleError: no Triton swizzle: Swizzle(3, 4, 3) changes bits [4, 7), not all below the column bits' top 6
    """
    k = _log2(num_cols, "numCols")
    if swizzle.bits == 0:
        return SharedSwizzle(1, 1, 1)
    B, M, S = swizzle.bits, swizzle.base, swizzle.shift
    if M + B > k:
        raise SwizzleError("no Triton swizzle", f"{swizzle!r} changes bits [{M}, {M + B}), "
                           f"not all below the column bits' top {k}")
    if S < 0 or M + S < k:
        raise SwizzleError("no Triton swizzle", f"{swizzle!r} reads bits from "
                           f"{M + max(S, 0)}, inside a row of {num_cols}: Triton's phase "
                           "is read from the row")
    return SharedSwizzle(1 << M, 1 << (M + S - k), 1 << B)


def _bv(ctx: z3.Context, name: str, w: int) -> z3.BitVecRef:
    return z3.BitVec(name, w, ctx=ctx)


def triton_index(x, k, rows, m, p, b, ctx, max_bits: int = MAX_BITS):
    """Triton's construction on bit-vectors, exponents symbolic: ``x``
    with each row bit ``i`` (offset bit ``k + i``, ``i < rows``) xoring in
    ``(vec * ((2^i / perPhase) % maxPhase)) % numCols`` (the bases of
    :meth:`SharedSwizzle.offset_bases`, a power of two at a time)."""
    one = z3.BitVecVal(1, x.size(), ctx=ctx)
    out = x
    for i in range(max_bits):
        ii = z3.BitVecVal(i, x.size(), ctx=ctx)
        basis = z3.LShR(one << ii, p) & ((one << b) - 1)          # (2^i / perPhase) % maxPhase
        basis = (basis << m) & ((one << k) - 1)                   # vec * .. % numCols
        set_ = z3.And(z3.ULT(ii, rows), z3.Extract(0, 0, z3.LShR(x, k + ii)) == 1)
        out = z3.If(set_, out ^ basis, out)
    return out


def cute_index(x, bits, base, shift, ctx):
    """CuTe's ``Swizzle<B, M, S>`` for ``S >= 0`` on bit-vectors:
    ``x ^ (((x >> (M + S)) & (2^B - 1)) << M)`` (:meth:`Swizzle.xor`)."""
    one = z3.BitVecVal(1, x.size(), ctx=ctx)
    return x ^ ((z3.LShR(x, base + shift) & ((one << bits) - 1)) << base)


def _parameters(ctx, max_bits: int):
    w = width(max_bits)
    k, rows, m, p, b, x = (_bv(ctx, n, w) for n in ("k", "rows", "m", "p", "b", "x"))
    limit = z3.BitVecVal(max_bits, w, ctx=ctx)
    one = z3.BitVecVal(1, w, ctx=ctx)
    bounds = [z3.ULE(k + rows, limit), z3.ULE(m, limit), z3.ULE(p, limit), z3.ULE(b, limit),
              z3.ULE(k, limit), z3.ULE(rows, limit), z3.ULT(x, one << (k + rows))]
    return (k, rows, m, p, b, x), bounds


def scope(max_bits: int) -> str:
    """What a proof with this bound covers.

    >>> scope(4)
    'numCols = 2^k, numRows = 2^R with k + R <= 4; vec, perPhase, maxPhase powers of two up to 2^4; every offset'
    """
    return (f"numCols = 2^k, numRows = 2^R with k + R <= {max_bits}; vec, perPhase, "
            f"maxPhase powers of two up to 2^{max_bits}; every offset")


def _cut(k, m, b, ctx):
    """``to_cute``'s ``B = min(b, max(k - m, 0))`` on bit-vectors."""
    return z3.If(z3.UGE(k, m), z3.If(z3.ULE(b, k - m), b, k - m),
                 z3.BitVecVal(0, k.size(), ctx=ctx))


def prove_translation(max_bits: int = MAX_BITS, timeout: float = DEFAULT_TIMEOUT) -> Result:
    """Triton's shared swizzle equals :func:`to_cute`'s CuTe swizzle at
    every offset, for all parameters within :func:`scope` of ``max_bits``.

    Both maps are F2-linear: Triton's by construction (an offset's element
    is the XOR of its bits' bases, and the row-major index ``(row << k) |
    col`` of an XOR is the XOR of the indices), CuTe's ``x ^ (((x >> (M +
    S)) & (2^B - 1)) << M)`` proved so by Z3 for all ``x, y, B, M, S``.  Two
    linear maps are equal when they are equal on each power of two, which
    Z3 proves with the bit, the shape and the parameters symbolic.  Each
    step is an ``unsat`` of its negation on :func:`width` ``(max_bits)``-bit
    vectors (no term wraps there).

    >>> r = prove_translation(max_bits=6)
    >>> r.status, len(r.steps)
    ('proved', 5)
    """
    start = time.perf_counter()
    ctx = z3.Context()
    (k, rows, m, p, b, x), bounds = _parameters(ctx, max_bits)
    w = width(max_bits)
    one = z3.BitVecVal(1, w, ctx=ctx)
    y, c, shift = (_bv(ctx, n, w) for n in ("y", "c", "s"))
    # each operation of the swizzle distributes over XOR (shift amounts
    # and masks arbitrary), so their composition does: F2-linear
    lemmas = [("a logical right shift distributes over XOR",
               z3.LShR(x ^ y, shift) != z3.LShR(x, shift) ^ z3.LShR(y, shift)),
              ("a left shift distributes over XOR", (x ^ y) << shift != (x << shift) ^ (y << shift)),
              ("a mask distributes over XOR", (x ^ y) & c != (x & c) ^ (y & c)),
              ]
    # bit i of the offset: a column bit (i < k) reaches column 2^i; a row
    # bit reaches row 2^(i-k) and the column of Triton's basis
    i = _bv(ctx, "i", w)
    row_basis = (z3.LShR(one << (i - k), p) & ((one << b) - 1)) << m & ((one << k) - 1)
    triton = z3.If(z3.ULT(i, k), one << i, (one << i) | row_basis)
    cut = _cut(k, m, b, ctx)
    cute = z3.If(cut == 0, one << i, cute_index(one << i, cut, m, k + p - m, ctx))
    basis = z3.And(*bounds, z3.ULT(i, k + rows), triton != cute)
    steps: list[str] = []
    claims = [*lemmas[:3], ("Triton's basis of every offset bit equals to_cute's swizzle of "
                            "that power of two", basis)]
    for what, claim in claims:
        answer, detail = search(claim, ctx, timeout)
        if answer == "unknown":
            return Result(WHAT, PROP, UNKNOWN, time.perf_counter() - start, scope=scope(max_bits),
                          reason=f"{what}: {detail}", steps=tuple(steps))
        if answer == "sat":
            raise ProverBug(f"{what} fails at {detail}")
        steps.append(f"Z3: {what} (unsat of the negation on {w}-bit vectors)")
    steps.append("so CuTe's swizzle x ^ (((x >> (M + S)) & (2^B - 1)) << M) is F2-linear, "
                 "as Triton's is by construction: two linear maps equal on every power of "
                 "two are equal at every offset")
    return Result(WHAT, PROP, PROVED, time.perf_counter() - start, scope=scope(max_bits),
                  steps=tuple(steps))


WHAT = "SwizzledShared(vec, perPhase, maxPhase) on [numRows, numCols]"
PROP = "equals CuTe Swizzle<min(b, k - m), m, k + p - m> (to_cute)"


def refute_uncut(timeout: float = DEFAULT_TIMEOUT) -> Result:
    """The uncut translation ``Swizzle<b, m, k + p - m>`` (where CuTe takes
    it, ``k + p - m >= b``) differs from Triton's swizzle: Z3's parameters
    and offset, replayed on :class:`SharedSwizzle` and CuTe's
    :class:`Swizzle`.

    >>> r = refute_uncut()
    >>> r.status, r.counterexample.sides[0].value != r.counterexample.sides[1].value
    ('refuted', True)
    """
    start = time.perf_counter()
    ctx = z3.Context()
    (k, rows, m, p, b, x), bounds = _parameters(ctx, 8)
    # a small witness reads best: a 2-D shape, small parameters
    small = [z3.ULE(v, 3) for v in (k, rows, m, p, b)] + [z3.UGE(k, 2), z3.UGE(rows, 1)]
    valid = [z3.UGE(k + p, m), z3.UGE(k + p - m, b)]
    answer, model = search(z3.And(*bounds, *small, *valid,
                                  triton_index(x, k, rows, m, p, b, ctx, 8)
                                  != cute_index(x, b, m, k + p - m, ctx)), ctx, timeout)
    prop = "equals CuTe Swizzle<b, m, k + p - m> (uncut)"
    what = "SwizzledShared(vec, perPhase, maxPhase) on [numRows, numCols]"
    seconds = time.perf_counter() - start
    if answer == "unsat":
        return Result(what, prop, PROVED, seconds, scope=scope(8) + "; k, R, m, p, b <= 3")
    if answer == "unknown":
        return Result(what, prop, UNKNOWN, seconds, scope=scope(8), reason=str(model))
    K, R, M, P, B, X = (model.eval(v, model_completion=True).as_long()
                        for v in (k, rows, m, p, b, x))
    shared = SharedSwizzle(1 << M, 1 << P, 1 << B)
    shape = (1 << R, 1 << K)
    swizzle = Swizzle(B, M, K + P - M)
    triton, cute = shared.logical_index(shape, X), swizzle(X)
    if triton == cute:
        raise ProverBug(f"Z3's counterexample does not replay: {shared}, {shape}, offset {X}")
    ce = Counterexample(
        {"vec": 1 << M, "perPhase": 1 << P, "maxPhase": 1 << B, "numRows": 1 << R,
         "numCols": 1 << K},
        (Side("triton", element=shared.element(shape, X), offset=X, value=triton),
         Side("cute", offset=X, value=cute)),
        what=f"offset {X}: Triton's row-major index {triton}, {swizzle!r} gives {cute} "
             f"(vec * maxPhase = {(1 << M) * (1 << B)} > numCols = {1 << K})")
    return Result(f"{what}, vec={1 << M} perPhase={1 << P} maxPhase={1 << B} "
                  f"on [{1 << R}, {1 << K}]", prop, REFUTED, seconds, counterexample=ce,
                  steps=("Z3 found the parameters and offset; replayed on ints",))
