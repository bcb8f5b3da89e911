"""CuTe's layout algebra, written from its definitions (the CuTe
documentation, "CuTe Layout Algebra"; Cecka, "CuTe Layout Representation
and Algebra", 2024).

Layouts here have strides >= 0.  Each operation's defining law is proved
for all coordinates, for given layouts, by
:mod:`tilespec.cute.proofs`:

- ``composition(A, B)(i) == A(B(i))`` for every ``i`` in B's domain
  where ``B(i)`` is in A's;
- ``(A, complement(A, M))`` is a bijection from its domain onto
  ``[0, N)``, with ``N >= M``;
- ``coalesce(A)(i) == A(i)`` on A's whole domain;
- ``logical_divide(A, B) == composition(A, (B, complement(B, size(A))))``;
- ``logical_product(A, B) == (A, composition(complement(A, size(A) * cosize(B)), B))``;
- ``A(right_inverse(A)(i)) == i`` and ``left_inverse(A)(A(c)) == c``.

Where an operation's conditions fail (a composition that is not
admissible, a layout whose modes overlap and so has no complement) the
answer is a :class:`~tilespec.cute.int_tuple.CuteError`, never a layout
that is silently wrong.  Where CuTe's construction itself (CUTLASS's, and
pycute's) breaks the law, the answer is a
:class:`~tilespec.cute.int_tuple.LawError` naming the index where it
does: a composition whose modes of B carry into one another in a mode of
A (:func:`carry`; so also the divides and products made of it), and the
left inverse of a layout that is not injective.  The other operations'
constructions keep their laws by construction (said at each).

>>> A = Layout((8, 3), (128, 2048))
>>> print(logical_divide(A, 4))
(4, (2, 3)):(128, (512, 2048))
>>> print(composition(Layout((4, 2), (2, 1)), Layout(4, 2)))
(2, 2):(4, 1)
"""

from __future__ import annotations

from typing import Any, Iterator

from .int_tuple import CuteError, LawError, ceil_div, is_tuple, prefix_product
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
    s0 * d0``.  Its law holds by construction: a mode of size 1 adds 0, and
    ``s0 * s1:d0`` maps the index ``x0 + s0 * x1`` to ``x0 * d0 + x1 * d1``.

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

    Composing mode by mode is exact only where A adds up the offsets of
    B's modes, that is where the digits B's modes place in each mode of A
    (but the last, which is unbounded) never add up to its size; where
    they do, the law breaks (:func:`carry`).  That layout is refused with
    a :class:`LawError` naming the first index where it breaks the law
    (each index computed, B no larger than :data:`CHECKED`; else
    :func:`carrying_index`, checked there).  CuTe's own construction (CUTLASS
    ``include/cute/layout.hpp``, ``composition_impl``, at 7107b05) checks
    only the divisibility of each mode (its "Stride Divisibility
    Condition" and "Shape Divisibility Condition"), not this; nor does
    pycute's.

    >>> print(composition(Layout((6, 2), (8, 2)), Layout((4, 3), (3, 1))))
    ((2, 2), 3):((24, 2), 8)
    >>> print(composition(Layout((8, 3), (128, 2048)), (Layout(4, 2),)))
    (4, 3):(256, 2048)
    >>> composition(Layout((4, 3), (1, 5)), Layout(6, 1))
    Traceback (most recent call last):
    ...
    tilespec.cute.int_tuple.CuteError: composition (4, 3):(1, 5) o 6:1 is not admissible: 6 elements of stride 1 do not split at a mode of size 4
    >>> composition(Layout((8, 6), (1, 12)), Layout((4, 8), (4, 1)))
    Traceback (most recent call last):
    ...
    tilespec.cute.int_tuple.LawError: composition((8, 6):(1, 12), (4, 8):(4, 1)): B's modes carry into one another in A's mode 8:1 (their digits there reach 4 + 7 = 11 >= 8), and CuTe's construction ((2, 2), 8):((4, 12), 1) breaks the law at i=17: it gives 8 where A(B(17)) is 12
    """
    a = as_layout(a)
    if b is None:
        return a
    if isinstance(b, tuple):
        return _by_mode(composition, a, b)
    b = as_layout(b)
    whole = coalesce(a)
    parts = [_compose_mode(a, whole, Layout(s, d)) for s, d in b.flat()]
    result = _nest(b.shape, iter([layout for layout, _ in parts]))
    mode = carry(whole, [digits for _, digits in parts])
    if mode is not None:
        _check_composition(a, b, result, whole, parts, mode)
    return result


#: The most indices :func:`composition` computes one by one to check its law.
CHECKED = 1 << 16

#: Where one mode of B places its digits in A's coalesced modes: (the
#: mode's position, the digits' count, their step), for the modes kept.
Digits = list[tuple[int, int, int]]


def _compose_mode(a: Layout, whole: Layout, b: Layout) -> tuple[Layout, Digits]:
    """``A o B`` for a B of one int mode (``whole`` is A coalesced), and
    the digits B places in each mode of ``whole`` but the last: mode ``j``
    kept ``kept`` elements of stride ``step`` means B's offsets have, in
    that mode of A, the digits ``0, step, ..., (kept - 1) * step``."""
    s, d = b.shape, b.stride
    assert isinstance(s, int) and isinstance(d, int)
    if d == 0:
        return Layout(s, 0), []
    _nonnegative(a, "composition")
    _nonnegative(b, "composition")
    flat = whole.flat()
    shape: list[int] = []
    stride: list[int] = []
    digits: Digits = []
    rest_shape, rest_stride = s, d
    for j, (size, step) in enumerate(flat[:-1]):
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
            digits.append((j, kept, rest_stride))
        rest_shape //= kept
        rest_stride = ceil_div(rest_stride, size)
    if rest_shape != 1 or not shape:
        # the last mode of A is taken as unbounded, as in CuTe
        shape.append(rest_shape)
        stride.append(rest_stride * flat[-1][1])
    return _layout(shape, stride), digits


def _nest(shape: Any, parts: Iterator[Layout]) -> Layout:
    """A layout nested as ``shape``, its int modes replaced by ``parts``."""
    if not is_tuple(shape):
        return next(parts)
    return make_layout(*(_nest(m, parts) for m in shape))


def carry(whole: Layout, digits: list[Digits]) -> int | None:
    """The first mode of ``whole`` (A coalesced; not its last) where the
    largest digits the modes of B place there add up to its size or more,
    or None where there is none.

    Where there is none, A adds up B's modes: for offsets ``x_k`` of B's
    modes, each mode of A holds the sum of their digits, which is below
    its size, so those sums are the digits of ``sum x_k`` and ``A(sum
    x_k) == sum A(x_k)``; each mode's composition is ``A(x_k)``, so the
    result is ``A(B(i))`` at every index.  Where there is one (mode
    ``j``, of size ``s``), the law breaks: take the largest digit of B's
    modes there in turn until their sum ``T`` reaches ``s`` (so ``s <= T
    < 2s``), each mode's other digits 0; their offsets add up to ``T``
    times mode ``j``'s weight, below A's size (the next mode of A has
    size >= 2), where A reads digit ``T - s`` and a 1 in mode ``j + 1``:
    it differs from the sum by ``stride(j + 1) - s * stride(j)``, not 0
    as A is coalesced (:func:`carrying_index` is that index).

    >>> whole = Layout((8, 6), (1, 12))
    >>> carry(whole, [[(0, 2, 4)], [(0, 8, 1)]]), carry(whole, [[(0, 2, 4)], [(0, 4, 1)]])
    (0, None)
    """
    flat = whole.flat()
    top = [0] * len(flat)
    for mode in digits:
        for j, kept, step in mode:
            top[j] += (kept - 1) * step
    return next((j for j in range(len(flat) - 1) if top[j] >= flat[j][0]), None)


def _check_composition(a: Layout, b: Layout, result: Layout, whole: Layout,
                       parts: list[tuple[Layout, Digits]], mode: int) -> None:
    """Refuse ``result = A o B`` where B's modes carry in mode ``mode`` of
    A coalesced (so the law breaks, :func:`carry`): a :class:`LawError`
    naming the first index where it does (B no larger than
    :data:`CHECKED`; else the index :func:`carrying_index`), checked on
    ints."""
    size, stride = whole.flat()[mode]
    tops = [(kept - 1) * step for _, digits in parts for j, kept, step in digits if j == mode]
    why = (f"B's modes carry into one another in A's mode {size}:{stride} (their digits there "
           f"reach {' + '.join(map(str, tops))} = {sum(tops)} >= {size})")
    question = f"composition({a}, {b})"

    def breaks(i: int) -> bool:
        return b(i) < a.size and result(i) != a(b(i))
    if b.size <= CHECKED:
        found = next((i for i in range(b.size) if breaks(i)), None)
        if found is None:
            return   # checked at every index: the law holds
    else:
        found = carrying_index(b, [digits for _, digits in parts], whole.flat()[mode][0], mode)
        if not breaks(found):
            raise LawError(question, f"{why}, and the law was not checked at each of its "
                           f"{b.size} indices", result)
    raise LawError(question, f"{why}, and CuTe's construction {result} breaks the law at "
                   f"i={found}: it gives {result(found)} where A(B({found})) is {a(b(found))}",
                   result, found)


def carrying_index(b: Layout, digits: list[Digits], size: int, mode: int) -> int:
    """The index of B where the first of B's modes place their largest
    digit in mode ``mode`` (of ``size``) of A coalesced, until those digits
    add up to ``size``; the other digits 0 (see :func:`carry`).

    >>> carrying_index(Layout((4, 8), (4, 1)), [[(0, 2, 4)], [(0, 8, 1)]], 8, 0)
    29
    """
    index, weight, total = 0, 1, 0
    for (n, _), placed in zip(b.flat(), digits):
        below = 1
        for j, kept, step in placed:
            if j == mode and total < size:
                index += weight * (kept - 1) * below
                total += (kept - 1) * step
            below *= kept
        weight *= n
    return index


def complement(a: Any, cotarget: int = 1) -> Layout:
    """The layout of the offsets A does not reach, up to ``cotarget``:
    ordered (strides increasing), and such that ``(A, complement(A, M))`` is
    a bijection onto ``[0, N)`` with ``N >= M``.  Modes of stride 0 (or size
    1) are ignored; modes that overlap once sorted leave no complement.
    Its law holds by construction: sorted by stride, the modes of A and of
    the complement have strides ``1, s0, s0 * s1, ...`` (each stride the
    product of the sizes before it), so together they number ``[0, N)``
    once each, as a mixed radix does.

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
    modes (``1:0`` where A does not reach offset 1 with stride 1).  Its
    law holds by construction: R's modes are A's modes of strides ``1, s0,
    s0 * s1, ...`` with strides their positions in A's index, so ``R(i)``
    is an index of A whose offset is ``i`` read in that mixed radix.

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

    A layout that is not injective has none: one of its modes of size > 1
    has stride 0 (where A has a complement, its other modes are
    injective), so ``A(c) == A(0)`` for the first coordinate ``c`` of
    that mode, and every layout maps 0 to 0, so any layout breaks the law
    at ``c``.  That is a :class:`LawError` naming ``c`` and the layout
    pycute's construction (the one here) gives.  CUTLASS's C++
    (``include/cute/layout.hpp``, ``left_inverse``, at 7107b05) builds a
    "quasi-inverse", the left inverse only "when layout is injective".

    >>> A = Layout((4, 2), (2, 1))
    >>> L = left_inverse(A)
    >>> print(L, [L(A(c)) for c in range(A.size)])
    (2, 4):(4, 1) [0, 1, 2, 3, 4, 5, 6, 7]
    >>> left_inverse(Layout(2, 0))
    Traceback (most recent call last):
    ...
    tilespec.cute.int_tuple.LawError: left_inverse(2:0): 2:0 is not injective (A(1) == A(0) == 0), so no layout L has L(A(c)) == c; pycute's construction 1:0 breaks the law at c=1: L(A(1)) is 0
    """
    a = as_layout(a)
    try:
        construction = right_inverse(make_layout(a, complement(a)))
    except CuteError as e:
        raise CuteError(f"left_inverse({a}): {e}") from None
    flat = a.flat()
    positions = prefix_product(tuple(s for s, _ in flat))
    assert isinstance(positions, tuple)
    repeated = next((p for (s, d), p in zip(flat, positions) if d == 0 and s > 1), None)
    if repeated is not None:
        raise LawError(f"left_inverse({a})",
                       f"{a} is not injective (A({repeated}) == A(0) == 0), so no layout L has "
                       f"L(A(c)) == c; pycute's construction {construction} breaks the law at "
                       f"c={repeated}: L(A({repeated})) is {construction(a(repeated))}",
                       construction, repeated)
    return construction


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
    try:
        return composition(a, make_layout(b, complement(b, a.size)))
    except LawError as e:
        raise LawError(f"logical_divide({a}, {b})", f"its {e}", e.construction,
                       e.index) from None


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
    try:
        return make_layout(a, composition(complement(a, a.size * b.cosize), b))
    except LawError as e:
        construction = None if e.construction is None else make_layout(a, e.construction)
        index = None if e.index is None else e.index * a.size
        raise LawError(f"logical_product({a}, {b})", f"its {e}", construction, index) from None


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
