"""``tilespec check-hlo FILE``: every layout claim of an HLO dump, checked;
``tilespec convert A B``: the data movement of a copy between two layouts.

Output: text, ``--json``, or SARIF 2.1.0
(``--format sarif``) with the HLO line of each finding as its region.
Exit status: 1 if an error-level finding remains after ``--select``,
``--ignore``, ``--min-level`` and ``--baseline``; 3 if something is unknown;
2 bad input; 0 otherwise.
"""

from __future__ import annotations

import json
import sys

from tilespec.cli.envelope import emit
from tilespec.prover.result import EXIT_STATUS, counterexample_lines
from tilespec.spec.errors import TilespecError

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://openxla.org/xla/tiled_layout"


def _read(path: str) -> str:
    name = "standard input" if path == "-" else path
    try:
        if path == "-":
            return sys.stdin.read()
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as e:
        raise TilespecError(f"cannot read {name}: {e.strerror or e}") from None
    except UnicodeDecodeError:
        if path == "-":
            raise TilespecError("standard input is not UTF-8 text") from None
        raise TilespecError(f"{path} is not UTF-8 text") from None
    except ValueError:  # e.g. a NUL byte in the name
        raise TilespecError(f"{path!r} is not a file name") from None


def _meant(items) -> dict:
    out = {}
    for item in items or ():
        name, eq, perm = item.partition("=")
        try:
            if not eq or not name:
                raise ValueError
            out[name.strip().lstrip("%")] = tuple(
                int(x) for x in perm.strip().strip("(){}[]").split(","))
        except ValueError:
            raise TilespecError(f"--meant {item!r}: expected NAME=P, e.g. "
                                "bitcast.3=1,0") from None
    return out


def sarif(report, uri: str) -> dict:
    """The report as a SARIF 2.1.0 log: one run, one result per finding."""
    from tilespec.prover.hlo.check import RULES
    rules = [{"id": k, "shortDescription": {"text": v}} for k, v in RULES.items()]
    index = {k: i for i, k in enumerate(RULES)}
    results = []
    for f in report.findings:
        results.append({
            "ruleId": f.rule, "ruleIndex": index[f.rule], "level": f.level,
            "message": {"text": f.message},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": uri},
                "region": {"startLine": max(f.line, 1)}}}],
            **({"properties": {"instruction": f.instruction}} if f.instruction else {})})
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [{
        "tool": {"driver": {"name": "tilespec", "informationUri": INFORMATION_URI,
                            "rules": rules}},
        "results": results,
        "properties": {"module": report.module, "status": report.status,
                       "counts": report.counts}}]}


def text(report, verbose: bool = False) -> str:
    c = report.counts
    lines = [f"module {report.module}: {report.status} -- {c['bitcasts']} bitcast(s), "
             f"{c['instructions']} instruction(s), {c['proofs']} decision(s), "
             f"{c['reused']} reused, {c['skipped']} skipped  [{report.seconds:.2f} s]"]
    for f in report.findings:
        if f.rule != "padding" and (verbose or f.rule not in ("moves-data",
                                                              "layout-change")):
            lines.append(f"  line {f.line}: {f.level}: [{f.rule}] {f.message}")
    worst = report.worst()
    if worst:
        lines.append("padding, the worst values:")
        for b in worst:
            lines.append(f"  line {b.line}: {b.instruction} {b.shape}: {b.bytes} bytes, "
                         f"{b.waste} padding ({100 * b.waste / b.bytes:.1f}%)")
    else:
        lines.append("padding: none")
    largest = report.largest()
    if largest:
        lines.append("the largest values:")
        for b in largest:
            lines.append(f"  line {b.line}: {b.instruction} {b.shape}: {_bytes(b.bytes)}"
                         f" ({_bytes(b.element_bytes)} of elements)")
    return "\n".join(lines)


def _bytes(n: int) -> str:
    """``n`` bytes, and in KiB/MiB/GiB when that is shorter to read."""
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n} bytes = {n / size:.1f} {unit}"
    return f"{n} bytes"


def _codes(text: str | None) -> frozenset[str] | None:
    return None if text is None else frozenset(
        c.strip() for c in text.split(",") if c.strip())


def lint_filter(args, report):
    """(the report as ``--select``, ``--ignore``, ``--min-level`` and
    ``--baseline`` leave it, the line to print when the baseline was just
    written or None).  An unknown rule code or level is bad input; a
    baseline FILE that does not exist is written with the findings that
    remain, and then nothing is new."""
    from tilespec.prover.hlo.check import select_findings
    report = select_findings(report, select=_codes(args.select),
                             ignore=_codes(args.ignore), min_level=args.min_level)
    if not args.baseline:
        return report, None
    keys = [f.key(report.module) for f in report.findings]
    try:
        with open(args.baseline, encoding="utf-8") as f:
            data = json.load(f)
        baseline = frozenset(data["findings"])
    except FileNotFoundError:
        try:
            with open(args.baseline, "w", encoding="utf-8") as f:
                json.dump({"version": 1, "findings": sorted(set(keys))}, f, indent=1)
        except OSError as e:
            raise TilespecError(f"cannot write baseline {args.baseline}: "
                                f"{e.strerror or e}") from None
        return (select_findings(report, baseline=frozenset(keys)),
                f"baseline {args.baseline}: {len(set(keys))} finding(s) written")
    except OSError as e:
        raise TilespecError(f"cannot read baseline {args.baseline}: "
                            f"{e.strerror or e}") from None
    except (ValueError, KeyError, TypeError):
        raise TilespecError(f"baseline {args.baseline} is not a tilespec baseline "
                            "(JSON with a 'findings' list)") from None
    return select_findings(report, baseline=baseline), None


def cmd_check_hlo(args) -> int:
    from tilespec.prover.hlo.check import check_module
    from tilespec.prover.hlo.module import parse_hlo
    module = parse_hlo(_read(args.file))
    report = check_module(module, timeout=args.timeout, meant=_meant(args.meant))
    report, written = lint_filter(args, report)
    if written is not None:
        print(written, file=sys.stderr)
    fmt = "json" if args.json else args.format
    if fmt == "json":
        emit(args, report.to_json())
    elif fmt == "sarif":
        uri = "stdin" if args.file == "-" else args.file
        print(json.dumps(sarif(report, uri), indent=2))
    else:
        print(text(report, args.verbose))
    return EXIT_STATUS[report.status]


def cmd_convert(args) -> int:
    from tilespec.cli.main import parse_shape_arg  # rank and int64 limits, as every command
    from tilespec.codegen.convert import closed_form, numpy_source
    from tilespec.prover.codegen.convert import prove_convert
    from tilespec.spec.text import format_shape
    a, b = parse_shape_arg(args.a), parse_shape_arg(args.b)
    r = prove_convert(a, b, timeout=args.timeout)
    expr, valid = closed_form(a, b)
    source = numpy_source(a, b)
    data = {"a": format_shape(a), "b": format_shape(b), "closed_form": str(expr),
            "holds_element": str(valid), "numpy_source": source, "proof": r.to_json(),
            "status": r.status}
    if args.json:
        emit(args, data)
        return EXIT_STATUS[r.status]
    lines = [f"copy {data['a']} -> {data['b']}: offset o of A goes to",
             f"  {expr}", f"  when o holds an element: {valid}",
             f"equal to to_physical(from_physical(., A), B): {r.status}"
             f"  [{r.seconds:.3f} s]"]
    lines += [f"  - {x}" for x in r.steps] if r.status == "proved" else []
    if r.counterexample is not None:
        lines.append("  counterexample (replayed):")
        lines += counterexample_lines(r.counterexample, "    ")
    if r.reason:
        lines.append(f"  reason: {r.reason}")
    lines += ["", source.rstrip()]
    print("\n".join(lines))
    return EXIT_STATUS[r.status]


def register(command) -> None:
    from tilespec.cli.main import seconds
    from tilespec.prover.names import DEFAULT_TIMEOUT  # no z3 before a command runs
    c = command("check-hlo", "check every bitcast, copy and padded buffer of an HLO dump",
                cmd_check_hlo)
    c.add_argument("file", help="HLO text as XLA prints it ('-' reads stdin)")
    c.add_argument("--format", choices=("text", "sarif"), default="text",
                   help="output format (default %(default)s; --json for JSON)")
    c.add_argument("--meant", action="append", metavar="NAME=P",
                   help="bitcast NAME stands for the transpose P (repeatable)")
    c.add_argument("--verbose", action="store_true",
                   help="also list every op that moves data")
    c.add_argument("--select", metavar="RULES",
                   help="report only these rule codes (comma-separated)")
    c.add_argument("--ignore", metavar="RULES",
                   help="do not report these rule codes (comma-separated)")
    c.add_argument("--min-level", choices=("note", "warning", "error"), default="note",
                   help="report findings at this level or above (default %(default)s)")
    c.add_argument("--baseline", metavar="FILE",
                   help="report only findings not in FILE; if FILE does not exist, "
                        "write the current findings to it")
    c.add_argument("--timeout", type=seconds, default=DEFAULT_TIMEOUT,
                   help="seconds per solver call (default %(default)s)")

    c = command("convert", "the offset map of a copy between two layouts of one shape, "
                "proved equal to the pad-reshape-transpose copy", cmd_convert)
    c.add_argument("a", help="source layout, e.g. 'f32[3,5]{1,0:T(2,2)}'")
    c.add_argument("b", help="destination layout of the same dims, e.g. 'f32[3,5]{0,1}'")
    c.add_argument("--timeout", type=seconds, default=DEFAULT_TIMEOUT,
                   help="seconds per solver call (default %(default)s)")
