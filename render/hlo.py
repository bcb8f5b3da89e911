"""``check-hlo``'s modules written out: as text (:func:`write_text`), as the
JSON envelope's results (:func:`entries`) and as one SARIF 2.1.0 log
(:func:`write_sarif`), each from the typed reports
(:class:`~tilespec.prover.hlo.findings.Report`) module by module.

A finding's status is its verdict (:func:`~tilespec.prover.hlo.findings.verdict_of`,
``none`` shown as ``ok``); a module's is its report's, decided once
(:func:`~tilespec.prover.hlo.findings.status_of`): text, JSON and SARIF
cannot disagree.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring_ascii
from pathlib import Path, PurePath
from typing import IO, Iterable, Iterator, Sequence
from urllib.parse import quote

from ..prover.hlo import NONE, RULES, Buffer, Finding, Report, Tally, verdict_of
from ..prover.names import counted
from ..prover.result import REFUTED, UNKNOWN, counterexample_json
from .envelope import Entry, Rendered, plain_result_line, result_line

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://openxla.org/xla/tiled_layout"


# --- text ------------------------------------------------------------------------------

#: Findings the text leaves to ``--verbose``: data movement nobody acts on.
VERBOSE_ONLY = ("moves-data", "layout-change")


def fact_lines(finding: Finding, indent: str = "    ") -> list[str]:
    """A finding's facts, one per line under its headline, as ``tilespec
    bitcast`` prints a counterexample: its lines, less what the headline
    says already, and each mapping of its details one entry per line.

    >>> from tilespec.prover.result import Counterexample, Side
    >>> ce = Counterexample({}, (Side("source", shape="f32[4]{0}", offset=1),),
    ...                     what="the offsets differ",
    ...                     details={"sizes": {"source": {"byte_size": 16}}})
    >>> f = Finding("bitcast-refuted", "error", 3, "b", "b moves bytes: the offsets differ",
    ...             counterexample=ce)
    >>> print("\\n".join(fact_lines(f, "")))
    source: f32[4]{0}, offset 1
    sizes:
      source: byte_size 16
    """
    ce = finding.counterexample
    if ce is None:
        return []
    lines = ce.lines()
    lines = lines[:len(lines) - len(ce.details)]
    if ce.what and ce.what in finding.message:
        lines = [x for x in lines if x != f"what: {ce.what}"]
    for key, value in ce.details.items():
        if isinstance(value, dict):
            lines.append(f"{key}:")
            lines += [f"  {k}: {_plain(v)}" for k, v in value.items()]
        else:
            lines.append(f"{key}: {_plain(value)}")
    return [indent + x for x in lines]


def _plain(value) -> str:
    """A detail's value in words: a mapping as ``key value`` pairs.

    >>> _plain({"byte_size": 16, "element_bits": 32}), _plain([1, 2])
    ('byte_size 16, element_bits 32', '[1, 2]')
    """
    if isinstance(value, dict):
        return ", ".join(f"{k} {_plain(v)}" for k, v in value.items())
    return value if isinstance(value, str) else json.dumps(value)


def shown(report: Report, verbose: bool = False) -> list[Finding]:
    """The findings a text report prints: those the options keep, less the
    padding (``--tables``) and, without ``verbose``, the data movement."""
    return [f for f in report.findings
            if f.rule != "padding" and (verbose or f.rule not in VERBOSE_ONLY)]


def module_text(report: Report, verbose: bool = False, tables: bool = False,
                xla: bool = False) -> str:
    """One module's report in words: its verdict and counts on one line,
    then the XLA it was judged by (``xla``: when one was asked for), each
    finding the options keep as a headline with its facts indented below
    (every op that moves data with ``verbose``); with ``tables``, the worst
    padding and the largest values."""
    c = report.counts
    lines = [f"module {report.module}: {report.verdict()} -- {c['bitcasts']} bitcast(s), "
             f"{c['instructions']} instruction(s), {c['proofs']} decision(s), "
             f"{c['reused']} reused, {c['skipped']} skipped  [{report.seconds:.2f} s]"]
    if xla and report.xla_version is not None:
        lines.append(f"  XLA: {report.xla_version.label}")
    for f in shown(report, verbose):
        lines.append(f"  line {f.line}: {f.level}: [{f.rule}] {f.message}")
        lines += fact_lines(f)
    if tables:
        lines += table_lines(report)
    return "\n".join(lines)


def table_lines(report: Report) -> list[str]:
    """The values with the most padding and the largest values."""
    lines = []
    worst = report.worst()
    if worst:
        lines.append("padding, the worst values:")
        for b in worst:
            lines.append(f"  line {b.line}: {b.instruction} {b.shape}: {counted(b.bytes, 'byte')}, "
                         f"{b.waste} padding ({100 * b.waste / b.bytes:.1f}%)")
    else:
        lines.append("padding: none")
    largest = report.largest()
    if largest:
        lines.append("the largest values:")
        for b in largest:
            lines.append(f"  line {b.line}: {b.instruction} {b.shape}: {_bytes(b.bytes)}"
                         f" ({_bytes(b.element_bytes)} of elements)")
    return lines


def _bytes(n: int) -> str:
    """``n`` bytes, and in KiB/MiB/GiB when that is shorter to read.

    >>> _bytes(65536), _bytes(100), _bytes(1)
    ('65536 bytes = 64.0 KiB', '100 bytes', '1 byte')
    """
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{counted(n, 'byte')} = {n / size:.1f} {unit}"
    return counted(n, "byte")


def tally_line(tally: Tally) -> str:
    """The run in one line, counting what the exit status follows
    (:class:`~tilespec.prover.hlo.corpus.Tally`).

    >>> tally_line(Tally(proved=1, suppressed=2, seconds=0.5))
    '3 modules: 1 proved, 2 refuted with every error suppressed  [0.50 s of checking]'
    """
    n = tally.modules
    parts = [f"{count} {what}" for count, what in (
        (tally.proved, "proved"), (tally.refuted, "refuted"),
        (tally.suppressed, "refuted with every error suppressed"),
        (tally.unknown, "unknown"), (tally.unread, "not read")) if count]
    return (f"{n} module{'s' * (n != 1)}: {', '.join(parts)}"
            f"  [{tally.seconds:.2f} s of checking]")


def write_text(out: IO[str], results: Sequence, verbose: bool = False,
               tables: bool = False, quiet: bool = False, xla: bool = False) -> None:
    """Each module's report (:func:`module_text`), its first line naming its
    file when there are several; then a line that counts them by what the
    exit status follows (:func:`tally_line`).  ``quiet``: only the findings,
    each headline naming its file and line (``FILE:LINE: level: [rule] ...``,
    as compilers print them), files not read, and that last line."""
    several = len(results) > 1
    for r in results:
        name = "standard input" if r.path == "-" else r.path
        if r.report is None:
            out.write(f"{name}: not checked: {r.error}\n")
        elif quiet:
            for f in shown(r.report, verbose):
                out.write(f"{name}:{f.line}: {f.level}: [{f.rule}] {f.message}\n")
                out.writelines(x + "\n" for x in fact_lines(f))
        else:
            out.write((f"{r.path}: " if several else "")
                      + module_text(r.report, verbose, tables, xla) + "\n")
    out.write(tally_line(Tally.of(results)) + "\n")


# --- the JSON envelope -----------------------------------------------------------------

def status(finding: Finding) -> str:
    """A finding's status in the envelope: its verdict, ``ok`` for none.

    >>> status(Finding("meant-transpose-not-bitcast", "warning", 6, "b", "..."))
    'ok'
    """
    verdict = verdict_of(finding)
    return "ok" if verdict == NONE else verdict


def buffer_json(b: Buffer) -> dict:
    return {"instruction": b.instruction, "computation": b.computation, "line": b.line,
            "shape": b.shape, "bytes": b.bytes, "element_bytes": b.element_bytes,
            "waste": b.waste}


def entries(results: Iterable, check: str) -> Iterator[Entry | Rendered]:
    """The envelope's results: for each module in input order, the module
    (its verdict, sizes and padding; ``check`` the question asked of it),
    then one per finding reported, each naming its file, instruction and
    HLO line; a file not read is one unknown result that says why.  A
    module whose entries its worker rendered already (``r.rendered``:
    the same entries, written by :func:`~.envelope.rendered`) is those."""
    for r in results:
        if r.rendered is not None:
            yield Rendered(r.rendered)
            continue
        if r.report is None:
            yield Entry({"file": r.path}, check, "unknown", reason=f"not checked: {r.error}")
            continue
        yield module_entry(r.path, r.report, check)
        known = counterexamples_json(r.report.findings)
        for f in r.report.findings:
            yield finding_entry(r.path, r.report.module, f, known.get(id(f.counterexample)))


def counterexamples_json(findings: Iterable[Finding]) -> dict[int, dict]:
    """The JSON of each distinct counterexample of ``findings``, by its id:
    a decision's counterexample is shared by every repeat of its question,
    and its JSON is made once (the findings keep each one alive)."""
    known: dict[int, dict] = {}
    for f in findings:
        if f.counterexample is not None and id(f.counterexample) not in known:
            known[id(f.counterexample)] = counterexample_json(f.counterexample)
    return known


def written_entries(results: Iterable, check: str) -> Iterator[Entry | Rendered]:
    """:func:`entries` as the envelope writes them: each module with a
    report as its lines (:func:`module_lines`), the same text
    :func:`~.envelope.rendered` makes of its entries."""
    for r in results:
        if r.rendered is None and r.report is not None:
            yield module_lines(r.path, r.report, check)
        else:
            yield from entries([r], check)


def buffers_json_text(buffers: Iterable[Buffer]) -> str:
    """The JSON text of ``[buffer_json(b) for b in buffers]`` as the
    envelope writes it, from pieces: a module has a buffer per value (a
    TPU train step some 10,000), and its computations and shapes repeat,
    each encoded once.

    >>> from tilespec.prover.hlo import Buffer
    >>> b = Buffer("p\u00e9", "main", 3, "f32[3]{0:T(2)}", 16, 12)
    >>> buffers_json_text([b, b]) == json.dumps([buffer_json(b), buffer_json(b)])
    True
    """
    buffers = list(buffers)
    text = {s: encode_basestring_ascii(s) for s in
            {b.computation for b in buffers} | {b.shape for b in buffers}}
    return "[" + ", ".join([
        f'{{"instruction": {encode_basestring_ascii(b.instruction)}, "computation": '
        f'{text[b.computation]}, "line": {int.__repr__(b.line)}, "shape": {text[b.shape]}, '
        f'"bytes": {int.__repr__(b.bytes)}, "element_bytes": {int.__repr__(b.element_bytes)}, '
        f'"waste": {int.__repr__(b.bytes - b.element_bytes)}}}' for b in buffers]) + "]"


#: Where a module's line holds its buffers when they are left out of its
#: entry (``module_entry(..., buffers=False)``): after ``worst_padding``,
#: before ``suppressed_errors`` (the order of ``data``).
_NO_BUFFERS = '"buffers": [], "suppressed_errors": '


def module_line(path: str, report: Report, check: str) -> str:
    """``result_line(module_entry(path, report, check))``, its buffers
    written by :func:`buffers_json_text`."""
    line = result_line(module_entry(path, report, check, buffers=False))
    if line.count(_NO_BUFFERS) != 1:    # no other value of a module's line holds it
        raise AssertionError(f"a module's line holds {_NO_BUFFERS!r} once, not "
                             f"{line.count(_NO_BUFFERS)} times")
    return line.replace(_NO_BUFFERS, '"buffers": ' + buffers_json_text(report.buffers)
                        + ', "suppressed_errors": ')


def module_entry(path: str, report: Report, check: str, buffers: bool = True) -> Entry:
    """The module: its verdict whatever the options hide (refuted with its
    first refuting finding's counterexample, reported or not; unknown with
    its first question not decided), and its sizes and padding (every
    buffer unless ``buffers`` is False: :func:`module_line` writes them)."""
    every = report.findings + report.filtered + report.baselined
    ce = reason = None
    if report.status == REFUTED:
        ce = next(f.counterexample for f in every
                  if verdict_of(f) == REFUTED and f.counterexample is not None)
    elif report.status == UNKNOWN:
        reason = next((f.message for f in every if verdict_of(f) == UNKNOWN),
                      "a question not decided")
    return Entry({"file": path, "module": report.module}, check, report.status,
                 seconds=report.seconds, counterexample=ce, reason=reason,
                 data={"reported_status": report.reported_status, "counts": report.counts,
                       "largest": [buffer_json(b) for b in report.largest()],
                       "worst_padding": [buffer_json(b) for b in report.worst()],
                       "buffers": [buffer_json(b) for b in report.buffers] if buffers else [],
                       "suppressed_errors": report.suppressed_errors,
                       **({} if report.xla_version is None
                          else {"xla_version": report.xla_version.to_json()})})


def finding_entry(path: str, module: str, f: Finding, counterexample=None) -> Entry:
    """One finding: its rule, its status, its message as the reason, its
    counterexample (where it has one: a hint's too; ``counterexample``: its
    JSON made already), and the decision's JSON."""
    subject = {"file": path, "module": module, "instruction": f.instruction, "line": f.line}
    if f.computation:
        subject["computation"] = f.computation
    return Entry(subject, f.rule, status(f), reason=f.message,
                 counterexample=f.counterexample if counterexample is None else counterexample,
                 data=finding_data(f))


def finding_data(f: Finding) -> dict:
    """A finding's ``data`` in the envelope: its level, whether it was
    decided, the decision's JSON and its text."""
    data = {"level": f.level, "decided": f.decided, **f.data}
    if f.text:
        data["text"] = f.text
    return data


def module_lines(path: str, report: Report, check: str) -> Rendered:
    """``rendered(entries(...))`` of one module's report (:func:`entries`),
    written faster: a finding without a counterexample -- most of a large
    module's, its padding notes -- is written from its pieces, the file
    and module encoded once (:func:`~.envelope.plain_result_line`)."""
    lines = [module_line(path, report, check)]
    head = '{"file": ' + encode_basestring_ascii(path) + ', "module": ' \
        + encode_basestring_ascii(report.module) + ', "instruction": '
    known = counterexamples_json(report.findings)
    for f in report.findings:
        ce = f.counterexample
        if ce is None:
            subject = (head + encode_basestring_ascii(f.instruction) + ', "line": '
                       + int.__repr__(f.line)
                       + (', "computation": ' + encode_basestring_ascii(f.computation)
                          if f.computation else "") + "}")
            lines.append(plain_result_line(subject, f.rule, status(f), f.message,
                                           finding_data(f)))
            continue
        lines.append(result_line(finding_entry(path, report.module, f, known[id(ce)])))
    return Rendered(",\n".join(lines))


# --- SARIF -----------------------------------------------------------------------------

def artifact_uri(path: str) -> str:
    """A file's SARIF artifact URI: relative paths stay relative (code
    scanning resolves them against the repository), with ``/`` separators
    and percent-encoding; absolute paths become ``file://`` URIs.

    >>> artifact_uri("dump/module 1.txt"), artifact_uri("-")
    ('dump/module%201.txt', 'stdin')
    """
    if path == "-":
        return "stdin"
    if PurePath(path).is_absolute():
        return Path(path).as_uri()
    return quote(PurePath(path).as_posix())


#: SARIF's rules: the one rule table, in its order (a result's ruleIndex).
SARIF_RULES = [{"id": r.id, "shortDescription": {"text": r.means}} for r in RULES.values()]
_RULE_INDEX = {r.id: i for i, r in enumerate(RULES.values())}


def sarif_results(report: Report, uri: str, index: int) -> Iterator[dict]:
    """One module's SARIF results, by line: the findings reported, and the
    baselined ones as suppressed (SARIF's own notion, so a viewer shows
    them as known rather than as fixed).  Against a baseline every result
    has a ``baselineState`` and a ``suppressions`` list (SARIF 2.1.0
    §3.27.24: present on one result, present on all; §3.27.23: all null or
    all not), and what the baseline holds for this file but the module no
    longer has follows as ``absent`` results, located in the file only
    (their line was the old file's)."""
    marked = sorted([(f, False) for f in report.findings]
                    + [(f, True) for f in report.baselined],
                    key=lambda x: (x[0].line, x[0].rule))
    updated = {id(f) for f in report.updated}
    for f, known in marked:
        result = {"ruleId": f.rule, "ruleIndex": _RULE_INDEX[f.rule], "level": f.level,
                  "message": {"text": "\n".join([f.message, *fact_lines(f, "  ")])},
                  "locations": [{"physicalLocation": {
                      "artifactLocation": {"uri": uri, "index": index},
                      "region": {"startLine": max(f.line, 1)}}}]}
        if report.against_baseline:
            result["baselineState"] = ("unchanged" if known else
                                       "updated" if id(f) in updated else "new")
            result["suppressions"] = [{"kind": "external", "status": "accepted",
                                       "justification": "in the --baseline file"}
                                      ] if known else []
        if f.instruction:
            result["properties"] = {"instruction": f.instruction}
        yield result
    for k in report.absent:
        result = {"ruleId": k.rule, "ruleIndex": _RULE_INDEX[k.rule], "level": k.level,
                  "message": {"text": k.message or f"{k.rule} at {k.instruction}"},
                  "locations": [{"physicalLocation": {
                      "artifactLocation": {"uri": uri, "index": index}}}],
                  "baselineState": "absent", "suppressions": []}
        if k.instruction:
            result["properties"] = {"instruction": k.instruction}
        yield result


def write_sarif(out: IO[str], results: Sequence, exit_status: int) -> None:
    """One SARIF 2.1.0 log for every module: one run, one artifact per file,
    each result located in its file and line, written module by module (a
    result per line); a file not read is a tool execution notification."""
    out.write('{\n  "$schema": ' + json.dumps(SARIF_SCHEMA) + ',\n  "version": "2.1.0",\n'
              '  "runs": [\n    {\n      "tool": ' + json.dumps(
                  {"driver": {"name": "tilespec", "informationUri": INFORMATION_URI,
                              "rules": SARIF_RULES}}) + ',\n      "results": [')
    first = True
    for index, r in enumerate(results):
        if r.report is None:
            continue
        for result in sarif_results(r.report, artifact_uri(r.path), index):
            out.write(("\n        " if first else ",\n        ") + json.dumps(result))
            first = False
    out.write("\n      ],\n" if not first else "],\n")
    artifacts = [{"location": {"uri": artifact_uri(r.path)}} for r in results]
    notes = [{"level": "error", "message": {"text": r.error},
              "locations": [{"physicalLocation": {
                  "artifactLocation": {"uri": artifact_uri(r.path), "index": i}}}]}
             for i, r in enumerate(results) if r.report is None]
    modules = [{"file": r.path, "status": r.status, "error": r.error} if r.report is None
               else {"file": r.path, "module": r.report.module, "status": r.report.status,
                     "reported_status": r.report.reported_status,
                     "suppressed_errors": r.report.suppressed_errors,
                     "counts": r.report.counts,
                     "xla_version": r.report.xla_version and r.report.xla_version.sha}
               for r in results]
    rest = {"artifacts": artifacts,
            "invocations": [{"executionSuccessful": exit_status in (0, 1, 3),
                             "exitCode": exit_status, "toolExecutionNotifications": notes}],
            "properties": {"modules": modules}}
    out.write(",\n".join(f'      "{k}": {json.dumps(v)}' for k, v in rest.items()))
    out.write("\n    }\n  ]\n}\n")
