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
import re
import sys
import traceback

from ..prover.core import cross_checking
from ..spec import SymbolicShapeError, TilespecError
from .arguments import DIMS_COMMANDS, apply_dims
from .commands import COMMANDS, registrations
from .envelope import run, tool_version, write_error

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


def _version() -> str:
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


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or (``only``) of the one command a run
    names: registering a command imports what it needs
    (:func:`~tilespec.cli.commands.registrations`)."""
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

    for _, register in registrations(only):
        register(command)
    return p


def command_named(argv: list[str]) -> str | None:
    """The command ``argv`` runs, when it names one before anything but the
    top-level flags (``--debug``); else None (``--help``, no command, an
    unknown one: the parser of every command answers those).

    >>> command_named(["--debug", "prove", "f32[3]"]), command_named(["-h", "prove"])
    ('prove', None)
    """
    names = {name for _, names in COMMANDS for name in names}
    for a in argv:
        if a != "--debug":
            return a if a in names else None
    return None


#: Commands whose solver answers ``--cross-check`` re-checks with cvc5.
CROSS_CHECKED = ("prove", "bitcast", "equivalent", "normalize", "check-rule", "formula",
                 "codegen", "pallas-order")


def _run(args) -> int:
    """The command; under ``--cross-check``, with cvc5 re-checking Z3 and
    a one-line summary on stderr."""
    if args.json:
        command = lambda: run(args)  # noqa: E731  (the data it emits becomes the envelope)
    else:
        command = lambda: args.func(args)  # noqa: E731
    if not getattr(args, "cross_check", False):
        return command()
    with cross_checking() as record:
        status = command()
    print(record.summary(), file=sys.stderr)
    return status


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
        parser = build_parser(command_named(argv))
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
        command = next((a for a in argv if not a.startswith("-")), None)
        write_error(sys.stdout, command, message, kind, status)


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
