"""Element types as XLA prints them, with their storage width in bits.

``bit_width`` is the bits of an element's value: XLA's
``primitive_util::BitWidth`` (``pred`` is one bit), except for the 6-bit
floats, which XLA counts as 8 (:func:`xla_bit_width`); ``storage_bits`` is what
an element takes in memory when the layout sets no ``E(n)``: whole bytes, so
``s4``, ``pred`` and ``f6e2m3fn`` take 8 bits each.

The 6-bit floats ``f6e2m3fn``/``f6e3m2fn`` have two sizes in XLA's tree
(:func:`ifrt_bit_size`): XLA's ``PrimitiveTypeBitWidth`` (xla/primitive_util.h,
since 1e42a8527c, 2026-06-03, unchanged at 183fa00cb5) counts them as
``sizeof(tsl::float6_*) * 8`` = 8 bits, for they are no ``IsMXType``; IFRT's
``DType::bit_size`` (xla/python/ifrt/dtype.cc, since 70fe66213b, 2026-07-15)
counts 6.

>>> bit_width("f6e2m3fn"), xla_bit_width("f6e2m3fn"), ifrt_bit_size("f6e2m3fn")
(6, 8, 6)

>>> bit_width("bf16"), bit_width("s4"), bit_width("pred")
(16, 4, 1)
>>> storage_bits("s4"), storage_bits("pred"), storage_bits("c64")
(8, 8, 64)
>>> bit_width("f17")
Traceback (most recent call last):
...
tilespec.spec.errors.ShapeError: unknown element type 'f17'
"""

from __future__ import annotations

from .errors import ShapeError

#: Every array element type, name -> bits.
BIT_WIDTHS: dict[str, int] = {
    "pred": 1,
    "s1": 1, "s2": 2, "s4": 4, "s8": 8, "s16": 16, "s32": 32, "s64": 64,
    "u1": 1, "u2": 2, "u4": 4, "u8": 8, "u16": 16, "u32": 32, "u64": 64,
    "f16": 16, "bf16": 16, "f32": 32, "f64": 64,
    "c64": 64, "c128": 128,
    "f4e2m1fn": 4, "f6e2m3fn": 6, "f6e3m2fn": 6,
    "f8e3m4": 8, "f8e4m3": 8, "f8e4m3fn": 8, "f8e4m3b11fnuz": 8,
    "f8e4m3fnuz": 8, "f8e5m2": 8, "f8e5m2fnuz": 8, "f8e8m0fnu": 8,
}

#: Types that are not arrays of numbers; they have no elements to lay out.
NON_ARRAY_TYPES = ("token", "opaque")

ELEMENT_TYPES = tuple(BIT_WIDTHS)


def bit_width(element_type: str) -> int:
    """Bits one element of ``element_type`` occupies without packing."""
    try:
        return BIT_WIDTHS[element_type]
    except KeyError:
        raise ShapeError(f"unknown element type {element_type!r}") from None


#: ``primitive_util::BitWidth`` where it is not the value's bits.
XLA_BIT_WIDTHS: dict[str, int] = {"f6e2m3fn": 8, "f6e3m2fn": 8}

#: IFRT's ``DType::bit_size`` (xla/python/ifrt/dtype.cc) where it is not
#: XLA's ``BitWidth``: ``pred`` is 8 bits there (``DTypeTest.BitSize``), the
#: 6-bit floats 6.
IFRT_BIT_SIZES: dict[str, int] = {"pred": 8, "f6e2m3fn": 6, "f6e3m2fn": 6}


def xla_bit_width(element_type: str) -> int:
    """XLA's ``primitive_util::BitWidth`` of the type.

    >>> xla_bit_width("f6e3m2fn"), xla_bit_width("s4"), xla_bit_width("pred")
    (8, 4, 1)
    """
    return XLA_BIT_WIDTHS.get(element_type, bit_width(element_type))


def ifrt_bit_size(element_type: str) -> int:
    """IFRT's ``DType::bit_size`` of the type (what ``CompactLayout::ByteSize``
    packs each element into).

    >>> ifrt_bit_size("f6e3m2fn"), ifrt_bit_size("pred"), ifrt_bit_size("f32")
    (6, 8, 32)
    """
    return IFRT_BIT_SIZES.get(element_type, xla_bit_width(element_type))


def storage_bits(element_type: str) -> int:
    """Bits of memory per element without ``E(n)``: XLA's ByteWidth times 8."""
    return -(-bit_width(element_type) // 8) * 8


#: Types XLA accepts in ``#(type)`` and ``*(type)``.
UNSIGNED_TYPES = tuple(t for t in BIT_WIDTHS if t.startswith("u"))


def is_element_type(name: str) -> bool:
    return name in BIT_WIDTHS or name in NON_ARRAY_TYPES
