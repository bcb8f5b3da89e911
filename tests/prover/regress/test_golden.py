"""``regress --golden DIR``: byte images a kernel test can rebuild from
their sidecars alone."""

import hashlib
import json

import ml_dtypes
import numpy as np
import pytest

import tilespec
from tilespec.cli.main import main
from tilespec.prover.regress.golden import golden_values
from tilespec.spec.dtypes import ELEMENT_TYPES

SHAPES = ["s4[9,130]{1,0:T(8,128)(2,1)E(4)}", "bf16[m,300]{1,0:T(8,128)(2,1)}",
          "pred[5,13]{1,0:T(2,8)E(1)}", "f32[3,5]{0,1:T(2,2)L(64)}"]


def test_each_image_is_to_bytes_of_the_values_its_sidecar_names(tmp_path, capsys):
    assert main(["regress", *SHAPES, "--dims", "m=20", "--golden", str(tmp_path)]) == 0
    sidecars = sorted(tmp_path.glob("*.json"))
    assert len(sidecars) == len(SHAPES) == len(list(tmp_path.glob("*.bin")))
    for path in sidecars:
        side = json.loads(path.read_text())
        image = (tmp_path / side["file"]).read_bytes()
        assert len(image) == side["bytes"] == tilespec.byte_size(side["shape"])
        assert hashlib.sha256(image).hexdigest() == side["sha256"]
        values = tilespec.from_bytes(side["shape"], image)
        assert list(values.shape) == side["dims"] and str(values.dtype) == side["dtype"]
        want, how = golden_values(tilespec.parse_array_shape(side["shape"]))
        assert how == side["values"] and values.tobytes() == want.tobytes()
        assert tilespec.to_bytes(side["shape"], values).tobytes() == image
    assert "and its .json" in capsys.readouterr().out


def test_the_values_follow_the_documented_rules():
    s4, _ = golden_values(tilespec.parse_array_shape("s4[20]{0}"))
    assert s4.tolist() == list(range(8)) + list(range(-8, 0)) + list(range(4))
    bf, how = golden_values(tilespec.parse_array_shape("bf16[300]{0}"))
    assert bf.dtype == ml_dtypes.bfloat16 and bf.astype(float).tolist() == [
        i % 256 for i in range(300)] and how.endswith("i mod 256")
    pred, _ = golden_values(tilespec.parse_array_shape("pred[4]{0}"))
    assert pred.tolist() == [False, True, False, True]


@pytest.mark.parametrize("t", ELEMENT_TYPES)
def test_every_type_has_exact_golden_values(t):
    s = tilespec.parse_array_shape(f"{t}[40]{{0}}")
    values, _ = golden_values(s)
    back = tilespec.from_bytes(s, tilespec.to_bytes(s, values))
    assert back.tobytes() == values.tobytes()
    assert not np.isnan(values.astype(np.complex128)).any() if values.dtype.kind != "b" else True


def test_golden_takes_no_case_options(tmp_path, capsys):
    assert main(["regress", SHAPES[0], "--golden", str(tmp_path), "-o",
                 str(tmp_path / "x")]) == 2
    assert "--golden writes byte images only" in capsys.readouterr().err
    assert main(["regress", "--golden", str(tmp_path)]) == 2
    for option in (["--format", "pytest"], ["--count", "5"], ["--seed", "3"]):
        assert main(["regress", SHAPES[0], "--golden", str(tmp_path), *option]) == 2
        assert "--golden writes byte images only" in capsys.readouterr().err


def test_golden_into_a_file_says_it_is_not_a_directory(tmp_path, capsys):
    f = tmp_path / "w.bin"
    f.write_bytes(b"x")
    assert main(["regress", "f32[3]{0}", "--golden", str(f)]) == 2
    assert "is a file, not a directory" in capsys.readouterr().err
    assert f.read_bytes() == b"x"


@pytest.mark.parametrize("shape", ["u8[4294967296]{0}", "bf16[100000,100000]{1,0:T(8,128)(2,1)}"])
def test_an_image_over_the_limit_is_one_line_and_leaves_no_directory(tmp_path, capsys, shape):
    out = tmp_path / "g"
    assert main(["regress", shape, "--golden", str(out)]) == 2
    err = capsys.readouterr().err
    assert "more than the limit" in err and "bytes" in err and err.count("\n") == 1
    assert not out.exists()


def test_golden_values_are_made_in_the_target_dtype_without_wider_temporaries():
    import tracemalloc
    s = tilespec.parse_array_shape("u8[4000000]{0}")
    tracemalloc.start()
    values, _ = golden_values(s)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert values.dtype == np.uint8 and values[257] == 1
    assert peak < 2 * values.nbytes
