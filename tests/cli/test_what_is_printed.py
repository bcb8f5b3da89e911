"""What the commands print says what was decided, about the shapes given."""

from tilespec.cli.main import main


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out + err


def test_bitcast_in_xlas_order_states_its_scope(capsys):
    """The default bitcast (XLA's order) says for which shapes it decided,
    as ``--reshape`` does."""
    src, dst = "f32[m,n]{1,0:T(8,128)}", "f32[m,n,1]{2,1,0:T(8,128)}"
    status, out = run(capsys, "bitcast", src, dst)
    assert status == 1
    assert out.startswith("not a bitcast: refuted (all shapes: m >= 1, n >= 1) -- "), out
    status, out = run(capsys, "bitcast", src, dst, "--reshape")
    assert "refuted (all shapes: m >= 1, n >= 1) -- " in out.splitlines()[0]
    status, out = run(capsys, "bitcast", "f32[2,3,4]{2,1,0}", "f32[4,6]{0,1}")
    assert status == 0 and out.startswith("bitcast: proved as a trt (concrete) -- "), out


def test_check_rule_condition_names_the_types_of_the_shapes_given(capsys):
    """SameElementType's condition names the two types asked about, not an
    example pair."""
    status, out = run(capsys, "check-rule", "reshape_is_bitcast", "f32[m]{0}", "bf16[m]{0}")
    assert status == 0
    assert "condition FAILS: the same element type (XLA's SameElementType; f32 and bf16 " \
           "differ)" in out, out
    assert "s32" not in out
    status, out = run(capsys, "check-rule", "transpose_is_bitcast", "f32[1,8]{1,0}",
                      "f32[8,1]{1,0}", "--transpose", "1,0")
    assert "condition holds: the same element type (XLA's SameElementType; both f32)" in out


def test_a_count_of_one_is_singular_in_every_command(capsys, tmp_path):
    """One byte, one element: no "1 bytes" in what the commands print
    (tile, regress --golden, padding) nor in a proof's steps."""
    import numpy as np

    import tilespec
    array, image = tmp_path / "one.npy", tmp_path / "one.bin"
    np.save(array, np.array([7], dtype=np.int8))
    printed = []
    for argv in (("tile", str(array), "s8[1]{0}", "-o", str(image)),
                 ("regress", "s8[1]{0}", "--golden", str(tmp_path / "golden")),
                 ("padding", "pred[1]{0:L(4)}", "--limit", "0")):
        status, out = run(capsys, *argv)
        assert status == 0, out
        printed.append(out)
    assert "wrote 1 byte to" in printed[0] and "1 element and" in printed[0]
    assert "(1 byte, s8[1]{0})" in printed[1]
    assert "rounds 1 element up to 4" in printed[2] and "(spec 4 bytes," in printed[2]
    steps = tilespec.bitcast("f32[1]{0}", "f32[1,1]{1,0}").steps
    assert steps[0].startswith("enumeration: 1 element keeps its offset"), steps
    assert not any(f"1 {w}s" in t for t in printed + list(steps) for w in ("byte", "element"))


def test_counted_writes_one_singular_and_the_rest_plural():
    from tilespec.prover.names import counted
    assert [counted(n, "byte") for n in (0, 1, 2)] == ["0 bytes", "1 byte", "2 bytes"]
    assert counted(1, "boundary witness", "boundary witnesses") == "1 boundary witness"
    assert counted(1234567, "element", grouped=True) == "1,234,567 elements"
    assert counted("1", "element") == "1 element"
