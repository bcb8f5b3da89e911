"""``tilespec regress``: regression cases for layouts, as JSONL, pytest or gtest.

Exit status 0, or 2 for bad input.  The cases go to ``-o FILE`` (a summary
is printed) or to standard output.
"""

from __future__ import annotations

import json
import shlex
import sys

from ..spec.errors import TilespecError


def cmd_regress(args) -> int:
    from ..spec.text import parse_array_shape

    from ..prover.regress import Suite, from_counterexamples, generate, write

    shapes = [parse_array_shape(t) for t in args.shapes]
    if args.count < 0:
        raise TilespecError(f"--count {args.count} must be at least 0")
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
    command = "tilespec regress " + " ".join(parts + [f"--format {args.format}"])
    if args.output:
        with open(args.output, "w") as f:
            write(suite, args.format, f, command)
    else:
        write(suite, args.format, sys.stdout, command)
    summary = {
        "cases": suite.count,
        "boundary_witnesses": sum(1 for c in suite.classes if c.status == "witness"),
        "empty_classes": sum(1 for c in suite.classes if c.status == "empty"),
        "unknown_classes": sum(1 for c in suite.classes if c.status == "unknown"),
        "random": sum(len(r) for r in suite.random),
        "from_counterexamples": len(suite.extra),
        "format": args.format,
        "output": args.output,
    }
    if args.output:
        if args.json:
            print(json.dumps(summary, indent=2))
        else:
            print(f"wrote {summary['cases']} cases to {args.output} ({args.format}): "
                  f"{summary['boundary_witnesses']} boundary witnesses, "
                  f"{summary['empty_classes']} empty classes, "
                  f"{summary['unknown_classes']} unknown, {summary['random']} random, "
                  f"{summary['from_counterexamples']} from counterexamples")
    elif args.json:
        print(json.dumps(summary), file=sys.stderr)
    return 0


def register(command) -> None:
    from ..prover.names import DEFAULT_TIMEOUT    # no z3 before a command runs
    c = command("regress", "regression cases: every boundary class, then random ones",
                cmd_regress)
    c.add_argument("shapes", nargs="*", metavar="SHAPE",
                   help="concrete shapes, e.g. 'bf16[20,300]{1,0:T(8,128)(2,1)}'")
    c.add_argument("--count", type=int, default=1000, help="random cases per shape")
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--format", choices=("jsonl", "pytest", "gtest"), default="jsonl")
    c.add_argument("-o", "--output", metavar="FILE")
    c.add_argument("--from-counterexamples", action="store_true",
                   help="cases where XLA's rules (tilespec check-rule) disagree with "
                   "the spec: on the SHAPEs, or on the rules' own examples")
    c.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT,
                   help="seconds per solver call")
