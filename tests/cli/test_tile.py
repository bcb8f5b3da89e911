"""``tilespec tile`` and ``untile``: files in, the exact bytes out, and back;
bad input is one line and exit status 2."""

import numpy as np
import pytest
from locations import DATA

import tilespec
from tilespec.cli.main import main

S4 = DATA / "bytes" / "s4_3x5.npy"
SHAPE = "s4[3,5]{1,0:T(2,2)E(4)}"


def test_tile_writes_to_bytes_and_untile_reads_it_back(tmp_path, capsys):
    out, back = tmp_path / "a.bin", tmp_path / "a.npy"
    assert main(["tile", str(S4), SHAPE, "-o", str(out), "--pad", "-1"]) == 0
    a = np.load(S4)
    assert out.read_bytes() == tilespec.to_bytes(SHAPE, a, pad=-1).tobytes()
    assert main(["untile", str(out), SHAPE, "-o", str(back)]) == 0
    assert (np.load(back) == a).all() and np.load(back).dtype == np.int8
    text = capsys.readouterr().out
    assert f"wrote 12 bytes to {out}" in text and "(pad -1)" in text


def test_the_shipped_image_is_still_what_tile_writes():
    # the golden file of the docs: a change of packing order shows here
    image = tilespec.to_bytes(SHAPE, np.load(S4))
    assert (DATA / "bytes" / "s4_3x5_T22E4.bin").read_bytes() == image.tobytes()


def test_bf16_round_trips_through_npy_as_raw_bits(tmp_path):
    import ml_dtypes
    shape = "bf16[m,n]{1,0:T(8,128)(2,1)}"
    a = np.linspace(-3, 3, 20 * 300).reshape(20, 300).astype(ml_dtypes.bfloat16)
    src, out, back = tmp_path / "a.npy", tmp_path / "a.bin", tmp_path / "b.npy"
    np.save(src, a)
    assert main(["tile", str(src), shape, "--dims", "m=20,n=300", "-o", str(out),
                 "--from-type", "bf16"]) == 0
    assert main(["untile", str(out), shape, "--dims", "m=20,n=300", "-o", str(back)]) == 0
    # .npy keeps bf16 as raw 2-byte values; tile takes those back as bf16
    assert np.load(back).view(ml_dtypes.bfloat16).tobytes() == a.tobytes()
    assert main(["tile", str(back), shape, "--dims", "m=20,n=300", "-o", str(out),
                 "--from-type", "bf16"]) == 0


@pytest.mark.parametrize("argv,message", [
    (["tile", str(S4), "s4[3,6]{1,0}"], "array of shape (3, 5) does not match s4[3,6]{1,0}"),
    (["tile", str(S4), "u2[3,5]{1,0}"], "value -8 does not fit u2 (0 to 3)"),
    (["tile", str(S4), "pred[3,5]{1,0}"], "an array of int8 cannot hold pred values (give bools)"),
    (["tile", str(DATA / "bytes" / "s4_3x5_T22E4.bin"), SHAPE], "is not a .npy file"),
    (["tile", "missing.npy", SHAPE], "cannot read 'missing.npy': No such file or directory"),
    (["tile", str(S4), SHAPE, "--pad", "x"], "'x' is not a number (or true/false)"),
    (["tile", str(S4), "s4[m,5]{1,0}"], "dim 0 is the name 'm'; give a size"),
    (["untile", str(DATA / "bytes" / "s4_3x5_T22E4.bin"), "s4[3,6]{1,0}"],
     "buffer of 12 bytes; s4[3,6]{1,0} takes 18"),
])
def test_bad_input_is_one_line_and_exit_2(argv, message, tmp_path, capsys):
    out = tmp_path / ("out.npy" if argv[0] == "untile" else "out.bin")
    assert main(argv + ["-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tilespec: error: ") and message in err
    assert err.count("\n") == 1
    assert not out.exists()


@pytest.mark.parametrize("argv,name,message", [
    (["untile", str(DATA / "bytes" / "s4_3x5_T22E4.bin"), SHAPE], "y.txt",
     "'{out}' does not end in .npy: untile writes a .npy array"),
    (["untile", str(DATA / "bytes" / "s4_3x5_T22E4.bin"), SHAPE], "y",
     "'{out}' does not end in .npy"),
    (["tile", str(S4), SHAPE], "a.npy",
     "'{out}' ends in .npy, but tile writes raw bytes, not a .npy array"),
])
def test_an_output_named_for_another_format_is_refused(argv, name, message, tmp_path, capsys):
    out = tmp_path / name
    assert main(argv + ["-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tilespec: error: ") and err.count("\n") == 1
    assert message.format(out=out) in err
    assert not out.exists()


def test_the_output_names_each_command_takes(tmp_path):
    assert main(["tile", str(S4), SHAPE, "-o", str(tmp_path / "a.raw")]) == 0
    assert main(["untile", str(tmp_path / "a.raw"), SHAPE, "-o", str(tmp_path / "b.NPY")]) == 0
    assert (np.load(tmp_path / "b.NPY") == np.load(S4)).all()


def test_an_unwritable_output_is_bad_input(tmp_path, capsys):
    assert main(["tile", str(S4), SHAPE, "-o", str(tmp_path / "no" / "a.bin")]) == 2
    assert "cannot write" in capsys.readouterr().err


def test_counts_of_one_are_singular(tmp_path, capsys):
    np.save(tmp_path / "s.npy", np.float32(3))
    assert main(["tile", str(tmp_path / "s.npy"), "f32[]", "-o", str(tmp_path / "t.bin")]) == 0
    assert "1 element and 0 padding elements" in capsys.readouterr().out
    assert main(["cute", "--compare", "f32[3,5]", "15:1"]) == 2
    assert "has 1 mode, f32[3,5]{1,0} has 2 dims" in capsys.readouterr().err


def test_a_dash_as_output_writes_the_bytes_to_standard_output(tmp_path, capfdbinary):
    import numpy as np

    from tilespec.cli import main
    np.save(tmp_path / "a.npy", np.arange(15, dtype=np.float32).reshape(3, 5))
    assert main([ "tile", str(tmp_path / "a.npy"), "f32[3,5]{1,0:T(2,2)}", "-o", "-"]) == 0
    out, err = capfdbinary.readouterr()
    import tilespec
    assert out == tilespec.to_bytes("f32[3,5]{1,0:T(2,2)}",
                                    np.arange(15, dtype=np.float32).reshape(3, 5)).tobytes()
    assert b"to standard output" in err and not (tmp_path / "-").exists()
    assert main(["tile", str(tmp_path / "a.npy"), "f32[3,5]{1,0:T(2,2)}", "-o", "-",
                 "--json"]) == 2


def test_untile_refuses_a_device_with_no_end(tmp_path, capsys):
    from tilespec.cli import main
    assert main(["untile", "/dev/zero", "f32[3,5]{1,0:T(2,2)}", "-o", str(tmp_path / "x.npy")]) == 2
    assert "is a device" in capsys.readouterr().err


@pytest.mark.parametrize("shape,pad,message", [
    ("u8[3,5]{1,0}", "1.5", "--pad 1.5 is not a value of u8 (give integers)"),
    ("u8[3,5]{1,0}", "300", "--pad 300 is not a value of u8 (0 to 255)"),
    (SHAPE, "1.5", "--pad 1.5 is not a value of s4 (give integers)"),
    (SHAPE, "8", "--pad 8 is not a value of s4 (-8 to 7)"),
    ("pred[3,5]{1,0}", "2", "--pad 2 is not a value of pred (give bools)"),
    ("f8e4m3fn[3,5]{1,0}", "1000", "--pad 1000 is not a value of f8e4m3fn (it would become inf or NaN)"),
])
def test_a_pad_the_type_cannot_hold_is_named_in_the_error(shape, pad, message, tmp_path, capsys):
    # checked before the array is read: the message is about the pad even
    # when the array would not fit the shape either
    out = tmp_path / "a.bin"
    assert main(["tile", str(S4), shape, "-o", str(out), "--pad", pad]) == 2
    assert capsys.readouterr().err == f"tilespec: error: {message}\n"
    assert not out.exists()


def test_a_reader_that_stops_early_ends_untile_quietly(tmp_path, capsys, monkeypatch):
    # `untile ... -o - | head -c 10`: numpy's writer reports the closed pipe
    # as a bare OSError, once an internal error (exit 4)
    import io
    import sys
    np.save(tmp_path / "a.npy", np.arange(15, dtype=np.float32).reshape(3, 5))
    shape = "f32[3,5]{1,0:T(2,2)}"
    assert main(["tile", str(tmp_path / "a.npy"), shape, "-o", str(tmp_path / "a.bin")]) == 0

    class Closed(io.RawIOBase):
        def writable(self):
            return True

        def write(self, b):
            raise OSError("15 requested and 0 written")

    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(io.BufferedWriter(Closed())))
    code = main(["untile", str(tmp_path / "a.bin"), shape, "-o", "-"])
    monkeypatch.undo()
    err = capsys.readouterr().err
    assert code == 0 and "internal error" not in err and "wrote" not in err


def test_untile_says_how_to_read_back_a_type_npy_cannot_name(tmp_path, capsys):
    import ml_dtypes
    a = np.arange(6, dtype=np.float32).reshape(2, 3).astype(ml_dtypes.bfloat16)
    np.save(tmp_path / "a.npy", a)
    shape = "bf16[2,3]{1,0:T(2,2)}"
    assert main(["tile", str(tmp_path / "a.npy"), shape, "-o", str(tmp_path / "a.bin"),
                 "--from-type", "bf16"]) == 0
    assert main(["untile", str(tmp_path / "a.bin"), shape, "-o", str(tmp_path / "b.npy")]) == 0
    out = capsys.readouterr().out
    assert ".view(ml_dtypes.bfloat16)" in out and "--from-type bf16" in out
    back = np.load(tmp_path / "b.npy")
    assert back.dtype.kind == "V" and (back.view(ml_dtypes.bfloat16) == a).all()


@pytest.mark.parametrize("own,shape", [("int4", "s4[3,5]{1,0:T(2,2)E(4)}"),
                                       ("uint2", "u2[3,5]{0,1:E(2)}")])
def test_an_ml_dtypes_sub_byte_npy_is_tiled_as_its_values(own, shape, tmp_path):
    # .npy keeps ml_dtypes.int4 as raw bytes (|V1, -1 as 0x0F); read as int8
    # they were 15, "value 15 does not fit s4".
    import ml_dtypes
    values = np.load(S4) % 4 if own.startswith("u") else np.load(S4)
    src, out = tmp_path / "a.npy", tmp_path / "a.bin"
    np.save(src, values.astype(getattr(ml_dtypes, own)))
    assert main(["tile", str(src), shape, "-o", str(out),
                 "--from-type", shape.split("[")[0]]) == 0
    assert out.read_bytes() == tilespec.to_bytes(shape, values).tobytes()


# --- raw values (|V2, |V1): converted by value from a named type, or refused -----------

def test_bf16_tiled_into_f16_is_converted_by_value(tmp_path):
    # np.save writes bf16 as raw |V2; read as the target's f16 bits they
    # were 0, 1.875, 2, 2.125 where to_bytes converts to 0, 1, 2, 3
    import ml_dtypes
    src, out = tmp_path / "a.npy", tmp_path / "a.bin"
    np.save(src, np.arange(4).astype(ml_dtypes.bfloat16))
    assert np.load(src).dtype.str == "|V2"
    assert main(["tile", str(src), "f16[4]{0}", "-o", str(out), "--from-type", "bf16"]) == 0
    assert np.frombuffer(out.read_bytes(), np.float16).tolist() == [0, 1, 2, 3]
    assert out.read_bytes() == tilespec.to_bytes(
        "f16[4]{0}", np.arange(4).astype(ml_dtypes.bfloat16)).tobytes()


def test_an_8_bit_float_is_converted_by_value_into_another(tmp_path):
    import ml_dtypes
    values = [0, 1, 2, 3, 0.5, -448]
    src, out = tmp_path / "a.npy", tmp_path / "a.bin"
    np.save(src, np.array(values).astype(ml_dtypes.float8_e4m3fn))
    assert np.load(src).dtype.str == "|V1"
    assert main(["tile", str(src), "f8e5m2[6]{0}", "-o", str(out),
                 "--from-type", "f8e4m3fn"]) == 0
    assert np.frombuffer(out.read_bytes(), ml_dtypes.float8_e5m2).astype(float).tolist() \
        == values


def test_a_value_the_target_cannot_hold_is_refused_as_to_bytes_refuses(tmp_path, capsys):
    import ml_dtypes
    src = tmp_path / "a.npy"
    np.save(src, np.array([1, 3e38]).astype(ml_dtypes.bfloat16))
    code = main(["tile", str(src), "f16[2]{0}", "-o", str(tmp_path / "a.bin"),
                 "--from-type", "bf16"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "does not fit f16" in err


@pytest.mark.parametrize("target", ["f16[4]{0}", "bf16[4]{0}", "s16[4]{0}"])
def test_raw_values_without_their_type_are_refused_in_one_line(target, tmp_path, capsys):
    # |V2 may be bf16, f16 bits, any 2-byte type: even into bf16 the bits
    # are right only if they were bf16, which the file does not say
    import ml_dtypes
    src, out = tmp_path / "a.npy", tmp_path / "a.bin"
    np.save(src, np.arange(4).astype(ml_dtypes.bfloat16))
    assert main(["tile", str(src), target, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--from-type" in err and not out.exists()


def test_raw_1_byte_values_are_not_read_as_int4_bits(tmp_path, capsys):
    # an f8e4m3fn array's bits viewed as int4 were 0, 8, 0, 4 (low bits)
    import ml_dtypes
    src = tmp_path / "a.npy"
    np.save(src, np.array([0, 1, 2, 3]).astype(ml_dtypes.float8_e4m3fn))
    assert main(["tile", str(src), "s4[4]{0:E(4)}", "-o", str(tmp_path / "a.bin")]) == 2
    assert "--from-type" in capsys.readouterr().err


@pytest.mark.parametrize("from_type,message", [
    ("f32", "--from-type f32 has 4-byte values"),
    ("xyz", "--from-type 'xyz': not an element type")])
def test_a_from_type_that_does_not_fit_the_file_is_bad_input(from_type, message, tmp_path,
                                                            capsys):
    import ml_dtypes
    src = tmp_path / "a.npy"
    np.save(src, np.arange(4).astype(ml_dtypes.bfloat16))
    assert main(["tile", str(src), "f16[4]{0}", "-o", str(tmp_path / "a.bin"),
                 "--from-type", from_type]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


def test_a_from_type_that_contradicts_the_header_is_bad_input(tmp_path, capsys):
    np.save(tmp_path / "a.npy", np.arange(4, dtype=np.float32))
    assert main(["tile", str(tmp_path / "a.npy"), "f16[4]{0}", "-o", str(tmp_path / "a.bin"),
                 "--from-type", "bf16"]) == 2
    assert "holds float32 values, not bf16" in capsys.readouterr().err


def test_untile_writes_f8e5m2_as_raw_values_np_load_reads(tmp_path, capsys):
    # np.save writes ml_dtypes.float8_e5m2 as '<f1', which np.load (and
    # tile) could not read back
    import ml_dtypes
    values = np.array([0, 1, 2, 3]).astype(ml_dtypes.float8_e5m2)
    image, back, again = tmp_path / "a.bin", tmp_path / "b.npy", tmp_path / "c.bin"
    image.write_bytes(values.tobytes())
    assert main(["untile", str(image), "f8e5m2[4]{0}", "-o", str(back)]) == 0
    assert "--from-type f8e5m2" in capsys.readouterr().out
    assert (np.load(back).view(ml_dtypes.float8_e5m2) == values).all()
    assert main(["tile", str(back), "f8e5m2[4]{0}", "-o", str(again),
                 "--from-type", "f8e5m2"]) == 0
    assert again.read_bytes() == image.read_bytes()
