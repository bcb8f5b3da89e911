"""Bitcasts and packed types: buffers are compared in bytes."""

import pytest

from tilespec.prover.bitcast import prove_reading
from tilespec.spec.index import concrete_dims
from tilespec.spec.size import byte_size
from tilespec.spec.text import parse_array_shape as shape

LONG = 60


@pytest.mark.parametrize("src, dst, status", [
    # 3m nibbles: L(2) pads inside the last byte only, for every m
    ("s4[m,3]{1,0:E(4)}", "s4[m,3]{1,0:L(2)E(4)}", "proved"),
    ("s4[5,3]{1,0:E(4)}", "s4[15]{0:L(2)E(4)}", "proved"),
    # L(4) adds a whole byte at m = 2
    ("s4[m,3]{1,0:E(4)}", "s4[m,3]{1,0:L(4)E(4)}", "refuted"),
    ("s4[2,3]{1,0:E(4)}", "s4[6]{0:L(4)E(4)}", "refuted"),
])
def test_packed_bitcast_sizes_are_bytes(src, dst, status):
    r = prove_reading(shape(src), shape(dst), timeout=LONG)
    assert r.status == status, r
    if status == "refuted":
        ce = r.counterexample
        values = dict(ce.dim_values)
        a, b = shape(src).instantiate(values), shape(dst).instantiate(values)
        concrete_dims(a)
        assert byte_size(a) != byte_size(b)
        sizes = ce.details["sizes"]
        assert (sizes["source"]["byte_size"], sizes["target"]["byte_size"]) == \
            (byte_size(a), byte_size(b))
        assert (ce.side("source").value, ce.side("target").value) == \
            (byte_size(a), byte_size(b))
