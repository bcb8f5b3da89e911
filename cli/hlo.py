"""``tilespec check-hlo FILE``: every layout claim of an HLO dump, checked;
``tilespec convert A B``: the data movement of a copy between two layouts.

Output: text, ``--json``, or SARIF 2.1.0
(``--format sarif``) with the HLO line of each finding as its region.
Exit status: 0 every bitcast proved, 1 one refuted (or a bitcast recorded as a
transpose or reshape that does not keep the bytes), 2 bad input, 3 unknown.
"""

from __future__ import annotations

import json
import sys

from tilespec.cli.envelope import emit
from tilespec.prover.result import EXIT_STATUS, counterexample_lines
from tilespec.spec.errors import TilespecError

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://openxla.org/xla/tiled_layout"


def read_text(path: str) -> str:
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
    shown = ("bitcast-refuted", "bitcast-unknown", "meant-transpose-not-bitcast",
             "meant-reshape-not-bitcast", "could-be-bitcast", "skipped", "bitcast-proved",
             "moves-data")
    for f in report.findings:
        if f.rule in shown and (verbose or f.rule not in ("moves-data",)):
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


def cmd_check_hlo(args) -> int:
    from tilespec.prover.hlo.check import check_module
    from tilespec.prover.hlo.module import parse_hlo
    module = parse_hlo(read_text(args.file))
    report = check_module(module, timeout=args.timeout, meant=_meant(args.meant))
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
    c.add_argument("--timeout", type=seconds, default=DEFAULT_TIMEOUT,
                   help="seconds per solver call (default %(default)s)")

    c = command("convert", "the offset map of a copy between two layouts of one shape, "
                "proved equal to the pad-reshape-transpose copy", cmd_convert)
    c.add_argument("a", help="source layout, e.g. 'f32[3,5]{1,0:T(2,2)}'")
    c.add_argument("b", help="destination layout of the same dims, e.g. 'f32[3,5]{0,1}'")
    c.add_argument("--timeout", type=seconds, default=DEFAULT_TIMEOUT,
                   help="seconds per solver call (default %(default)s)")
