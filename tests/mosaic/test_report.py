"""``tilespec pallas --hlo``: XLA's layouts of a module's tpu_custom_call
operands against the ones Mosaic expects."""

from __future__ import annotations

import json

from tilespec.cli.main import main
from tilespec.mosaic import layouts_in_module
from tilespec.spec import format_shape

# the shape of libtpu 0.0.42.1's module for a copy kernel (tools/pallas_corpus.py)
MODULE = """HloModule jit_wrapped

ENTRY %main.1 (args_0_.1: f32[16,3072]) -> f32[16,3072] {
  %args_0_.1 = f32[16,3072]{1,0:T(2,128)} parameter(0), sharding={replicated}
  ROOT %tpu_custom_call.1 = f32[16,3072]{1,0:T(8,128)} custom-call(%args_0_.1), custom_call_target="tpu_custom_call", operand_layout_constraints={f32[16,3072]{1,0}}
}
"""


def test_the_operands_of_the_custom_call_are_read():
    assert [format_shape(s) for s in layouts_in_module(MODULE)] == [
        "f32[16,3072]{1,0:T(2,128)}"]
    assert layouts_in_module("HloModule m\n") == []


def pallas_with_module(module: str, tmp_path, capsys) -> tuple[int, dict]:
    path = tmp_path / "m.hlo"
    path.write_text(module)
    status = main(["pallas", "f32[16,3072]@8,128", "--hlo", str(path), "--json"])
    doc = json.loads(capsys.readouterr().out)
    (r,) = [r for r in doc["results"] if r["check"] == "mosaic-layout"]
    return status, r


def test_a_tiling_mosaic_takes_as_given_needs_no_copy(tmp_path, capsys):
    # libtpu takes XLA's T(2,128) for an f32 operand as it is (layouts.json.gz)
    status, r = pallas_with_module(MODULE, tmp_path, capsys)
    assert status == 0 and r["status"] == "proved" and r["data"]["copy_bytes"] == 0
    assert r["subject"]["target"] == "f32[16,3072]{1,0:T(2,128)}"


def test_a_tiling_mosaic_does_not_take_is_copied(tmp_path, capsys):
    # T(16,128) of f32 is more rows than Mosaic takes: XLA copies to T(8,128)
    status, r = pallas_with_module(MODULE.replace("T(2,128)", "T(16,128)"), tmp_path, capsys)
    assert status == 1 and r["status"] == "refuted"
    assert r["subject"] == {"source": "f32[16,3072]{1,0:T(16,128)}",
                            "target": "f32[16,3072]{1,0:T(8,128)}"}
    assert r["data"]["copy_bytes"] == 2 * 16 * 3072 * 4
