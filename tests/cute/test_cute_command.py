"""``tilespec cute``: the export, ``--compare`` and ``--from``, with their
exit statuses (0 proved, 1 refuted, 2 bad input, 3 unknown)."""

import json

import pytest

from tilespec.cli import main

TILED = "((8,3),(128,2)):((128,2048),(1,1024))"


def run(argv, capsys):
    status = main(argv)
    out = capsys.readouterr()
    return status, out.out, out.err


def test_the_export_prints_the_cute_layout(capsys):
    assert run(["cute", "f32[24,256]{1,0:T(8,128)}"], capsys) == (0, TILED + "\n", "")
    status, out, _ = run(["cute", "bf16[m,n]{1,0:T(8,128)(2,1)}", "--dims", "m=16,n=300"],
                         capsys)
    assert (status, out) == (0, "((2,4,2),(128,3)):((1,256,3072),(2,1024))\n")


def test_a_refusal_is_one_line_with_the_reason(capsys):
    status, out, err = run(["cute", "f32[3,5]{1,0:T(2,2)(3,1)}"], capsys)
    assert status == 2 and out == "" and err.count("\n") == 1
    assert "no exact CuTe layout" in err and "pads inside a tile" in err


def test_compare_proves_or_gives_the_first_element(capsys):
    status, out, _ = run(["cute", "--compare", "f32[24,256]{1,0:T(8,128)}", TILED], capsys)
    assert status == 0 and out.startswith("equal: proved")
    status, out, _ = run(["cute", "--compare", "f32[24,256]{1,0}", TILED], capsys)
    assert status == 1 and "spec: element (0, 128), offset 128" in out
    assert "cute: element (0, 128), offset 1024" in out


def test_compare_unknown_is_exit_3(capsys, monkeypatch):
    import tilespec.cute.proofs.xla_equality as xe
    monkeypatch.setattr(xe, "search", lambda *a, **k: ("unknown", "solver gave up: timeout"))
    status, out, _ = run(["cute", "--compare", "f32[24,256]{1,0:T(8,128)}", TILED], capsys)
    assert status == 3 and "reason: solver gave up" in out


def test_from_reads_the_xla_layout(capsys):
    status, out, _ = run(["cute", "--from", TILED, "f32[24,256]"], capsys)
    assert (status, out) == (0, "f32[24,256]{1,0:T(8,128)}\n")


@pytest.mark.parametrize("argv,words", [
    (["cute", "--compare", "f32[3,5]{1,0}", "(3,5):(5,1"], "column 11"),
    (["cute", "--compare", "f32[3,5]{1,0}"], "the CuTe layout is missing"),
    (["cute", "f32[3,5]{1,0}", "(3,5):(5,1)"], "without --compare"),
    (["cute", "--from", "(3,5):(1,4)", "f32[3,5]"], "not compact"),
    (["cute", "--compare", "f32[3,5]{1,0}", "(2,5):(5,1)"], "fewer than the 3"),
    (["cute", "f32[m,5]{1,0}"], "--dims"),
])
def test_bad_input_is_one_line_exit_2(argv, words, capsys):
    status, out, err = run(argv, capsys)
    assert status == 2 and words in err and err.count("\n") == 1 and "Traceback" not in err


def test_json_holds_the_proof_and_the_layouts(capsys):
    status, out, _ = run(["cute", "--compare", "f32[24,256]{1,0}", TILED, "--json"], capsys)
    doc = json.loads(out)
    (r,) = doc["results"]
    assert status == 1 and r["status"] == "refuted"
    assert r["subject"] == {"shape": "f32[24,256]{1,0}", "cute": TILED}
    assert r["counterexample"]["elements"] == {"spec": [0, 128], "cute": [0, 128]}
    status, out, _ = run(["cute", "--from", TILED, "f32[24,256]", "--json"], capsys)
    assert json.loads(out)["results"][0]["data"]["xla"] == "f32[24,256]{1,0:T(8,128)}"
