"""The model of Mosaic judged off the recorded grids: tests/data/pallas/
offgrid.json.gz holds ~600 kernels libtpu 0.0.42.1 compiled for v4, v5e,
v5p and v6e (random kinds, types, shapes and blocks; whole-array 8- and
4-bit copies of 1 to 256 columns; blocks fewer rows than the large tiling;
flattened blocks of one column), made by ``tools/pallas_corpus.py --grid
offgrid``.  The replay needs no libtpu.
"""

from __future__ import annotations

from test_mosaic_corpus import disagreements, recorded, without_memory_space

from tilespec.mosaic import Kernel, Operand, predict


def _offgrid() -> list:
    return recorded("offgrid.json.gz")["kernels"]


def test_the_model_predicts_every_verdict_and_check_off_the_grid():
    bad = [b for b in disagreements(_offgrid()) if not b[5].startswith("model [")]
    assert not bad, f"{len(bad)} disagreements, first: {bad[:5]}"


def test_the_only_layouts_missed_off_the_grid_are_outputs_xla_already_tiles_large():
    # where XLA's entry layout is already the large tiling (no copies),
    # libtpu gives the output that tiling whatever its columns; the model
    # predicts an output's large tiling only where it divides the columns
    # (docs/pallas.md, "What is modelled")
    missed = {(b[1], b[2], tuple(b[3]), tuple(b[4])) for b in disagreements(_offgrid())
              if b[5].startswith("model [")}
    kernels = {(k["chip"], k["dtype"], tuple(k["shape"]), tuple(k["block"])): k
               for k in _offgrid()}
    for key in missed:
        k = kernels[key]
        v = predict(Kernel(k["kernel"], (Operand(k["shape"], k["dtype"], k["block"]),),
                           k["chip"]))
        operand, result = (without_memory_space(t) for t in (k["operands"][0], k["result"]))
        assert k["copies"] == 0 and operand == result, key
        assert v.layouts[0] == operand and v.layouts[-1] != result, key
    assert len(missed) <= 12


def test_an_8_bit_input_of_16_columns_takes_the_large_tiling():
    # libtpu 0.0.42.1: s8[64,16] is tiled (32,128) whatever its columns'
    # tiling divides, so a 16-row block fails E2002; s8[64,15] is tiled 8 rows
    wide = predict(Kernel("copy", (Operand((64, 16), "s8", (16, 16)),), "v5e"))
    narrow = predict(Kernel("copy", (Operand((64, 15), "s8", (8, 15)),), "v5e"))
    assert wide.check == "misaligned-block-E2002" and "(32, 128)" in wide.reason
    assert narrow.accepted and "T(8,128)" in narrow.layouts[0]


def test_a_block_of_one_column_flattens_from_v5_on():
    # a column flattens by a sublane gather, which v4 lacks; one element
    # needs none
    def verdict(chip, shape, block):
        v = predict(Kernel("reshape", (Operand(shape, "bf16", block),), chip))
        return v.accepted or v.check
    assert [verdict(chip, (64, 1), (16, 1)) for chip in ("v4", "v5e", "v5p", "v6e")] == [
        "not-implemented", True, True, True]
    assert verdict("v4", (1, 1), (1, 1)) is True
