"""check-hlo as CI runs it: warnings and errors by default in text and
SARIF, every decision in ``--json``, a summary per module (tables only with
``--tables``), ``--quiet``, findings as a headline with their facts indented,
a last line that counts what the exit status follows, BOMs and pre-layout
modules."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from locations import DATA

from tilespec.cli.main import main

HLO = DATA / "hlo"
BAD = HLO / "jax_tiled_bad.hlo"          # a bitcast the tiles refute, at line 24
TPU_STYLE = HLO / "tpu_style.hlo"        # notes, warnings and one refuted bitcast
DUMP = DATA / "dump"                     # two CPU modules, one with tiles ignored


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


#: The last line: "N module(s): 1 proved, 2 refuted, ...  [t s of checking]".
LAST = re.compile(r"^(\d+) modules?: (.*)  \[[\d.]+ s of checking\]$")


def counted(out: str) -> dict[str, int]:
    m = LAST.match(out.splitlines()[-1])
    assert m, out.splitlines()[-1]
    counts = {what: int(n) for n, what in (p.split(" ", 1) for p in m.group(2).split(", "))}
    assert sum(counts.values()) == int(m.group(1))
    return counts


@pytest.mark.parametrize("options", [
    (), ("--strict-tiles",), ("--ignore", "bitcast-refuted"),
    ("--ignore", "bitcast-refuted", "--strict-tiles"),
    ("--ignore", "bitcast-refuted,bitcast-tiles-ignored", "--strict-tiles"),
    ("--select", "padding"), ("--min-level", "error", "--quiet"),
])
def test_the_exit_status_is_the_status_the_last_line_counts(capsys, options):
    code, out, _ = run(capsys, "check-hlo", DUMP, BAD, *options)
    counts = counted(out)
    assert code == (1 if counts.get("refuted") else 0)
    # a module refuted is said to be, whatever the options keep; the CPU
    # backend ignores tiles, so only --strict-tiles refutes the dump's second
    assert counts.get("proved") == (1 if "--strict-tiles" in options else 2)


def test_ignore_passes_a_refuted_module_and_the_last_line_says_it_is_still_refuted(capsys):
    code, out, _ = run(capsys, "check-hlo", BAD, "--ignore", "bitcast-refuted")
    assert code == 0
    assert out.splitlines()[0].startswith(
        "module jit__lambda: refuted (1 error suppressed: 1 by the options; 0 new)")
    assert counted(out) == {"refuted with every error suppressed": 1}


def test_text_gives_a_summary_per_module_and_tables_only_when_asked(capsys):
    _, out, _ = run(capsys, "check-hlo", BAD)
    assert "padding" not in out and "largest" not in out
    _, out, _ = run(capsys, "check-hlo", BAD, "--tables")
    assert "padding, the worst values:" in out and "the largest values:" in out
    assert "  line 24: bitcast f32[16,2,128]{2,1,0:T(8,128)}: 65536 bytes, 49152 padding" in out


def test_a_finding_is_a_headline_with_its_facts_indented_below(capsys):
    _, out, _ = run(capsys, "check-hlo", BAD)
    lines = out.splitlines()
    assert lines[1] == ("  line 24: error: [bitcast-refuted] bitcast bitcast: "
                        "f32[16,256]{1,0:T(8,128)} -> f32[16,2,128]{2,1,0:T(8,128)} moves "
                        "bytes: the offsets and the sizes differ")
    assert lines[2:5] == [
        "    reading: transpose-reshape-transpose",
        "    source: f32[16,256]{1,0:T(8,128)}, element (0, 128), offset 1024, byte offset 4096",
        "    target: f32[16,2,128]{2,1,0:T(8,128)}, element (0, 1, 0), offset 128, "
        "byte offset 512"]
    assert "      target: padded_elements 16384, aligned_elements 16384, element_bits 32, " \
           "byte_size 65536" in lines
    assert not any('{"' in x for x in lines), "JSON inside the text"


def test_notes_are_left_out_of_text_and_sarif_unless_asked(capsys, tmp_path):
    _, out, _ = run(capsys, "check-hlo", TPU_STYLE)
    assert "note:" not in out and "error: [bitcast-refuted]" in out
    _, out, _ = run(capsys, "check-hlo", TPU_STYLE, "--min-level", "note")
    assert "  line 12: note: [bitcast-proved] bitcast good.1: " in out
    levels = {}
    for extra in ((), ("--min-level", "note")):
        run(capsys, "check-hlo", TPU_STYLE, "--format", "sarif", "-o", tmp_path / "x.sarif",
            *extra)
        log = json.loads((tmp_path / "x.sarif").read_text())
        levels[extra] = {r["level"] for r in log["runs"][0]["results"]}
    assert levels[()] == {"warning", "error"}
    assert levels[("--min-level", "note")] == {"note", "warning", "error"}


def test_json_keeps_every_decision_proved_ones_included(capsys):
    _, out, _ = run(capsys, "check-hlo", TPU_STYLE, "--json")
    checks = [r["check"] for r in json.loads(out)["results"]]
    assert "bitcast-proved" in checks and "padding" in checks


def test_a_sarif_file_beside_the_text_holds_what_the_text_reports(capsys, tmp_path):
    code, out, _ = run(capsys, "check-hlo", TPU_STYLE, "--sarif", tmp_path / "t.sarif")
    log = json.loads((tmp_path / "t.sarif").read_text())
    results = log["runs"][0]["results"]
    assert code == 1 == log["runs"][0]["invocations"][0]["exitCode"]
    assert sorted((r["locations"][0]["physicalLocation"]["region"]["startLine"], r["ruleId"])
                  for r in results) == sorted(
        (int(m[0]), m[1]) for m in re.findall(r"^  line (\d+): \w+: \[([\w-]+)\]", out, re.M))
    # the facts follow the headline in the message, one per line
    refuted = next(r for r in results if r["ruleId"] == "bitcast-refuted")
    assert refuted["message"]["text"].split("\n")[1] == "  reading: transpose-reshape-transpose"


def test_quiet_prints_the_findings_by_file_and_line_and_the_last_line(capsys):
    code, out, _ = run(capsys, "check-hlo", DUMP, "--quiet", "--strict-tiles")
    lines = out.splitlines()
    assert code == 1
    assert lines[0].startswith("tests/data/dump/module_0002.jit_g.cpu_after_optimizations.txt"
                               ":24: error: [bitcast-tiles-ignored] ") or lines[0].startswith(
        f"{DUMP}/module_0002.jit_g.cpu_after_optimizations.txt:24: error: ")
    assert all(x.startswith("    ") for x in lines[1:-1])
    assert counted(out) == {"proved": 1, "refuted": 1}


def test_quiet_prints_only_the_last_line_when_nothing_is_found(capsys):
    code, out, _ = run(capsys, "check-hlo", HLO / "jax_tiled_good.hlo", "--quiet")
    assert code == 0 and len(out.splitlines()) == 1 and counted(out) == {"proved": 1}


def test_a_utf8_byte_order_mark_is_read_as_the_file_encoding(capsys, tmp_path):
    bom = tmp_path / "bom.hlo"
    bom.write_bytes(b"\xef\xbb\xbf" + (HLO / "jax_tiled_good.hlo").read_bytes())
    code, out, _ = run(capsys, "check-hlo", bom, "--min-level", "note")
    assert code == 0
    assert out.startswith("module jit__lambda: proved -- 1 bitcast(s), 3 instruction(s)")
    assert "skipped]" not in out and "0 skipped" in out


def test_a_pre_layout_module_says_so_and_names_the_file_to_check(capsys, tmp_path):
    before = tmp_path / "module_0004.jit_f.before_optimizations.txt"
    after = tmp_path / "module_0004.jit_f.cpu_after_optimizations.txt"
    shutil.copy(HLO / "findings_could_be_bitcast.hlo", before)
    shutil.copy(HLO / "findings_could_be_bitcast.hlo", after)
    code, out, _ = run(capsys, "check-hlo", before)
    assert code == 0
    assert (f"  line 1: warning: [pre-layout-module] the module before optimizations, before "
            f"layout assignment: its layouts are not the ones that run; check {after} "
            "instead") in out.splitlines()
    _, out, _ = run(capsys, "check-hlo", after)
    assert "pre-layout" not in out


def test_one_byte_is_singular(capsys, tmp_path):
    m = tmp_path / "m.hlo"
    m.write_text("HloModule one\nENTRY %e (p: u8[1]) -> u8[1] {\n"
                 "  ROOT %p = u8[1]{0} parameter(0)\n}\n")
    _, out, _ = run(capsys, "check-hlo", m, "--tables")
    assert "  line 3: p u8[1]{0}: 1 byte (1 byte of elements)" in out
    assert "1 bytes" not in out


def test_a_real_tpu_dump_gives_one_line_per_module_and_no_finding_that_is_not_real(
        capsys, tmp_path):
    # Real modules of the TPU compiler (libtpu, v4 to v6e), laid out as
    # --xla_dump_to names them: the recorded corpus has no error and nothing
    # unknown (tests/xla/test_tpu_corpus.py), and the copies, reshapes and
    # transposes that keep their bytes are all inside fused computations,
    # where values have no buffers: nothing to report but each module's line.
    dump = tmp_path / "dump"
    dump.mkdir()
    modules = sorted((DATA / "tpu_reader").glob("*.hlo"))
    for i, m in enumerate(modules):
        shutil.copy(m, dump / f"module_{i:04}.jit_{m.stem}.tpu_after_optimizations.txt")
    code, out, _ = run(capsys, "check-hlo", dump)
    lines = out.splitlines()
    assert code == 0
    assert len(lines) == len(modules) + 1
    assert all(": proved -- " in x for x in lines[:-1])
    assert counted(out) == {"proved": len(modules)}
    code, out, _ = run(capsys, "check-hlo", dump, "--quiet")
    assert (code, len(out.splitlines())) == (0, 1)
