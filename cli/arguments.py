"""What the commands take on their command lines, checked once for all of
them: time limits (``--timeout``), output files (``-o``), shapes (rank and
int64 limits), integer lists, and named dims' sizes (``--dims``).

>>> ints("(1, 0)", "--transpose")
(1, 0)
"""

from __future__ import annotations

import argparse

from ..spec import (
    ShapeError,
    TilespecError,
    byte_size,
    format_shape,
    give_values,
    parse_array_shape,
    resolve_xla,
)

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
    shape = parse_array_shape(text)
    if shape.rank > MAX_RANK:
        raise ShapeError(f"the commands take ranks up to {MAX_RANK}; "
                         f"this shape has rank {shape.rank}")
    if int64_size:
        check_size(shape)
    return shape


def check_size(shape) -> None:
    """XLA computes sizes and offsets in int64: a concrete shape whose padded
    size does not fit would make them wrap.  (The dense size, as XLA's
    ValidateShapeSize checks it, is checked when the Shape is made.)

    >>> parse_shape_arg("s8[144115188075855872,1]{1,0:T(1,128)}")
    Traceback (most recent call last):
    tilespec.spec.errors.ShapeError: s8[144115188075855872,1]{1,0:T(1,128)}: its padded size, 18446744073709551616 bytes, does not fit int64 (at most 2^63-1); XLA's ShapeUtil::ArraySize wraps around (signed overflow, undefined behaviour) and returns 0 bytes (tilespec check-rule array_size SHAPE)
    """
    if shape.element_type in ("token", "opaque") or \
            not all(isinstance(d, int) for d in shape.dims):
        return
    padded = byte_size(shape)
    if padded > 2**63 - 1:
        raise ShapeError(f"{format_shape(shape)}: its padded size, {padded} bytes, "
                         "does not fit int64 (at most 2^63-1)" + _what_xla_makes_of(shape))


def _what_xla_makes_of(shape) -> str:
    """What XLA's ArraySize returns for a size past int64: the wrapped value."""
    # the solver boundary: XLA's model loads z3, which a valid shape never needs
    from ..prover.models import array_size_behaviour
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
    # the solver boundary: XLA's model loads z3 (explain's other answers do not)
    from ..prover.models import array_size_behaviour
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
        raise TilespecError(f"{format_shape(shape)} has an unbounded dim ('?'); "
                            "name it to prove for every size, or give a size")


def ints(text: str, what: str) -> tuple[int, ...]:
    text = text.strip().strip("()[]")
    if not text:
        return ()
    try:
        return tuple(int(x) for x in text.split(","))
    except ValueError:
        raise TilespecError(f"{what} {text!r} is not a comma-separated list of integers") from None


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


def xla_version(text: str):
    """``--xla VERSION``: the XLA commit it names (a commit prefix, a date
    ``YYYY-MM-DD``, ``jaxlib-X.Y.Z``), checked when the line is read.

    >>> xla_version("2026-05-22").label
    '2c731115ef (2026-05-22)'
    >>> xla_version("jaxlib-9")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: unknown jaxlib release '9' (known: jaxlib-0.10.2)
    """
    try:
        return resolve_xla(text)
    except TilespecError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def xla_line(commit) -> str:
    """The line every version-dependent verdict prints.

    >>> xla_line(resolve_xla("2026-05-22"))
    'XLA: 2c731115ef (2026-05-22)'
    """
    return f"XLA: {commit.label}"


def xla_version_argument(command) -> None:
    """The one ``--xla`` option, on every command whose verdict depends on
    XLA's version (default: the newest XLA modelled)."""
    command.add_argument(
        "--xla", metavar="VERSION", type=xla_version, default=None,
        help="the XLA to judge by: a commit prefix, a date YYYY-MM-DD (XLA at the end of "
        "that day) or jaxlib-X.Y.Z (default: the newest modelled; tilespec xla-versions "
        "lists them)")
