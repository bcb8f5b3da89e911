"""Machine integers: XLA computes dims, offsets and sizes in int64.

- dims that do not fit int64, or whose byte count overflows int64, are bad
  input, as in XLA (checked against the real XLA's shape constructor);
- ``regress`` never writes a wrong, negative or out-of-int64 expected value;
- generated C is proved with 64-bit semantics (see test_generated_int64).
"""

import pytest
from hypothesis import given, settings, strategies as st

from tilespec.spec.errors import ParseError, ShapeError, TilespecError
from tilespec.spec.layout import Shape

INT64_MAX = 2**63 - 1
from tilespec.spec.text import parse_array_shape

# --- dims at parse time ------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "f32[9223372036854775808]", "f32[3,18446744073709551616]{1,0}",
    "f32[3]{0:T(9223372036854775808)}"])
def test_a_number_beyond_int64_is_a_parse_error(text):
    with pytest.raises(ParseError, match="does not fit int64"):
        parse_array_shape(text)


def test_a_dim_beyond_int64_is_bad_input_in_the_constructor():
    with pytest.raises(ShapeError, match="does not fit int64"):
        Shape("s8", [2**63])
    assert Shape("s8", [INT64_MAX]).dims == (INT64_MAX,)


@pytest.mark.parametrize("text, ok", [
    ("f32[2305843009213693951]", True),            # 4 * dim = 2^63 - 4
    ("f32[2305843009213693952]", False),           # 4 * dim = 2^63
    ("s4[9223372036854775807]", True),             # s4 takes one byte in XLA
    ("c128[576460752303423487]", True),
    ("c128[576460752303423488]", False),
    ("f32[0,4611686018427387904,4611686018427387904]", True),
    ("f32[4611686018427387904,0]", False),          # XLA checks every partial product
    ("f32[m,4611686018427387904]", False),          # overflows for every m >= 1
    ("f32[m,1152921504606846976]", True),
])
def test_the_byte_count_must_fit_int64_as_in_xla(text, ok):
    if ok:
        parse_array_shape(text)
    else:
        with pytest.raises(ShapeError, match="overflow in static extent product"):
            parse_array_shape(text)


def test_the_cli_says_so_in_one_line_with_exit_2(capsys):
    from tilespec.cli import main
    assert main(["explain", "f32[9223372036854775808]"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "int64" in err
    assert main(["explain", "f32[4611686018427387904,4]"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "XLA rejects" in err


def _xla_dtypes():
    import ml_dtypes
    import numpy as np
    return {"pred": np.dtype(bool), "s8": np.dtype("int8"), "bf16": np.dtype(ml_dtypes.bfloat16),
            "f32": np.dtype("float32"), "c128": np.dtype("complex128"),
            "s4": np.dtype(ml_dtypes.int4)}


_NEAR = st.one_of(st.integers(0, 5), st.sampled_from([2**k for k in range(28, 63)]),
                  st.integers(2**30, INT64_MAX))


@pytest.mark.integration  # asks real XLA (jaxlib)
@settings(max_examples=150, deadline=None)
@given(st.sampled_from(["pred", "s8", "bf16", "f32", "c128", "s4"]),
       st.lists(_NEAR, min_size=1, max_size=4))
def test_shape_acceptance_agrees_with_real_xla(element_type, dims):
    pytest.importorskip("jax")
    from jax._src.lib import xla_client
    dtype = _xla_dtypes()[element_type]
    try:
        xla_client.Shape.array_shape(dtype, tuple(dims))
        xla_ok = True
    except Exception as e:       # XLA's own error: "overflow in static extent product"
        assert "overflow" in str(e)
        xla_ok = False
    try:
        Shape(element_type, dims)
        ours = True
    except TilespecError:
        ours = False
    assert ours == xla_ok, (element_type, dims)


# --- regress: exact int64 expected values ----------------------------------------------

#: 2^60 elements, 2^62 bytes: valid in XLA, and o * 32 bits overflows int64.
BIG = "f32[1099511627776,1048576]{1,0}"
#: 2^60 elements in (8,128)(2,1) tiles: the exact (Python int) path.
BIG_TILED = "bf16[1073741824,1073741825]{1,0:T(8,128)(2,1)}"
#: valid in XLA (2^57 bytes dense), but padded to 2^64 elements.
PADDED_PAST_INT64 = "s8[144115188075855872,1]{1,0:T(1,128)}"


def _suite(text, count=64):
    from tilespec.prover.regress.cases import generate
    return generate([parse_array_shape(text)], count=count, seed=3)


@pytest.mark.parametrize("text", [BIG, BIG_TILED])
def test_regress_values_are_exact_for_arrays_near_int64(text):
    from tilespec.spec.index import locate, offset
    from tilespec.spec.size import bit_range, byte_size
    s = parse_array_shape(text)
    suite = _suite(text)
    r = suite.random[0]
    assert len(r) == 64
    for e, ok, o, b in zip(r.elements.tolist(), r.is_element.tolist(),
                           r.offsets.tolist(), r.byte_offsets.tolist()):
        assert 0 <= b < byte_size(s) and b == bit_range(s, o)[0] // 8, (o, b)
        if ok:
            assert offset(s, e) == o
        else:
            assert locate(s, o) is None
    for c in suite.cases:
        if c.kind == "offset":
            assert c.byte_offset == c.offset * s.element_bits // 8 >= 0
        else:
            assert c.extra["byte_size"] == byte_size(s) <= INT64_MAX


def test_regress_refuses_a_shape_whose_padded_size_is_beyond_int64(capsys):
    with pytest.raises(TilespecError, match="beyond int64"):
        _suite(PADDED_PAST_INT64)
    from tilespec.cli import main
    assert main(["regress", PADDED_PAST_INT64, "--count", "4"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "2^63" in err


def test_gtest_writes_only_int64_literals():
    import re

    from tilespec.prover.regress.formats import _int64, gtest_source
    text = gtest_source(_suite(BIG, count=16))
    numbers = [int(x) for x in re.findall(r"(?<![\w.])-?\d+(?![\w.])", text)]
    assert max(numbers) >= 2**62 and all(-(2**63) <= n <= INT64_MAX for n in numbers)
    assert "int64_t offset;" in text and "expected offset" in text
    with pytest.raises(TilespecError, match="int64"):
        _int64(2**63)
    assert _int64(-(2**63)) == "(-9223372036854775807 - 1)"


def test_generated_pytest_module_holds_for_arrays_near_int64():
    """The module's own checks run on exact ints (numpy's o * bits overflowed)."""
    from tilespec.prover.regress.formats import pytest_module
    namespace: dict = {}
    exec(compile(pytest_module(_suite(BIG, count=16)), "<regress>", "exec"), namespace)
    for shape in namespace["RANDOM"]:
        namespace["test_random"](shape)
    for row in namespace["BOUNDARY"]:
        namespace["test_boundary"](row)
    for row in namespace["SIZES"]:
        namespace["test_size"](row)
    assert namespace["SIZES"]
