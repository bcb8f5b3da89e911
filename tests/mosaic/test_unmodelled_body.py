"""A verdict about a kernel body the model does not cover is ``unknown``,
never "compiles": a message about lowering another body (a gather), a
kernel read from a message, ``--kernel blocks``.  Where the model covers
the body the message is about, its verdict stands."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from tilespec.cli.main import main
from tilespec.mosaic import Kernel, Operand, pallas_report

DATA = Path(__file__).resolve().parent.parent / "data" / "pallas"


def recorded_message(kernel: str, chip: str = "v5e", name: str = "issues.json.gz", **fields) -> str:
    corpus = json.load(gzip.open(DATA / name, "rt"))
    return next(k["message"] for k in corpus["kernels"] if k["kernel"] == kernel
                and k["chip"] == chip and all(k[f] == v for f, v in fields.items()))


def pallas(argv, capsys) -> tuple[int, str, dict]:
    status = main(["pallas", *argv])
    text = capsys.readouterr().out
    main(["pallas", *argv, "--json"])
    return status, text, json.loads(capsys.readouterr().out)["results"][0]


@pytest.fixture
def gather(tmp_path) -> str:
    # libtpu 0.0.42.1's refusal of jax-ml/jax#39366's rank-1 gather
    path = tmp_path / "gather.txt"
    path.write_text(recorded_message("jax-39366-take"))
    return str(path)


@pytest.mark.parametrize("kernel", [[], ["--kernel", "copy"]])
def test_a_gather_message_is_no_verdict_on_a_copy(gather, kernel, capsys):
    status, text, entry = pallas(["f32[128]@128", "--error", gather, *kernel], capsys)
    (verdict,) = [ln for ln in text.splitlines() if ln.startswith("verdict")]
    assert verdict.startswith("verdict    unknown: ") and "compiles" not in verdict
    assert status == 1
    assert entry["status"] == "unknown" and entry["reason"]
    assert entry["data"]["outcome"] == "unknown" and entry["data"]["compiles"] is None


def test_the_python_report_on_a_gather_message_is_unknown(gather):
    kernel = Kernel("copy", (Operand((128,), "f32", (128,)),), "v5e")
    report = pallas_report(kernel, error=Path(gather).read_text())
    assert report.verdict.accepted          # the model's copy compiles...
    assert report.outcome == "unknown"      # ...which says nothing of the gather
    assert "tpu.dynamic_gather" in report.unknown


def test_a_kernel_read_from_a_message_is_judged_as_the_message_lays_it_out(capsys):
    # pytorch/xla#8732: the operand read from the message (no body given: the
    # block checks only), laid out T(128) as XLA laid it, not by Mosaic's rule;
    # libtpu 0.0.42.1 aborts on that layout with a whole-array block
    # (layouts.json.gz), so the model does, and says the message differs
    status, text, entry = pallas(["--error", str(DATA / "8732.txt")], capsys)
    assert entry["data"]["kernel"] == "blocks"
    assert entry["data"]["outcome"] == "does not compile" and entry["data"]["check"] == "abort"
    assert status == 1 and "verdict    compiles" not in text
    assert any(n.startswith("the message reports layout-mismatch, but the model")
               for n in entry["data"]["notes"])


def test_no_block_shape_is_offered_for_a_tiling_no_block_fixes(capsys):
    # XLA's T(128) of a rank-2 operand is read as (128,128) by libtpu
    # 0.0.42.1: the nearest blocks keep that tiling, and none passes
    status, text, entry = pallas(["f32[16,3072]@8,128", "--kernel", "copy", "--error",
                                  str(DATA / "does_not_match.txt")], capsys)
    assert entry["data"]["check"] == "layout-mismatch"
    assert entry["data"]["nearest_blocks"] == []


def test_block_checks_alone_are_no_verdict_on_the_body(capsys):
    status, text, entry = pallas(["f32[16,3072]@8,128", "--kernel", "blocks"], capsys)
    assert status == 1 and entry["data"]["outcome"] == "unknown"
    # a block the checks refuse is refused whatever the body
    status, text, entry = pallas(["f32[16,3072]@4,128", "--kernel", "blocks"], capsys)
    assert entry["data"]["outcome"] == "does not compile"
    assert entry["data"]["check"] == "pallas-block-shape"


def test_a_modelled_body_keeps_its_verdict(tmp_path, capsys):
    # a copy without a message compiles; an s4 reshape the compiler refused
    # with the shape cast the model predicts is refused, not unknown
    status, text, entry = pallas(["f32[16,3072]@8,128"], capsys)
    assert status == 0 and entry["data"]["outcome"] == "compiles"
    (tmp_path / "e.txt").write_text(recorded_message(
        "reshape", name="corpus.json.gz", dtype="s4", shape=[16, 3072], block=[16, 3072]))
    status, text, entry = pallas(["s4[16,3072]@16,3072", "--kernel", "reshape",
                                  "--error", str(tmp_path / "e.txt")], capsys)
    assert entry["data"]["outcome"] == "does not compile"
    assert entry["data"]["check"] == entry["data"]["message_check"] == "shape-cast"


def test_a_message_about_another_operand_or_block_is_named(capsys):
    # E2002 names block (16,128); the operand given has (8,128): the
    # verdict is about the blocks given, and tilespec says so
    status, text, entry = pallas(["s8[32,512]@8,128", "--error", str(DATA / "e2002.txt")], capsys)
    assert ("the message is about a block (..., 16, 128), which no operand given has: the "
            "verdict is about the blocks given") in entry["data"]["notes"]
    status, text, entry = pallas(["f32[16,1024]@8,128", "--error", str(DATA / "8732.txt")], capsys)
    assert ("the message is about an operand f32[16,3072], which none given is: the verdict "
            "is about the operands given") in entry["data"]["notes"]
    # the operand the message is about: no such note
    status, text, entry = pallas(["s8[32,512]@16,128", "--error", str(DATA / "e2002.txt")],
                                 capsys)
    assert not any(n.startswith("the message is about") for n in entry["data"]["notes"])
