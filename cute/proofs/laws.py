"""The defining law of each operation of CuTe's layout algebra, proved by
Z3 for all coordinates of given (concrete) layouts.

:func:`prove_law` takes an operation's name, its inputs and, optionally, a
result to judge (by default tilespec's own, :mod:`tilespec.cute.algebra`);
so the same proof says whether another implementation's answer (pycute's)
is right, with a replayed counterexample where it is not.

>>> from tilespec.cute import Layout
>>> prove_law("composition", Layout((6, 2), (8, 2)), Layout((4, 3), (3, 1))).status
'proved'
>>> r = prove_law("logical_product", Layout((2, 5), (5, 1)), 4,
...               result=Layout((4, 3), (5, 2)))   # a divide, not a product
>>> r.status, r.counterexample.what
('refuted', 'logical_product((2, 5):(5, 1), 4)(i) == A(i mod 10) + C(B(i div 10)) fails')

The laws (``A``, ``B`` layouts; ``C`` a complement; ``i`` every index of
the domain named):

- composition: ``R(i) == A(B(i))`` for ``i < size(B)`` where ``B(i)`` is in
  A's domain (beyond it, CuTe extends A's last mode, and coalescing A
  changes that extension: no law), and ``size(R) == size(B)``;
- complement: ``(A', C)`` (A' is A without modes of stride 0) is injective,
  its offsets lie in ``[0, N)`` with N its size (so it is a bijection onto
  ``[0, N)``), and ``N >= M``;
- coalesce: ``R(i) == A(i)`` for ``i < size(A)``, with A's size;
- logical_divide: the composition law for ``A o (B, complement(B,
  size(A)))``, and the complement law for B;
- logical_product: ``R(i) == A(i mod size(A)) + C(B(i div size(A)))`` with
  ``C = complement(A, size(A) * cosize(B))`` (where ``B(i div size(A))`` is in
  C's domain), mode 0 of R has A's size, and the complement law for A;
- right_inverse: ``A(R(i)) == i`` and ``R(i) < size(A)`` for ``i < size(R)``;
- left_inverse: ``L(A(c)) == c`` and ``A(c) < size(L)`` for ``c < size(A)``.

A tuple of tilers is a law for each mode (and the modes not tiled are
A's).
"""

from __future__ import annotations

from typing import Any

from ...prover.names import DEFAULT_TIMEOUT
from ...prover.result import Result
from .. import CuteError, Layout, algebra, as_layout, make_layout
from .claims import Claim, below, equal, fact, injective, prove_claims

OPERATIONS = ("composition", "complement", "coalesce", "logical_divide", "logical_product",
              "right_inverse", "left_inverse")

#: The operations that take a tiler (a layout, or a tuple applied by mode).
_TILED = ("composition", "logical_divide", "logical_product")


def show(x: Any) -> str:
    """An input as the law's text prints it.

    >>> show((Layout(8), None)), show(24)
    ('(8:1, None)', '24')
    """
    if isinstance(x, tuple):
        return "(" + ", ".join(show(v) for v in x) + ")"
    return str(x)


def question(operation: str, inputs: tuple) -> str:
    """The operation applied to its inputs, as text.

    >>> question("complement", (Layout(4, 2), 24))
    'complement(4:2, 24)'
    """
    return f"{operation}({', '.join(show(x) for x in inputs)})"


def prove_law(operation: str, *inputs: Any, result: Any = None,
              timeout: float = DEFAULT_TIMEOUT) -> Result:
    """Prove ``operation``'s law for these inputs, for ``result`` (by
    default :mod:`tilespec.cute.algebra`'s answer); a
    :class:`~tilespec.cute.int_tuple.CuteError` where the operation's
    conditions fail (no answer to judge)."""
    if operation not in OPERATIONS:
        raise CuteError(f"unknown CuTe operation {operation!r}: one of {', '.join(OPERATIONS)}")
    inputs = tuple(_normalise(x) for x in inputs)
    if result is None:
        result = getattr(algebra, operation)(*inputs)
    result = as_layout(result)
    text = question(operation, inputs)
    claims = laws(operation, inputs, result, text)
    return prove_claims(text, f"{operation} law", claims, timeout)


def _normalise(x: Any) -> Any:
    """Layouts as :class:`Layout`; tuples of tilers, ints and None stay."""
    if x is None or isinstance(x, (int, tuple)):
        return x
    return as_layout(x)


def laws(operation: str, inputs: tuple, result: Layout, text: str) -> list[Claim]:
    """The claims that make up ``operation``'s law for ``result``."""
    if operation in _TILED:
        a, tiler = inputs
        return _tiled(operation, as_layout(a), tiler, result, text)
    if operation == "complement":
        a, cotarget = (inputs + (1,))[:2]
        return _complement(as_layout(a), cotarget, result, text)
    (a,) = inputs
    a = as_layout(a)
    w = width(a, result)
    if operation == "coalesce":
        return [equal(f"{text}(i) == A(i)", a.shape, result, a, width=w),
                fact(f"{text} has A's size", result.size, a.size, result.size == a.size)]
    if operation == "right_inverse":
        return [equal(f"A({text}(i)) == i", result.shape,
                      lambda i, ar: a(result(i, ar=ar), ar=ar), lambda i, ar: i,
                      names=("A(R(i))", "i"), width=w),
                below(f"{text}(i) < size(A)", result.shape, result, a.size, w)]
    return [equal(f"{text}(A(c)) == c", a.shape,
                  lambda c, ar: result(a(c, ar=ar), ar=ar), lambda c, ar: c,
                  names=("L(A(c))", "c"), width=w),
            below(f"A(c) < size({text})", a.shape, a, result.size, w)]


def width(*layouts: Layout) -> int:
    """Bit-vector width for a claim about ``layouts``: every value the
    claim computes on its domain (an index, an offset, a sum of two
    offsets) is below the sum of their sizes and largest offsets, so
    bit-vectors of this width are the integers there (and two bits more
    keep a difference's sign and a doubled value).

    >>> width(Layout(4, 2), Layout(3, 1))   # 4 + 6 + 1 + 3 + 2 + 1 = 17: 5 bits, and 2
    7
    """
    total = sum(x.size + sum((s - 1) * abs(d) for s, d in x.flat()) + 1 for x in layouts)
    return total.bit_length() + 2


def _tiled(operation: str, a: Layout, tiler: Any, result: Layout, text: str) -> list[Claim]:
    if isinstance(tiler, tuple):
        if len(tiler) > a.rank or result.rank != a.rank:
            return [fact(f"{text} has A's rank", result.rank, a.rank, False)]
        claims = []
        for k in range(a.rank):
            t = tiler[k] if k < len(tiler) else None
            mode_text = f"mode {k} of {text}"
            if t is None:
                claims += [equal(f"{mode_text}(i) == A's mode {k}(i)", a[k].shape, result[k], a[k],
                                 width=width(a[k], result[k])),
                           fact(f"{mode_text} has the size of A's", result[k].size, a[k].size,
                                result[k].size == a[k].size)]
            else:
                claims += _tiled(operation, a[k], t, result[k], mode_text)
        return claims
    b = as_layout(tiler)
    if operation == "composition":
        return _composition(a, b, result, text)
    if operation == "logical_divide":
        c = algebra.complement(b, a.size)
        return (_composition(a, make_layout(b, c), result, text)
                + _complement(b, a.size, c, f"complement({b}, {a.size})"))
    c = algebra.complement(a, a.size * b.cosize)
    n = a.size
    w = width(a, b, c, result)
    law = (lambda i, ar: ar.add(a(ar.mod(i, n), ar=ar), c(b(ar.floordiv(i, n), ar=ar), ar=ar)))
    size = n * b.size
    claims = [equal(f"{text}(i) == A(i mod {n}) + C(B(i div {n}))", min(result.size, size),
                    result, law, width=w,
                    where=(lambda i, ar: b(ar.floordiv(i, n), ar=ar), c.size))]
    claims.append(fact(f"{text} has size(A) * size(B) elements", result.size, size,
                       result.size == size))
    mode0 = result[0].size if result.rank > 1 else result.size
    claims.append(fact(f"mode 0 of {text} has A's size", mode0, n, mode0 == n))
    return claims + _complement(a, a.size * b.cosize, c, f"complement({a}, {a.size * b.cosize})")


def _composition(a: Layout, b: Layout, result: Layout, text: str) -> list[Claim]:
    domain = min(result.size, b.size)
    return [equal(f"{text}(i) == A(B(i)) where B(i) < {a.size}",
                  b.shape if domain == b.size else domain, result,
                  lambda i, ar: a(b(i, ar=ar), ar=ar), where=(b, a.size),
                  width=width(a, b, result)),
            fact(f"{text} has B's size", result.size, b.size, result.size == b.size)]


def _complement(a: Layout, cotarget: int, c: Layout, text: str) -> list[Claim]:
    kept = [(s, d) for s, d in a.flat() if d != 0 and s != 1]
    reached = (Layout(tuple(s for s, _ in kept), tuple(d for _, d in kept)) if kept
               else Layout(1, 0))
    whole = make_layout(reached, c)
    n, w = whole.size, width(whole)
    return [injective(f"(A, {text}) is injective", whole.shape, whole, w),
            below(f"(A, {text})(i) < {n}", whole.shape, whole, n, w),
            fact(f"(A, {text}) reaches the cotarget {cotarget}", n, cotarget, n >= cotarget)]
