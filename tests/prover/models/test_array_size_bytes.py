"""check-rule array_size judges bytes, as ShapeUtil::ArraySize counts them:
with E(n), equal bytes may hold different element counts."""

import pytest

from tilespec.prover.models.rules import check, xla_array_bytes
from tilespec.spec.size import byte_size
from tilespec.spec.text import parse_array_shape as shape

LONG = 60


@pytest.mark.parametrize("text, status", [
    ("s4[m,7]{0,1:L(2)E(4)}", "proved"),      # 7m nibbles: L(2) pads inside a byte only
    ("s4[m,7]{0,1:L(4)E(4)}", "refuted"),     # m = 2: 14 nibbles are 7 bytes, L(4): 8
])
def test_array_size_for_all_shapes_in_bytes(text, status):
    r = check("array_size", [shape(text)], timeout=LONG)
    assert r.status == status, r
    if status == "refuted":
        m = r.counterexample.dim_values["m"]
        s = shape(text).instantiate({"m": m})
        assert xla_array_bytes(s) != byte_size(s)
