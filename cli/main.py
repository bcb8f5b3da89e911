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
    from ..prover.rules import xla_array_bytes
    shape = _shape(args.shape)
    info = explain(shape, xla_model=xla_array_bytes)
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


#: Commands that need sizes: they take ``--dims m=16,n=300`` for named dims.
DIMS_COMMANDS = ("explain", "offset", "locate", "draw", "regress")


def _dims(text: str) -> dict:
    """``m=16,n=300`` as ``{"m": 16, "n": 300}``."""
    out = {}
    for item in text.split(","):
        name, sep, value = item.partition("=")
        name, value = name.strip(), value.strip()
        if not sep or not name.isidentifier() or not value.isdigit():
            raise TilespecError(f"--dims item {item.strip()!r} is not NAME=SIZE "
                                "(e.g. --dims m=16,n=300)")
        out[name] = int(value)
    return out


def apply_dims(args) -> None:
    """Give named dims their ``--dims`` sizes in every shape argument, so the
    commands themselves only ever see sizes.  Each name must be a dim of
    some shape given."""
    if not getattr(args, "dims", None):
        return
    from ..spec.shapes import give_values
    from ..spec.text import format_shape, parse_array_shape
    values = _dims(args.dims)
    used = set()

    def sized(text):
        shape = parse_array_shape(text)
        mine = {k: v for k, v in values.items() if k in shape.names}
        used.update(mine)
        return format_shape(give_values(shape, mine))
    for field in ("shape", "shapes"):
        texts = getattr(args, field, None)
        if isinstance(texts, str):
            setattr(args, field, sized(texts))
        elif texts:
            setattr(args, field, [sized(t) for t in texts])
    unused = [k for k in values if k not in used]
    if unused:
        raise TilespecError(f"--dims {unused[0]}=...: no shape given has a dim "
                            f"named {unused[0]!r}")


def _version() -> str:
    from .envelope import tool_version   # package metadata: no z3, no sympy
    return f"tilespec {tool_version()}"


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="tilespec", description=(
        "An executable specification and verifier for XLA tiled layouts, "
        "e.g. 'bf16[1024,1024]{1,0:T(8,128)(2,1)}'."))
    p.add_argument("--version", action="version", version=_version())
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def command(name, help_, func):
        c = sub.add_parser(name, help=help_, description=help_)
        c.set_defaults(func=func)
        c.add_argument("--json", action="store_true",
                       help="print one JSON document (docs/json.md)")
        if name in CROSS_CHECKED:
            c.add_argument("--cross-check", action="store_true",
                           help="re-check every sat/unsat answer of Z3 with cvc5; "
                           "a disagreement is a bug (exit 4)")
        if name in DIMS_COMMANDS:
            c.add_argument("--dims", metavar="NAME=SIZE,...",
                           help="sizes of named dims, e.g. m=16,n=300")
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
    if args.json:
        from .envelope import run
        command = lambda: run(args)  # noqa: E731  (what it prints becomes the envelope)
    else:
        command = lambda: args.func(args)  # noqa: E731
    if not getattr(args, "cross_check", False):
        return command()
    from ..prover.crosscheck import cross_checking
    with cross_checking() as record:
        status = command()
    print(record.summary(), file=sys.stderr)
    return status


#: Modules that add commands: each defines ``register(command)``, where
#: ``command(name, help, func)`` returns an argparse sub-parser to fill in.
COMMAND_MODULES = (
    "prove",      # prove
    "rules",      # bitcast, normalize, equivalent, check-rule
    "regress",    # regress
    "teach",      # draw, formula
    "xla",        # xla: real XLA beside tilespec
    "hlo",        # check-hlo, convert
)


def _add_later_commands(command) -> None:
    import importlib
    for name in COMMAND_MODULES:
        importlib.import_module(f"{__package__}.{name}").register(command)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv == ["--version"]:
        # Before the parser: registering the commands imports the prover (z3).
        print(_version())
        return 0
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        apply_dims(args)
        return _run(args)
    except _UsageError as e:
        print(str(e), file=sys.stderr)
        _json_error(argv, "usage", str(e))
        return EXIT_BAD_INPUT
    except TilespecError as e:
        print(f"tilespec: error: {e}", file=sys.stderr)
        _json_error(argv, "bad input", str(e))
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        return 0
    except SolverDisagreement as e:
        print(f"tilespec: internal error (a bug): {e}", file=sys.stderr)
        return EXIT_BUG


def _json_error(argv, kind: str, message: str) -> None:
    """With ``--json``, an error is a JSON document on stdout as well."""
    if "--json" in argv:
        import json as _json
        from .envelope import error_document
        command = next((a for a in argv if not a.startswith("-")), None)
        print(_json.dumps(error_document(command, message, kind, EXIT_BAD_INPUT),
                          indent=2))


if __name__ == "__main__":
    sys.exit(main())
