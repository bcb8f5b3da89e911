"""One f6 buffer, two sizes: XLA stores ``f6e2m3fn``/``f6e3m2fn`` in 8 bits
(``PrimitiveTypeBitWidth``, xla/primitive_util.h, since 1e42a8527c: an F6
type is no ``IsMXType``, so it counts ``sizeof`` of its native type), IFRT in
6 (``DType::bit_size``, xla/python/ifrt/dtype.cc, since 70fe66213b;
``CompactLayout::ByteSize`` packs ``ceil(N * bits / 8)``)."""

import pytest

from tilespec.cli import main
from tilespec.spec import (
    byte_size,
    ifrt_compact_byte_size,
    storage_sizes,
)
from tilespec.spec.dtypes import bit_width, ifrt_bit_size, storage_bits, xla_bit_width
from tilespec.spec.text import parse_array_shape as shape


@pytest.mark.parametrize("t", ["f6e2m3fn", "f6e3m2fn"])
def test_xla_counts_8_bits_and_ifrt_6(t):
    # dtype_test.cc's BitSize table (70fe66213b) and XLA's sizeof rule (1e42a8527c)
    assert (bit_width(t), xla_bit_width(t), storage_bits(t), ifrt_bit_size(t)) == (6, 8, 8, 6)


def test_the_two_sizes_of_one_buffer():
    s = shape("f6e2m3fn[100]{0}")
    assert byte_size(s) == 100 and ifrt_compact_byte_size(s) == 75
    xla, ifrt = storage_sizes(s)
    assert "8 bits" in xla and "100 bytes" in xla
    assert "75 bytes" in ifrt and "they disagree" in ifrt


def test_packed_e6_makes_them_agree():
    (_, ifrt) = storage_sizes(shape("f6e3m2fn[100]{0:E(6)}"))
    assert "they agree" in ifrt


@pytest.mark.parametrize("xla,lines", [("2026-06-02", 1), ("2026-06-20", 2), (None, 2)])
def test_the_sizes_by_xla_version(xla, lines):
    got = storage_sizes(shape("f6e2m3fn[8]{0}"), xla=xla)
    assert len(got) == lines
    if xla == "2026-06-02":
        assert "no XLA type before 1e42a8527c" in got[0]
    if xla == "2026-06-20":
        assert "IFRT has no f6e2m3fn kind before 70fe66213b" in got[1]


def test_other_types_have_one_size():
    assert storage_sizes(shape("s4[8]{0}")) == storage_sizes(shape("f32[8]{0}")) == ()


def test_explain_and_padding_name_the_ifrt_disagreement(capsys):
    assert main(["explain", "f6e2m3fn[8,10]{1,0}"]) == 0
    out = capsys.readouterr().out
    assert "CompactLayout::ByteSize is 60 bytes where XLA's elements take 80" in out
    assert main(["padding", "f6e2m3fn[8,10]{1,0}"]) == 0
    assert "IFRT counts 6 bits" in capsys.readouterr().out
