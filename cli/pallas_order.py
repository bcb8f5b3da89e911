"""``tilespec pallas-order LAYOUT --chip v5e``: does XLA's layout of a
Pallas operand put its elements in the order of the memref layout Mosaic
infers, for every shape, and at LAYOUT's dims which element lands where;
``--condition 'm >= 5 or n <= 128'`` proves or refutes a condition as the
exact one; ``--draw FILE.svg`` draws the element the layouts place apart
(pytorch/xla#8732: ``f32[16,3072]{1,0:T(128)}``); ``--claims`` proves the
shipped claims (:data:`tilespec.mosaic.proofs.CLAIMS`: the operand-order
ones, and with ``--vector`` those about vector layouts).

Exit status: 0 every claim proved and the layouts agree at LAYOUT's dims,
1 something refuted or the orders differ, 2 bad input, 3 unknown.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..mosaic import (
    GENERATIONS,
    ORDER_CLAIMS,
    VECTOR_CLAIMS,
    mosaic_layout,
    pallas_order,
    prove_claim,
)
from ..prover.names import DEFAULT_TIMEOUT
from ..prover.result import counterexample_lines
from ..spec import TilespecError, bit_width, format_shape, parse_array_shape
from ..teach import contrast
from .arguments import output_file, seconds
from .envelope import Entry, emit

EXIT = {"proved": 0, "refuted": 1, "unknown": 3}


def register(command) -> None:
    c = command("pallas-order", "is XLA's layout of a Pallas operand in the order of Mosaic's "
                "memref layout, for every shape, and which element lands where", cmd_order)
    c.add_argument("layout", nargs="?", metavar="LAYOUT",
                   help="XLA's layout of a rank-2 operand, e.g. 'f32[16,3072]{1,0:T(128)}' "
                        "(dims may be names: 'f32[m,n]{1,0:T(8,128)}')")
    c.add_argument("--chip", default="v5e", choices=sorted(GENERATIONS),
                   help="the TPU generation (default v5e)")
    c.add_argument("--condition", metavar="COND",
                   help="a condition in m and n ('m >= 5 or n <= 128') to prove or refute "
                        "as the exact one")
    c.add_argument("--draw", metavar="FILE", type=output_file,
                   help="draw the element the layouts place apart: FILE.svg")
    c.add_argument("--claims", action="store_true",
                   help="prove the shipped claims about operand layouts")
    c.add_argument("--vector", action="store_true",
                   help="with --claims: also those about vector layouts (slower)")
    c.add_argument("--timeout", type=seconds, default=DEFAULT_TIMEOUT,
                   help="seconds per solver call (default %(default)s)")


def _verdict(r) -> str:
    text = (f"proved for {r.scope}" if r.status == "proved"
            else f"{r.status} (the claim is about {r.scope})")
    if r.status == "unknown" and r.reason:
        text += f": {r.reason}"
    return text


def _claims(args) -> int:
    claims: list[Any] = list(ORDER_CLAIMS) + ([None] * len(VECTOR_CLAIMS) if args.vector else [])
    names = [c.name for c in ORDER_CLAIMS] + (list(VECTOR_CLAIMS) if args.vector else [])
    results = [prove_claim(n, args.timeout) for n in names]
    lines = []
    for r in results:
        lines.append(f"{r.status:<9}{r.property}")
        lines.append(f"         for {r.scope}" if r.status == "proved"
                     else f"         the claim is about {r.scope}"
                     + (f": {r.reason}" if r.reason else ""))
        if r.counterexample is not None:
            lines += counterexample_lines(r.counterexample, "         ")
    emit(args, [_entry(r, {"shape": c.xla_shape_text()} if c else {}, "pallas-claim",
                       {"claim": r.property, "chip": c.chip if c else None})
                for r, c in zip(results, claims)], "\n".join(lines))
    return max(EXIT[r.status] for r in results)


def cmd_order(args) -> int:
    if args.claims:
        if args.layout or args.condition or args.draw:
            raise TilespecError("--claims proves the shipped claims; give LAYOUT without it")
        return _claims(args)
    if args.vector:
        raise TilespecError("--vector goes with --claims")
    if not args.layout:
        raise TilespecError("give XLA's layout of the operand (e.g. 'f32[16,3072]{1,0:T(128)}'), "
                            "or --claims")
    if args.draw and Path(args.draw).suffix.lower() != ".svg":
        raise TilespecError(f"--draw writes an SVG: name the file .svg, not {args.draw!r}")
    shape = parse_array_shape(args.layout)
    answer = pallas_order(shape, args.chip, args.condition, args.timeout)
    claim, lemma = answer.claim, answer.lemma
    lines = [f"operand    {args.layout} on {args.chip} (TPU generation {GENERATIONS[args.chip]})",
             f"lemma      {lemma.property}",
             f"           {_verdict(lemma)}"]
    results = [lemma]
    if lemma.counterexample is not None:
        lines += counterexample_lines(lemma.counterexample, "           ")
    if answer.condition is not None:
        c = answer.condition
        results.append(c)
        lines.append(f"claim      {claim.name}")
        lines.append(f"           {_verdict(c)}")
        if c.counterexample is not None:
            lines += counterexample_lines(c.counterexample, "           ")
    drawn: tuple | None = None
    if answer.dims is not None:
        w = answer.here
        mosaic = mosaic_layout(claim.element_type, answer.dims, args.chip)
        rows = mosaic.layout.tiles[0].sizes[0]
        lines.append(f"Mosaic     {format_shape(mosaic)}" + (
            f": its rule tiles {rows} row{'' if rows == 1 else 's'} here"
            if len(answer.dims) == 2 else ""))
        if w is None:
            lines.append(f"here       every element of [{','.join(map(str, answer.dims))}] is at one offset in XLA's layout "
                         f"and in Mosaic's (replayed on every element)")
        else:
            bits = bit_width(shape.element_type)
            lines.append(f"here       element {w.element} is at byte "
                         f"{w.xla_offset * bits // 8:,} in XLA's layout but at byte "
                         f"{w.mosaic_offset * bits // 8:,} in Mosaic's (replayed)")
            drawn = ([parse_array_shape(w.xla), parse_array_shape(w.mosaic)], w.element,
                     [f"{w.xla} (XLA, above) against {w.mosaic} (Mosaic, below)",
                      f"element {w.element}: offset {w.xla_offset} in XLA's layout, "
                      f"{w.mosaic_offset} in Mosaic's (outlined where a picture shows it)"])
    if drawn is None and answer.condition is not None and answer.condition.counterexample:
        ce = answer.condition.counterexample
        sides = {s.name: s for s in ce.sides}
        if "source" in sides:
            src, dst = sides["source"], sides["target"]
            drawn = ([parse_array_shape(str(src.shape)), parse_array_shape(str(dst.shape))],
                     src.element,
                     [f"{src.shape} (XLA, above) against {dst.shape} (Mosaic, below)",
                      f"element {src.element}: offset {src.offset} in XLA's layout, "
                      f"{dst.offset} in Mosaic's (outlined where a picture shows it)"])
    if args.draw:
        if drawn is None:
            raise TilespecError("nothing to draw: no element lies apart (give concrete dims "
                                "where the orders differ)")
        try:
            Path(args.draw).write_text(contrast(*drawn), encoding="utf-8")
        except OSError as e:
            raise TilespecError(f"cannot write {args.draw}: {e.strerror or e}") from None
        lines.append(f"figure     wrote {args.draw}")
    subject = {"shape": args.layout}
    data = {"chip": args.chip, "claim": claim.name if args.condition else None,
            "dims": list(answer.dims) if answer.dims else None,
            "element": list(answer.here.element) if answer.here else None,
            "xla_offset": answer.here.xla_offset if answer.here else None,
            "mosaic_offset": answer.here.mosaic_offset if answer.here else None,
            "mosaic": answer.here.mosaic if answer.here else None,
            "figure": args.draw}
    checks = ["pallas-order-lemma", "pallas-order-claim"]
    emit(args, [_entry(r, subject, c, data) for r, c in zip(results, checks)], "\n".join(lines))
    statuses = {r.status for r in results}
    if "refuted" in statuses or answer.here is not None:
        return 1
    return 3 if "unknown" in statuses else 0



def _entry(r, subject, check: str, data) -> Entry:
    """A claim's result under a short check name (the claim itself is in ``data``)."""
    return Entry(subject, check, r.status, r.scope, r.seconds, r.counterexample, r.reason,
                 r.steps, {**data, "property": r.property})
