"""Every command, every input: exit 0/1/2/3, one line on error, never a
traceback; an internal error is exit 4 with one line (--debug: traceback)."""

import importlib
import json
import os

import pytest
from locations import ROOT

from tilespec.cli import main

# the module, not the function that tilespec.cli exports under the same name
cli_main = importlib.import_module("tilespec.cli.main")

FIG1 = "f32[3,5]{1,0:T(2,2)}"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(code, err, status=2):
    assert code == status, err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


# --- each case seen, as bad input (exit 2) ----------------------------------------

BAD = [
    (["prove", "f32[?,4]{1,0}", "--quiet"], "unbounded dim"),
    (["prove", "f32[m,n]{1,0}", "--bound", "m=0", "--quiet"], "range 1..0 is empty"),
    (["prove", "f32[m,n]{1,0}", "--bound", "k=3", "--quiet"], "not a named dim"),
    (["prove", "f32[3,5]{1,0}", "--bound", "m=3", "--quiet"], "no named dims"),
    (["prove", "f32[m,n]{1,0}", "--bound", "m=3", "--bound", "m=4", "--quiet"],
     "given twice"),
    (["prove", "f32[m,n]{1,0}", "--bound", "m=99999999999999999999", "--quiet"],
     "int64"),
    (["prove", FIG1, "--timeout", "0"], "positive number of seconds"),
    (["prove", FIG1, "--timeout", "-1"], "positive number of seconds"),
    (["prove", FIG1, "--timeout", "nan"], "positive number of seconds"),
    (["bitcast", FIG1, FIG1, "--timeout", "inf"], "positive number of seconds"),
    (["equivalent", FIG1, FIG1, "--timeout", "0"], "positive number of seconds"),
    (["regress", FIG1, "--seed", "-1"], "seed >= 0"),
    (["regress", FIG1, "--count", "-1"], "count >= 0"),
    (["regress", FIG1, "--count", str(10**12)], "cases per shape"),
    (["regress", FIG1, "--count", "2", "-o", "/no/such/dir/x.jsonl"], "cannot write"),
    (["offset", "f32[3,5]{1,0}", "-1,0"], "index -1 in dim 0"),
    (["offset", "f32[3,5]{1,0}", "0,-1"], "index -1 in dim 1"),
    (["bitcast", "f32[2,3]{1,0}", "f32[3,2]{1,0}", "--transpose", "-1,0"], ""),
    # ranks in the thousands: numpy refused (exit 4), sympy recursed, prove hung
    (["bitcast", "f32[" + "1," * 100 + "1]", "f32[" + "1," * 100 + "1]"], "ranks up to 32"),
    (["formula", "f32[" + "1," * 2000 + "1]"], "ranks up to 32"),
    (["prove", "f32[" + "1," * 2000 + "1]", "--timeout", "0.01"], "ranks up to 32"),
]


@pytest.mark.parametrize("argv,words", BAD, ids=lambda a: " ".join(a) if isinstance(a, list)
                         else None)
def test_case_seen_is_bad_input(capsys, argv, words):
    code, out, err = run(capsys, *argv)
    err = one_line_error(code, err)
    assert err.startswith("tilespec: error: ") and words in err


@pytest.mark.parametrize("command", [["regress", FIG1, "--count", "1"], ["draw", FIG1]])
@pytest.mark.parametrize("path", ["a\0b.png", ""])
def test_output_path_the_system_cannot_name(capsys, command, path):
    # open() raises ValueError (not OSError) on a NUL: it was an internal error
    code, _, err = run(capsys, *command, "-o", path)
    assert "--output" in one_line_error(code, err)


def test_output_to_a_directory_is_bad_input(capsys, tmp_path):
    code, _, err = run(capsys, "regress", FIG1, "--count", "2", "-o", str(tmp_path))
    assert "cannot write" in one_line_error(code, err)
    code, _, err = run(capsys, "draw", FIG1, "-o", str(tmp_path / "sub" / "x.png"))
    assert "cannot write" in one_line_error(code, err)


def test_tiny_timeout_is_a_verdict_or_unknown(capsys):
    for argv in (["prove", "f32[m,n]{1,0:T(8,128)}", "--quiet"],
                 ["bitcast", "f32[m,n]{1,0:T(8,128)}", "f32[m,n]{1,0:T(8,128)}"],
                 ["equivalent", "f32[m,n]{1,0:T(8,128)}", "f32[m,n]{1,0:T(8,128)}"],
                 ["normalize", "f32[m,n]{1,0:T(8,128)(2,1)}"]):
        code, _, err = run(capsys, *argv, "--timeout", "1e-9")
        assert code in (0, 3), (argv, err)
        assert "Traceback" not in err and "internal error" not in err


# --- internal errors: exit 4, one line; --debug shows the traceback --------------

@pytest.fixture
def broken_offset(monkeypatch):
    def boom(args):
        raise KeyError("a bug")
    parser = cli_main.build_parser

    def build(only=None):
        p = parser(only)
        sub = next(a for a in p._actions if a.dest == "command")
        sub.choices["offset"].set_defaults(func=boom)
        return p
    monkeypatch.setattr(cli_main, "build_parser", build)


def test_internal_error_is_one_line_and_exit_4(capsys, broken_offset):
    code, out, err = run(capsys, "offset", FIG1, "1,1")
    assert out == ""
    err = one_line_error(code, err, status=4)
    assert err.startswith("tilespec: internal error: KeyError: 'a bug'")
    assert "please report" in err and "--debug" in err


@pytest.mark.parametrize("where", ["before", "after"])
def test_debug_shows_the_traceback(capsys, broken_offset, where):
    argv = ["offset", FIG1, "1,1"]
    argv = ["--debug", *argv] if where == "before" else [*argv, "--debug"]
    code, _, err = run(capsys, *argv)
    assert code == 4
    assert err.startswith("Traceback") and "KeyError: 'a bug'" in err
    assert err.splitlines()[-1].startswith("tilespec: internal error: KeyError")


def test_prover_bug_is_an_internal_error(capsys, monkeypatch):
    from tilespec.prover import properties
    from tilespec.prover.properties import proof
    from tilespec.prover.result import ProverBug

    def bug(*a, **k):
        raise ProverBug("counterexample does not replay")
    # the command calls the package's prove (every property of FIG1 is a
    # citation, so the module's is not reached from it)
    monkeypatch.setattr(proof, "prove", bug)
    monkeypatch.setattr(properties, "prove", bug)
    code, _, err = run(capsys, "prove", FIG1, "--quiet")
    assert "internal error: ProverBug" in one_line_error(code, err, status=4)


def test_debug_with_bad_input_still_exits_2(capsys):
    code, _, err = run(capsys, "--debug", "offset", FIG1, "9,9")
    assert code == 2 and "Traceback" in err
    assert err.splitlines()[-1].startswith("tilespec: error: ")


# --- help and the exit codes ---------------------------------------------------------

@pytest.mark.parametrize("argv", [["--help"], ["prove", "--help"], ["-h"]])
def test_help_returns_0_and_lists_the_exit_codes(capsys, argv):
    code, out, err = run(capsys, *argv)
    assert code == 0 and err == ""
    assert "exit status:" in out
    for n in "01234":
        assert f"\n  {n}  " in out


def test_negative_offset_and_element_are_values(capsys):
    code, _, err = run(capsys, "locate", FIG1, "-3")
    assert "outside" in one_line_error(code, err)
    code, _, err = run(capsys, "offset", "f32[3,5]{1,0}", "-1,-1")
    assert "index -1" in one_line_error(code, err)


def test_canceled_script_is_not_a_crash(capsys, monkeypatch):
    # Z3 raises (not answers) when the time limit cancels a script mid-way:
    # "push canceled" surfaced as a traceback and exit 1.  Simulated, so the
    # test does not depend on the solver's speed.
    import z3

    def canceled(*a, **k):
        raise z3.Z3Exception(b'(error "line 1 column 395: push canceled")\nunsat\n')
    monkeypatch.setattr(z3, "Z3_eval_smtlib2_string", canceled)
    code, out, err = run(capsys, "prove", "f32[m,n]{1,0:T(8,128)}", "--quiet",
                         "--property", "injective")
    assert code in (0, 3) and err == "", err


@pytest.mark.parametrize("text", ["f32[]", "s32[]{:T(128)}"])
def test_rank_0_formula_simplified(capsys, text):
    # found by tools/fuzz_cli.py: an internal error (AttributeError on int 0)
    code, out, err = run(capsys, "formula", text, "--simplify")
    assert (code, err) == (0, "") and out.endswith("offset() = 0\n")


@pytest.mark.parametrize("argv", [
    ["explain", "f32[" + "9" * 5000 + "]{0}"],              # int() refuses 4300 digits
    ["explain", "f32[3]{0:T(" + "9" * 5000 + ")}"],
    ["prove", "f32[m]{0}", "--bound", "m=" + "9" * 5000],
    ["explain", "(" * 3000 + "f32[]" + ")" * 3000],          # RecursionError
], ids=["dim digits", "tile digits", "bound digits", "nesting"])
def test_absurd_text_is_bad_input(capsys, argv):
    code, _, err = run(capsys, *argv)
    one_line_error(code, err)
    assert err.startswith("tilespec: error: ")


@pytest.mark.parametrize("text", ["f32[3,5]{1,0}", "f32[m,n]{1,0}", "f32[]", "f32[2]{0}"])
def test_generated_python_without_padding_is_proved(capsys, text):
    # found by tools/fuzz_cli.py: locate() of a layout without padding has
    # no padding test, and the prover looked for one (StopIteration, exit 4)
    code, out, err = run(capsys, "formula", text, "--python", "--prove")
    assert (code, err) == (0, ""), err
    assert "# generated python locate: proved" in out


def test_shapes_before_and_after_options(capsys):
    # argparse took a command's positionals in one run: a shape after an
    # option was "unrecognized" (found by tools/fuzz_cli.py)
    code, out, err = run(capsys, "check-rule", "array_size", "--timeout", "5", FIG1)
    assert (code, err) == (0, "") and "agrees with the spec" in out
    code, out, err = run(capsys, "prove", FIG1, "--quiet", "--property", "injective",
                         "f32[4]{0}")
    assert (code, err) == (0, "") and "f32[4]{0}" in out


def test_interrupt_is_one_line(capsys, monkeypatch):
    def interrupted(args):
        raise KeyboardInterrupt
    parser = cli_main.build_parser

    def build(only=None):
        p = parser(only)
        sub = next(a for a in p._actions if a.dest == "command")
        sub.choices["explain"].set_defaults(func=interrupted)
        return p
    monkeypatch.setattr(cli_main, "build_parser", build)
    code, _, err = run(capsys, "explain", FIG1)
    assert (code, err) == (130, "tilespec: interrupted\n")


@pytest.mark.parametrize("argv", [
    ["normalize", "f32[a,?]{1,0:T(2,2)}"],       # found by the fuzzer: TypeError, exit 4
    ["equivalent", "f32[a,?]{1,0}", "f32[a,?]{1,0}"],
    ["check-rule", "array_size", "f32[?,a]{1,0:T(2,2)}"],
])
def test_unbounded_dims_in_every_prover_command(capsys, argv):
    code, _, err = run(capsys, *argv, "--timeout", "1")
    assert "unbounded dim" in one_line_error(code, err)


def test_explain_empty_array_with_a_huge_dim(capsys):
    # found by the fuzzer: numpy allocated a range of each dim (MemoryError)
    code, out, err = run(capsys, "explain", "s8[4294967295,0]{0,1:T(4,4)}")
    assert (code, err) == (0, "") and "elements         0" in out


@pytest.mark.parametrize("argv", [
    ["regress", "f32[3037000500,3037000500]{1,0}"],   # numpy: high is out of bounds
    ["equivalent", "pred[9,10,9223372036854775806]{0,2,1:T(7,*,1)}",
     "pred[9,10,9223372036854775806]{0,2,1:T(7,*,1)}"],  # OverflowError
    ["normalize", "f32[9223372036854775808]{0}"],
    ["bitcast", "f32[0,9223372036854775808]{1,0}", "f32[0]{0}"],
    ["explain", "f32[2305843009213693952]{0}"],       # 2^61 * 4 bytes
    ["bitcast", "s32[10,2]{0,1:T(18446744073709551616)(1)}", "s32[10,2]{0,1}"],
    ["normalize", "f32[296,11]{0,1:T(9223372036854775806,1)}"],  # padded size
    ["regress", "f32[2,2147483647]{0,1:T(2,1)(*,4611686018427387904,1)}"],
])
def test_size_past_int64_is_bad_input(capsys, argv):
    # found by the fuzzer (exit 4); XLA's ValidateShapeSize refuses these shapes
    code, _, err = run(capsys, *argv, *(["--timeout", "1"] if argv[0] != "explain" else []))
    assert "int64" in one_line_error(code, err)


def test_size_at_int64_is_accepted(capsys):
    code, out, err = run(capsys, "explain", "f32[2305843009213693951]{0}")   # 2^63 - 4 bytes
    assert (code, err) == (0, "")
    code, out, err = run(capsys, "explain", "f32[0,9223372036854775807,2]{2,1,0}")
    assert (code, err) == (0, "")


@pytest.mark.parametrize("shape,wrapped,true_size", [
    ("f32[2]{0:T(2)L(4611686018427387904)}", 0, 2**64),
    ("f32[2]{0:T(2)L(9223372036854775807)}", -4, 4 * (2**63 - 1)),
])
def test_explain_answers_where_xla_array_size_wraps(capsys, shape, wrapped, true_size):
    # a valid layout (XLA's validator accepts it): the spec's size, and XLA's wrapped one
    code, out, err = run(capsys, "explain", shape)
    assert (code, err) == (0, "")
    assert f"byte size        {true_size}\n" in out
    assert (f"XLA ArraySize    {wrapped}  XLA's ArraySize wraps to {wrapped} (undefined "
            "behaviour: signed int64 overflow in ShapeUtil::ArraySize; docs/xla.md, "
            "array-size-wraps)") in out
    code, out, err = run(capsys, "explain", shape, "--json")
    data = json.loads(out)["results"][0]["data"]
    assert code == 0 and data["byte_size"] == true_size and data["xla_array_size"] == wrapped
    assert data["xla_array_size_note"].startswith(f"XLA's ArraySize wraps to {wrapped} ")


def test_explain_notes_nothing_where_xla_array_size_fits(capsys):
    code, out, _ = run(capsys, "explain", "f32[3]{0:L(4)}", "--json")
    data = json.loads(out)["results"][0]["data"]
    assert (code, data["xla_array_size"], data["xla_array_size_note"]) == (0, 12, None)


@pytest.mark.parametrize("argv", [
    ["check-hlo", "a\x00b"],                                            # NUL in the name
    ["pallas", "30", "--hlo", "f1.png\x00"],
    ["pallas", "f32[8,128]@8,128", "--error", "a\x00b"],
    ["pallas", "f32[1000]{0:T(256)}", "--kernel", "reduce"],           # a rank-2 body
    ["pallas", "f32[1000]{0:T(256)}", "--kernel", "reshape"],
    ["convert", "f32[1000]{0:T(512)}", "f32[1000]{0:T(8,128)}", "--timeout", "1e308"],
    ["convert", "f32[" + "1," * 40 + "1]", "f32[" + "1," * 40 + "1]"],  # rank 41
])
def test_fuzzer_findings_in_check_hlo_and_convert_are_bad_input(argv, capsys):
    """Found by the 100,000-invocation fuzzer run: exit 4 or a hang before."""
    from tilespec.cli import main
    assert main(argv) == 2
    assert capsys.readouterr().err.count("\n") == 1


@pytest.mark.parametrize("argv", [
    ["formula", "f64[1000000,1000000,0]{2,0,1:T(76)}", "--c", "--prove"],
])
def test_generated_code_for_an_empty_array_is_bad_input(argv, capsys):
    """The fuzzer: a 0 dim made the generated C divide by a constant 0; gcc
    rejected it after Z3 proved it (exit 4).  There is nothing to generate."""
    from tilespec.cli import main
    assert main(argv) == 2
    assert "no elements" in capsys.readouterr().err


@pytest.mark.parametrize("text", [
    "f32[8,<=0]{1,0:T(2,4)}",          # the smallest form: exit 4 without the fix
    pytest.param("u1[8,91492,<=0]{1,2,0:T(*,5)(39,171)(142,176,118,96,255,181)L(9)E(10)}",
                 marks=pytest.mark.slow),   # the fuzzer's (a tile of rank 6: Z3, ~25 s)
])
def test_convert_with_a_zero_bound_dim_is_not_an_internal_error(capsys, text):
    """The fuzzer: x mod 0 in the sympy interpretation raised ZeroDivisionError."""
    from tilespec.cli import main
    assert main(["convert", text, text]) in (0, 1, 2, 3)
    assert "internal error" not in capsys.readouterr().err


def test_unreadable_standard_input_is_bad_input(capsys, monkeypatch):
    class Closed:
        def read(self):
            raise OSError("reading from stdin while output is captured")
    monkeypatch.setattr("sys.stdin", Closed())
    assert main(["check-hlo", "-"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tilespec: error: cannot read standard input") and err.count("\n") == 1


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero here")
@pytest.mark.parametrize("argv", [
    ("check-hlo", "/dev/zero"),
    ("padding", "--hlo", "/dev/full"),
    ("padding", "--report", "/dev/zero"),
    ("check-hlo", str(ROOT / "tests/data/hlo/tpu_style.hlo"), "--baseline", "/dev/zero"),
    ("pallas", "f32[8,128]@8,128", "--hlo", "/dev/zero"),
    ("pallas", "f32[8,128]@8,128", "--error", "/dev/full"),
    ("triton", "--from", "/dev/zero"),
])
def test_a_device_with_no_end_is_refused_not_read_until_memory_runs_out(capsys, argv):
    code, out, err = run(capsys, *argv)
    one_line_error(code, err)
    assert "is a device, not a file" in err


@pytest.mark.parametrize("argv", [["explain", "f32[m,3]{1,0}"],
                                  ["offset", "f32[m,3]{1,0}", "0,0"]])
def test_a_name_without_a_size_says_how_to_give_one(capsys, argv):
    code, out, err = run(capsys, *argv)
    assert "--dims NAME=SIZE" in one_line_error(code, err)


@pytest.mark.parametrize("command", cli_main.NO_VERDICT)
def test_commands_without_a_verdict_list_only_the_exit_statuses_they_use(capsys, command):
    code, out, _ = run(capsys, command, "--help")
    assert code == 0 and "0  ok\n" in out and "refuted" not in out and "unknown" not in out


def test_commands_with_a_verdict_list_refuted_and_unknown(capsys):
    code, out, _ = run(capsys, "prove", "--help")
    assert code == 0 and "1  refuted" in out and "3  unknown" in out


@pytest.mark.parametrize("layout", ["f32[8,128]{1,0}", "f32[8,128]{1,0:S(1)}"])
def test_pallas_order_of_an_untiled_operand_is_bad_input(capsys, layout):
    # found by the CLI fuzzer: the tiling was cut out of the text at its ':'
    code, out, err = run(capsys, "pallas-order", layout)
    assert "untiled" in one_line_error(code, err)
