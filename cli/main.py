"""The ``tilespec`` command line.

Every command prints text, or one JSON document with ``--json``.  Bad input
prints one line, ``tilespec: error: ...``, and exits with status 2; any
other exception is a bug in tilespec: one line, ``tilespec: internal
error: ...``, and exit status 4 (``--debug`` shows the traceback).  No
input ends in a Python traceback.

>>> main(["offset", "f32[3,5]{1,0}", "-1,0"])
2
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import traceback

from ..spec.errors import SymbolicShapeError, TilespecError

EXIT_OK = 0
EXIT_REFUTED = 1
EXIT_BAD_INPUT = 2
EXIT_UNKNOWN = 3
EXIT_INTERNAL = 4

EXIT_CODES = """\
exit status:
  0  ok; every property proved
  1  refuted (a counterexample is printed, replayed on the concrete evaluator)
  2  bad input (one line on stderr: 'tilespec: error: ...')
  3  unknown (e.g. a solver timeout), and nothing refuted
  4  internal error: a bug in tilespec, please report it (--debug shows
     the traceback)
  130  interrupted (Ctrl-C)"""

#: Commands that answer without a verdict: they exit 0, 2 or 4.
NO_VERDICT = ("explain", "offset", "locate", "draw", "tile", "untile", "padding")

EXIT_CODES_PLAIN = """\
exit status:
  0  ok
  2  bad input (one line on stderr: 'tilespec: error: ...')
  4  internal error: a bug in tilespec, please report it (--debug shows
     the traceback)
  130  interrupted (Ctrl-C)"""


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line and exit status 2, and an
    argument such as ``-1,0`` (an element with a negative index) is a value,
    not an unknown option."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # argparse reads '-1' as a number but '-1,0' as an option; with no
        # option that looks like a number, both are values.
        self._negative_number_matcher = re.compile(r"^-\d[-\d,. ]*$|^-\.\d+$")

    def parse_known_args(self, args=None, namespace=None):
        # A command's shapes may come before and after its options
        # ('check-rule NAME --timeout 1 SHAPE'); plain argparse takes the
        # positionals in one run and calls the rest unrecognized.
        if self._subparsers is not None or getattr(self, "_intermixing", False):
            return super().parse_known_args(args, namespace)
        self._intermixing = True
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self._intermixing = False

    def error(self, message):
        command = self.prog.removeprefix("tilespec").strip()
        raise _UsageError(f"{command}: {message}" if command else message)

    def exit(self, status=0, message=None):
        # --help: print, then return to main() instead of raising SystemExit
        if message:
            print(message, file=sys.stderr, end="")
        raise _Exit(status)


class _Exit(Exception):
    def __init__(self, status):
        self.status = status


class _UsageError(Exception):
    pass


#: The longest --timeout: Z3 takes milliseconds as an unsigned 32-bit int.
MAX_TIMEOUT = 4_000_000.0


def seconds(text: str) -> float:
    """An argparse type for ``--timeout``: seconds, > 0 and finite.

    >>> seconds("0.5")
    0.5
    >>> seconds("0")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: 0 is not a positive number of seconds
    """
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value <= MAX_TIMEOUT:  # also refuses nan
        raise argparse.ArgumentTypeError(
            f"{text} is not a positive number of seconds"
            + (f" (at most {MAX_TIMEOUT:g})" if value > MAX_TIMEOUT else ""))
    return value


def output_file(text: str) -> str:
    """An argparse type for ``-o FILE``: a path the system can name.

    >>> output_file("a\\0b")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: 'a\\x00b' holds a NUL character
    """
    if not text:
        raise argparse.ArgumentTypeError("the file name is empty")
    if "\0" in text:  # open() raises ValueError, not OSError, on these
        raise argparse.ArgumentTypeError(f"{text!r} holds a NUL character")
    return text


#: The highest rank the commands take (as the Hypothesis strategies do): a
#: rank in the thousands parses, but makes the solver and sympy work for
#: minutes and numpy refuses arrays of more than 64 dims.
MAX_RANK = 32


def parse_shape_arg(text: str, *, int64_size: bool = True):
    """An array shape given on the command line, of rank at most MAX_RANK
    (and, unless ``int64_size`` is false, a padded size that fits int64).

    >>> parse_shape_arg("f32[" + "1," * 32 + "1]")
    Traceback (most recent call last):
    tilespec.spec.errors.ShapeError: the commands take ranks up to 32; this shape has rank 33
    """
    from ..spec.errors import ShapeError
    from ..spec.text import parse_array_shape
    shape = parse_array_shape(text)
    if shape.rank > MAX_RANK:
        raise ShapeError(f"the commands take ranks up to {MAX_RANK}; "
                         f"this shape has rank {shape.rank}")
    if int64_size:
        _check_size(shape)
    return shape


def _check_size(shape) -> None:
    """XLA computes sizes and offsets in int64: a concrete shape whose padded
    size does not fit would make them wrap.  (The dense size, as XLA's
    ValidateShapeSize checks it, is checked when the Shape is made.)

    >>> parse_shape_arg("s8[144115188075855872,1]{1,0:T(1,128)}")
    Traceback (most recent call last):
    tilespec.spec.errors.ShapeError: s8[144115188075855872,1]{1,0:T(1,128)}: its padded size, 18446744073709551616 bytes, does not fit int64 (at most 2^63-1); XLA's ShapeUtil::ArraySize wraps around (signed overflow, undefined behaviour) and returns 0 bytes (tilespec check-rule array_size SHAPE)
    """
    from ..spec.errors import ShapeError
    from ..spec.printer import format_shape
    if shape.element_type in ("token", "opaque") or \
            not all(isinstance(d, int) for d in shape.dims):
        return
    from ..spec.size import byte_size
    padded = byte_size(shape)
    if padded > 2**63 - 1:
        raise ShapeError(f"{format_shape(shape)}: its padded size, {padded} bytes, "
                         "does not fit int64 (at most 2^63-1)" + _what_xla_makes_of(shape))


def _what_xla_makes_of(shape) -> str:
    """What XLA's ArraySize returns for a size past int64: the wrapped value."""
    from ..prover.models.array_size import array_size_behaviour
    try:
        wrapped = array_size_behaviour(shape)
    except TilespecError:
        return ""
    if wrapped is None:
        return ""
    return (f"; XLA's ShapeUtil::ArraySize wraps around (signed overflow, undefined "
            f"behaviour) and returns {wrapped.value} bytes "
            "(tilespec check-rule array_size SHAPE)")


def array_size_wrap_note(shape) -> str | None:
    """What XLA's ArraySize does on ``shape`` when it overflows int64 (None
    when it does not, or when tilespec's model gives no value).

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> print(array_size_wrap_note(shape("f32[2]{0:T(2)L(4611686018427387904)}")))
    XLA's ArraySize wraps to 0 (undefined behaviour: signed int64 overflow in ShapeUtil::ArraySize; docs/xla.md, array-size-wraps)
    >>> print(array_size_wrap_note(shape("f32[3]{0:L(4)}")))
    None
    """
    from ..prover.models.array_size import array_size_behaviour
    try:
        wrapped = array_size_behaviour(shape)
    except TilespecError:
        return None
    if wrapped is None:
        return None
    return (f"XLA's ArraySize wraps to {wrapped.value} (undefined behaviour: signed int64 "
            "overflow in ShapeUtil::ArraySize; docs/xla.md, array-size-wraps)")


def check_bounded(shape) -> None:
    """The prover reasons about sizes or names; a '?' dim has neither."""
    if any(d is None for d in shape.dims):
        from ..spec.printer import format_shape
        raise TilespecError(f"{format_shape(shape)} has an unbounded dim ('?'); "
                            "name it to prove for every size, or give a size")


_shape = parse_shape_arg


def _ints(text: str, what: str) -> tuple[int, ...]:
    text = text.strip().strip("()[]")
    if not text:
        return ()
    try:
        return tuple(int(x) for x in text.split(","))
    except ValueError:
        raise TilespecError(f"{what} {text!r} is not a comma-separated list of integers") from None


def _emit(args, data, text: str) -> None:
    from .envelope import emit
    emit(args, data, text)


def cmd_explain(args) -> int:
    from ..prover.models.rules import xla_array_bytes
    from ..teach.explain import explain, format_explain, text_map
    # A padded size past int64 is a valid layout whose ArraySize wraps in
    # XLA: explain answers it (the spec's size beside XLA's wrapped one).
    shape = parse_shape_arg(args.shape, int64_size=False)
    info = explain(shape, xla_model=xla_array_bytes)
    wraps = array_size_wrap_note(shape)
    if wraps is not None:
        info["xla_array_size_note"] = wraps
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
    from ..spec.printer import format_shape
    from ..spec.size import bit_range
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
    from ..spec.printer import format_shape
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
DIMS_COMMANDS = ("explain", "offset", "locate", "draw", "regress", "cute", "tile", "untile")


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
    from ..spec.printer import format_shape
    from ..spec.shapes import give_values
    from ..spec.text import parse_array_shape
    values = _dims(args.dims)
    used: set[str] = set()

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
    from .envelope import tool_version  # package metadata: no z3, no sympy
    return f"tilespec {tool_version()}"


class _VersionAction(argparse.Action):
    """``--version``, its text read only when asked for (package metadata
    costs every other command time)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, **kw):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="show program's version number and exit")

    def __call__(self, parser, namespace, values, option_string=None):
        print(_version())
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="tilespec", description=(
        "An executable specification and verifier for XLA tiled layouts, "
        "e.g. 'bf16[1024,1024]{1,0:T(8,128)(2,1)}'."),
        epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action=_VersionAction)
    p.add_argument("--debug", action="store_true",
                   help="on an error, also print the Python traceback")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def command(name, help_, func):
        epilog = EXIT_CODES_PLAIN if name in NO_VERDICT else EXIT_CODES
        c = sub.add_parser(name, help=help_, description=help_, epilog=epilog,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
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
        # also after the command name; SUPPRESS keeps the top-level value
        c.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                       help="on an error, also print the Python traceback")
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
CROSS_CHECKED = ("prove", "bitcast", "equivalent", "normalize", "check-rule", "formula",
                 "codegen")


def _run(args) -> int:
    """The command; under ``--cross-check``, with cvc5 re-checking Z3 and
    a one-line summary on stderr."""
    if args.json:
        from .envelope import run
        command = lambda: run(args)  # noqa: E731  (the data it emits becomes the envelope)
    else:
        command = lambda: args.func(args)  # noqa: E731
    if not getattr(args, "cross_check", False):
        return command()
    from ..prover.core.crosscheck import cross_checking
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
    "codegen",    # codegen: tile and untile code
    "xla",        # xla: real XLA beside tilespec
    "hlo",        # check-hlo, convert
    "padding",    # padding: why a buffer is bigger, and smaller layouts
    "cute",       # cute: CuTe layouts both ways
    "tile",       # tile, untile: an array as a layout's exact bytes, and back
)


def _add_later_commands(command) -> None:
    import importlib
    for name in COMMAND_MODULES:
        importlib.import_module(f"{__package__}.{name}").register(command)


def main(argv=None) -> int:
    """Run one command; return its exit status (see ``EXIT_CODES``)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv == ["--version"]:
        # Before the parser: registering the commands imports the prover (z3).
        print(_version())
        return 0
    # Known before parsing, so that even a failure inside the parser shows it.
    debug = "--debug" in argv[: argv.index("--")] if "--" in argv else "--debug" in argv
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        apply_dims(args)
        return _run(args)
    except _Exit as e:
        return e.status
    except _UsageError as e:  # the traceback of argparse would show nothing
        _json_error(argv, "usage", str(e))
        return _fail(False, f"tilespec: error: {e}", EXIT_BAD_INPUT)
    except TilespecError as e:
        message = str(e)
        if isinstance(e, SymbolicShapeError) and argv and argv[0] in DIMS_COMMANDS:
            message += " (--dims NAME=SIZE,...)"
        _json_error(argv, "bad input", message)
        return _fail(debug, f"tilespec: error: {message}", EXIT_BAD_INPUT)
    except BrokenPipeError:
        return EXIT_OK
    except KeyboardInterrupt:
        return _fail(debug, "tilespec: interrupted", 130)
    except Exception as e:  # noqa: BLE001 -- anything else is a bug in tilespec
        # (a SolverDisagreement of --cross-check, a ProverBug, or any other)
        message = (f"tilespec: internal error: {type(e).__name__}: "
                   f"{_one_line(e)} (please report; --debug shows the traceback)")
        _json_error(argv, "internal", message, EXIT_INTERNAL)
        return _fail(debug, message, EXIT_INTERNAL)


def _json_error(argv, kind: str, message: str, status: int = EXIT_BAD_INPUT) -> None:
    """With ``--json``, an error is a JSON document on stdout as well."""
    if "--json" in argv:
        from .envelope import error_document
        command = next((a for a in argv if not a.startswith("-")), None)
        print(json.dumps(error_document(command, message, kind, status), indent=2))


def _one_line(e: BaseException, limit: int = 300) -> str:
    text = " ".join(str(e).split()) or "(no message)"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _fail(debug: bool, line: str, status: int) -> int:
    """One line on stderr (after the traceback, with --debug)."""
    if debug:
        traceback.print_exc(file=sys.stderr)
    print(" ".join(line.split("\n")), file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
