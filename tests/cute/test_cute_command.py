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
    assert run(["cute", "f32[24,256]{1,0:T(8,128)}"], capsys) == (
        0, TILED + "\npadded and logical: the 24x256 tensor has no padding\n", "")
    status, out, _ = run(["cute", "bf16[m,n]{1,0:T(8,128)(2,1)}", "--dims", "m=16,n=300"],
                         capsys)
    assert (status, out.splitlines()[0]) == (0, "((2,4,2),(128,3)):((1,256,3072),(2,1024))")


def test_the_export_says_it_is_the_padded_layout_and_offers_the_logical_one(capsys):
    status, out, _ = run(["cute", "f32[8,16]{1,0:T(8,128)}"], capsys)
    assert status == 0 and out.splitlines() == [
        "((8,1),(128,1)):((128,1024),(1,1024))",
        "padded: the layout of the padded 8x128 shape (1024 elements) holding the 8x16 "
        "tensor; the tensor's own, (8,16):(128,1): --logical"]
    status, out, _ = run(["cute", "f32[8,16]{1,0:T(8,128)}", "--logical", "--json"], capsys)
    (r,) = json.loads(out)["results"]
    assert (status, r["status"], r["data"]) == (0, "proved", {"cute": "(8,16):(128,1)",
                                                              "domain": "logical"})
    status, out, _ = run(["cute", "f32[8,16]{1,0:T(8,128)}", "--logical"], capsys)
    assert out.splitlines()[1].startswith("logical: the 8x16 tensor's layout (128 elements)")


@pytest.mark.parametrize("shape,logical", [
    ("f32[8,16]{1,0:T(8,128)}", "(8,16):(128,1)"),
    ("f32[16,100]{1,0:T(8,128)}", "((8,2),100):((128,1024),1)"),
    ("bf16[4,100]{1,0:T(8,128)(2,1)}", "((2,2),100):((1,256),2)"),
    ("f32[5]{0:T(8)}", "5:1"),
    ("f32[3,296]{0,1:T(8,128)}", "(3,(8,37)):(1,(128,1024))"),
])
def test_the_logical_layout_is_proved_equal_to_the_spec_on_every_element(shape, logical):
    from tilespec.cute import cute_layout, logical_layout
    from tilespec.cute.proofs import compare_cute
    from tilespec.spec.text import parse_array_shape
    s = parse_array_shape(shape)
    layout = logical_layout(s)
    assert layout.cute_text() == logical
    assert layout.size == s.dims[0] * (s.dims[1] if s.rank > 1 else 1)
    assert compare_cute(s, layout).status == "proved"
    padded = cute_layout(s)
    assert all(layout(*e) == padded(*e) for e in [(0,) * s.rank, tuple(d - 1 for d in s.dims)])


def test_a_tensor_without_an_exact_logical_layout_is_named_and_refused(capsys):
    status, out, err = run(["cute", "f32[24,300]{1,0:T(8,128)}", "--logical"], capsys)
    assert (status, out) == (2, "")
    assert "dim 1 (300) is no multiple of 128" in err and "without --logical" in err
    status, out, _ = run(["cute", "f32[24,300]{1,0:T(8,128)}"], capsys)
    assert status == 0 and "the tensor has no exact CuTe layout of its own: dim 1 (300)" in out


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
