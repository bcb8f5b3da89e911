"""``tilespec tile`` and ``tilespec untile``: a .npy array to the exact bytes
of a layout, and back.

``tilespec tile IN.npy SHAPE -o OUT.bin [--pad V]`` writes
:func:`tilespec.image.to_bytes` of the array; ``tilespec untile IN.bin
SHAPE -o OUT.npy`` writes :func:`~tilespec.image.from_bytes` of the
bytes.  An array of the wrong dims or type, or a file of the wrong length,
is bad input (one line, exit 2).  A file is written only under a name that
says what it holds: untile's ``-o`` ends in ``.npy``, tile's does not (it
writes raw bytes); ``-`` is standard output for both.  ``.npy`` has no ``bf16`` or 8-bit float
types: they are written as raw bits (``|V2``, ``|V1``; ``np.load(f).view(
ml_dtypes.bfloat16)``).  Raw bits do not say their type (bf16, f16 bits,
any 2-byte type), so tile takes them only with ``--from-type T``, and then
converts T's values to the shape's type as :func:`~tilespec.image.to_bytes`
does (bf16 1.0 is f16 1.0), or refuses a value the type cannot hold.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from ..image import encode_value, from_bytes, raw_dtype, to_bytes, value_dtype
from ..prover.hlo import refuse_endless
from ..prover.names import counted
from ..spec import ELEMENT_TYPES, TilespecError, aligned_elements, format_shape, num_elements
from .arguments import output_file, parse_shape_arg
from .envelope import Entry, emit


def pad_value(text: str) -> int | float | bool:
    """An argparse type for ``--pad``: an integer, a float or true/false.

    >>> pad_value("-1"), pad_value("0.5"), pad_value("nan") != pad_value("nan"), pad_value("true")
    (-1, 0.5, True, True)
    >>> pad_value("x")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: 'x' is not a number (or true/false)
    """
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    raise argparse.ArgumentTypeError(f"{text!r} is not a number (or true/false)")


def _read_npy(path: str, from_type: str | None = None) -> np.ndarray:
    """The array in a .npy file, as values of a known type.  A header that
    names a type is taken at its word (``to_bytes`` then converts the
    values to the shape's type, or refuses).  Raw values (``|V2``, ``|V1``:
    what np.save writes for ``ml_dtypes``' bf16, 8-bit floats and sub-byte
    integers, but also for any bits viewed as void) say nothing of their
    type: they are read as ``from_type`` (``--from-type``), and without it
    refused, since viewing them as the shape's type is right only when
    that is what they were (bf16 bits read as f16 are other numbers)."""
    try:
        with open(path, "rb") as f:
            if f.read(6) != b"\x93NUMPY":
                raise TilespecError(f"{path!r} is not a .npy file (np.save writes one)")
            f.seek(0)
            a = np.load(f, allow_pickle=False)
    except OSError as e:
        raise TilespecError(f"cannot read {path!r}: {e.strerror or e}") from None
    except ValueError as e:
        if isinstance(e, TilespecError):
            raise
        if "'<f1'" in str(e):   # np.save of ml_dtypes.float8_e5m2, which np.load cannot read
            raise TilespecError(f"{path!r} holds '<f1' values (ml_dtypes' float8_e5m2), "
                                "which np.load cannot read: save a.view('V1') and give "
                                "--from-type f8e5m2") from None
        raise TilespecError(f"cannot read {path!r} as a .npy array: {e}") from None
    raw = a.dtype.kind == "V" and a.dtype.fields is None
    if from_type is None:
        if raw:
            raise TilespecError(
                f"{path!r} holds raw {a.dtype.itemsize}-byte values ({a.dtype.str}), whose "
                "type .npy does not record (np.save writes ml_dtypes' bf16, 8-bit floats "
                "and int4 so): name it with --from-type, e.g. --from-type "
                f"{'bf16' if a.dtype.itemsize == 2 else 'f8e4m3fn'}")
        return a
    if from_type not in ELEMENT_TYPES:
        raise TilespecError(f"--from-type {from_type!r}: not an element type")
    values = raw_dtype(from_type)
    if not raw:
        if a.dtype not in (values, value_dtype(from_type)):
            raise TilespecError(f"{path!r} holds {a.dtype} values, not {from_type}: "
                                "--from-type names the type of raw values (|V2, |V1)")
        return a
    if a.dtype.itemsize != values.itemsize:
        raise TilespecError(f"--from-type {from_type} has {values.itemsize}-byte values; "
                            f"{path!r} holds {a.dtype.itemsize}-byte ones ({a.dtype.str})")
    return a.view(values)


#: ``-o -``: the bytes go to standard output (and the summary to stderr).
STDOUT = "-"


def npy_file(text: str) -> str:
    """An argparse type for untile's ``-o``: a name ending in ``.npy``, or ``-``.

    >>> npy_file("y.npy"), npy_file("-")
    ('y.npy', '-')
    >>> npy_file("y.txt")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: 'y.txt' does not end in .npy: untile writes a .npy array (or give - for standard output)
    """
    path = output_file(text)
    if path != STDOUT and not path.lower().endswith(".npy"):
        raise argparse.ArgumentTypeError(
            f"{path!r} does not end in .npy: untile writes a .npy array "
            "(or give - for standard output)")
    return path


def bytes_file(text: str) -> str:
    """An argparse type for tile's ``-o``: any name but one ending in ``.npy``
    (tile writes the layout's raw bytes, which ``np.load`` cannot read).

    >>> bytes_file("a.bin"), bytes_file("-")
    ('a.bin', '-')
    >>> bytes_file("a.npy")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: 'a.npy' ends in .npy, but tile writes raw bytes, not a .npy array (name it e.g. a.bin)
    """
    path = output_file(text)
    if path.lower().endswith(".npy"):
        raise argparse.ArgumentTypeError(
            f"{path!r} ends in .npy, but tile writes raw bytes, not a .npy array "
            f"(name it e.g. {path[:-4]}.bin)")
    return path


def _write(path: str, write) -> None:
    if path == STDOUT:
        try:
            write(sys.stdout.buffer)
            sys.stdout.buffer.flush()
        except OSError as e:
            # A reader that stops early (| head) closes the pipe; numpy's
            # writer says so as a bare OSError ("requested and written").
            raise BrokenPipeError(str(e)) from None
        return
    try:
        with open(path, "wb") as f:
            write(f)
    except OSError as e:
        raise TilespecError(f"cannot write {path!r}: {e.strerror or e}") from None


def _summary(args, shape, data, text: str) -> None:
    """The summary, on stderr when the data itself went to standard output."""
    if args.output == STDOUT and not getattr(args, "json", False):
        print(text, file=sys.stderr)
    else:
        emit(args, [Entry.answer(args.command, {"shape": shape}, data)], text)


def _name(path: str) -> str:
    return "standard output" if path == STDOUT else path


def _refuse_mixed_stdout(args) -> None:
    if args.output == STDOUT and getattr(args, "json", False):
        raise TilespecError("-o - and --json would both write to standard output; "
                            "give -o a file")


def cmd_tile(args) -> int:
    _refuse_mixed_stdout(args)
    shape = parse_shape_arg(args.shape)
    if args.pad is not None:  # named as the option, before the array is read
        encode_value(shape.element_type, args.pad, name="--pad")
    a = _read_npy(args.input, args.from_type)
    image = to_bytes(shape, a, pad=args.pad)
    _write(args.output, lambda f: f.write(image.tobytes()))
    elements = num_elements(shape)
    data = {"shape": format_shape(shape), "input": args.input, "output": args.output,
            "bytes": int(image.size), "elements": elements,
            "padding_elements": aligned_elements(shape) - elements,
            "dtype": str(a.dtype), "pad": args.pad}
    filled = "zero bits" if args.pad is None else f"pad {args.pad}"
    _summary(args, shape, data, f"wrote {counted(int(image.size), 'byte')} to "
             f"{_name(args.output)}: {data['shape']}, {counted(elements, 'element')} and "
             f"{counted(data['padding_elements'], 'padding element')} ({filled})")
    return 0


def _npy_names(dtype: np.dtype) -> bool:
    """Whether np.load reads back the type np.save writes for ``dtype``.

    >>> import ml_dtypes
    >>> _npy_names(np.dtype("f2")), _npy_names(np.dtype(ml_dtypes.bfloat16))
    (True, False)
    """
    try:
        return bool(np.dtype(np.lib.format.dtype_to_descr(dtype)) == dtype)
    except TypeError:   # '<f1', float8_e5m2's
        return False


def cmd_untile(args) -> int:
    _refuse_mixed_stdout(args)
    shape = parse_shape_arg(args.shape)
    refuse_endless(args.input)
    try:
        with open(args.input, "rb") as f:
            buffer = f.read()
    except OSError as e:
        raise TilespecError(f"cannot read {args.input!r}: {e.strerror or e}") from None
    a = from_bytes(shape, buffer)
    # .npy has no name for ml_dtypes' types: np.save writes bf16 as raw
    # void (<V2), float8_e5m2 as '<f1', which np.load refuses; a type the
    # header cannot name is written as raw void, as ml_dtypes' others are.
    raw = not _npy_names(a.dtype)
    saved = a.view(f"V{a.dtype.itemsize}") if raw else a
    _write(args.output, lambda f: np.save(f, saved, allow_pickle=False))
    data = {"shape": format_shape(shape), "input": args.input, "output": args.output,
            "bytes": len(buffer), "dims": list(a.shape), "dtype": str(a.dtype)}
    how = (f" (np.load gives raw |V{a.dtype.itemsize} values: "
           f".view(ml_dtypes.{a.dtype.name}); tilespec tile takes them with --from-type "
           f"{shape.element_type})") if raw else ""
    _summary(args, shape, data, f"wrote the {a.dtype} array of dims {tuple(a.shape)} to "
             f"{_name(args.output)}{how}")
    return 0


def register(command) -> None:
    c = command("tile", "a .npy array as the exact bytes of a layout (sub-byte types "
                "packed, padding filled)", cmd_tile)
    c.add_argument("input", metavar="IN.npy", help="the array, with the shape's dims")
    c.add_argument("shape", help="a concrete shape, e.g. 'bf16[16,256]{1,0:T(8,128)(2,1)}'")
    c.add_argument("-o", "--output", metavar="OUT.bin", type=bytes_file, required=True,
                   help="where the raw bytes go: any name not ending in .npy "
                   "('-': standard output)")
    c.add_argument("--pad", type=pad_value, default=None,
                   help="the value of padding elements, one the shape's type holds: "
                   "an integer (-1), a float for the float types (0.5, nan, inf), "
                   "true/false for pred (default: zero bits)")
    c.add_argument("--from-type", metavar="TYPE",
                   help="the element type of raw values (|V2, |V1: what np.save writes "
                   "for ml_dtypes' bf16, 8-bit floats, int4), e.g. bf16; converted by "
                   "value to the shape's type")
    c = command("untile", "the array held in the exact bytes of a layout, as .npy",
                cmd_untile)
    c.add_argument("input", metavar="IN.bin", help="exactly the shape's bytes")
    c.add_argument("shape", help="a concrete shape, e.g. 's4[9,130]{1,0:T(8,128)(2,1)E(4)}'")
    c.add_argument("-o", "--output", metavar="OUT.npy", type=npy_file, required=True,
                   help="where the .npy goes: a name ending in .npy ('-': standard output)")
