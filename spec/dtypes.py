"""Element types as XLA prints them, with their storage width in bits.

``bit_width`` is XLA's ``primitive_util::BitWidth`` (``pred`` is one bit);
``storage_bits`` is what an element takes in memory when the layout sets no
``E(n)``: whole bytes, so ``s4`` and ``pred`` take 8 bits each.

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


def storage_bits(element_type: str) -> int:
    """Bits of memory per element without ``E(n)``: XLA's ByteWidth times 8."""
    return -(-bit_width(element_type) // 8) * 8


#: Types XLA accepts in ``#(type)`` and ``*(type)``.
UNSIGNED_TYPES = tuple(t for t in BIT_WIDTHS if t.startswith("u"))


def is_element_type(name: str) -> bool:
    return name in BIT_WIDTHS or name in NON_ARRAY_TYPES
