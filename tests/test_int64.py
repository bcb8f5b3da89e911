"""Machine integers: XLA computes dims, offsets and sizes in int64.

- dims that do not fit int64, or whose byte count overflows int64, are bad
  input, as in XLA (checked against the real XLA's shape constructor);
- ``regress`` never writes a wrong, negative or out-of-int64 expected value;
- generated C is proved with 64-bit semantics (see test_generated_int64).
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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
