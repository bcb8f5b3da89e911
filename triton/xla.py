"""An XLA tiled layout's offsets as a Triton linear layout, and back.

:func:`from_xla` writes the offset map of a shape (offsets in *elements*,
as :func:`tilespec.spec.offset` gives them) as a
:class:`~tilespec.triton.layout.LinearLayout` with in-dims ``dim0 ..
dim{r-1}`` (dim ``k`` of size the least power of two holding the dim) and
one out-dim ``offset``: basis ``i`` of ``dimk`` is the offset of the element
``2**i`` along dim ``k``.  The layout is returned only after its ``apply``
was checked equal to the spec's offset on every logical element (the
coordinates the power-of-two box adds beyond a dim's size are no elements
and are not checked).  Where the offsets are not F2-linear,
:class:`NotLinear` carries a :class:`Refutation`: two elements ``a`` and
``b`` (their bits disjoint) with ``offset(a ^ b) != offset(a) ^
offset(b)``, replayed on :func:`tilespec.spec.offset`.

The offsets are linear when every tile dim is a power of two and every
expanded extent but the most major is a power of two (padding is fine):

>>> from_xla("f32[3,4]{1,0}").bases
(('dim0', ((4,), (8,))), ('dim1', ((1,), (2,))))
>>> print(linear_or_refutation("f32[3,5]{1,0:T(2,2)}"))
f32[3,5]{1,0:T(2,2)} is not F2-linear: offset(a ^ b) != offset(a) ^ offset(b) for a = (0, 2), b = (2, 0): offset((2, 2)) = 16, but 4 ^ 12 = 8

:func:`to_xla` goes back: the XLA layout (row-major, one or two tile levels) of
the dims whose offsets are the linear layout's, or a reason (a basis that
XORs two offset bits is a swizzle XLA cannot write).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from ..spec import (
    DimValues,
    Shape,
    ShapeLike,
    all_offsets,
    as_shape,
    concrete_dims,
    format_shape,
    offset,
    parse_array_shape,
)
from .layout import LinearLayout, TritonLayoutError, log2, next_power_of_two

#: The most elements :func:`from_xla` checks one by one (numpy, ~1 s).
MAX_CHECKED_ELEMENTS = 1 << 24

#: The out-dim of an XLA layout's linear layout.
OFFSET = "offset"


def in_dim(k: int) -> str:
    """The name of logical dim ``k``'s in-dim.

    >>> in_dim(0)
    'dim0'
    """
    return f"dim{k}"


@dataclass(frozen=True)
class Refutation:
    """Two elements whose XOR's offset is not the XOR of their offsets:
    ``offset(a ^ b) = got``, but ``offset(a) ^ offset(b) = want``."""

    shape: str
    a: tuple[int, ...]
    b: tuple[int, ...]
    offset_a: int
    offset_b: int
    offset_ab: int

    @property
    def xor(self) -> tuple[int, ...]:
        """``a ^ b``, dim by dim."""
        return tuple(x ^ y for x, y in zip(self.a, self.b))

    def replays(self) -> bool:
        """Does the spec still give these offsets, and do they break
        linearity?"""
        s = parse_array_shape(self.shape)
        return (offset(s, self.a), offset(s, self.b), offset(s, self.xor)) == (
            self.offset_a, self.offset_b, self.offset_ab) and \
            self.offset_ab != self.offset_a ^ self.offset_b

    def __str__(self) -> str:
        return (f"{self.shape} is not F2-linear: offset(a ^ b) != offset(a) ^ offset(b) for "
                f"a = {self.a}, b = {self.b}: offset({self.xor}) = {self.offset_ab}, but "
                f"{self.offset_a} ^ {self.offset_b} = {self.offset_a ^ self.offset_b}")

    def to_json(self) -> dict:
        return {"shape": self.shape, "a": list(self.a), "b": list(self.b),
                "offset_a": self.offset_a, "offset_b": self.offset_b,
                "offset_a_xor_b": self.offset_ab}


class NotLinear(TritonLayoutError):
    """An XLA layout whose offsets no linear layout has; ``refutation`` is
    the replayed witness."""

    def __init__(self, refutation: Refutation):
        self.refutation = refutation
        super().__init__("not linear", str(refutation).split(" is not F2-linear: ", 1)[1]
                         + f" (in {refutation.shape})")


def _array_shape(shape: ShapeLike, dims: DimValues | None) -> Shape:
    s = as_shape(shape, dims)
    if not isinstance(s, Shape):
        raise TritonLayoutError("not an array", f"{format_shape(s)} is a tuple; a linear "
                                "layout is of one array")
    if s.is_symbolic:
        raise TritonLayoutError("symbolic", f"{format_shape(s)} has named dims; give them "
                                "sizes (dims=...)")
    return s


def _bases(shape: Shape) -> list[list[int]]:
    dims = concrete_dims(shape)
    out = []
    for k, d in enumerate(dims):
        unit = [0] * len(dims)
        vs = []
        for i in range(max(d - 1, 0).bit_length()):
            unit[k] = 1 << i
            vs.append(offset(shape, unit))
        unit[k] = 0
        out.append(vs)
    return out


def _has_bases(shape: Shape, want: list[list[int]]) -> bool:
    """``_bases(shape) == want``, stopping at the first basis that differs
    (to_xla's search tries many shapes; most differ at a low bit)."""
    dims = concrete_dims(shape)
    if [max(d - 1, 0).bit_length() for d in dims] != [len(vs) for vs in want]:
        return False
    order = sorted(((i, k) for k, vs in enumerate(want) for i in range(len(vs))))
    for i, k in order:
        unit = [0] * len(dims)
        unit[k] = 1 << i
        if offset(shape, unit) != want[k][i]:
            return False
    return True


def basis_layout(shape: ShapeLike, dims: DimValues | None = None) -> LinearLayout:
    """The linear layout whose bases are the offsets of the power-of-two
    elements, *unchecked*: :func:`from_xla`'s answer where the offsets are
    linear, and what :func:`tilespec.triton.proofs.prove_from_xla` proves
    (or refutes) for shapes too large to check one by one.

    >>> basis_layout("f32[3,5]{1,0:T(2,2)}").bases
    (('dim0', ((2,), (12,))), ('dim1', ((1,), (4,), (8,))))
    """
    s = _array_shape(shape, dims)
    if 0 in concrete_dims(s):
        raise TritonLayoutError("empty", f"{format_shape(s)} has no elements")
    bases = _bases(s)
    top = max((v for vs in bases for v in vs), default=0)
    return LinearLayout([(in_dim(k), [[v] for v in vs]) for k, vs in enumerate(bases)],
                        [(OFFSET, max(next_power_of_two(top), 1))])


def linear_or_refutation(shape: ShapeLike, dims: DimValues | None = None
                         ) -> LinearLayout | Refutation:
    """The linear layout of ``shape``'s offsets, checked on every element,
    or the replayed :class:`Refutation` of linearity.

    >>> linear_or_refutation("f32[24,64]{0,1:T(1,8)}").a
    (0, 2)
    """
    s = _array_shape(shape, dims)
    sizes = concrete_dims(s)
    if 0 in sizes:
        raise TritonLayoutError("empty", f"{format_shape(s)} has no elements")
    n = int(np.prod(sizes, dtype=np.int64))
    if n > MAX_CHECKED_ELEMENTS:
        raise TritonLayoutError("too large", f"{format_shape(s)} has {n} elements, more than "
                                f"the {MAX_CHECKED_ELEMENTS} from_xla checks one by one; "
                                "tilespec.triton.proofs.prove_from_xla proves it with Z3")
    bases = _bases(s)
    got = all_offsets(s)
    # apply, vectorised: each dim's coordinates' XOR of bases, XOR-ed across dims
    want = np.zeros(sizes, dtype=np.int64)
    for k, (d, vs) in enumerate(zip(sizes, bases)):
        x = np.arange(d, dtype=np.int64)
        part = np.zeros(d, dtype=np.int64)
        for i, v in enumerate(vs):
            part ^= np.where(x >> i & 1, v, 0)
        want ^= part.reshape([d if j == k else 1 for j in range(len(sizes))])
    bad = np.argwhere(got != want)
    if len(bad):
        return _refute(s, bad)
    return basis_layout(s)


def _refute(s: Shape, bad: np.ndarray) -> Refutation:
    # The wrong element with the fewest set bits: without its lowest bit it
    # is right (fewer bits), and that bit alone is a basis (right by making).
    popcount = np.zeros(len(bad), dtype=np.int64)
    for k in range(bad.shape[1]):
        col = bad[:, k].copy()
        while col.any():
            popcount += col & 1
            col >>= 1
    x = tuple(int(v) for v in bad[int(np.argmin(popcount))])
    k = next(i for i, v in enumerate(x) if v)
    low = x[k] & -x[k]
    b = tuple(low if i == k else 0 for i in range(len(x)))
    a = tuple(v ^ w for v, w in zip(x, b))
    r = Refutation(format_shape(s), a, b, offset(s, a), offset(s, b), offset(s, x))
    if not r.replays():
        raise AssertionError(f"internal: the refutation {r} does not replay")
    return r


def from_xla(shape: ShapeLike, dims: DimValues | None = None) -> LinearLayout:
    """The linear layout of ``shape``'s offsets (in elements), checked on
    every element; :class:`NotLinear` (a ``ValueError``) with the replayed
    refutation where there is none.

    >>> from_xla("bf16[4,8]{0,1:T(2,4)}").apply({"dim0": 3, "dim1": 5})
    {'offset': 23}
    >>> from_xla("f32[24,64]{0,1:T(1,8)}")
    Traceback (most recent call last):
    ...
    tilespec.triton.xla.NotLinear: not linear: offset(a ^ b) != offset(a) ^ offset(b) for a = (0, 2), b = (0, 1): offset((0, 3)) = 72, but 48 ^ 24 = 40 (in f32[24,64]{0,1:T(1,8)})
    """
    r = linear_or_refutation(shape, dims)
    if isinstance(r, Refutation):
        raise NotLinear(r)
    return r


def _reason(layout: LinearLayout) -> str | None:
    """Why no XLA layout has these offsets, read off the bases; None where
    the bases are distinct single bits."""
    seen: dict[int, str] = {}
    for d, vs in layout.bases:
        for i, (v,) in enumerate(vs):
            where = f"basis {i} of {d} ({d}={1 << i})"
            if v == 0:
                return (f"{where} is 0: a broadcast (two elements at one offset), which "
                        "XLA's layouts never make")
            if v & (v - 1):
                bits = [j for j in range(v.bit_length()) if v >> j & 1]
                return (f"{where} is {v} = " + " ^ ".join(str(1 << j) for j in bits) +
                        f", an XOR of offset bits {', '.join(map(str, bits))}: a swizzle "
                        "XLA cannot write")
            if v in seen:
                return f"{where} is {v}, as {seen[v]} is: two elements at one offset"
            seen[v] = where
    return None


def to_xla(layout: LinearLayout, element_type: str = "f32",
           dims: tuple[int, ...] | None = None) -> Shape:
    """The XLA shape (``element_type``, ``dims``: by default each in-dim's
    size) whose offsets equal ``layout``'s on every element: row-major
    order of a ``minor_to_major`` and at most one tile level, else two tile
    levels whose tiles end where the bases change dim (:func:`tile_bits`),
    found by search and checked by :func:`from_xla`.  In-dim ``k`` is dim
    ``k``; the one out-dim is the offset in elements.

    >>> print(format_shape(to_xla(from_xla("f32[8,4]{1,0:T(2,2)}"))))
    f32[8,4]{1,0:T(2,2)}
    >>> print(format_shape(to_xla(from_xla("bf16[16,256]{1,0:T(8,128)(2,1)}"), "bf16")))
    bf16[16,256]{1,0:T(8,128)(2,1)}
    >>> to_xla(LinearLayout.from_bases([("dim0", [[1], [2]]), ("dim1", [[4], [9]])],
    ...                                ["offset"]))
    Traceback (most recent call last):
    ...
    tilespec.triton.layout.TritonLayoutError: no XLA layout: basis 1 of dim1 (dim1=2) is 9 = 1 ^ 8, an XOR of offset bits 0, 3: a swizzle XLA cannot write
    """
    if len(layout.out_dims) != 1:
        raise TritonLayoutError("no XLA layout", f"{len(layout.out_dims)} out-dims; an XLA "
                                "layout has one offset")
    reason = _reason(layout)
    if reason:
        raise TritonLayoutError("no XLA layout", reason)
    sizes = tuple(dims) if dims is not None else tuple(s for _, s in layout.in_dims)
    if len(sizes) != len(layout.bases) or any(
            not (s > 0 and max(s - 1, 0).bit_length() == len(vs))
            for s, (_, vs) in zip(sizes, layout.bases)):
        raise TritonLayoutError("dims", f"dims {list(sizes)} do not fit the in-dims "
                                f"{[f'{d} (size {s})' for d, s in layout.in_dims]}")
    want = [[v for (v,) in vs] for _, vs in layout.bases]
    for shape in _candidates(element_type, sizes, layout.total_out_bits):
        if _has_bases(shape, want):
            r = linear_or_refutation(shape)
            if isinstance(r, LinearLayout) and [[v for (v,) in vs] for _, vs in r.bases] \
                    == want:
                return shape
    for shape in _two_level_candidates(element_type, sizes, tile_bits(layout)):
        if _has_bases(shape, want):
            r = linear_or_refutation(shape)
            if isinstance(r, LinearLayout) and [[v for (v,) in vs] for _, vs in r.bases] \
                    == want:
                return shape
    raise TritonLayoutError("no XLA layout", "no row-major order with at most two tile "
                            f"levels of dims {list(sizes)} has these offsets")


def tile_bits(layout: LinearLayout) -> list[list[int]]:
    """For each in-dim, how many of its low bits can end a tile: the counts
    of its bits below each offset bit where the in-dim changes (reading the
    offset bits from the minor end), since a tile holds the low bits of
    each of its dims and its last offset bit ends a run.

    >>> tile_bits(from_xla("bf16[16,256]{1,0:T(8,128)(2,1)}"))
    [[0, 1, 3, 4], [0, 7, 8]]
    """
    owner = sorted((v.bit_length() - 1, k) for k, (_, vs) in enumerate(layout.bases)
                   for (v,) in vs)
    counts = [{0, len(vs)} for _, vs in layout.bases]
    below = [0] * len(layout.bases)
    for at, (_, k) in enumerate(owner):
        if at and owner[at - 1][1] != k:
            for j, n in enumerate(below):
                counts[j].add(n)
        below[k] += 1
    return [sorted(c) for c in counts]


def _two_level_candidates(element_type: str, sizes: tuple[int, ...], bits: list[list[int]]):
    """XLA shapes of these dims with two tile levels: a first tile over the
    last 1..rank physical dims, then a second over the last dims of the
    first (each entry no larger), every tile entry ``2**j`` for a ``j`` of
    :func:`tile_bits` (where the bases allow a tile to end)."""
    rank = len(sizes)
    dims = ",".join(map(str, sizes))
    for perm in itertools.permutations(range(rank - 1, -1, -1)):     # row-major first
        m2m = ",".join(map(str, perm))
        physical = list(reversed(perm))                              # major to minor
        for width in range(1, rank + 1):
            for first in itertools.product(*([1 << j for j in bits[d]]
                                              for d in physical[rank - width:])):
                for width2 in range(1, width + 1):
                    for second in itertools.product(*([1 << j for j in bits[d] if 1 << j <= t]
                                                       for d, t in zip(physical[rank - width2:],
                                                                       first[width - width2:]))):
                        if all(t == 1 for t in second) or all(t == 1 for t in first):
                            continue
                        t1, t2 = ",".join(map(str, first)), ",".join(map(str, second))
                        yield parse_array_shape(f"{element_type}[{dims}]{{{m2m}:T({t1})"
                                                f"({t2})}}")


def _candidates(element_type: str, sizes: tuple[int, ...], out_bits: int):
    """XLA shapes of these dims: each ``minor_to_major``, untiled, then
    with one tile of powers of two over the last 1..rank dims."""
    rank = len(sizes)
    dims = ",".join(map(str, sizes))
    for perm in itertools.permutations(range(rank - 1, -1, -1)):     # row-major first
        m2m = ",".join(map(str, perm))
        yield parse_array_shape(f"{element_type}[{dims}]{{{m2m}}}")
        physical = [sizes[p] for p in reversed(perm)]        # major to minor
        for width in range(1, rank + 1):
            choices = [[1 << j for j in range(min(out_bits, log2(next_power_of_two(
                max(d - 1, 0))) + 1) + 1)] for d in physical[rank - width:]]
            for tile in itertools.product(*choices):
                t = ",".join(map(str, tile))
                yield parse_array_shape(f"{element_type}[{dims}]{{{m2m}:T({t})}}")
