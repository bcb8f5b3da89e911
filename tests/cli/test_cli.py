"""The ``tilespec`` command line: explain, offset and locate."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tilespec.cli import EXIT_BAD_INPUT, main

FIG1 = "f32[3,5]{1,0:T(2,2)}"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *argv):
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    assert err == ""
    (result,) = json.loads(out)["results"]   # the envelope (docs/json.md)
    return result["data"]


# --- explain ------------------------------------------------------------------

def test_explain_text(capsys):
    code, out, err = run(capsys, "explain", FIG1)
    assert code == 0 and err == ""
    assert "shape            f32[3,5]{1,0:T(2,2)}" in out
    assert "padded elements  24" in out
    assert "byte size        96" in out
    assert "(3,5) -> padded (4,6) -> (2,3,2,2)" in out
    # The document's Figure 1, as a text map.
    assert "   2   12  13  16  17  20" in out
    assert "    8: (0,4)   .   (1,4)   ." in out


def test_explain_json(capsys):
    info = run_json(capsys, "explain", FIG1)
    assert info["shape"] == FIG1
    assert info["dims"] == [3, 5]
    assert info["tiled_dims"] == [2, 3, 2, 2]
    assert info["elements"] == 15
    assert info["padded_elements"] == 24
    assert info["byte_size"] == 96
    assert info["padding_fraction"] == pytest.approx(0.375)
    assert info["levels"][0]["dims_padded"] == [4, 6]
    assert "12  13  16  17  20" in info["text_map"]


def test_explain_scalar_with_long_tile(capsys):
    info = run_json(capsys, "explain", "s32[]{:T(128)}")
    assert info["padded_elements"] == 128
    assert info["byte_size"] == 512
    assert info["tiled_dims"] == [1, 128]


def test_explain_large_shape_has_no_map(capsys):
    code, out, err = run(capsys, "explain", "bf16[1024,1024]{1,0:T(8,128)(2,1)}")
    assert code == 0 and err == ""
    assert "byte size        2097152" in out
    assert "no text map" in out
    info = run_json(capsys, "explain", "bf16[1024,1024]{1,0:T(8,128)(2,1)}")
    assert info["text_map"] is None


# --- offset ---------------------------------------------------------------------

def test_offset_text(capsys):
    assert run(capsys, "offset", FIG1, "2,3") == (0, "17\n", "")
    assert run(capsys, "offset", FIG1, "(2, 3)") == (0, "17\n", "")
    assert run(capsys, "offset", "s32[]{:T(128)}", "()") == (0, "0\n", "")


def test_offset_json(capsys):
    data = run_json(capsys, "offset", FIG1, "2,3")
    assert data == {"shape": FIG1, "element": [2, 3], "offset": 17,
                    "bit_range": [17 * 32, 18 * 32], "byte_offset": 68}


def test_offset_sub_byte_elements(capsys):
    data = run_json(capsys, "offset", "s4[8]{0:E(4)}", "3")
    assert data["offset"] == 3
    assert data["bit_range"] == [12, 16]
    assert data["byte_offset"] == 1


# --- locate ---------------------------------------------------------------------

def test_locate_text(capsys):
    assert run(capsys, "locate", FIG1, "17") == (0, "2,3\n", "")
    assert run(capsys, "locate", FIG1, "9") == (0, "padding\n", "")
    assert run(capsys, "locate", "s32[]{:T(128)}", "0") == (0, "\n", "")


def test_locate_json(capsys):
    assert run_json(capsys, "locate", FIG1, "17") == {
        "shape": FIG1, "offset": 17, "element": [2, 3], "padding": False}
    assert run_json(capsys, "locate", FIG1, "23") == {
        "shape": FIG1, "offset": 23, "element": None, "padding": True}


def test_offset_and_locate_agree_on_every_element(capsys):
    shape = "f32[4,8]{1,0:T(2,4)(2,1)}"
    seen = set()
    for r in range(4):
        for c in range(8):
            code, out, _ = run(capsys, "offset", shape, f"{r},{c}")
            assert code == 0
            o = int(out)
            seen.add(o)
            assert run(capsys, "locate", shape, str(o)) == (0, f"{r},{c}\n", "")
    assert seen == set(range(32))


# --- bad input --------------------------------------------------------------------

BAD = [
    ["offset", FIG1, "3,3"],                       # index out of range
    ["offset", FIG1, "1"],                         # wrong number of indices
    ["offset", FIG1, "1,a"],                       # not integers
    ["offset", "f32[3,5", "1,1"],                  # malformed shape
    ["offset", "f32[3,5]{1,1}", "1,1"],            # not a permutation
    ["offset", "f32[3,5]{1,0:T(2,0)}", "1,1"],     # tile entry 0
    ["offset", "f32[3,5]{1,0:T(2,*)}", "1,1"],     # '*' most minor
    ["offset", "f17[3]", "1"],                     # unknown element type
    ["offset", "(f32[3])", "1"],                   # a tuple
    ["offset", "f32[m]", "1"],                     # a named dim
    ["locate", FIG1, "24"],                        # beyond the padded size
    ["locate", FIG1, "-1"],
    ["locate", FIG1, "x"],
    ["explain", "f32[?]"],                         # unbounded dim
    ["explain", "f32[3,5]{1,0:E(4)T(2,2)}"],       # fields out of order
    ["bogus"],                                     # unknown command
    [],                                            # no command
    ["offset", FIG1],                              # missing argument
    ["explain", FIG1, "--frobnicate"],             # unknown option
]


@pytest.mark.parametrize("argv", BAD, ids=lambda a: " ".join(a) or "(none)")
@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_bad_input_exits_2_with_one_line(capsys, argv, as_json):
    if as_json and argv and argv[0] in ("offset", "locate", "explain"):
        argv = argv + ["--json"]
    code, out, err = run(capsys, *argv)
    assert code == EXIT_BAD_INPUT == 2
    if "--json" in argv:   # the error is a JSON document too
        assert json.loads(out)["error"]["message"] in err
    else:
        assert out == ""
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert err.startswith("tilespec")
    assert "Traceback" not in err


def test_error_names_the_column(capsys):
    code, _, err = run(capsys, "offset", "f32[3,5]{1,0:T(2,0)}", "1,1")
    assert code == 2
    assert "tile entry 0" in err and "column 18" in err


# --- the installed script -------------------------------------------------------------

def _script():
    here = Path(sys.executable).parent / "tilespec"
    if here.exists():
        return [str(here)]
    found = shutil.which("tilespec")
    if found:
        return [found]
    pytest.skip("the tilespec console script is not installed")


def test_console_script():
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    ok = subprocess.run(_script() + ["offset", FIG1, "2,3"], capture_output=True,
                        text=True, timeout=120, env=env)
    assert (ok.returncode, ok.stdout, ok.stderr) == (0, "17\n", "")
    bad = subprocess.run(_script() + ["locate", FIG1, "99"], capture_output=True,
                         text=True, timeout=120, env=env)
    assert bad.returncode == 2
    assert bad.stdout == ""
    assert bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr
