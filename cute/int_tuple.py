"""CuTe's nested integer tuples: shapes, strides and coordinates.

An *IntTuple* is an int or a tuple of IntTuples: ``8``, ``(8, 3)``,
``((8, 3), (128, 2))``.  CuTe numbers the elements of a shape
colexicographically, the leftmost mode fastest: in shape ``(2, 3)`` the
index 1 is the coordinate ``(1, 0)`` and the index 2 is ``(0, 1)``.

>>> product(((8, 3), (128, 2))), rank(((8, 3), (128, 2))), depth(((8, 3), (128, 2)))
(6144, 2, 2)
>>> prefix_product((2, (3, 4)))
(1, (2, 6))
>>> idx2crd(5, (2, 3)), crd2idx((1, 2), (2, 3))
((1, 2), 5)

The coordinate functions take an :class:`~tilespec.spec.arith.Arithmetic`,
so the same definition maps a coordinate made of Z3 terms (the prover's
``for all coordinates``); the tuples themselves (shapes, strides) are
concrete.
"""

from __future__ import annotations

import operator
from typing import Any, Union

from ..spec import INT, Arithmetic, LayoutError

#: An int or a (nested) tuple of ints.
IntTuple = Union[int, tuple[Any, ...]]


class CuteError(LayoutError):
    """A CuTe operation whose conditions fail (tuples that are not
    congruent, a composition that is not admissible, a layout with no
    complement); the message is one line."""


class LawError(CuteError):
    """A CuTe operation refused because the layout its construction builds
    breaks the operation's law (or the law could not be shown for it): the
    message names the operation, its inputs and why, on one line.
    ``construction`` is that layout (None where there is none) and
    ``index`` the first index found where it breaks the law (None where
    none was found).

    >>> e = LawError("left_inverse(2:0)", "2:0 is not injective", None, 1)
    >>> str(e), e.index
    ('left_inverse(2:0): 2:0 is not injective', 1)
    """

    def __init__(self, question: str, why: str, construction: Any = None,
                 index: int | None = None):
        self.question, self.why = question, why
        self.construction, self.index = construction, index
        super().__init__(f"{question}: {why}")


def is_tuple(x: object) -> bool:
    """Is ``x`` a tuple (a mode with modes) rather than an int?

    >>> is_tuple((8,)), is_tuple(8)
    (True, False)
    """
    return isinstance(x, tuple)


def as_int_tuple(x: object, what: str = "int tuple") -> IntTuple:
    """``x`` as an IntTuple of plain ints: lists become tuples, numpy ints
    become ints; anything else is a :class:`CuteError`.

    >>> as_int_tuple([8, [3, 2]])
    (8, (3, 2))
    >>> as_int_tuple((8, "3"))
    Traceback (most recent call last):
    ...
    tilespec.cute.int_tuple.CuteError: a CuTe int tuple holds ints and tuples, not '3'
    """
    if isinstance(x, (tuple, list)):
        return tuple(as_int_tuple(v, what) for v in x)
    if isinstance(x, bool):
        raise CuteError(f"a CuTe {what} holds ints and tuples, not {x!r}")
    try:
        return operator.index(x)  # type: ignore[arg-type]
    except TypeError:
        raise CuteError(f"a CuTe {what} holds ints and tuples, not {x!r}") from None


def flatten(t: IntTuple) -> tuple[int, ...]:
    """The ints of ``t``, in order.

    >>> flatten(((8, 3), 128, ()))
    (8, 3, 128)
    """
    if is_tuple(t):
        return tuple(v for m in t for v in flatten(m))  # type: ignore[union-attr]
    return (t,)  # type: ignore[return-value]


def product(t: IntTuple, ar: Arithmetic = INT) -> Any:
    """The product of the ints of ``t`` (1 for the empty tuple).

    >>> product(((8, 3), 2)), product(())
    (48, 1)
    """
    out: Any = 1
    for v in flatten(t):
        out = ar.mul(out, v)
    return out


def rank(t: IntTuple) -> int:
    """The number of top-level modes: 1 for an int.

    >>> rank(8), rank((8, (3, 2)))
    (1, 2)
    """
    return len(t) if is_tuple(t) else 1  # type: ignore[arg-type]


def depth(t: IntTuple) -> int:
    """How deeply ``t`` nests: 0 for an int, 1 for a tuple of ints.

    >>> depth(8), depth((8, 3)), depth(((8, 3), 2))
    (0, 1, 2)
    """
    if not is_tuple(t):
        return 0
    return 1 + max((depth(m) for m in t), default=0)  # type: ignore[union-attr]


def congruent(a: IntTuple, b: IntTuple) -> bool:
    """Do ``a`` and ``b`` nest the same way (a shape and its stride must)?

    >>> congruent((8, (3, 2)), (1, (8, 24))), congruent((8, 3), (8, (3,)))
    (True, False)
    """
    if is_tuple(a) != is_tuple(b):
        return False
    if not is_tuple(a):
        return True
    return len(a) == len(b) and all(congruent(x, y)  # type: ignore[arg-type]
                                    for x, y in zip(a, b))  # type: ignore[arg-type]


def prefix_product(shape: IntTuple, init: int = 1) -> IntTuple:
    """The exclusive prefix products of ``shape``, colexicographic (leftmost
    fastest), congruent to it: CuTe's compact column-major stride.

    >>> prefix_product(((8, 3), (128, 2)))
    ((1, 8), (24, 3072))
    """
    if not is_tuple(shape):
        return init
    out = []
    for m in shape:  # type: ignore[union-attr]
        out.append(prefix_product(m, init))
        init = init * product(m)
    return tuple(out)


def inner_product(a: IntTuple, b: IntTuple, ar: Arithmetic = INT) -> Any:
    """The sum of the products of the corresponding ints of congruent tuples.

    >>> inner_product((1, (2, 3)), (10, (100, 1000)))
    3210
    """
    if not congruent(a, b):
        raise CuteError(f"{a} and {b} do not nest the same way")
    total: Any = 0
    for x, y in zip(flatten(a), flatten(b)):
        total = ar.add(total, ar.mul(x, y))
    return total


def crd2idx(crd: Any, shape: IntTuple, stride: IntTuple | None = None,
            ar: Arithmetic = INT) -> Any:
    """The index of coordinate ``crd`` under ``stride`` (by default the
    compact colexicographic one): CuTe's ``crd2idx``.

    A coordinate may be given with less nesting than the shape: an int for a
    mode with modes is split colexicographically, each part ``x mod s`` and
    the rest ``x div s`` going to the next, the last part taking what is left
    (so an in-range int is any of the mode's elements).

    >>> crd2idx((3, 1), (8, 3), (128, 2048)), crd2idx(11, (8, 3), (128, 2048))
    (2432, 2432)
    >>> crd2idx((1, 2), ((2, 2), 3), ((1, 4), 2))
    5
    """
    if stride is None:
        stride = prefix_product(shape)
    if is_tuple(crd):
        if not (is_tuple(shape) and len(crd) == len(shape)):  # type: ignore[arg-type]
            raise CuteError(f"coordinate {crd} does not fit shape {shape}")
        total: Any = 0
        for c, s, d in zip(crd, shape, stride):  # type: ignore[arg-type]
            total = ar.add(total, crd2idx(c, s, d, ar))
        return total
    if not is_tuple(shape):
        return ar.mul(crd, stride)
    if len(shape) == 0:  # type: ignore[arg-type]
        return 0
    total = 0
    modes = list(zip(shape, stride))  # type: ignore[arg-type]
    for s, d in modes[:-1]:
        n = product(s)
        total = ar.add(total, crd2idx(ar.mod(crd, n), s, d, ar))
        crd = ar.floordiv(crd, n)
    s, d = modes[-1]
    return ar.add(total, crd2idx(crd, s, d, ar))


def idx2crd(idx: Any, shape: IntTuple, stride: IntTuple | None = None,
            ar: Arithmetic = INT) -> Any:
    """The coordinate, congruent to ``shape``, of index ``idx``: each int
    of it is ``(idx div stride) mod size`` (the stride by default compact),
    CuTe's ``idx2crd``.

    >>> idx2crd(11, (8, 3)), idx2crd(11, ((2, 4), 3))
    ((3, 1), ((1, 1), 1))
    """
    if stride is None:
        stride = prefix_product(shape)
    if is_tuple(shape):
        return tuple(idx2crd(idx, s, d, ar)
                     for s, d in zip(shape, stride))  # type: ignore[arg-type]
    return ar.mod(ar.floordiv(idx, stride), shape)


def ceil_div(a: int, b: int) -> int:
    """``a`` divided by ``b``, rounded up.

    >>> ceil_div(7, 2), ceil_div(8, 2)
    (4, 4)
    """
    return -(-a // b)
