"""``tilespec regress``: regression cases for layouts, as JSONL, pytest or gtest.

Exit status 0, or 2 for bad input.  The cases go to ``-o FILE`` (a summary
is printed) or to standard output.  ``--golden DIR`` writes golden byte
images instead (:mod:`tilespec.prover.regress.golden`).
"""

from __future__ import annotations

import argparse
import io
import shlex
import sys

from ..prover.names import DEFAULT_TIMEOUT, counted
from ..spec import TilespecError
from .arguments import output_file, parse_shape_arg, seconds
from .envelope import Entry, emit

#: The most random cases per shape: the suite is built in memory before it
#: is written (a million JSONL cases is about 100 MB).
MAX_COUNT = 1_000_000

#: The case options' defaults; ``--golden``, which makes no cases, refuses
#: any other value.
CASE_DEFAULTS = {"count": 1000, "seed": 0, "format": "jsonl"}


def count(text: str) -> int:
    """An argparse type for ``--count``: 0..MAX_COUNT.

    >>> count("5")
    5
    >>> count(str(10**7))
    Traceback (most recent call last):
    argparse.ArgumentTypeError: 10000000 is more than 1000000 cases per shape
    """
    value = _integer(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text} is negative: give a count >= 0")
    if value > MAX_COUNT:
        raise argparse.ArgumentTypeError(f"{text} is more than {MAX_COUNT} cases per shape")
    return value


def seed(text: str) -> int:
    """An argparse type for ``--seed``: a non-negative integer (numpy's seeds)."""
    value = _integer(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text} is negative: give a seed >= 0")
    if value >= 2**128:
        raise argparse.ArgumentTypeError(f"{text} is too large: give a seed < 2**128")
    return value


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None


def cmd_regress(args) -> int:
    # the solver boundary: the cases are the solver's witnesses
    from ..prover.regress import Suite, from_counterexamples, generate, write

    shapes = [parse_shape_arg(t) for t in args.shapes]
    if args.golden is not None:
        return _golden(args, shapes)
    if args.from_counterexamples:
        extra = from_counterexamples(shapes, timeout=args.timeout)
        suite = Suite(tuple(), args.seed, (), (), tuple(extra))
    else:
        if not shapes:
            raise TilespecError("give at least one shape (or --from-counterexamples)")
        suite = generate(shapes, count=args.count, seed=args.seed, timeout=args.timeout)
    parts = [shlex.quote(t) for t in args.shapes]
    if args.from_counterexamples:
        parts.append("--from-counterexamples")
    else:
        parts += [f"--count {args.count}", f"--seed {args.seed}"]
    parts.append(f"--format {args.format}")
    if args.target:
        parts.append(f"--target {shlex.quote(args.target)}")
    command = "tilespec regress " + " ".join(parts)
    if args.output:
        try:
            with open(args.output, "w") as f:
                write(suite, args.format, f, command, target=args.target)
        except OSError as e:
            raise TilespecError(f"cannot write {args.output!r}: "
                                f"{e.strerror or e}") from None
    elif args.json:
        cases = io.StringIO()
        write(suite, args.format, cases, command, target=args.target)
    else:
        write(suite, args.format, sys.stdout, command, target=args.target)
    summary = {
        "cases": suite.count,
        "boundary_witnesses": sum(1 for c in suite.classes if c.status == "witness"),
        "empty_classes": sum(1 for c in suite.classes if c.status == "empty"),
        "unknown_classes": sum(1 for c in suite.classes if c.status == "unknown"),
        "random": sum(len(r) for r in suite.random),
        "sizes": len(suite.sizes),
        "from_counterexamples": len(suite.extra),
        "format": args.format,
        "output": args.output,
    }
    subject = {"shapes": shapes}
    if args.output:
        emit(args, [Entry.answer("regress", subject, summary)],
             f"wrote {counted(summary['cases'], 'case')} to {args.output} ({args.format}): "
                  f"{counted(summary['boundary_witnesses'], 'boundary witness', 'boundary witnesses')}, "
                  f"{counted(summary['empty_classes'], 'empty class', 'empty classes')}, "
                  f"{summary['unknown_classes']} unknown, {summary['random']} random, "
                  f"{summary['sizes']} size, "
             f"{summary['from_counterexamples']} from counterexamples")
    elif args.json:
        emit(args, [Entry.answer("regress", subject, {**summary, "content": cases.getvalue()})])
    return 0


def _golden(args, shapes) -> int:
    """``--golden DIR``: a byte image and its sidecar per shape, no cases."""
    from ..prover.regress import write_golden  # the solver boundary (prover.regress)
    if not shapes:
        raise TilespecError("--golden: give at least one shape")
    changed = any(getattr(args, k) != v for k, v in CASE_DEFAULTS.items())
    if args.from_counterexamples or args.output or args.target or changed:
        raise TilespecError("--golden writes byte images only: leave out -o, --target, "
                            "--format, --count, --seed and --from-counterexamples")
    written = write_golden(shapes, args.golden)
    data = {"golden": args.golden, "images": [g.sidecar for g in written]}
    emit(args, [Entry.answer("regress", {"shapes": shapes}, data)], "\n".join(f"wrote {g.path} ({counted(g.sidecar['bytes'], 'byte')}, "
                                f"{g.sidecar['shape']}) and its .json"
                                for g in written))
    return 0


def register(command) -> None:
    c = command("regress", "regression cases: every boundary class, then random ones",
                cmd_regress)
    c.add_argument("shapes", nargs="*", metavar="SHAPE",
                   help="concrete shapes, e.g. 'bf16[20,300]{1,0:T(8,128)(2,1)}'")
    c.add_argument("--count", type=count, default=CASE_DEFAULTS["count"],
                   help=f"random cases per shape, at most {MAX_COUNT} (default %(default)s)")
    c.add_argument("--seed", type=seed, default=CASE_DEFAULTS["seed"],
                   help="a seed >= 0 (default %(default)s)")
    c.add_argument("--format", choices=("jsonl", "pytest", "gtest"),
                   default=CASE_DEFAULTS["format"])
    c.add_argument("-o", "--output", metavar="FILE", type=output_file)
    c.add_argument("--from-counterexamples", action="store_true",
                   help="cases where XLA's rules (tilespec check-rule) disagree with "
                   "the spec: on the SHAPEs, or on the rules' own examples")
    c.add_argument("--target", metavar="MODULE:FUNCTION",
                   help="with --format pytest: test this function, called as "
                   "FUNCTION(shape_text, index) -> offset, instead of tilespec")
    c.add_argument("--timeout", type=seconds, default=DEFAULT_TIMEOUT,
                   help="seconds per solver call")
    c.add_argument("--golden", metavar="DIR",
                   help="instead of cases: write each shape's exact bytes of a known "
                   "array (DIR/NAME.bin) and a sidecar saying how to rebuild them "
                   "(DIR/NAME.json)")
