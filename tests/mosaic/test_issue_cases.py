"""The five cases issue 34 reports, through ``tilespec pallas`` (the
command and its ``--json``): each reproduced -- by the recorded compiler
where it runs here -- and explained."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from tilespec.cli.main import main
from tilespec.mosaic import VectorLayout
from tilespec.mosaic.messages import read_message

DATA = Path(__file__).resolve().parent.parent / "data" / "pallas"


def run(argv, capsys) -> tuple[int, dict]:
    status = main(["pallas", *argv, "--json"])
    return status, json.loads(capsys.readouterr().out)


def layout_entries(doc) -> list:
    return [r for r in doc["results"] if r["check"] == "mosaic-layout"]


def test_pytorch_xla_8732_one_size_two_orders(capsys):
    # f32[16,3072]: XLA's {1,0:T(128)S(1)} against Mosaic's {1,0:T(8,128)S(1)},
    # 196,608 bytes each, the elements in another order
    status, doc = run(["--error", str(DATA / "8732.txt")], capsys)
    assert status == 1
    (r,) = layout_entries(doc)
    assert r["subject"] == {"source": "f32[16,3072]{1,0:T(128)S(1)}",
                            "target": "f32[16,3072]{1,0:T(8,128)S(1)}"}
    assert r["status"] == "refuted"
    assert r["counterexample"]["elements"] == {"source": [0, 128], "target": [0, 128]}
    assert "byte 512 in XLA's layout but at byte 4096" in r["data"]["sentence"]
    assert r["data"]["copy_bytes"] == 2 * 196_608
    fixes = {f["shape"]: f["status"] for f in r["data"]["fixes"]}
    # the rank-1 view f32[49152]{0:T(128)} keeps the elements in place, but
    # Mosaic's rule tiles a rank-1 f32[49152] T(1024): it is not proposed
    assert fixes == {"f32[16,3072]{1,0:T(8,128)S(1)}": "proved"}


def test_jax_34001_a_lane_offset_of_128_is_invalid():
    m = read_message("INTERNAL: Mosaic failed to compile TPU kernel: Invalid input layout")
    assert m.check == "invalid-input-layout" and "isValid" in m.meaning
    # the layout of the report: offsets (0, 128) of an f32 (8,128) tiling
    assert not VectorLayout(32, (0, 128), (8, 128)).is_valid()
    assert VectorLayout(32, (0, 0), (8, 128)).is_valid()


def test_jax_39366_a_join_that_does_not_exist_is_an_abort():
    m = read_message("F0000 layout.cc:612] Check failed: join.has_value()")
    assert m.check == "abort"
    rank1 = VectorLayout(32, (0, 0), (1, 128)).join(VectorLayout(32, (0, 0), (8, 128)), (1, 256))
    assert rank1 is None


def test_vllm_tpu_inference_2506_a_zero_size_operand(capsys):
    # s32[0]: the compiler refuses the kernel (recorded), though any layout of
    # it is 0 bytes: the layouts are one (proved), only the block is refused
    corpus = json.load(gzip.open(DATA / "corpus.json.gz", "rt"))
    (k,) = [k for k in corpus["kernels"] if k["shape"] == [0] and k["dtype"] == "s32"
            and k["chip"] == "v5e"]
    assert not k["accepted"]
    status, doc = run(["s32[0]@0"], capsys)
    assert status == 1 and doc["results"][0]["data"]["check"] == "zero-size"
    from tilespec.mosaic import compare_layouts
    from tilespec.spec import parse_array_shape as shape
    m = compare_layouts(shape("s32[0]{0:T(256)}"), shape("s32[0]{0:T(1024)}"))
    assert m.same_order.status == "proved" and m.copy_bytes == 0


def test_does_not_match_try_changing_your_block_shape(capsys):
    # libtpu 0.0.42.1 on v5e, a copy whose input XLA tiles T(128) (recorded)
    text = (DATA / "does_not_match.txt").read_text()
    status, doc = run(["f32[16,3072]@8,128", "--error", str(DATA / "does_not_match.txt")],
                      capsys)
    head = doc["results"][0]["data"]
    assert head["message_check"] == "layout-mismatch"
    assert "Try changing your kernel block shape to (128)" in text
    assert any("reads XLA's 1-d tile T(128)" in n for n in head["notes"])
    (r,) = layout_entries(doc)
    assert r["subject"]["target"] == "f32[16,3072]{1,0:T(128,128)}"
    statuses = {f["shape"]: f["status"] for f in r["data"]["fixes"]}
    assert statuses == {"f32[16,3072]{1,0:T(8,128)}": "recorded"}
    # the record: XLA's T(8,128) given, the copy compiles with no copy of its input
    layouts = json.load(gzip.open(DATA / "layouts.json.gz", "rt"))["kernels"]
    (k,) = [k for k in layouts if k["chip"] == "v5e" and k["dtype"] == "f32"
            and k["shape"] == [16, 3072] and k["block"] == [8, 128]
            and k["tiling"] == [[8, 128]]]
    assert k["accepted"] and k["copies"] == 0
    (k,) = [k for k in layouts if k["chip"] == "v5e" and k["dtype"] == "f32"
            and k["shape"] == [16, 3072] and k["block"] == [8, 128] and k["tiling"] == [[128]]]
    assert not k["accepted"] and k["message"].strip().endswith(text.strip().split(": ", 2)[-1])


def test_a_block_check_names_the_nearest_blocks_that_compile(capsys):
    status, doc = run(["f32[16,3072]@4,128"], capsys)
    data = doc["results"][0]["data"]
    assert status == 1 and data["check"] == "pallas-block-shape"
    assert data["nearest_blocks"][0] == [8, 128]
