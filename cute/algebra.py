"""CuTe's layout algebra, written from its definitions (the CuTe
documentation, "CuTe Layout Algebra"; Cecka, "CuTe Layout Representation
and Algebra", 2024).

Layouts here have strides >= 0.  Each operation's defining law is proved
for all coordinates, for given layouts, by
:mod:`tilespec.cute.proofs`:

- ``composition(A, B)(i) == A(B(i))`` for every ``i`` in B's domain;
- ``(A, complement(A, M))`` is a bijection from its domain onto
  ``[0, N)``, with ``N >= M``;
- ``coalesce(A)(i) == A(i)`` on A's whole domain;
- ``logical_divide(A, B) == composition(A, (B, complement(B, size(A))))``;
- ``logical_product(A, B) == (A, composition(complement(A, size(A) * cosize(B)), B))``;
- ``A(right_inverse(A)(i)) == i`` and ``left_inverse(A)(A(c)) == c``.

Where an operation's conditions fail (a composition that is not
admissible, a layout whose modes overlap and so has no complement) the
answer is a :class:`~tilespec.cute.int_tuple.CuteError`, never a layout
that is silently wrong.

>>> A = Layout((8, 3), (128, 2048))
>>> print(logical_divide(A, 4))
(4, (2, 3)):(128, (512, 2048))
>>> print(composition(Layout((4, 2), (2, 1)), Layout(4, 2)))
(2, 2):(4, 1)
"""

from __future__ import annotations

from typing import Any

from .int_tuple import CuteError, ceil_div, is_tuple, prefix_product
from .layout import Layout, as_layout, make_layout

#: A tiler: a layout (or its text, or an int size), or a tuple of tilers
#: applied mode by mode (None leaves a mode as it is).
Tiler = Any


def _layout(shape: list[int], stride: list[int]) -> Layout:
    """One mode as an int layout, more as a tuple."""
    if len(shape) == 1:
        return Layout(shape[0], stride[0])
    return Layout(tuple(shape), tuple(stride))


def _nonnegative(layout: Layout, operation: str) -> None:
    if any(d < 0 for _, d in layout.flat()):
        raise CuteError(f"{operation} of {layout}: tilespec's CuTe algebra takes strides >= 0")


def coalesce(layout: Any) -> Layout:
    """The same function on the same domain with the fewest modes: size-1
    modes dropped, and neighbours ``s0:d0, s1:d1`` merged where ``d1 ==
    s0 * d0``.

    >>> print(coalesce(Layout((2, (1, 6)), (1, (7, 2)))))
    12:1
    >>> print(coalesce(Layout((4, 3), (3, 1))))
    (4, 3):(3, 1)
    >>> print(coalesce(Layout((1, 1), (4, 5))))
    1:0
    """
    layout = as_layout(layout)
    shape: list[int] = [1]
    stride: list[int] = [0]
    for s, d in layout.flat():
        if s == 1:
            continue
        if shape[-1] == 1:
            shape[-1], stride[-1] = s, d
        elif shape[-1] * stride[-1] == d:
            shape[-1] *= s
        else:
            shape.append(s)
            stride.append(d)
    return _layout(shape, stride)


def _by_mode(operation, a: Layout, tiler: tuple) -> Layout:
    """``operation`` applied to each mode of ``a`` with its tiler; the
    modes beyond the tiler's stay."""
    if len(tiler) > a.rank:
        raise CuteError(f"a tiler of {len(tiler)} modes for {a}, which has {a.rank}")
    modes = [operation(a[i], t) if t is not None else a[i] for i, t in enumerate(tiler)]
    return make_layout(*modes, *[a[i] for i in range(len(tiler), a.rank)])


def composition(a: Any, b: Tiler) -> Layout:
    """``A o B``: the layout ``i -> A(B(i))`` on B's domain.

    B's modes are composed one by one (the result has B's modes); a tuple
    of tilers composes A mode by mode.  For one mode ``s:d`` of B, ``d``
    walks A's coalesced modes: each is divided by what is left of ``d``
    and the part of size at most ``s`` that remains is kept.  That is
    exact only when, at each mode, ``d`` and the mode's size divide one
    another and the part kept divides what is left of ``s`` (CuTe's
    *admissible* composition); otherwise a :class:`CuteError`.

    >>> print(composition(Layout((6, 2), (8, 2)), Layout((4, 3), (3, 1))))
    ((2, 2), 3):((24, 2), 8)
    >>> print(composition(Layout((8, 3), (128, 2048)), (Layout(4, 2),)))
    (4, 3):(256, 2048)
    >>> composition(Layout((4, 3), (1, 5)), Layout(6, 1))
    Traceback (most recent call last):
    ...
    tilespec.cute.int_tuple.CuteError: composition (4, 3):(1, 5) o 6:1 is not admissible: 6 elements of stride 1 do not split at a mode of size 4
    """
    a = as_layout(a)
    if b is None:
        return a
    if isinstance(b, tuple):
        return _by_mode(composition, a, b)
    b = as_layout(b)
    if is_tuple(b.shape):
        return make_layout(*(composition(a, mode) for mode in b.modes()))
    s, d = b.shape, b.stride
    assert isinstance(s, int) and isinstance(d, int)
    if d == 0:
        return Layout(s, 0)
    _nonnegative(a, "composition")
    _nonnegative(b, "composition")
    flat = coalesce(a).flat()
    shape: list[int] = []
    stride: list[int] = []
    rest_shape, rest_stride = s, d
    for size, step in flat[:-1]:
        if rest_shape > 1 and size % rest_stride and rest_stride % size:
            raise CuteError(f"composition {a} o {b} is not admissible: stride {rest_stride} "
                            f"and a mode of size {size} do not divide one another")
        kept = min(max(1, size // rest_stride), rest_shape)
        if rest_shape % kept:
            raise CuteError(f"composition {a} o {b} is not admissible: {rest_shape} elements "
                            f"of stride {rest_stride} do not split at a mode of size {size}")
        if kept != 1:
            shape.append(kept)
            stride.append(rest_stride * step)
        rest_shape //= kept
        rest_stride = ceil_div(rest_stride, size)
    if rest_shape != 1 or not shape:
        # the last mode of A is taken as unbounded, as in CuTe
        shape.append(rest_shape)
        stride.append(rest_stride * flat[-1][1])
    return _layout(shape, stride)


def complement(a: Any, cotarget: int = 1) -> Layout:
    """The layout of the offsets A does not reach, up to ``cotarget``:
    ordered (strides increasing), and such that ``(A, complement(A, M))`` is
    a bijection onto ``[0, N)`` with ``N >= M``.  Modes of stride 0 (or size
    1) are ignored; modes that overlap once sorted leave no complement.

    >>> print(complement(Layout(4, 2), 24))
    (2, 3):(1, 8)
    >>> print(complement(Layout((2, 2), (1, 6)), 24))
    (3, 2):(2, 12)
    >>> complement(Layout((2, 2), (1, 1)))
    Traceback (most recent call last):
    ...
    tilespec.cute.int_tuple.CuteError: (2, 2):(1, 1) has no complement: its mode 2:1 overlaps the modes of smaller stride, which reach 2
    """
    a = as_layout(a)
    _nonnegative(a, "complement")
    shape: list[int] = []
    stride: list[int] = []
    reach = 1
    for d, s in sorted((d, s) for s, d in a.flat() if d != 0 and s != 1):
        if d % reach:
            raise CuteError(f"{a} has no complement: its mode {s}:{d} overlaps the modes "
                            f"of smaller stride, which reach {reach}")
        shape.append(d // reach)
        stride.append(reach)
        reach = s * d
    shape.append(ceil_div(cotarget, reach))
    stride.append(reach)
    return coalesce(_layout(shape, stride))


def right_inverse(a: Any) -> Layout:
    """A layout R with ``A(R(i)) == i`` for every ``i`` in R's domain, the
    largest one found by following strides 1, s0, s0*s1, ... through A's
    modes (``1:0`` where A does not reach offset 1 with stride 1).

    >>> print(right_inverse(Layout((4, 2), (2, 1))))
    (2, 4):(4, 1)
    >>> print(right_inverse(Layout(4, 2)))
    1:0
    """
    a = as_layout(a)
    _nonnegative(a, "right_inverse")
    flat = a.flat()
    positions = prefix_product(tuple(s for s, _ in flat))
    assert isinstance(positions, tuple)
    shape: list[int] = []
    stride: list[int] = []
    reach = 1
    for d, s, p in sorted((d, s, p) for (s, d), p in zip(flat, positions)):
        if s == 1:
            continue
        if d != reach:
            break
        shape.append(s)
        stride.append(p)
        reach = s * d
    if not shape:
        return Layout(1, 0)
    return coalesce(_layout(shape, stride))


def left_inverse(a: Any) -> Layout:
    """A layout L with ``L(A(c)) == c`` for every ``c`` in A's domain (A
    injective): the right inverse of ``(A, complement(A))``.

    >>> A = Layout((4, 2), (2, 1))
    >>> L = left_inverse(A)
    >>> print(L, [L(A(c)) for c in range(A.size)])
    (2, 4):(4, 1) [0, 1, 2, 3, 4, 5, 6, 7]
    """
    a = as_layout(a)
    return right_inverse(make_layout(a, complement(a)))


def logical_divide(a: Any, tiler: Tiler) -> Layout:
    """A split into the tile (mode 0: the elements B picks) and the rest
    (mode 1: the tiles): ``A o (B, complement(B, size(A)))``.  A tuple of
    tilers divides A mode by mode.

    >>> print(logical_divide(Layout((4, 2, 3), (2, 1, 8)), Layout(4, 2)))
    ((2, 2), (2, 3)):((4, 1), (2, 8))
    >>> print(logical_divide(Layout((24, 256), (256, 1)), (8, 128)))
    ((8, 3), (128, 2)):((256, 2048), (1, 128))
    """
    a = as_layout(a)
    if tiler is None:
        return a
    if isinstance(tiler, tuple):
        return _by_mode(logical_divide, a, tiler)
    b = as_layout(tiler)
    return composition(a, make_layout(b, complement(b, a.size)))


def logical_product(a: Any, tiler: Tiler) -> Layout:
    """A repeated as B says: ``(A, complement(A, size(A) * cosize(B)) o B)``,
    mode 0 is A and mode 1 where each copy of A starts.  A tuple of tilers
    multiplies mode by mode.  An int B is the layout ``B:1``
    (NVIDIA/cutlass#3478: pycute divided there).

    >>> print(logical_product(Layout((2, 2), (4, 1)), Layout(6, 1)))
    ((2, 2), (2, 3)):((4, 1), (2, 8))
    >>> print(logical_product(Layout((2, 5), (5, 1)), 4))
    ((2, 5), 4):((5, 1), 10)
    """
    a = as_layout(a)
    if tiler is None:
        return a
    if isinstance(tiler, tuple):
        return _by_mode(logical_product, a, tiler)
    b = as_layout(tiler)
    return make_layout(a, composition(complement(a, a.size * b.cosize), b))


def _unzip(operation, a: Any, tiler: Tiler, name: str, verb: str) -> Layout:
    """``((tiles of each mode), (rests of each mode, modes not tiled))``;
    ``name`` and ``verb`` say what refuses a tiler with a gap (``None``)."""
    a = as_layout(a)
    if isinstance(tiler, tuple) and any(t is None for t in tiler):
        raise CuteError(f"{name} takes a tiler for each mode it {verb}")
    if not isinstance(tiler, tuple):
        return operation(a, tiler)
    split = [operation(a[i], t) for i, t in enumerate(tiler)]
    return make_layout(make_layout(*(m[0] for m in split)),
                       make_layout(*(m[1] for m in split),
                                   *(a[i] for i in range(len(tiler), a.rank))))


def zipped_divide(a: Any, tiler: Tiler) -> Layout:
    """:func:`logical_divide`, with the tiles of every mode gathered in
    mode 0 and the rests in mode 1.

    >>> print(zipped_divide(Layout((24, 256), (256, 1)), (8, 128)))
    ((8, 128), (3, 2)):((256, 1), (2048, 128))
    """
    return _unzip(logical_divide, a, tiler, "zipped_divide", "divides")


def zipped_product(a: Any, tiler: Tiler) -> Layout:
    """:func:`logical_product`, with the A modes gathered in mode 0 and
    the repetitions in mode 1.

    >>> print(zipped_product(Layout((2, 2), (1, 2)), (3, 2)))
    ((2, 2), (3, 2)):((1, 2), (2, 1))
    """
    return _unzip(logical_product, a, tiler, "zipped_product", "multiplies")
