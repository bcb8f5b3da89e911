"""How much memory a laid-out array takes.

Elements first: the tiled array's padded element count, then rounded up to a
multiple of ``L(n)`` (tail padding alignment).  Then bits: each element takes
``E(n)`` bits when the layout sets it (so sub-byte types pack), else whole
bytes of its type; the total is rounded up to whole bytes.

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
"""

from __future__ import annotations

from tilespec.spec.index import concrete_dims, padded_elements, product
from tilespec.spec.layout import Shape


def num_elements(shape: Shape) -> int:
    """Logical elements: the product of the dims."""
    return int(product(concrete_dims(shape)))


def aligned_elements(shape: Shape) -> int:
    """Padded elements rounded up to a multiple of ``L(n)``."""
    n = padded_elements(shape)
    a = shape.layout.tail_padding_alignment_in_elements
    return -(-n // a) * a


def byte_size(shape: Shape) -> int:
    """Bytes the array occupies: aligned elements times element bits, in bytes."""
    return -(-aligned_elements(shape) * shape.element_bits // 8)


def bit_range(shape: Shape, position: int) -> tuple[int, int]:
    """The bits [start, stop) that the element at ``position`` occupies."""
    bits = shape.element_bits
    return position * bits, (position + 1) * bits


def padding_fraction(shape: Shape) -> float:
    """The share of the allocated elements that are padding."""
    total = aligned_elements(shape)
    return 0.0 if total == 0 else 1 - num_elements(shape) / total
