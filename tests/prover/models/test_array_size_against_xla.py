"""ShapeUtil::ArraySize as tilespec models it (prover.models.array_size)
equals the binary's ArraySize (jaxlib's CPU client, through tilespec.xla.real)
on every layout measured, values that wrap around int64 included.

The client reports the size as an unsigned ``size_t``: XLA's int64 -4 arrives
as 2**64 - 4, so both are compared as int64."""

import pytest

from tilespec.prover.models.array_size import array_size_behaviour, xla_array_bytes
from tilespec.prover.models.cpp import wrap64
from tilespec.spec.text import parse_array_shape

#: layouts XLA accepts whose ArraySize overflows int64 (undefined behaviour
#: in C++; the binary wraps), and ordinary ones around them
WRAPPING = [
    "f32[2]{0:T(2)L(4611686018427387904)}",      # 2**62 elements * 4 bytes = 2**64: 0
    "f32[2]{0:T(2)L(9223372036854775807)}",      # (2**63 - 1) * 4: -4
    "f32[2]{0:T(2)L(2305843009213693952)}",      # 2**61 * 4 = 2**63: INT64_MIN
    "bf16[3]{0:T(2)L(6917529027641081856)}",     # 3 * 2**61 * 2 bytes
    "f64[2,2]{1,0:T(2,2)L(3074457345618258603)}",  # wraps to a positive, wrong size
]
ORDINARY = [
    "f32[3]{0:T(2)L(4)}", "f32[2]{0:T(2)L(1152921504606846976)}",
    "bf16[16,128]{1,0:T(8,128)(2,1)}", "f32[3,5]{1,0:T(2,2)L(64)}",
    "f32[8,128]{1,0:T(8,128)}", "f32[10,6]{1,0:T(2,2)SC(0:3,5)}",
    "s8[5,7]{1,0:T(4,4)L(9223372036854775807)}",  # 1 * (2**63 - 1) bytes: no overflow
]


@pytest.mark.integration
def test_array_size_model_equals_the_binary_wrapped_values_included():
    from tilespec.xla import real
    texts = WRAPPING + ORDINARY
    measured = real.array_size(texts)
    assert None not in measured, list(zip(texts, measured))
    for text, size in zip(texts, measured):
        s = parse_array_shape(text)
        assert xla_array_bytes(s) == wrap64(size), (text, size)
        assert (array_size_behaviour(s) is not None) == (text in WRAPPING), text
