"""``tilespec check-hlo FILE``: every layout claim of an HLO dump, checked;
``tilespec convert A B``: the data movement of a copy between two layouts.

Output: text, ``--json``, or SARIF 2.1.0
(``--format sarif``) with the HLO line of each finding as its region.
Findings below ``--min-level`` are left out: by default notes in text and
SARIF (what CI acts on is warnings and errors), none in ``--json`` (every
decision, for tools).
Exit status: 1 if an error-level finding remains after ``--select``,
``--ignore``, ``--min-level`` and ``--baseline``; 3 if something is unknown;
2 bad input; 0 otherwise: the status the text's last line counts
(:class:`~tilespec.prover.hlo.corpus.Tally`).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from functools import partial

from ..codegen import closed_form, numpy_source
from ..prover.hlo import (
    STDIN,
    Tally,
    baseline_names,
    check_files,
    check_options,
    default_jobs,
    module_paths,
    read_baseline,
    read_text,
    refuse_endless,
    reported_part,
    select_findings,
    verdict_part,
    write_baseline,
)
from ..prover.names import DEFAULT_TIMEOUT, DUMP_GLOB
from ..prover.result import EXIT_STATUS, counterexample_lines
from ..render import rendered, write_sarif, write_text, written_entries
from ..spec import TilespecError, format_shape
from .arguments import parse_shape_arg, seconds, xla_version_argument
from .envelope import Entry, emit, output


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


def _codes(text: str | None, option: str) -> frozenset[str] | None:
    """The rule codes of ``--select``/``--ignore``; none at all is bad input
    (an empty ``--select`` would silence every finding)."""
    if text is None:
        return None
    codes = frozenset(c.strip() for c in text.split(",") if c.strip())
    if not codes:
        raise TilespecError(f"{option} {text!r}: no rule code (comma-separated codes, "
                            "e.g. bitcast-refuted,padding)")
    return codes


def lint_filter(args, results):
    """(the modules' results as ``--select``, ``--ignore``, ``--min-level``
    and ``--baseline`` leave their reports, the line to print when the
    baseline was just written or None).  An unknown rule code or level is
    bad input; a baseline FILE that does not exist is written with the
    findings that remain in every module, and then nothing is new."""
    names = baseline_names(args.paths, [r.path for r in results])

    def each(baseline=None):
        by_file: dict[str, dict] = {}
        for k in (baseline or {}).values():
            by_file.setdefault(k.file, {})[k.key] = k
        return [r if r.report is None else replace(r, report=select_findings(
            r.report, select=_codes(args.select, "--select"),
            ignore=_codes(args.ignore, "--ignore"), min_level=min_level(args),
            baseline=None if baseline is None else by_file.get(names[r.path], {}),
            file=names[r.path])) for r in results]

    results = each()
    if not args.baseline:
        return results, None
    refuse_endless(args.baseline)
    try:
        baseline = read_baseline(args.baseline)
    except FileNotFoundError:
        known = [f.known_as(names[r.path]) for r in results if r.report is not None
                 for f in r.report.findings]
        n = write_baseline(args.baseline, known)
        return (each({k.key: k for k in known}),
                f"baseline {args.baseline}: {n} finding(s) written")
    return each(baseline), None


def min_level(args) -> str:
    """The level ``--min-level`` names, else the format's: every decision
    (notes) for ``--json``, warnings and errors for text and SARIF."""
    return args.min_level or ("note" if args.json else "warning")


def cmd_check_hlo(args) -> int:
    results, written = lint_filter(args, check_paths(args))
    if written is not None:
        print(written, file=sys.stderr)
    status = corpus_exit_status(results)
    if args.sarif:
        with output(argparse.Namespace(report_output=args.sarif)) as out:
            write_sarif(out, results, status)
    if args.json:
        emit(args, written_entries(results, args.command))
    elif args.format == "sarif":
        with output(args) as out:
            write_sarif(out, results, status)
    else:
        with output(args) as out:
            write_text(out, results, args.verbose, tables=args.tables, quiet=args.quiet,
                       xla=args.xla is not None)
    return status


# --- a corpus: input paths, parallel work units, one report -------------------------

def check_paths(args) -> list:
    """Every module ``args.paths`` names, checked (in ``--jobs`` processes
    or on the ``--scheduler`` Dask cluster), in input order.  When no module
    can be read that is bad input; otherwise a module not read is reported
    beside the others, and it keeps the corpus from being proved."""
    paths = module_paths(args.paths, args.glob)
    meant = _meant(args.meant)
    if meant and len(paths) != 1:
        raise TilespecError(f"--meant names a bitcast of one module, but {len(paths)} "
                            "modules are given")
    check_options(_codes(args.select, "--select"), _codes(args.ignore, "--ignore"),
                  min_level(args))
    texts = {STDIN: read_text(STDIN)} if STDIN in paths else {}
    jobs = args.jobs
    if jobs == 0:
        jobs = default_jobs()
    # the buffers (one per value) are read by --json and --tables only
    results = check_files(paths, jobs=jobs, scheduler=args.scheduler,
                          timeout=args.timeout, meant=meant, texts=texts,
                          backend=args.backend, strict_tiles=args.strict_tiles,
                          xla=args.xla, then=where_checked(args, paths),
                          buffers=bool(args.json or args.tables))
    unread = [r for r in results if r.error is not None]
    if len(unread) == len(results):
        # nothing to report: bad input, one line (the first, and how many more)
        more = f" (and {len(unread) - 1} more modules not read)" if len(unread) > 1 else ""
        raise TilespecError(f"{_naming_the_file(unread[0])}{more}")
    return results


def where_checked(args, paths: list[str]):
    """What each worker does after checking its module (also in one
    process): under ``--json``, :func:`json_where_checked`; otherwise keep
    of the report only what text and SARIF read of it under the options
    (:func:`~tilespec.prover.hlo.findings.reported_part`), so that a
    worker sends its module's findings, not every note and buffer.  Not
    against a baseline: which of its findings the module still has is
    decided over every finding (:func:`select_findings`' ``absent``)."""
    if args.json:
        return json_where_checked(args, paths)
    if args.baseline:
        return None
    return partial(reported_result, select=_codes(args.select, "--select"),
                   ignore=_codes(args.ignore, "--ignore"), min_level=min_level(args),
                   tables=args.tables)


def reported_result(result, **options):
    """``result`` with :func:`~tilespec.prover.hlo.findings.reported_part`
    of its report (``options``: the linter's and ``tables``)."""
    if result.report is None:
        return result
    return replace(result, report=reported_part(result.report, **options))


def json_where_checked(args, paths: list[str]):
    """What each worker does after checking its module under ``--json``
    with more than one process: render the module's JSON entries itself
    (:func:`rendered_json`), with what :func:`lint_filter` keeps of it when
    no option filters (every decision, no baseline), so that the parent
    writes bytes; None otherwise (the parent renders what the options keep)."""
    parallel = args.scheduler is not None or (args.jobs != 1 and len(paths) > 1)
    if not (args.json and parallel and args.select is None and args.ignore is None
            and min_level(args) == "note" and not args.baseline):
        return None
    return partial(rendered_json, names=baseline_names(args.paths, paths),
                   check=args.command, whole=bool(args.sarif))


def rendered_json(result, names: dict, check: str, whole: bool = True):
    """``result`` with its JSON entries rendered (``result.rendered``), as
    the parent would render them: of its report as :func:`lint_filter`
    leaves it when no option filters.  Beside them the report, ``whole``
    (the ``--sarif`` log is written from it) or only what decides the
    run's tally and exit status (:func:`verdict_part`)."""
    if result.report is None:
        return result
    kept = replace(result, report=select_findings(result.report, min_level="note",
                                                  file=names[result.path]))
    return replace(result, rendered=rendered(written_entries([kept], check)).text,
                   report=result.report if whole else verdict_part(result.report))


def _naming_the_file(result) -> str:
    """A module's error as one line that names its file (a read error
    names it already; a parse error names only the line).

    >>> from tilespec.prover.hlo.corpus import ModuleResult
    >>> _naming_the_file(ModuleResult("m.txt", error="line 4: transpose t: ..."))
    'm.txt: line 4: transpose t: ...'
    """
    name = "standard input" if result.path == STDIN else result.path
    return result.error if name in result.error else f"{name}: {result.error}"


def corpus_exit_status(results) -> int:
    """1 if a module is refuted by a finding the options keep, else 3 if one
    is unknown or not read, else 0 (a baselined refutation does not fail CI,
    but its module stays refuted in the report): the status of the tally the
    text's last line prints."""
    return EXIT_STATUS[Tally.of(results).status]


def cmd_convert(args) -> int:
    from ..prover.codegen import prove_convert  # the solver boundary: the proof loads z3
    a, b = parse_shape_arg(args.a), parse_shape_arg(args.b)
    r = prove_convert(a, b, timeout=args.timeout)
    expr, valid = closed_form(a, b)
    source = numpy_source(a, b)
    data = {"closed_form": str(expr), "holds_element": str(valid), "numpy_source": source}
    lines = [f"copy {format_shape(a)} -> {format_shape(b)}: offset o of A goes to",
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
    emit(args, [Entry.of(r, {"source": a, "target": b}, data)], "\n".join(lines))
    return EXIT_STATUS[r.status]


def register(command) -> None:
    c = command("check-hlo", "check every bitcast, copy and padded buffer of an HLO dump",
                cmd_check_hlo)
    add_corpus_arguments(c)
    xla_version_argument(c)
    c.add_argument("--format", choices=("text", "sarif"), default="text",
                   help="output format (default %(default)s; --json for JSON)")
    c.add_argument("--sarif", metavar="FILE",
                   help="also write the findings reported as a SARIF log to FILE (one "
                        "run: text for the CI log, SARIF for code scanning)")
    c.add_argument("--meant", action="append", metavar="NAME=P",
                   help="bitcast NAME stands for the transpose P (repeatable)")
    c.add_argument("--verbose", action="store_true",
                   help="also list every op that moves data")
    c.add_argument("--tables", action="store_true",
                   help="text: also list each module's values with the most padding "
                        "and its largest values")
    c.add_argument("--quiet", "-q", action="store_true",
                   help="text: only the findings (FILE:LINE: level: ...) and the last "
                        "line; nothing else when there is no finding")
    c.add_argument("--select", metavar="RULES",
                   help="report only these rule codes (comma-separated)")
    c.add_argument("--ignore", metavar="RULES",
                   help="do not report these rule codes (comma-separated)")
    c.add_argument("--min-level", choices=("note", "warning", "error"),
                   help="report findings at this level or above (default: warning; "
                        "note with --json, which keeps every decision)")
    c.add_argument("--baseline", metavar="FILE",
                   help="report only findings not in FILE; if FILE does not exist, "
                        "write the current findings to it")
    c.add_argument("--timeout", type=seconds, default=DEFAULT_TIMEOUT,
                   help="seconds per solver call (default %(default)s)")
    c.add_argument("--backend", choices=("cpu", "gpu", "tpu"),
                   help="the backend the modules were compiled for (default: the one "
                        "a dump's file name names, e.g. NAME.cpu_after_optimizations.txt)")
    c.add_argument("--strict-tiles", action="store_true",
                   help="a bitcast that moves bytes only by tiles the CPU backend "
                        "ignores is an error, not a warning")

    c = command("convert", "the offset map of a copy between two layouts of one shape, "
                "proved equal to the pad-reshape-transpose copy", cmd_convert)
    c.add_argument("a", help="source layout, e.g. 'f32[3,5]{1,0:T(2,2)}'")
    c.add_argument("b", help="destination layout of the same dims, e.g. 'f32[3,5]{0,1}'")
    c.add_argument("--timeout", type=seconds, default=DEFAULT_TIMEOUT,
                   help="seconds per solver call (default %(default)s)")


def add_corpus_arguments(c) -> None:
    """check-hlo's inputs and outputs: paths, --glob, -o, --jobs, --scheduler."""
    c.add_argument("paths", nargs="+", metavar="PATH",
                   help="HLO text as XLA prints it: files, directories (an XLA dump: "
                        "the modules matching --glob, recursively), '-' reads stdin")
    c.add_argument("--glob", default=DUMP_GLOB, metavar="PATTERN",
                   help="the files of a directory to check (default %(default)s)")
    c.add_argument("-o", "--output", metavar="FILE", dest="report_output",
                   help="write the report (text, --json or --format sarif) to FILE")
    c.add_argument("--jobs", type=_jobs, default=1, metavar="N",
                   help="check modules in N processes (0: one per CPU; default 1)")
    c.add_argument("--scheduler", metavar="ADDRESS",
                   help="check modules on the Dask cluster at ADDRESS "
                        "(tcp://host:port; the dask extra)")


def _jobs(text: str) -> int:
    """An argparse type for ``--jobs``: a number of processes, 0 for one per CPU."""
    try:
        n = int(text)
    except ValueError:
        n = -1
    if n < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of processes (>= 0)")
    return n
