"""Byte images: the exact bytes of an array laid out by a shape, and the
array back from them, fast.

The definition is :mod:`spec.physical` (plain numpy pad, reshape and
transpose, then ``E(n)`` bits per element); this package is the engine that
computes the same bytes quickly and is tested against it: element values as
bit patterns (``elements``), the tiling levels run as strided views with one
copy per padded level (``strided``), ``E(n)`` packing (``packing``), work cut
into blocks run on threads (``blocks``), put together by ``bytes``.

>>> to_bytes("s4[3]{0:E(4)}", [1, -1, 7]).tolist()
[241, 7]
>>> from_bytes("s4[3]{0:E(4)}", to_bytes("s4[3]{0:E(4)}", [1, -1, 7])).tolist()
[1, -1, 7]
>>> value_dtype("bf16").name, raw_dtype("s4").name
('bfloat16', 'int4')
"""

from .bytes import from_bytes, to_bytes
from .elements import SUB_BYTE_INTS, encode_value, raw_dtype, value_dtype

__all__ = ["from_bytes", "to_bytes", "SUB_BYTE_INTS", "encode_value", "raw_dtype",
           "value_dtype"]
