"""The envelope's layout: the header one field per line, each result one
line of compact JSON (``json.dumps``'s C encoder), and a document that
parses to what ``json.dumps(document, indent=2)`` (the layout before
results went one per line) writes of the same values."""

from __future__ import annotations

import io
import json

from tilespec.prover.hlo.corpus import ModuleResult
from tilespec.prover.result import Counterexample, Side
from tilespec.render.envelope import Entry, header, rendered, write, write_error
from tilespec.spec import parse_shape

CE = Counterexample({"m": 3}, (Side("source", element=(0, 1), offset=4),
                               Side("target", offset=5)), what="the offsets differ",
                    details={"sizes": {"source": (16, 32)}})

ENTRIES = [
    Entry({"shape": parse_shape("f32[m,n]{1,0:T(8,128)}")}, "bijective", "refuted",
          scope="all shapes: m >= 1, n >= 1", seconds=0.1234567, counterexample=CE,
          steps=("a", 1), data={"nested": {"t": (1, (2, 3)), "none": None, "f": 1.5}}),
    Entry({"shapes": [parse_shape("s4[3]{0:E(4)}"), "f32[2]"]}, "x", "unknown",
          reason="r\u00e9sum\u00e9 \u2192 \"quoted\"\n\ttab", seconds=None),
    Entry({"file": "m.txt", "line": 7}, "padding", "ok", data={"ce": CE, "big": 2**70,
                                                               "empty": [], "nan": float("nan")}),
]


def document(entries, command="prove", status=1) -> dict:
    """What the envelope holds, as ``json.dumps(indent=2)`` would write it."""
    whole = {**header(command, status), "results": [e.to_json() for e in entries],
             "error": None}
    return json.loads(json.dumps(whole, indent=2, default=Counterexample.to_json))


def written(command, status, entries) -> str:
    out = io.StringIO()
    write(out, command, status, entries)
    return out.getvalue()


def test_the_envelope_parses_to_what_json_dumps_with_indent_writes():
    text = written("prove", 1, iter(ENTRIES))
    assert text.isascii()
    assert repr(json.loads(text)) == repr(document(ENTRIES))   # NaN != NaN: compare text


def test_entries_rendered_by_a_worker_are_the_lines_the_parent_writes():
    whole = [rendered(ENTRIES[:2]), rendered([]), ENTRIES[2]]
    assert written("prove", 1, whole) == written("prove", 1, ENTRIES)


def test_the_header_is_a_field_per_line_and_each_result_one_line():
    lines = written("prove", 1, ENTRIES).splitlines()
    head = header("prove", 1)
    assert lines[0] == "{" and lines[-2:] == ['  "error": null', "}"]
    assert lines[1:len(head) + 1] == [f'  "{k}": {json.dumps(v)},' for k, v in head.items()]
    assert lines[len(head) + 1] == '  "results": ['
    body = lines[len(head) + 2:-3]
    assert lines[-3] == "  ],"
    assert [json.loads(x.removesuffix(",")) for x in body] == document(ENTRIES)["results"]
    assert all(x.startswith("    {") and x.endswith("},") for x in body[:-1])


def test_no_results_and_an_error_are_the_same_envelope():
    assert written("prove", 0, [rendered([])]).splitlines()[-3:] == [
        '  "results": [],', '  "error": null', "}"]
    out = io.StringIO()
    write_error(out, "explain", "bad \u00e9", "bad input", 2)
    doc = json.loads(out.getvalue())
    assert doc == {**header("explain", 2), "results": [],
                   "error": {"kind": "bad input", "message": "bad \u00e9"}}
    assert out.getvalue().splitlines()[-2] == (
        '  "error": {"kind": "bad input", "message": "bad \\u00e9"}')


def test_a_module_written_from_its_pieces_is_the_text_of_its_entries():
    # module_lines writes notes without building their entries: the same text
    from locations import DATA

    from tilespec.prover.hlo.check import check_module
    from tilespec.prover.hlo.findings import select_findings
    from tilespec.prover.hlo.module import parse_hlo
    from tilespec.render.hlo import entries, module_lines
    seen = set()
    for p in sorted((DATA / "hlo").glob("*.hlo")) + sorted((DATA / "tpu_reader").glob("*.hlo")):
        try:
            report = select_findings(check_module(parse_hlo(p.read_text())), min_level="note")
        except ValueError:
            continue
        seen |= {f.counterexample is None for f in report.findings}
        path = f"d/{p.name}\u00e9\"x"          # quotes and non-ASCII escaped alike
        expected = rendered(entries([ModuleResult(path, report=report)], "check-hlo")).text
        assert module_lines(path, report, "check-hlo").text == expected
    assert seen == {True, False}
