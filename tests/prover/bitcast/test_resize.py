"""Bitcasts between other element types, widths and counts: XLA's rule and
the readings that pair their elements.

``ShapeVerifier::HandleBitcast`` (xla/service/hlo_verifier.cc, ROCm/xla
183fa00cb5d82384463a1a7aed1ab06bc9026974) requires equal byte sizes and
nothing about element types or counts.  A bitcast between other byte sizes
is refuted naming that rule; otherwise a reading must keep every element's
bits: a reshape of positions (equal widths), a reshape of the narrower
type's units (other widths), a prefix or suffix (other counts).
"""

from __future__ import annotations

import pytest
from locations import DATA

import tilespec
from tilespec.cli.main import main
from tilespec.prover.bitcast import decompose
from tilespec.prover.hlo.check import check_module
from tilespec.prover.hlo.module import parse_hlo
from tilespec.spec.index import offset
from tilespec.spec.text import parse_array_shape as shape

#: Another element type at equal width: the readings pair positions.
EQUAL_WIDTH = [
    ("f32[8,16]{1,0}", "s32[8,16]{1,0}"),
    ("u8[16]{0}", "s8[4,4]{1,0}"),
    ("s32[]", "f32[1]{0}"),
    ("pred[8,128]{1,0:T(8,128)E(32)}", "s32[8,128]{1,0:T(8,128)}"),
    ("s4[8]{0:E(4)}", "u4[8]{0:E(4)}"),
    ("f8e4m3fn[4,8]{1,0}", "s8[32]{0}"),
]

#: Equal bytes, another width: a reshape of the narrower type's units.
OTHER_WIDTH = [("f32[8,16]{1,0}", "f16[8,32]{1,0}"), ("s8[4,8]{1,0}", "s32[8]{0}")]


def check_hlo_rules(src: str, dst: str) -> dict:
    report = check_module(parse_hlo(f"""HloModule m
ENTRY e {{
  p = {src} parameter(0)
  ROOT b = {dst} bitcast(p)
}}"""))
    return {f.rule: f for f in report.findings if f.instruction == "b"}


@pytest.mark.parametrize("src,dst", EQUAL_WIDTH)
def test_another_element_type_at_equal_width_is_a_reading_of_positions(src, dst):
    d = decompose(shape(src), shape(dst))
    assert (d.status, d.kind) == ("proved", "reshape")
    assert any("pairs element positions" in s for s in d.verdict.steps)
    assert set(check_hlo_rules(src, dst)) == {"bitcast-proved"}


@pytest.mark.parametrize("src,dst", OTHER_WIDTH)
def test_another_width_at_equal_bytes_is_a_reshape_of_the_narrower_units(src, dst):
    d = decompose(shape(src), shape(dst))
    assert (d.status, d.kind) == ("proved", "reshape")
    assert d.verdict.property.endswith(" units)")
    assert "is a reshape of" in check_hlo_rules(src, dst)["bitcast-proved"].message


def test_a_width_change_no_reshape_explains_is_unknown_not_an_error():
    # the bf16 (2,1) tile packs row pairs: the reshape of units moves them,
    # but a transpose after the bitcast-convert's minor dim is not modelled
    src, dst = "f32[16,128]{1,0:T(8,128)}", "bf16[16,256]{1,0:T(8,128)(2,1)}"
    d = decompose(shape(src), shape(dst))
    assert d.status == "unknown" and d.result("reshape").status == "refuted"
    assert check_hlo_rules(src, dst)["bitcast-unknown"].level == "warning"


def test_the_tpu_cumsum_prefix_is_proved_and_names_the_padding():
    d = decompose(shape("f32[1024]{0:T(1024)}"), shape("f32[1000]{0:T(1024)}"))
    assert (d.status, d.kind) == ("proved", "prefix")
    assert "SRC elements 1000.. lie on the padding of DST" in d.verdict.steps


def test_a_prefix_may_read_fewer_elements_than_the_operand_holds():
    d = decompose(shape("f32[8]{0}"), shape("f32[6]{0:L(8)}"))
    assert (d.status, d.kind) == ("proved", "prefix")
    assert "SRC elements 6.. lie on the padding of DST" in d.verdict.steps


def test_a_count_change_that_moves_elements_is_refuted_with_a_replayed_element():
    d = decompose(shape("f32[2,4]{0,1}"), shape("f32[6]{0:L(8)}"))
    ce = d.counterexample
    assert d.status == "refuted" and ce.what == "the offsets differ"
    assert [n for n, _ in d.tried] == ["prefix", "suffix"]
    assert ce.side("source").byte_offset != ce.side("target").byte_offset


@pytest.mark.parametrize("src,dst", [("f32[4]{0}", "f32[2]{0}"),
                                     ("f32[8,16]{1,0}", "bf16[8,16]{1,0}"),
                                     ("f32[2,2,2,3]{3,2,1,0}", "f32[5,5]{1,0}")])
def test_other_byte_sizes_are_one_verdict_naming_xla_rule(src, dst, capsys):
    d = decompose(shape(src), shape(dst))
    assert d.status == "refuted" and "HandleBitcast" in d.reason
    assert tilespec.bitcast(src, dst).status == "refuted"
    assert main(["bitcast", src, dst]) == 1
    assert "the byte sizes differ" in capsys.readouterr().out
    assert check_hlo_rules(src, dst)["bitcast-size-mismatch"].level == "error"


def test_the_tpu_cumsum_module_has_no_error():
    text = (DATA / "hlo" / "tpu_v5e_cumsum.hlo").read_text()
    report = check_module(parse_hlo(text))
    assert report.status == "proved", [f.message for f in report.findings
                                      if f.level != "note"]
    prefix = [f for f in report.findings if f.rule == "bitcast-proved"
              and "is a prefix: proved" in f.message]
    assert [f.instruction for f in prefix] == ["bitcast.4"]


def test_the_tpu_transpose_slice_is_proved_as_a_slice_in_physical_order():
    # every TPU compiler (libtpu 0.0.42.1) folds x.T.reshape(-1)[:1000] of a
    # u4[40,50] into a bitcast to u4[25,40]{0,1}: both are 40 physical rows
    # of 128 padded columns; neither prefix nor suffix pairs their elements
    text = (DATA / "hlo" / "tpu_v5e_transpose_slice.hlo").read_text()
    report = check_module(parse_hlo(text))
    assert report.status == "proved", [f.message for f in report.findings
                                      if f.level != "note"]
    d = decompose(shape("u4[40,50]{1,0:T(8,128)(8,1)E(4)}"),
                  shape("u4[25,40]{0,1:T(8,128)(8,1)E(4)}"))
    assert (d.status, d.kind) == ("proved", "slice")
    assert [n for n, _ in d.tried] == ["prefix", "suffix", "slice"]


def test_a_slice_that_moves_elements_is_refuted_with_a_replayed_element():
    src, dst = shape("f32[4,4]{1,0:T(2,4)}"), shape("f32[4,3]{1,0:T(4,2)}")
    d = decompose(src, dst)
    assert d.status == "refuted"
    ce = d.result("slice").counterexample
    s, t = ce.side("source"), ce.side("target")
    assert s.element == t.element and s.offset == offset(src, s.element) \
        and t.offset == offset(dst, t.element) and s.offset != t.offset


@pytest.mark.parametrize("src,dst", [
    ("opaque[]", "f8e4m3fn[0,99,8]{0,1,2:E(16)}"),     # found by the CLI fuzzer (seed 2316684263)
    ("f32[0]{0}", "opaque[]"),
    ("token[]", "s4[0]{0}")])
def test_a_type_without_an_element_width_beside_an_empty_array_is_unknown(src, dst):
    r = tilespec.bitcast(src, dst)
    assert r.status == "unknown" and "no element width" in r.reason
