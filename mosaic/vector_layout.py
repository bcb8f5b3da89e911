"""Mosaic's ``VectorLayout``: how an array value held in vector registers
(vregs) is laid out, written from the last open source,
``jaxlib/mosaic/dialect/tpu/layout.h`` and ``layout.cc`` at jax 04a887cd5e
(class ``VectorLayout``; the file left the open repository in 3816689d33).

A vreg holds ``target_shape`` = (8 sublanes, 128 lanes) of 32 bits; a
layout packs ``32 // bitwidth`` elements per 32 bits, cuts the (implicit)
two minor dims into ``tiling`` tiles, and starts the data at ``offsets``
inside the first vreg's slice (``None``: replicated, Mosaic's ``*``).

>>> v = VectorLayout(32, (0, 0), (8, 128))
>>> v.vreg_slice(), v.is_valid(), str(v)
((8, 128), True, '32,{0,0},(8,128)')
>>> VectorLayout(32, (0, 128), (8, 128)).is_valid()     # jax-ml/jax#34001: lane offset 128
False
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

from ..spec import TilespecError

__all__ = ["PLAIN", "TARGET_SHAPE", "Fields", "ImplicitDim", "MosaicCheckFailure", "SolverOps",
           "VectorLayout",
           "generalizes_in", "implicit_tiled"]

#: (sublanes, lanes) of one vreg on every TPU generation Mosaic targets.
TARGET_SHAPE = (8, 128)


class MosaicCheckFailure(TilespecError):
    """A ``CHECK`` of Mosaic's C++ fails here: the compiler aborts the
    process rather than report an error (e.g. jax-ml/jax#39366)."""


class ImplicitDim(Enum):
    """``VectorLayout::ImplicitDim``: which of the two minor dims the value
    lacks (a rank-1 value has one implicit dim, -2 or -1)."""

    NONE = "none"
    MINOR = "-1"
    SECOND_MINOR = "-2"
    MINOR_AND_SECOND_MINOR = "-2,-1"

    @property
    def implicit(self) -> tuple[bool, bool]:
        """(second minor implicit, minor implicit)."""
        return (self in (ImplicitDim.SECOND_MINOR, ImplicitDim.MINOR_AND_SECOND_MINOR),
                self in (ImplicitDim.MINOR, ImplicitDim.MINOR_AND_SECOND_MINOR))


Offset = int | None


@dataclass(frozen=True)
class Fields:
    """A layout's fields as :func:`generalizes_in` reads them: ints and
    bools in Python, or Z3 terms (:mod:`.proofs`)."""

    bits: Any
    replicated0: Any
    offset0: Any
    replicated1: Any
    offset1: Any
    tile0: Any
    tile1: Any
    second_implicit: Any
    minor_implicit: Any


class Plain:
    """The operations of :func:`generalizes_in` on Python ints and bools."""

    @staticmethod
    def and_(*xs):
        return all(xs)

    @staticmethod
    def or_(*xs):
        return any(xs)

    @staticmethod
    def not_(x):
        return not x

    @staticmethod
    def if_(c, a, b):
        return a if c else b


PLAIN = Plain()


class SolverOps:
    """The same operations on Z3 terms (``z3``: the module)."""

    def __init__(self, z3):
        self.z3 = z3

    def and_(self, *xs):
        return self.z3.And(*xs)

    def or_(self, *xs):
        return self.z3.Or(*xs)

    def not_(self, x):
        return self.z3.Not(x)

    def if_(self, c, a, b):
        return self.z3.If(c, a, b)


def implicit_tiled(ops, f: Fields, dims):
    """``getImplicitTiledDims(shape, 1)`` of the two minor dims ``dims``
    (rank 1: ``(1, n)``)."""
    d2, d1 = dims
    rows = ops.if_(f.second_implicit, 1, ops.if_(f.minor_implicit, d1, d2))
    cols = ops.if_(f.minor_implicit, 1, d1)
    return rows, cols


def generalizes_in(ops, s: Fields, o: Fields, dims, target=TARGET_SHAPE):
    """``VectorLayout::generalizes`` written once over ``ops`` (:data:`PLAIN`
    or Z3's): ``dims`` are the value's two minor dims, None for "any shape"
    (Mosaic's null ``shape``)."""
    same_implicit = ops.and_(s.second_implicit == o.second_implicit,
                             s.minor_implicit == o.minor_implicit)
    squeezable = ops.and_(s.tile0 == 1, o.tile0 == 1, ops.not_(s.minor_implicit),
                          ops.not_(o.minor_implicit))
    offsets = ops.and_(ops.or_(s.replicated0, ops.and_(ops.not_(o.replicated0),
                                                       s.offset0 == o.offset0)),
                       ops.or_(s.replicated1, ops.and_(ops.not_(o.replicated1),
                                                       s.offset1 == o.offset1)))
    same_tiling = ops.and_(s.tile0 == o.tile0, s.tile1 == o.tile1)
    if dims is None:
        implicit_ok = ops.or_(same_implicit, squeezable)
        tiling_ok = same_tiling
    else:
        rows_s, cols_s = implicit_tiled(ops, s, dims)
        rows_o, cols_o = implicit_tiled(ops, o, dims)
        implicit_ok = ops.or_(same_implicit, squeezable,
                              ops.and_(rows_s == rows_o, cols_s == cols_o))
        o1 = ops.if_(s.replicated1, 0, s.offset1)
        o0 = ops.if_(s.replicated0, 0, s.offset0)
        one_tile = ops.and_(s.tile1 == o.tile1, s.tile1 == target[1],
                            o1 + cols_s <= target[1],
                            o0 + rows_s <= ops.if_(s.tile0 <= o.tile0, s.tile0, o.tile0))
        tiling_ok = ops.or_(same_tiling, one_tile)
    return ops.and_(s.bits == o.bits, offsets, implicit_ok, tiling_ok)


@dataclass(frozen=True)
class VectorLayout:
    """``VectorLayout(bitwidth, offsets, tiling, implicit_dim)``.

    >>> VectorLayout(16, (0, 0), (16, 128)).packing
    2
    """

    bitwidth: int
    offsets: tuple[Offset, Offset]
    tiling: tuple[int, int]
    implicit_dim: ImplicitDim = ImplicitDim.NONE

    def __post_init__(self):
        if self.bitwidth not in (1, 2, 4, 8, 16, 32):
            raise TilespecError(f"a vector layout's bitwidth is a power of 2 up to 32, "
                                f"not {self.bitwidth}")
        if len(self.offsets) != 2 or len(self.tiling) != 2:
            raise TilespecError("a vector layout has two offsets and a 2-d tiling")
        if min(self.tiling) <= 0:
            raise TilespecError(f"tiling {self.tiling} must be positive")

    def __str__(self) -> str:
        offs = ",".join("*" if o is None else str(o) for o in self.offsets)
        tail = "" if self.implicit_dim is ImplicitDim.NONE else f",{self.implicit_dim.value}"
        return f"{self.bitwidth},{{{offs}}},({self.tiling[0]},{self.tiling[1]}){tail}"

    @property
    def packing(self) -> int:
        """Elements per 32 bits (``packing()``)."""
        return 32 // self.bitwidth

    @property
    def layout_rank(self) -> int:
        """Dims the layout covers: 2 less its implicit dims (``layout_rank()``)."""
        return 2 - sum(self.implicit_dim.implicit)

    def tiles_per_vreg(self, target=TARGET_SHAPE) -> int:
        """``tilesPerVreg``: tiles one vreg holds; Mosaic CHECKs it is whole.

        >>> VectorLayout(16, (0, 0), (8, 128)).tiles_per_vreg()
        2
        """
        capacity = self.packing * target[0] * target[1]
        tile = self.tiling[0] * self.tiling[1]
        if capacity % tile:
            raise MosaicCheckFailure(f"Check failed: rem == 0: tiling {self.tiling} does not "
                                     f"divide a vreg of {capacity} {self.bitwidth}-bit elements")
        return capacity // tile

    def vreg_slice(self, target=TARGET_SHAPE) -> tuple[int, int]:
        """``vregSlice``: the (rows, columns) of the value one vreg covers."""
        return (self.tiling[0], self.tiles_per_vreg(target) * self.tiling[1])

    def is_valid(self, target=TARGET_SHAPE, shape=None) -> bool:
        """``isValid``: offsets inside the vreg slice, and each tile a whole
        number of sublanes that divides the vreg's sublanes; for a value of
        ``shape``, also no more dims covered than the value has (libtpu
        0.0.42.1 answers "Invalid input layout" for a rank-1 vector laid out
        with no implicit dim: tests/data/pallas/issues.json.gz).

        >>> VectorLayout(32, (0, 0), (8, 128)).is_valid(shape=(256,))
        False
        """
        if shape is not None and len(tuple(shape)) < self.layout_rank:
            return False
        try:
            vs = self.vreg_slice(target)
        except MosaicCheckFailure:
            return False
        if any(o is not None and not 0 <= o < s for o, s in zip(self.offsets, vs)):
            return False
        sublanes, rem = divmod(self.tiling[0] * self.tiling[1], self.packing * target[1])
        return rem == 0 and sublanes > 0 and target[0] % sublanes == 0

    def implicit_tiled_dims(self, shape, implicit_value: int = 1) -> tuple[int, int]:
        """``getImplicitTiledDims``: the two minor dims of ``shape`` with the
        implicit ones inserted as ``implicit_value``.  A value of fewer dims
        than the layout covers fails ``getImplicitTiledVals``'s CHECK, which
        aborts the compiler (libtpu 0.0.42.1 on a rank-1 gather, recorded in
        tests/data/pallas/issues.json.gz; jax-ml/jax#39366).

        >>> VectorLayout(32, (0, 0), (8, 128)).implicit_tiled_dims((256,))
        Traceback (most recent call last):
        ...
        tilespec.mosaic.vector_layout.MosaicCheckFailure: Check failed: arr.size() >= layout_rank(implicit_dim) (1 vs. 2)
        """
        second, minor = self.implicit_dim.implicit
        dims = list(shape)
        if len(dims) < self.layout_rank:
            raise MosaicCheckFailure(f"Check failed: arr.size() >= layout_rank(implicit_dim) "
                                     f"({len(dims)} vs. {self.layout_rank})")
        if second and minor:
            return (implicit_value, implicit_value)
        if second:
            return (implicit_value, dims[-1])
        if minor:
            return (dims[-1], implicit_value)
        return (dims[-2], dims[-1])

    def canonical_offsets(self, shape) -> tuple[Offset, Offset]:
        """``getCanonicalOffsets``: a (1, n) tiling of one row replicates its
        second-minor offset."""
        rows = self.implicit_tiled_dims(shape)[0]
        return (None if self.tiling[0] == 1 and rows == 1 else self.offsets[0],
                self.offsets[1])

    def generalizes(self, other: VectorLayout, shape=None, target=TARGET_SHAPE) -> bool:
        """``generalizes``: every value laid out by ``other`` is also laid out
        by ``self`` (for a value of ``shape``; None: for every shape).

        >>> a, b = VectorLayout(32, (None, 0), (8, 128)), VectorLayout(32, (3, 0), (8, 128))
        >>> a.generalizes(b), b.generalizes(a)
        (True, False)
        """
        dims = None if shape is None else tuple(shape)[-2:] if len(shape) > 1 else (1, *shape)
        return bool(generalizes_in(PLAIN, self.fields(), other.fields(), dims, target))

    def fields(self) -> Fields:
        """The layout as the plain values :func:`generalizes_in` reads."""
        second, minor = self.implicit_dim.implicit
        o0, o1 = self.offsets
        return Fields(self.bitwidth, o0 is None, o0 or 0, o1 is None, o1 or 0,
                      self.tiling[0], self.tiling[1], second, minor)

    def equivalent_to(self, other: VectorLayout, shape=None, target=TARGET_SHAPE) -> bool:
        """``equivalentTo``: each generalizes the other.

        >>> VectorLayout(32, (0, 0), (8, 128)).equivalent_to(
        ...     VectorLayout(32, (0, 0), (1, 128)), (1, 100))
        True
        """
        return self.generalizes(other, shape, target) and other.generalizes(self, shape, target)

    def join(self, other: VectorLayout, shape) -> VectorLayout | None:
        """``VectorLayout::join``: the layout both agree on, or None.

        >>> VectorLayout(32, (0, None), (8, 128)).join(VectorLayout(32, (None, 5), (8, 128)), (8, 256))
        VectorLayout(bitwidth=32, offsets=(0, 5), tiling=(8, 128), implicit_dim=<ImplicitDim.NONE: 'none'>)
        """
        def replicated(v: VectorLayout) -> bool:
            return v.canonical_offsets(shape) == (None, None)

        if replicated(self) and self.layout_rank >= other.layout_rank:
            return other
        if replicated(other) and other.layout_rank >= self.layout_rank:
            return self
        if self.bitwidth != other.bitwidth or self.tiling != other.tiling:
            return None
        if self.implicit_tiled_dims(shape) != other.implicit_tiled_dims(shape):
            return None
        offsets: list[Offset] = []
        for lo, ro in zip(self.offsets, other.offsets):
            if lo is not None and ro is not None and lo != ro:
                return None
            offsets.append(lo if lo is not None else ro)
        return VectorLayout(self.bitwidth, (offsets[0], offsets[1]), self.tiling,
                            self.implicit_dim)

    def tile_array_shape(self, shape, target=TARGET_SHAPE) -> tuple[int, ...]:
        """``tileArrayShape``: how many vregs a value of ``shape`` takes per
        dim (the two minor dims counted in vreg slices from the offsets).

        >>> VectorLayout(32, (0, 0), (8, 128)).tile_array_shape((2, 17, 300))
        (2, 3, 3)
        """
        second, minor = self.implicit_dim.implicit
        dims = list(shape)
        if len(dims) < self.layout_rank:
            raise MosaicCheckFailure(f"Check failed: shape {tuple(shape)} has fewer dims "
                                     f"than layout {self} covers")
        if second and minor:
            dims += [1, 1]
        elif second:
            dims.insert(len(dims) - 1, 1)
        elif minor:
            dims.append(1)
        vs = self.vreg_slice(target)
        for i, k in ((-2, 0), (-1, 1)):
            o = self.offsets[k]
            dims[i] = -(-(o + dims[i]) // vs[k]) if o is not None else 1
        if second and minor:
            del dims[-2:]
        elif second:
            del dims[-2]
        elif minor:
            del dims[-1]
        return tuple(dims)
