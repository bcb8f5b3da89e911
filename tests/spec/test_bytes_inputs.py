"""Byte images depend on the values only: not on how the input holds them
(its dtype, the bytes numpy ignores), nor on fields wider than the type.

The expected bytes come from tests/spec/test_bytes.py's brute force
(tilespec.all_offsets and a bit string), never from to_bytes itself.
"""

import numpy as np
import pytest
from test_bytes import brute_bytes, same_bits

import tilespec


@pytest.mark.parametrize("text", ["s2[2]{0:E(4)}", "s2[3,8]{1,0:T(2,1)E(4)}",
                                  "s1[4]{0:E(2)}", "s1[2,8]{0,1:E(4)}"])
def test_a_signed_code_fills_only_its_width_in_a_wider_field(text):
    # The top field of a word was left unmasked: -1 as s2 in E(4) is 0b0011,
    # but its int8 byte 0xFF put 0b1111 there.
    s = tilespec.parse_array_shape(text)
    a = np.full(s.dims, -1, np.int8)
    image = tilespec.to_bytes(s, a)
    assert image.tobytes() == brute_bytes(s, a, np.int8(0))
    assert same_bits(tilespec.from_bytes(s, image), a)
