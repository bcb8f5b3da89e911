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
