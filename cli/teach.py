"""Teaching commands: ``draw`` a layout as a picture, print its ``formula``.

>>> from tilespec.cli import main
>>> main(["formula", "f32[3,5]{1,0:T(2,2)}"])
offset(e0, e1) = 2*(Mod(e0, 2)) + Mod(e1, 2) + 12*floor(e0/2) + 4*floor(e1/2)
0
>>> main(["formula", "f32[m,n]{1,0:T(8,128)}", "--simplify"])
assuming m = 8*k0, n = 128*k1:
offset(e0, e1) = 1024*k1*floor(e0/8) + 128*(Mod(e0, 8)) + Mod(e1, 128) + 1024*floor(e1/128)
0
"""

from __future__ import annotations

from pathlib import Path

from ..codegen import symbolic
from ..prover.names import DEFAULT_TIMEOUT
from ..prover.result import counterexample_lines
from ..spec import TilespecError, format_shape, index_symbols, names, num_elements
from ..teach import latex_of, picture
from .arguments import output_file, parse_shape_arg, seconds
from .envelope import Entry, emit

#: Picture formats ``draw`` writes, by file suffix.
FORMATS = (".png", ".svg", ".html")


def register(command) -> None:
    c = command("draw", "draw a layout: elements coloured by tile and labelled "
                "with their offsets, beside memory order (large layouts elided, "
                "rank >= 3 as a row of 2-D slices)", cmd_draw)
    c.add_argument("shape", help="shape with layout, e.g. 'bf16[16,256]{1,0:T(8,128)(2,1)}'")
    c.add_argument("-o", "--output", metavar="FILE", type=output_file,
                   help="picture to write: FILE.png (slide resolution), FILE.svg "
                        "(text kept as text) or FILE.html (the hover view)")
    c.add_argument("--html", action="store_true",
                   help="write the self-contained HTML page where hovering an element "
                        "highlights its memory cell (to FILE, or to standard output)")
    c.add_argument("--lang", choices=("en", "ko", "es"), default="en",
                   help="language of the picture's words: English, Korean or Spanish "
                        "(default %(default)s)")

    c = command("formula", "the closed-form offset of an element, as a formula "
                "or as generated Python or C", cmd_formula)
    c.add_argument("shape", help="shape with layout; dims may be names, "
                   "e.g. 'f32[m,n]{1,0:T(8,128)}'")
    c.add_argument("--latex", action="store_true", help="print the formula in LaTeX")
    c.add_argument("--simplify", action="store_true",
                   help="assume every tiled dim is a multiple of its tile")
    c.add_argument("--symbolic", action="store_true",
                   help="treat every dim as a name (d0, d1, ...)")
    code = c.add_mutually_exclusive_group()
    code.add_argument("--python", action="store_true",
                      help="print Python functions offset() and locate()")
    code.add_argument("--c", action="store_true",
                      help="print C functions offset() and locate()")
    c.add_argument("--prefix", metavar="NAME", default="",
                   help="with --c: name the functions NAME_offset() and NAME_locate(), "
                        "so that the C of several layouts links together")
    c.add_argument("--prove", action="store_true",
                   help="with --python or --c: prove the generated functions equal "
                        "to the spec (exit 1 refuted, 3 unknown)")
    c.add_argument("--timeout", type=seconds, default=DEFAULT_TIMEOUT,
                   help="with --prove: seconds per solver call (default %(default)s)")


def cmd_draw(args) -> int:
    shape = parse_shape_arg(args.shape)
    path = Path(args.output) if args.output else None
    if path is None and not args.html:
        raise TilespecError("draw needs -o FILE (.png, .svg or .html), or --html "
                            "to print the HTML page")
    if path is not None and path.suffix.lower() not in FORMATS:
        raise TilespecError(f"cannot tell the picture format of {args.output!r}: "
                            f"name it with one of {', '.join(FORMATS)}")
    if args.html and path is not None and path.suffix.lower() != ".html":
        raise TilespecError(f"--html writes an HTML page; name the file .html, "
                            f"not {args.output!r}")
    p = picture(shape, args.lang)
    if path is None:
        if args.json:
            emit(args, [Entry.answer("draw", {"shape": shape},
                                     {"shape": format_shape(shape), "content": p.html()})])
        else:
            print(p.html(), end="")
        return 0
    try:
        p.save(path)
    except OSError as e:
        raise TilespecError(f"cannot write {args.output}: {e.strerror or e}") from None
    elements = num_elements(shape)
    if args.json:
        emit(args, [Entry.answer("draw", {"shape": shape}, {
            "shape": format_shape(shape), "file": str(path),
            "elided": p.elided, "elements": elements, "memory_cells": p.cells,
            "offsets": p.grid.tolist(), "tiles": p.tiles.tolist(),
            "strip_width": p.width, "memory": p.strip_rows(),
        })])
    else:
        shown = " (elided: first tiles shown)" if p.elided else ""
        print(f"wrote {path}: {_count(elements, 'element')} in "
              f"{_count(p.cells, 'memory cell')} ({p.cells - elements} padding){shown}")
    return 0


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


EXIT = {"proved": 0, "refuted": 1, "unknown": 3}


def cmd_formula(args) -> int:
    shape = parse_shape_arg(args.shape)
    if (args.python or args.c) and (args.simplify or args.latex):
        raise TilespecError("--python and --c print code for every dim size; "
                            "--simplify and --latex apply to the formula")
    data: dict[str, object] = {"shape": format_shape(shape)}
    status = 0
    results: list = []
    if args.prove and not (args.python or args.c):
        raise TilespecError("--prove needs --python or --c: it proves the generated code")
    if args.prefix and not args.c:
        raise TilespecError("--prefix names C functions (with --c); Python modules keep "
                            "their own namespace")
    if args.python or args.c:
        language = "python" if args.python else "c"
        source = (symbolic.python_source(shape, args.symbolic) if args.python
                  else symbolic.c_source(shape, args.symbolic, args.prefix))
        data[language] = source
        text = source
        if args.prove:
            if args.symbolic:
                raise TilespecError("--prove checks the code for the shape as written; "
                                    "write the dims as names instead of --symbolic")
            # the solver boundary: the proofs load z3 (the code does not)
            from ..prover.codegen import prove_generated
            results = prove_generated(shape, language, timeout=args.timeout)
            comment = "#" if language == "python" else "//"
            text += "\n" + "\n".join(
                f"{comment} {r.property}: {r.status} ({r.scope})"
                + (f": {r.reason or '; '.join(counterexample_lines(r.counterexample, ''))}"
                   if r.status != "proved" else "")
                for r in results)
            status = max(EXIT[r.status] for r in results)
    else:
        index = index_symbols(shape.rank, names(shape).indices)
        indices = ", ".join(map(str, index))
        if args.simplify:
            s = symbolic.simplified(shape, args.symbolic)
            expr, assumptions, notes = s.expr, s.assumptions(), list(s.notes)
        else:
            expr, assumptions, notes = symbolic.formula(shape, args.symbolic), [], []
        data.update(expression=str(expr), latex=latex_of(expr),
                    assumptions=assumptions, notes=notes)
        lines = [f"note: {n}" for n in notes]
        if assumptions:
            lines.append("assuming " + ", ".join(assumptions) + ":")
        if args.latex:
            lines = ["% " + line for line in lines]
            shown = ", ".join(map(latex_of, index))
            lines.append(rf"\operatorname{{offset}}({shown}) = {latex_of(expr)}")
        else:
            lines.append(f"offset({indices}) = {expr}")
        text = "\n".join(lines)
    subject = {"shape": shape}
    emit(args, [Entry.of(r, subject, data) for r in results]
         or [Entry.answer("formula", subject, data)], text)
    return status
