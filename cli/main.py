"""The ``tilespec`` command line.

Every command prints text, or one JSON document with ``--json``.  Bad input
prints one line, ``tilespec: error: ...``, and exits with status 2.
"""

from __future__ import annotations

import argparse
import json
import sys

from ..prover.crosscheck import SolverDisagreement
from ..spec.errors import TilespecError

EXIT_BAD_INPUT = 2


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line and exit status 2."""

    def error(self, message):
        raise _UsageError(f"{self.prog}: {message}")


class _UsageError(Exception):
    pass


def _shape(text: str):
    from ..spec.text import parse_array_shape
    return parse_array_shape(text)


def _ints(text: str, what: str) -> tuple[int, ...]:
    text = text.strip().strip("()[]")
    if not text:
        return ()
    try:
        return tuple(int(x) for x in text.split(","))
    except ValueError:
        raise TilespecError(f"{what} {text!r} is not a comma-separated list of integers") from None


def _emit(args, data, text: str) -> None:
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        print(text)


def cmd_explain(args) -> int:
    from ..spec.explain import explain, format_explain, text_map
    shape = _shape(args.shape)
    info = explain(shape)
    drawing = text_map(shape)
    info["text_map"] = drawing
    text = format_explain(info)
    if drawing:
        text += "\n\n" + drawing
    elif shape.rank <= 2:
        text += "\n\n(no text map: the array is larger than the map shows)"
    _emit(args, info, text)
    return 0


def cmd_offset(args) -> int:
    from ..spec.index import offset
    from ..spec.size import bit_range
    from ..spec.text import format_shape
    shape = _shape(args.shape)
    element = _ints(args.element, "element")
    o = offset(shape, element)
    bits = bit_range(shape, o)
    data = {"shape": format_shape(shape), "element": list(element), "offset": o,
            "bit_range": list(bits), "byte_offset": bits[0] // 8}
    _emit(args, data, f"{o}")
    return 0


def cmd_locate(args) -> int:
    from ..spec.index import locate
    from ..spec.text import format_shape
    shape = _shape(args.shape)
    try:
        position = int(args.offset)
    except ValueError:
        raise TilespecError(f"offset {args.offset!r} is not an integer") from None
    element = locate(shape, position)
    data = {"shape": format_shape(shape), "offset": position,
            "element": None if element is None else list(element),
            "padding": element is None}
    text = "padding" if element is None else ",".join(map(str, element))
    _emit(args, data, text)
    return 0


def _version() -> str:
    # from the installed metadata: importing tilespec's solvers is not needed
    from importlib import metadata
    try:
        return metadata.version("tilespec")
    except metadata.PackageNotFoundError:
        return "0+unknown"


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="tilespec", description=(
        "An executable specification and verifier for XLA tiled layouts, "
        "e.g. 'bf16[1024,1024]{1,0:T(8,128)(2,1)}'."))
    p.add_argument("--version", action="version", version=f"tilespec {_version()}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def command(name, help_, func):
        c = sub.add_parser(name, help=help_, description=help_)
        c.set_defaults(func=func)
        c.add_argument("--json", action="store_true", help="print JSON")
        if name in CROSS_CHECKED:
            c.add_argument("--cross-check", action="store_true",
                           help="re-check every sat/unsat answer of Z3 with cvc5; "
                           "a disagreement is a bug (exit 4)")
        return c

    c = command("explain", "show how a layout places a shape in memory", cmd_explain)
    c.add_argument("shape", help="shape with layout, e.g. 'f32[3,5]{1,0:T(2,2)}'")
    c = command("offset", "the linear offset of an element", cmd_offset)
    c.add_argument("shape")
    c.add_argument("element", help="logical index, e.g. 2,3")
    c = command("locate", "the element stored at a linear offset, or padding", cmd_locate)
    c.add_argument("shape")
    c.add_argument("offset")
    _add_later_commands(command)
    return p


#: Commands whose solver answers ``--cross-check`` re-checks with cvc5.
CROSS_CHECKED = ("prove", "bitcast", "equivalent", "normalize", "check-rule", "formula")

#: Exit status when tilespec finds a bug in itself (e.g. the solvers disagree).
EXIT_BUG = 4


def _run(args) -> int:
    """The command; under ``--cross-check``, with cvc5 re-checking Z3 and
    a one-line summary on stderr."""
    if not getattr(args, "cross_check", False):
        return args.func(args)
    from ..prover.crosscheck import cross_checking
    with cross_checking() as record:
        status = args.func(args)
    print(record.summary(), file=sys.stderr)
    return status


#: Modules that add commands: each defines ``register(command)``, where
#: ``command(name, help, func)`` returns an argparse sub-parser to fill in.
COMMAND_MODULES = (
    "prove",      # prove
    "rules",      # bitcast, normalize, equivalent, check-rule
    "regress",    # regress
    "teach",      # draw, formula
)


def _add_later_commands(command) -> None:
    import importlib
    for name in COMMAND_MODULES:
        importlib.import_module(f"{__package__}.{name}").register(command)


def main(argv=None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        return _run(args)
    except _UsageError as e:
        print(str(e), file=sys.stderr)
        return EXIT_BAD_INPUT
    except TilespecError as e:
        print(f"tilespec: error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        return 0
    except SolverDisagreement as e:
        print(f"tilespec: internal error (a bug): {e}", file=sys.stderr)
        return EXIT_BUG


if __name__ == "__main__":
    sys.exit(main())
