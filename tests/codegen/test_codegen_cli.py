"""``tilespec codegen``: the tile/untile code on the command line, its
proof, its JSON and its errors."""

import json

import numpy as np
import pytest

from tilespec.cli import main
from tilespec.codegen import tile_code


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_codegen_prints_the_code_it_generates(capsys):
    from tilespec.spec.text import parse_array_shape
    text = "bf16[m,n]{1,0:T(8,128)(2,1)}"
    status, out, _ = run(capsys, "codegen", text, "--c")
    assert status == 0 and out == tile_code.c_source(parse_array_shape(text))
    status, out, _ = run(capsys, "codegen", text, "--python")
    assert status == 0 and "def untile(image, m, n, dtype=None):" in out


def test_codegen_proves_the_code_and_says_for_which_sizes(capsys):
    status, out, _ = run(capsys, "codegen", "f32[m,n]{1,0:T(8,128)}", "--c", "--prove")
    assert status == 0
    assert out.splitlines()[-4:] == [
        "// generated c offset: proved",
        "// generated c image elements: proved",
        "// generated c tile_bytes: proved",
        "// exact for all shapes: m >= 1, n >= 1, padded elements < 2^63, bytes < 2^63"]


def test_a_refuted_size_exits_1_with_its_witness(capsys, monkeypatch):
    monkeypatch.setattr(tile_code, "image_sizes", lambda s, language: ("k", "(k + 3) / 4"))
    status, out, _ = run(capsys, "codegen", "u2[k]{0:E(2)}", "--c", "--prove")
    assert status == 1
    assert "// generated c tile_bytes: refuted" in out and "k + 3 leaves int64" in out
    assert out.splitlines()[-1].startswith("// not shown exact for all shapes: k >= 1")


def test_codegen_writes_a_file_that_runs(capsys, tmp_path):
    path = tmp_path / "tiles.py"
    status, out, _ = run(capsys, "codegen", "s4[3,5]{1,0:T(2,2)E(4)}", "--python",
                         "-o", str(path))
    assert status == 0 and out.startswith(f"wrote {path}: tile and untile for s4[3,5]")
    namespace: dict = {}
    exec(path.read_text(), namespace)
    a = (np.arange(15) % 16 - 8).astype(np.int8).reshape(3, 5)
    assert namespace["untile"](namespace["tile"](a)).tolist() == a.tolist()


def test_codegen_json_holds_the_source_and_the_proofs(capsys):
    status, out, _ = run(capsys, "codegen", "f32[3,5]{1,0:T(2,2)}", "--c", "--prove",
                         "--json")
    doc = json.loads(out)
    assert status == 0 and doc["command"] == "codegen"
    assert [r["status"] for r in doc["results"]] == ["proved"] * 3
    data = doc["results"][0]["data"]
    assert data["language"] == "c" and "void tile(" in data["source"]
    assert data["scope"] == "concrete"


@pytest.mark.parametrize("argv, message", [
    (["c128[2]{0}", "--c"], "no C integer type"),
    (["f32[3,0]{1,0}", "--python"], "no elements"),
    (["f6e2m3fn[4]{0:E(6)}", "--c"], "neither the type's own bytes"),
    (["f32[?]{0}", "--c"], "unbounded"),
    (["f32[3]{0}"], "one of the arguments --c --python is required"),
])
def test_what_codegen_cannot_generate_is_bad_input_in_one_line(capsys, argv, message):
    status, out, err = run(capsys, "codegen", *argv)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and message in err
