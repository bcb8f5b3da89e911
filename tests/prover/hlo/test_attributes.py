"""A malformed attribute is bad input for its module only, said in one line.

``dimensions={1,x}`` (also ``{1,0,}``, ``{1 0}``) ended check-hlo in an
internal error (exit 4), and a directory run lost every other module's
report; an op_name permutation not written as a tuple did too.  Now the
value is read as XLA's ``HloParserImpl::ParseInt64List`` reads it; XLA
rejects the module, so the reader refuses it naming the line, and a corpus
reports the others (text, JSON, SARIF; one process or ``--jobs 2``), its
exit status the worst of its modules.
"""

from __future__ import annotations

import json
import shutil

import pytest
from hypothesis import given, settings, strategies as st
from locations import DATA

from tilespec.cli.main import main
from tilespec.prover.hlo.attributes import braced_int64_list
from tilespec.prover.hlo.check import check_module
from tilespec.prover.hlo.corpus import check_files
from tilespec.prover.hlo.module import parse_hlo
from tilespec.spec.errors import TilespecError

HLO = DATA / "hlo"
GOOD = "jax_tiled_good.hlo"
BAD = "jax_tiled_bad.hlo"          # a refuted bitcast

TRANSPOSE = """HloModule m
ENTRY %main (p: f32[4,8]) -> f32[8,4] {
  %p = f32[4,8]{1,0} parameter(0)
  ROOT %t = f32[8,4]{1,0} transpose(%p), dimensions=VALUE
}
"""
HINT = """HloModule m
ENTRY %main (p: f32[4,8]) -> f32[8,4] {
  %p = f32[4,8]{1,0} parameter(0)
  ROOT %b = f32[8,4]{1,0} bitcast(%p), metadata={op_name="jit(f)/transpose[permutation=VALUE]"}
}
"""
MALFORMED = ["{1,x}", "{1,0,}", "{1 0}", "{,}", "{1}{0}", "{1.0,0}", "{+1,0}",
             "{" + "9" * 5000 + "}", "{18446744073709551616,0}"]


@pytest.mark.parametrize("value", ["{1,0}", "{ 1 , 0 }", "{1,\n 0}", "{}", "{-1}",
                                   "{9223372036854775807}"])
def test_a_braced_int64_list_reads_as_xla_reads_it(value):
    assert braced_int64_list(value) == tuple(
        int(x) for x in value.strip("{}").replace("\n", "").split(",") if x.strip())


def test_an_integer_beyond_int64_wraps_as_xlas_lexer_wraps_it():
    # HloLexer::LexNumberOrPattern reads it as uint64 and bit-casts it
    assert braced_int64_list("{18446744073709551615}") == (-1,)


@pytest.mark.parametrize("value", MALFORMED)
def test_a_malformed_dimensions_is_bad_input_naming_the_line(value):
    with pytest.raises(TilespecError, match=r"^line 4: transpose t: dimensions=") as e:
        parse_hlo(TRANSPOSE.replace("VALUE", value))
    assert "\n" not in str(e.value) and len(str(e.value)) < 300


@pytest.mark.parametrize("value", ["{1,0", "1,0", "{1,0}}", "{1,0}x"])
def test_a_value_whose_brackets_do_not_close_leaves_the_module_unknown(value):
    # the reader cannot tell where the instruction ends: text not read
    m = parse_hlo(TRANSPOSE.replace("VALUE", value))
    assert m.skipped and check_module(m).status == "unknown"


@pytest.mark.parametrize("value", ["(1 0)", "(1,,0)", "(x)", "(" + "1" * 5000 + ",0)"])
def test_an_op_name_permutation_not_written_as_a_tuple_is_no_hint(value):
    r = check_module(parse_hlo(HINT.replace("VALUE", value)))
    assert r.status == "proved"
    assert not [f for f in r.findings if f.rule.startswith("meant")] or all(
        f.level != "error" for f in r.findings)


@settings(max_examples=150)
@given(st.text(alphabet=st.sampled_from("{}(),0123456789-+x. \n\t\x0b%=\"'[]<>T:"),
               max_size=24))
def test_random_attribute_text_is_read_or_refused_in_one_line(value):
    for template in (TRANSPOSE, HINT):
        try:
            check_module(parse_hlo(template.replace("VALUE", value)))
        except TilespecError as e:         # bad input: one line, never another exception
            assert "\n" not in str(e)


@given(st.text(max_size=30))
def test_a_braced_int64_list_of_any_text_is_a_tuple_or_bad_input(value):
    try:
        assert all(isinstance(x, int) for x in braced_int64_list(value))
    except TilespecError as e:
        assert "\n" not in str(e).replace(value, "")


# --- a corpus: the other modules are reported ------------------------------------------------

def corpus(tmp_path, names=(GOOD, BAD)):
    d = tmp_path / "dump"
    d.mkdir()
    for k, name in enumerate(names):
        shutil.copy(HLO / name, d / f"module_{k}.after_optimizations.txt")
    (d / "module_9.after_optimizations.txt").write_text(TRANSPOSE.replace("VALUE", "{1,x}"))
    return d


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("jobs", [(), ("--jobs", "2")])
def test_a_directory_with_a_malformed_module_reports_the_others(capsys, tmp_path, jobs):
    d = corpus(tmp_path)
    bad = d / "module_9.after_optimizations.txt"
    code, out, err = run(capsys, "check-hlo", d, *jobs)
    assert (code, err) == (1, "")              # a refuted module outranks one not read
    assert f"{bad}: not checked: line 4: transpose t: dimensions={{1,x}}" in out
    assert out.splitlines()[-1].startswith("3 modules: 1 proved, 1 refuted, 1 not read")
    code, out, _ = run(capsys, "check-hlo", d, "--json", *jobs)
    doc = json.loads(out)
    assert code == doc["exit_status"] == 1
    files = [r["subject"]["file"] for r in doc["results"] if r["check"] == "check-hlo"]
    assert len(files) == 3 and str(bad) in files
    code, out, _ = run(capsys, "check-hlo", d, "--format", "sarif", *jobs)
    (run_,) = json.loads(out)["runs"]
    assert code == 1 and len(run_["artifacts"]) == 3
    (note,) = run_["invocations"][0]["toolExecutionNotifications"]
    assert "line 4" in note["message"]["text"]
    assert any(r["level"] == "error" for r in run_["results"])


@pytest.mark.parametrize("jobs", [1, 2])
def test_without_a_refuted_module_a_malformed_one_keeps_the_corpus_unknown(tmp_path, capsys,
                                                                           jobs):
    d = corpus(tmp_path, (GOOD,))
    results = check_files(sorted(str(p) for p in d.iterdir()), jobs=jobs)
    assert [r.status for r in results] == ["proved", "error"]
    code, out, err = run(capsys, "check-hlo", d, "--jobs", jobs)
    assert code == 3 and err == "" and "1 proved, 1 not read" in out


def test_a_malformed_module_alone_is_bad_input_naming_file_and_line(capsys, tmp_path):
    m = tmp_path / "m.txt"
    m.write_text(TRANSPOSE.replace("VALUE", "{1,0,}"))
    code, out, err = run(capsys, "check-hlo", m)
    assert (code, out) == (2, "")
    assert err == (f"tilespec: error: {m}: line 4: transpose t: dimensions={{1,0,}}: "
                   "expected an integer, not '}'\n")
