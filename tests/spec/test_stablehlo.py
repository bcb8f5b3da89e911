"""StableHLO's custom_call ``result_layouts``/``result_tilings`` (XLA
1f1d2e8769, StableHLO 1.18.0) read into XLA shapes and printed back as MLIR
prints them."""

import json
import re

import pytest
from hypothesis import given, settings

from tilespec.cli import EXIT_BAD_INPUT, main
from tilespec.spec import (
    StablehloError,
    custom_call_attributes,
    custom_call_shapes,
    format_shape,
    print_result_tilings,
    read_custom_call,
    read_result_tilings,
)
from tilespec.testing.strategies import shapes_with_layout

#: jax's test_with_layout_constraint_with_tiling (tests/layout_test.py) checks
#: this text in a LayoutConstraint's lowering.
JAX_TILINGS = "[[dense<[16, 128]> : tensor<2xindex>, dense<[2, 1]> : tensor<2xindex>]]"
#: StableHLO's own test (vhlo custom_call_v2, target 1.17.0 refuses it).
STABLEHLO_OP = ('%0 = "stablehlo.custom_call"(%arg0) {call_target_name = "foo", '
                'operand_layouts = [dense<[1, 0]> : tensor<2xindex>], '
                'result_layouts = [dense<[1, 0]> : tensor<2xindex>], '
                'result_tilings = [[dense<[8, 128]> : tensor<2xindex>]]} '
                ': (tensor<64x256xf32>) -> tensor<64x256xf32>')


@pytest.mark.parametrize("text", [
    JAX_TILINGS, "[]", "[[]]", "[[dense<8> : tensor<2xindex>], []]",
    "[[dense<128> : tensor<1xindex>, dense<[4, -9223372036854775808]> : tensor<2xindex>]]",
])
def test_mlir_text_round_trips_exactly(text):
    assert print_result_tilings(read_result_tilings(text)) == text


def test_a_tile_of_equal_entries_is_a_splat():
    (tiles,) = read_result_tilings("[[dense<8> : tensor<2xindex>]]")
    assert tiles[0].sizes == (8, 8)
    assert print_result_tilings([tiles]) == "[[dense<8> : tensor<2xindex>]]"


def test_the_custom_calls_of_the_tests_read_as_xla_shapes():
    (s,) = read_custom_call(STABLEHLO_OP)
    assert format_shape(s) == "f32[64,256]{1,0:T(8,128)}"
    (s,) = custom_call_shapes("tensor<64x256xbf16>", "[dense<[0, 1]> : tensor<2xindex>]",
                              JAX_TILINGS)
    assert format_shape(s) == "bf16[64,256]{0,1:T(16,128)(2,1)}"


@pytest.mark.parametrize("layouts,tilings,why", [
    ("[]", "[]", "1 != 0"),
    ("[dense<[1, 0]> : tensor<3xindex>]", "[]", "3xindex"),
    ("[dense<[1, 0]> : tensor<2xindex>]", "[[dense<[8, 0]> : tensor<2xindex>]]", "tile (8,0)"),
    ("[dense<[1, 1]> : tensor<2xindex>]", "[]", "result 0"),
])
def test_bad_attributes_are_one_line_errors(layouts, tilings, why):
    with pytest.raises(StablehloError, match=re.escape(why)):
        custom_call_shapes("tensor<8x128xf32>", layouts, tilings)


def test_one_result_takes_the_first_tiling_and_xla_checks_no_count():
    # mlir_hlo_to_hlo.cc (ROCm/xla 183fa00cb5), SetLayout of a non-tuple
    # result: tiling = (*tilings)[0] when tilings is non-empty, no CHECK on
    # the count (CHECK_EQ(tilings->size(), ...) is in the tuple branch only);
    # CustomCallOp::verify compares the layouts' count, not the tilings'.
    one = "[dense<[1, 0]> : tensor<2xindex>]"
    (s,) = custom_call_shapes("tensor<8x128xf32>", one, "[[], []]")
    assert format_shape(s) == "f32[8,128]{1,0}"
    (s,) = custom_call_shapes("tensor<8x128xf32>", one,
                              "[[dense<[8, 128]> : tensor<2xindex>], []]")
    assert format_shape(s) == "f32[8,128]{1,0:T(8,128)}"
    with pytest.raises(StablehloError, match=re.escape("CHECK_EQ(tilings")):
        custom_call_shapes(["tensor<8x128xf32>"] * 2, f"[{one[1:-1]}, {one[1:-1]}]",
                           "[[], [], []]")


@settings(max_examples=40, deadline=None)
@given(shapes_with_layout(max_rank=3, max_dim=8))
def test_shape_to_attributes_and_back_keeps_order_and_tiles(s):
    if s.layout.tiles and any(d is None for d in s.dims):
        return
    layouts, tilings = custom_call_attributes([s])
    dims = "x".join(map(str, s.dims))
    t = f"tensor<{dims}{'x' if dims else ''}{s.element_type}>"
    (back,) = custom_call_shapes(t, layouts, tilings)
    assert back.layout.minor_to_major == s.layout.minor_to_major
    assert back.layout.tiles == s.layout.tiles
    assert custom_call_attributes([back]) == (layouts, tilings)


def test_the_command_reads_and_prints(capsys):
    assert main(["stablehlo-tiling", STABLEHLO_OP]) == 0
    out = capsys.readouterr().out
    assert "result 0       f32[64,256]{1,0:T(8,128)}" in out
    assert "equal the input" in out
    assert main(["stablehlo-tiling", "--shape", "bf16[64,256]{0,1:T(16,128)(2,1)}",
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)["results"][0]["data"]
    assert data["result_tilings"] == JAX_TILINGS
    assert main(["stablehlo-tiling", "result_layouts = [dense<[1, 0> : tensor<2xindex>] "
                 "-> tensor<8x3xf32>"]) == EXIT_BAD_INPUT
