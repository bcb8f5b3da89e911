"""Generated Python and C offset/locate, proved equal to the spec by Z3."""

import pytest

import tilespec.prover.codegen.generated as generated
from tilespec.prover.codegen.generated import prove_generated
from tilespec.spec.text import parse_array_shape as shape

LAYOUTS = [
    "f32[3,5]{1,0:T(2,2)}", "f32[4,8]{1,0:T(2,4)(2,1)}", "s32[]{:T(128)}",
    "f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}", "f32[5,3]{0,1:T(2,2)}",
    "bf16[m,n]{1,0:T(8,128)(2,1)}", "f32[n]{0:T(128)}", "f32[m,n]{1,0:T(8,128)}",
]


@pytest.mark.parametrize("language", ["python", "c"])
@pytest.mark.parametrize("text", LAYOUTS)
def test_generated_code_is_proved_equal_to_the_spec(text, language):
    # a generous time limit: the verdict, not the solver's speed, is tested
    for r in prove_generated(shape(text), language, timeout=60):
        assert r.status == "proved", (text, language, r)


@pytest.mark.parametrize("language, old, new", [
    ("python", "// 2", "// 3"), ("c", "/ 2", "/ 3"), ("python", "< 3", "< 4")])
def test_a_broken_generated_function_is_refuted_and_replayed(monkeypatch, language, old, new):
    name = "python_source" if language == "python" else "c_source"
    real = getattr(generated, name)
    monkeypatch.setattr(generated, name, lambda s, sym: real(s, sym).replace(old, new))
    results = prove_generated(shape("f32[3,5]{1,0:T(2,2)}"), language)
    refuted = [r for r in results if r.status == "refuted"]
    assert refuted
    for r in refuted:
        ce = r.counterexample
        ours, spec = ce.side("generated"), ce.side("spec")
        assert (ours.offset, ours.element) != (spec.offset, spec.element)


def test_unknown_language_is_bad_input():
    with pytest.raises(ValueError, match="language"):
        prove_generated(shape("f32[3]"), "rust")


def test_formula_command_proves_the_code_it_prints(capsys):
    from tilespec.cli import main
    assert main(["formula", "f32[m,n]{1,0:T(8,128)}", "--python", "--prove"]) == 0
    out = capsys.readouterr().out
    assert "# generated python offset: proved (all shapes: m >= 1, n >= 1)" in out
    assert "# generated python locate: proved" in out
    assert main(["formula", "f32[3,5]", "--prove"]) == 2


# --- 64-bit integers ------------------------------------------------------------------

INT64_MAX = 2**63 - 1
#: XLA accepts it (2^57 bytes), but the tiles pad it to 2^64 elements, so
#: offsets beyond int64 exist: the C code cannot compute them.
HUGE = "s8[144115188075855872,1]{1,0:T(1,128)}"


def test_c_code_that_overflows_int64_is_refuted_with_the_overflow_replayed():
    off, loc = prove_generated(shape(HUGE), "c", timeout=60)
    assert off.status == loc.status == "refuted"
    ce = off.counterexample
    assert ce.details["value"] > INT64_MAX and ce.details["overflow"]
    # the witness element is real, and its offset (Python's exact int) is
    # indeed beyond int64
    assert ce.side("spec").offset > INT64_MAX
    assert loc.counterexample.details["value"] > INT64_MAX


def test_python_code_has_unbounded_integers_unless_int64_is_asked():
    results = prove_generated(shape(HUGE), "python", timeout=60)
    assert [r.status for r in results] == ["proved", "proved"]
    assert any("unbounded" in step for step in results[0].steps)
    as_int64 = prove_generated(shape(HUGE), "python", timeout=60, int64=True)
    assert as_int64[0].status == "refuted"
    assert as_int64[0].counterexample.details["value"] > INT64_MAX


def test_named_dims_in_c_are_proved_only_for_sizes_that_fit_int64():
    for r in prove_generated(shape("f32[m,n]{1,0:T(8,128)}"), "c", timeout=60):
        assert r.status == "proved", r
        assert r.scope == "all shapes: m >= 1, n >= 1, padded elements < 2^63"
        assert any("int64" in step for step in r.steps)


def test_without_the_bound_the_c_code_of_named_dims_overflows(monkeypatch):
    """The scope's bound is needed: drop it, and Z3 finds sizes for which
    the code overflows (replayed on Python ints)."""
    import z3
    monkeypatch.setattr(generated._Claim, "hypothesis",
                        lambda self, enc, size: z3.BoolVal(True, enc.ctx))
    off, loc = prove_generated(shape("f32[m,n]{1,0:T(8,128)}"), "c", timeout=60)
    assert off.status == loc.status == "refuted"
    for r in (off, loc):
        assert r.counterexample.details["value"] > INT64_MAX or \
            r.counterexample.details["value"] < -(2**63), r


def test_mixed_named_and_numeric_dims_are_proved(capsys):
    from tilespec.cli import main
    for language in ("--python", "--c"):
        assert main(["formula", "f32[m,5]{1,0:T(2,2)}", language, "--prove"]) == 0
        out = capsys.readouterr().out
        assert "offset: proved (all shapes: m >= 1" in out
        assert "locate: proved (all shapes: m >= 1" in out


def _ubsan_run(tmp_path, text, element):
    """Compile the generated C with UBSan and call offset at ``element``."""
    import shutil
    import subprocess

    from tilespec.codegen.symbolic import c_source
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    src = tmp_path / "g.c"
    args = ", ".join(f"{x}LL" for x in element)
    src.write_text(c_source(shape(text)) + "\n#include <stdio.h>\nint main(void) {\n"
                   f'    printf("%lld\\n", (long long)offset({args}));\n    return 0;\n}}\n')
    exe = tmp_path / "g"
    built = subprocess.run([cc, "-std=c99", "-fsanitize=undefined",
                            "-fno-sanitize-recover=undefined", str(src), "-o", str(exe)],
                           capture_output=True, text=True)
    if built.returncode != 0:
        pytest.skip(f"no UBSan here: {built.stderr.strip()[:100]}")
    return subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)


def test_the_c_compiler_agrees_the_refuted_code_overflows(tmp_path):
    """A second opinion from outside tilespec: UBSan traps at the witness."""
    off = prove_generated(shape(HUGE), "c", timeout=60)[0]
    done = _ubsan_run(tmp_path, HUGE, list(off.counterexample.side("spec").element))
    assert done.returncode != 0 and "signed integer overflow" in done.stderr
    # ... and the last element below int64 computes cleanly
    ok = _ubsan_run(tmp_path, HUGE, [2**56 - 1, 0])
    assert ok.returncode == 0 and int(ok.stdout) == (2**56 - 1) * 128


def test_a_bound_no_size_satisfies_is_not_assumed():
    """Padded elements reach 2^63 already at m = 1: assuming them below 2^63
    would prove anything (vacuously).  Without that premise, over the shapes
    XLA accepts, the C code's locate compares with the literal 2^63, outside
    int64: refuted, not proved."""
    results = prove_generated(shape("s8[m,4611686018427387904]{1,0:T(2,128)}"), "c",
                              timeout=60)
    for r in results:
        assert "padded elements" not in r.scope and "dense bytes < 2^63" in r.scope
    loc = results[1]
    assert loc.status == "refuted"
    assert loc.counterexample.dim_values["m"] == 1
    assert loc.counterexample.details["value"] == 2**63


# --- small concrete shapes: decided by enumeration when Z3 is not -------------------

#: 2,500 elements in 4,080 offsets: Z3 times out on ``locate``.
SMALL_HARD = "f32[50,50]{1,0:T(3,5)(2,2)}"


@pytest.mark.parametrize("language", ["python", "c"])
def test_a_small_concrete_shape_z3_does_not_decide_is_proved_by_enumeration(language):
    results = prove_generated(shape(SMALL_HARD), language, timeout=1)
    assert [r.status for r in results] == ["proved", "proved"]
    locate = results[1]
    assert any(s.startswith("enumeration: on all 4,080 offsets") for s in locate.steps)
    # the steps say which method decided it, and claim no Z3 proof it did not give
    assert not any(s.startswith(("Z3:", "cited")) for s in locate.steps)


@pytest.fixture
def z3_never_decides(monkeypatch):
    monkeypatch.setattr(generated, "search", lambda *a, **k: ("unknown", "forced"))


@pytest.mark.parametrize("language", ["python", "c"])
@pytest.mark.parametrize("text", ["f32[3,5]{1,0:T(2,2)}", "f32[4,8]{1,0:T(2,4)(2,1)}",
                                  "s32[]{:T(128)}", "f32[5,3]{0,1:T(2,2)}"])
def test_enumeration_alone_proves_correct_code(z3_never_decides, text, language):
    for r in prove_generated(shape(text), language):
        assert r.status == "proved", r
        assert any(s.startswith("enumeration:") for s in r.steps)


@pytest.mark.parametrize("int64", [False, True])
@pytest.mark.parametrize("language, old, new", [
    ("python", "// 2", "// 3"), ("c", "/ 2", "/ 3"), ("python", "< 3", "< 4"),
    ("c", "< 3", "< 4"), ("python", "% 3 * 2", "% 3 * 3")])
def test_enumeration_alone_refutes_broken_code_with_a_replayed_witness(
        z3_never_decides, monkeypatch, language, old, new, int64):
    name = "python_source" if language == "python" else "c_source"
    real = getattr(generated, name)
    monkeypatch.setattr(generated, name, lambda s, sym: real(s, sym).replace(old, new))
    results = prove_generated(shape("f32[3,5]{1,0:T(2,2)}"), language, int64=int64)
    refuted = [r for r in results if r.status == "refuted"]
    assert refuted
    for r in refuted:
        ce = r.counterexample
        g, s = ce.side("generated"), ce.side("spec")
        assert (g.element, g.offset) != (s.element, s.offset) or ce.details


def test_enumeration_refutes_a_division_c_would_truncate(z3_never_decides, monkeypatch):
    # "(o - 5) / 2" is floor division only for o >= 5: C truncates below
    real = generated.c_source
    monkeypatch.setattr(generated, "c_source",
                        lambda s, sym: real(s, sym).replace("o / 2 % 2", "(o - 5) / 2 % 2"))
    loc = prove_generated(shape("f32[3,5]{1,0:T(2,2)}"), "c")[1]
    assert loc.status == "refuted"
    assert loc.counterexample.details["division"] and loc.counterexample.details["dividend"] < 0


def test_enumeration_is_not_used_beyond_its_limit(z3_never_decides):
    # 2^21 elements: too many to enumerate, so Z3's "unknown" stands
    results = prove_generated(shape("f32[2048,1024]{1,0:T(8,128)}"), "python")
    assert [r.status for r in results] == ["unknown", "unknown"]


def test_formula_takes_a_timeout_and_passes_it_to_the_proof(monkeypatch, capsys):
    from tilespec.cli import main
    seen = []
    real = generated.prove_generated
    # the command asks the package's door, where the question is exported
    monkeypatch.setattr("tilespec.prover.codegen.prove_generated",
                        lambda *a, **k: seen.append(k.get("timeout")) or real(*a, **k))
    assert main(["formula", "f32[3,5]{1,0:T(2,2)}", "--c", "--prove",
                 "--timeout", "2.5"]) == 0
    assert seen == [2.5]


@pytest.mark.parametrize("bad", ["0", "-1", "nan", "x", "1e9"])
def test_formula_refuses_a_timeout_that_is_not_a_positive_number_of_seconds(bad, capsys):
    from tilespec.cli import main
    assert main(["formula", "f32[3,5]", "--python", "--prove", "--timeout", bad]) == 2
    err = capsys.readouterr().err
    assert "seconds" in err and "Traceback" not in err


def test_formula_proves_a_small_hard_layout_from_the_command_line(capsys):
    from tilespec.cli import main
    for flag in ("--python", "--c"):
        assert main(["formula", SMALL_HARD, flag, "--prove", "--timeout", "1"]) == 0
        assert capsys.readouterr().out.count(": proved (concrete)") == 2
