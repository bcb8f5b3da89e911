"""How much memory a laid-out array takes.

Elements first: the tiled array's padded element count, then rounded up to a
multiple of ``L(n)`` (tail padding alignment).  Then bits: each element takes
``E(n)`` bits when the layout sets it (so sub-byte types pack), else whole
bytes of its type; the total is rounded up to whole bytes.

Each size is written once over an :class:`~spec.arith.Arithmetic` (like
:mod:`spec.index`): on ints by default, on the prover's solver terms when it
passes ``dims`` and its arithmetic, so no proof re-derives a size.

The spec applies ``L(n)`` to every array, as XLA's shape proto documents it;
XLA's ``ShapeUtil::ArraySize`` applies it only to tiled layouts (see
:mod:`prover.models.rules`).

>>> from tilespec.spec.text import parse_array_shape as shape
>>> byte_size(shape("f32[3,5]{1,0:T(2,2)}"))
96
>>> byte_size(shape("s4[3]{0:E(4)}")), byte_size(shape("s4[3]{0}"))
(2, 3)
>>> aligned_elements(shape("f32[3,5]{1,0:T(2,2)L(1024)}"))
1024
>>> padding_fraction(shape("f32[3,5]{1,0:T(2,2)}"))
0.375
>>> from tilespec.spec.arith import SYMPY
>>> import sympy
>>> m = sympy.Symbol("m", integer=True, positive=True)
>>> byte_size(shape("f32[m,5]{1,0:T(2,2)}"), (m, 5), SYMPY)
48*ceiling(m/2)
"""

from __future__ import annotations

from typing import Any, Sequence

from .arith import INT, Arithmetic
from .dtypes import IFRT_BIT_SIZES, NON_ARRAY_TYPES, ifrt_bit_size, storage_bits
from .index import (
    concrete_dims,
    dims_through,
    padded_elements,
    product,
    shape_pipeline,
)
from .layout import Shape
from .versions import Holds, XlaCommit, resolve


def num_elements(shape: Shape) -> int:
    """Logical elements: the product of the dims."""
    return int(product(concrete_dims(shape)))


def padded_count(shape: Shape, dims: Sequence[Any] | None = None,
                 ar: Arithmetic = INT) -> Any:
    """Elements the tiled array occupies, padding included (before
    ``L(n)``), for ``dims`` (the shape's own when None) on ``ar``.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> padded_count(shape("f32[m,5]{1,0:T(2,2)}"), (3, 5))
    24
    """
    if dims is None:
        return padded_elements(shape)
    return product(dims_through(shape_pipeline(shape), dims, ar)[-1], ar)


def round_up(n: Any, alignment: int, ar: Arithmetic = INT) -> Any:
    """``n`` rounded up to a multiple of ``alignment`` (``L(n)``'s rounding).

    >>> round_up(24, 1024), round_up(24, 1)
    (1024, 24)
    """
    return n if alignment == 1 else ar.mul(ar.ceildiv(n, alignment), alignment)


def bytes_of(elements: Any, bits: int, ar: Arithmetic = INT) -> Any:
    """Whole bytes that ``elements`` elements of ``bits`` bits each take.

    >>> bytes_of(3, 4), bytes_of(3, 8)
    (2, 3)
    """
    return ar.ceildiv(ar.mul(elements, bits), 8)


def aligned_elements(shape: Shape, dims: Sequence[Any] | None = None,
                     ar: Arithmetic = INT) -> Any:
    """Padded elements rounded up to a multiple of ``L(n)``."""
    return round_up(padded_count(shape, dims, ar),
                    shape.layout.tail_padding_alignment_in_elements, ar)


def byte_size(shape: Shape, dims: Sequence[Any] | None = None,
              ar: Arithmetic = INT) -> Any:
    """Bytes the array occupies: aligned elements times element bits, in bytes."""
    return bytes_of(aligned_elements(shape, dims, ar), shape.element_bits, ar)


def bit_range(shape: Shape, position: int) -> tuple[int, int]:
    """The bits [start, stop) that the element at ``position`` occupies."""
    bits = shape.element_bits
    return position * bits, (position + 1) * bits


def unpadded_bytes(shape: Shape) -> int:
    """The bytes the elements need without padding, each at the bits it is
    stored in: ``E(n)`` when the layout packs it below the type's storage
    (an ``E(n)`` above it pads), else the type's storage; in whole bytes.
    What check-hlo and the padding advisor count as the data.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> unpadded_bytes(shape("s4[300,1000]{1,0:T(8,128)(2,1)E(4)}"))
    150000
    >>> unpadded_bytes(shape("s4[3]{0}")), unpadded_bytes(shape("pred[64]{0:T(8,128)E(32)}"))
    (3, 64)
    """
    bits = shape.element_bits
    if shape.element_type not in NON_ARRAY_TYPES:
        bits = min(bits, storage_bits(shape.element_type))
    return -(-num_elements(shape) * bits // 8)


def padding_fraction(shape: Shape) -> float:
    """The share of the allocated elements that are padding."""
    total = aligned_elements(shape)
    return 0.0 if total == 0 else 1 - num_elements(shape) / total


#: XLA's 6-bit floats (xla_data.proto ``F6E2M3FN``/``F6E3M2FN``), and the
#: IFRT kinds for them.
F6_TYPES = ("f6e2m3fn", "f6e3m2fn")
XLA_HAS_F6 = Holds(since=resolve("1e42a8527c"))
IFRT_HAS_F6 = Holds(since=resolve("70fe66213b"))


def ifrt_compact_byte_size(shape: Shape) -> int:
    """IFRT's ``CompactLayout::ByteSize`` (xla/python/ifrt/layout.cc): the
    elements packed at IFRT's ``DType::bit_size``, ``ceil(N * bits / 8)``,
    whatever XLA's layout pads or packs.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> ifrt_compact_byte_size(shape("f6e2m3fn[8]{0}")), byte_size(shape("f6e2m3fn[8]{0}"))
    (6, 8)
    """
    return -(-num_elements(shape) * ifrt_bit_size(shape.element_type) // 8)


def storage_sizes(shape: Shape, xla: str | XlaCommit | None = None) -> tuple[str, ...]:
    """Where XLA and IFRT count one buffer of ``shape`` differently, at XLA
    version ``xla`` (default the newest modelled): lines saying which size is
    which, or none.  Only the 6-bit floats differ, and only in bytes.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> for line in storage_sizes(shape("f6e2m3fn[8]{0}")): print(line)
    XLA stores each f6e2m3fn element in 8 bits (primitive_util::BitWidth: sizeof(tsl::float6_e2m3fn) * 8, since 1e42a8527c (2026-06-03)): 8 bytes, tilespec's byte size
    IFRT counts 6 bits (DType::bit_size, since 70fe66213b (2026-07-15)): CompactLayout::ByteSize is 6 bytes where XLA's elements take 8 without padding; they disagree
    >>> storage_sizes(shape("f6e2m3fn[8]{0}"), xla="2026-06-01")
    ('f6e2m3fn is no XLA type before 1e42a8527c (2026-06-03): its parser rejects it',)
    >>> storage_sizes(shape("f32[8]{0}"))
    ()
    """
    t = shape.element_type
    if t not in F6_TYPES:
        return ()
    commit = resolve(xla)
    if not XLA_HAS_F6.holds_at(commit):
        return (f"{t} is no XLA type before {XLA_HAS_F6.since.label}: "  # type: ignore[union-attr]
                "its parser rejects it",)
    bits = shape.element_bits
    how = (f"in {bits} bits (E({bits}))" if shape.layout.element_size_in_bits
           else f"in {bits} bits (primitive_util::BitWidth: sizeof(tsl::float6_{t[2:]}) * 8, "
           f"since {XLA_HAS_F6.since.label})")  # type: ignore[union-attr]
    ours = byte_size(shape)
    lines = [f"XLA stores each {t} element {how}: {ours} bytes, tilespec's byte size"]
    if not IFRT_HAS_F6.holds_at(commit):
        lines.append(f"IFRT has no {t} kind before {IFRT_HAS_F6.since.label}")  # type: ignore[union-attr]
        return tuple(lines)
    # IFRT's compact layout has no tiles: compare it with XLA's dense bytes
    ifrt, dense = ifrt_compact_byte_size(shape), unpadded_bytes(shape)
    agree = ("they agree" if ifrt == dense else "they disagree")
    lines.append(f"IFRT counts {IFRT_BIT_SIZES[t]} bits (DType::bit_size, since "
                 f"{IFRT_HAS_F6.since.label}): CompactLayout::ByteSize is {ifrt} bytes "  # type: ignore[union-attr]
                 f"where XLA's elements take {dense} without padding; {agree}")
    return tuple(lines)
