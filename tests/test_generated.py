"""Generated Python and C offset/locate, proved equal to the spec by Z3."""

import pytest

import tilespec.prover.generated as generated
from tilespec.prover.generated import prove_generated
from tilespec.spec.text import parse_array_shape as shape

LAYOUTS = [
    "f32[3,5]{1,0:T(2,2)}", "f32[4,8]{1,0:T(2,4)(2,1)}", "s32[]{:T(128)}",
    "f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}", "f32[5,3]{0,1:T(2,2)}",
    "bf16[m,n]{1,0:T(8,128)(2,1)}", "f32[n]{0:T(128)}", "f32[m,n]{1,0:T(8,128)}",
]


@pytest.mark.parametrize("language", ["python", "c"])
@pytest.mark.parametrize("text", LAYOUTS)
def test_generated_code_is_proved_equal_to_the_spec(text, language):
    for r in prove_generated(shape(text), language):
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
        assert r.counterexample["generated"] != r.counterexample["spec"]


def test_unknown_language_is_bad_input():
    with pytest.raises(ValueError, match="language"):
        prove_generated(shape("f32[3]"), "rust")


def test_formula_command_proves_the_code_it_prints(capsys):
    from tilespec.cli import main
    assert main(["formula", "bf16[m,n]{1,0:T(8,128)(2,1)}", "--python", "--prove"]) == 0
    out = capsys.readouterr().out
    assert "# generated python offset: proved (all shapes: m >= 1, n >= 1)" in out
    assert "# generated python locate: proved" in out
    assert main(["formula", "f32[3,5]", "--prove"]) == 2
