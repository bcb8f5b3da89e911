"""``tilespec triton``: the export, ``--from``, ``--cute`` and their exit
statuses (0 proved, 1 refuted, 2 bad input or no XLA layout, 3 unknown)."""

import json

import pytest

from tilespec.cli import main
from tilespec.triton import LinearLayout


def run(argv, capsys):
    status = main(argv)
    out = capsys.readouterr()
    return status, out.out, out.err


def test_the_export_prints_the_bases_ready_to_paste_and_the_bit_table(capsys):
    status, out, err = run(["triton", "f32[8,4]{1,0:T(2,2)}"], capsys)
    lines = out.splitlines()
    assert status == 0 and err == ""
    assert lines[0] == ('LinearLayout.from_bases([("dim0", [[2], [8], [16]]), ("dim1", [[1], '
                        '[4]])], ["offset"], [32], False)')
    assert eval(lines[0], {"LinearLayout": LinearLayout}).apply({"dim0": 5, "dim1": 3}) == \
        {"offset": 23}
    assert lines[1].startswith("proved: ")
    assert lines[3].split() == ["offset", "bit", "4", "3", "2", "1", "0"]
    assert lines[4].split() == ["dim0=1", ".", ".", ".", "1", "."]


def test_a_layout_that_is_not_linear_is_refuted_with_two_elements(capsys):
    status, out, _ = run(["triton", "f32[24,64]{0,1:T(1,8)}"], capsys)
    assert status == 1 and "is not F2-linear" in out and "a = (0, 2), b = (0, 1)" in out
    status, out, _ = run(["triton", "f32[24,64]{0,1:T(1,8)}", "--json"], capsys)
    ce = json.loads(out)["results"][0]["counterexample"]
    assert ce["elements"] == {"a": [0, 2], "b": [0, 1], "a_xor_b": [0, 3]}


def test_named_dims_take_sizes(capsys):
    status, out, _ = run(["triton", "f32[m,4]{1,0}", "--dims", "m=3"], capsys)
    assert status == 0 and '("dim0", [[4], [8]])' in out
    status, _, err = run(["triton", "f32[m,4]{1,0}"], capsys)
    assert status == 2 and "--dims" in err


def test_from_reads_the_json_the_export_writes(capsys, tmp_path):
    status, out, _ = run(["triton", "f32[16,32]{0,1:T(4,8)}", "--json"], capsys)
    (tmp_path / "l.json").write_text(out)
    status, out, _ = run(["triton", "--from", str(tmp_path / "l.json")], capsys)
    assert (status, out) == (0, "f32[16,32]{0,1:T(4,8)}\n")


@pytest.mark.parametrize("content, message", [
    ('{"bases": [["dim0", [[1], [2]]], ["dim1", [[4], [9]]]], "out_dims": [["offset", 16]]}',
     "a swizzle XLA cannot write"),
    ('{"bases": [["dim0", [[1], [3]]]], "out_dims": [["offset", 3]]}', "non-power-of-two"),
    ('{"layout": 1}', 'holds no "bases"'),
    ("not json", "is not JSON"),
])
def test_from_refuses_with_one_line(content, message, capsys, tmp_path):
    (tmp_path / "l.json").write_text(content)
    status, out, err = run(["triton", "--from", str(tmp_path / "l.json")], capsys)
    assert status == 2 and out == "" and err.count("\n") == 1 and message in err


def test_cute_proves_each_step(capsys):
    status, out, _ = run(["triton", "--cute", "f32[8,256]{1,0:T(8,128)}"], capsys)
    assert status == 0
    assert [line.split(":")[0] for line in out.splitlines()[::2]] == \
        ["XLA -> CuTe", "CuTe -> Triton", "Triton -> XLA"]
    assert out.count("proved: ") == 3


def test_compare_without_triton_installed_is_bad_input(capsys, monkeypatch):
    from tilespec.triton import real
    monkeypatch.setattr(real, "available", lambda: False)
    status, out, err = run(["triton", "--compare", "f32[8]{0}"], capsys)
    assert status == 2 and out == "" and err.count("\n") == 1
    assert "triton not installed" in err


@pytest.mark.triton
@pytest.mark.integration
def test_compare_asks_the_real_triton_and_every_answer_agrees(capsys):
    from tilespec.triton import real
    if not real.available():
        pytest.skip(real.INSTALL_HINT)
    status, out, _ = run(["triton", "--compare", "bf16[8,16]{1,0:T(4,8)(2,1)}", "--json"],
                         capsys)
    doc = json.loads(out)
    assert status == 0 and [r["status"] for r in doc["results"]] == ["ok"] * 5
    assert doc["results"][1]["check"] == "apply at 128 inputs equals the real Triton's"


@pytest.mark.parametrize("extra", [[], ["--compare"]])
def test_from_a_file_name_with_a_nul_is_bad_input_not_a_traceback(extra, capsys):
    """The CLI fuzzer's case: open() raises ValueError (not OSError) on a NUL."""
    assert main(["triton", "--from", "f1.cc\0", *extra]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    # without Triton installed, --compare is refused before the file is read
    assert "NUL" in err or (extra and "triton not installed" in err)
