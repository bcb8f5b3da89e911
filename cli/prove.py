"""``tilespec prove``: prove layout properties, or show why not.

Exit status: 0 every property proved, 1 something refuted, 2 bad input,
3 something unknown (and nothing refuted).
"""

from __future__ import annotations

import sys

from ..prover.names import DEFAULT_TIMEOUT, PROPERTY_NAMES
from ..prover.result import counterexample_lines
from ..spec import TilespecError
from .arguments import check_bounded, parse_shape_arg, seconds
from .envelope import Entry, emit

#: The largest bound: a dim must fit XLA's int64.
MAX_BOUND = 2**63 - 1


def _bounds(items, shapes) -> dict:
    """``--bound NAME=N`` options as {name: N}: each names a dim of a shape,
    once, with a non-empty range 1..N.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> _bounds(["m=4"], [shape("f32[m,n]{1,0}")])
    {'m': 4}
    >>> _bounds(["m=0"], [shape("f32[m,n]{1,0}")])
    Traceback (most recent call last):
    tilespec.spec.errors.TilespecError: --bound m=0: the range 1..0 is empty
    """
    names = {n for s in shapes for n in s.names}
    out = {}
    for item in items or ():
        name, sep, value = (x.strip() for x in item.partition("="))
        if not sep or not name.isidentifier() or not value.isascii() or not value.isdigit():
            raise TilespecError(f"--bound {item!r} is not NAME=N")
        if len(value) > 100:  # int() refuses 4300 digits; any N past int64 is refused
            raise TilespecError(f"--bound {name}=...: {len(value)} digits do not fit int64")
        n = int(value)
        if n < 1:
            raise TilespecError(f"--bound {item}: the range 1..{n} is empty")
        if n > MAX_BOUND:
            raise TilespecError(f"--bound {item}: {n} does not fit int64")
        if name not in names:
            raise TilespecError(f"--bound {item}: {name!r} is not a named dim of "
                                + ("the shape" if len(shapes) == 1 else "any shape")
                                + (f" (named dims: {', '.join(sorted(names))})"
                                   if names else " (it has no named dims)"))
        if name in out:
            raise TilespecError(f"--bound {name} is given twice")
        out[name] = n
    return out




def exit_status(results) -> int:
    statuses = {r.status for r in results}
    if "refuted" in statuses:
        return 1
    if "unknown" in statuses:
        return 3
    return 0


def cmd_prove(args) -> int:
    # the solver boundary: the properties' proofs load z3 (bad input below loads nothing)
    from ..prover.properties import CATALOGUE, prove

    texts = args.shape or [s for s, _ in CATALOGUE]
    shapes = [parse_shape_arg(t) for t in texts]
    for shape in shapes:
        check_bounded(shape)
    props = args.property or list(PROPERTY_NAMES)
    for p in props:
        if p not in PROPERTY_NAMES:
            raise TilespecError(f"unknown property {p!r}; choose from {', '.join(PROPERTY_NAMES)}")
    bounds = _bounds(args.bound, shapes)
    total = len(shapes) * len(props)
    results = []
    entries = []
    quiet = args.quiet
    for shape in shapes:
        for prop in props:
            mine = {n: v for n, v in bounds.items() if n in shape.names}
            r = prove(shape, prop, timeout=args.timeout, bounds=mine)
            results.append(r)
            entries.append(Entry.of(r, {"shape": shape}))
            if not quiet:
                print(f"[{len(results):>{len(str(total))}}/{total}] {r.status:8} "
                      f"{r.seconds * 1000:8.1f} ms  {prop:24} {r.shape}",
                      file=sys.stderr, flush=True)
    emit(args, entries, "\n".join(
        [summary(results, props)]
        + ["\n" + describe(r) for r in results if r.status != "proved"]))
    return exit_status(results)


_MARK = {"proved": "proved", "refuted": "REFUTED", "unknown": "unknown"}


def summary(results, props) -> str:
    """A table: one row per shape, one column per property."""
    shapes = list(dict.fromkeys(r.shape for r in results))
    by = {(r.shape, r.property): r for r in results}
    width = max(len(s) for s in shapes)
    cols = [max(len(p), 9) for p in props]
    lines = [f"{'shape':<{width}}  {'scope':<9}  " + "  ".join(
        f"{p:<{w}}" for p, w in zip(props, cols))]
    for s in shapes:
        first = by[(s, props[0])]
        kind = "concrete" if first.scope == "concrete" else "all"
        cells = []
        for p, w in zip(props, cols):
            r = by[(s, p)]
            cells.append(f"{_MARK[r.status]:<{w}}")
        lines.append(f"{s:<{width}}  {kind:<9}  " + "  ".join(cells))
    counts = {k: sum(r.status == k for r in results) for k in _MARK}
    slowest = max(results, key=lambda r: r.seconds)
    lines.append("")
    lines.append(f"{len(results)} checks: {counts['proved']} proved, "
                 f"{counts['refuted']} refuted, {counts['unknown']} unknown; "
                 f"total {sum(r.seconds for r in results):.2f} s, slowest "
                 f"{slowest.seconds * 1000:.1f} ms ({slowest.property} of {slowest.shape})")
    return "\n".join(lines)


def describe(r, head: bool = True, scope: bool = True) -> str:
    """One result in words, with its counterexample or reason: ``head`` a
    first line naming the property, the shape, the verdict and (``scope``)
    the sizes it covers."""
    lines = []
    if head:
        lines.append(f"{r.property} of {r.shape}: {r.status}"
                     + (f" ({r.scope})" if scope else ""))
    if r.counterexample is not None:
        lines += counterexample_lines(r.counterexample)
    if r.reason:
        lines.append(f"  reason: {r.reason}")
    return "\n".join(lines)


def register(command) -> None:
    c = command("prove", "prove layout properties with Z3 (no SHAPE: the built-in catalogue)",
                cmd_prove)
    c.add_argument("shape", nargs="*", help="shapes; dims may be names, meaning all sizes")
    c.add_argument("--property", action="append", metavar="NAME",
                   help=f"one of: {', '.join(PROPERTY_NAMES)} (repeatable; default all)")
    c.add_argument("--timeout", type=seconds, default=DEFAULT_TIMEOUT,
                   help="seconds per solver call (default %(default)s)")
    c.add_argument("--bound", action="append", metavar="NAME=N",
                   help="limit a named dim to 1..N")
    c.add_argument("--quiet", action="store_true", help="no progress lines")
