"""XLA's text form of shapes and layouts: the grammar its parser reads.

The parser reads text as XLA's parser does (whitespace and comments anywhere
between tokens, layout fields once each and in XLA's order, ``D(...)`` read
and dropped) and rejects, in one line naming the reason, what
XLA's parser or layout validator rejects or aborts on: ``{}`` as a layout, the
sparse-only fields ``#``, ``*`` and ``P``, ``S(n)`` beyond XLA's 8 bits,
layout numbers beyond int64.  It also rejects text XLA takes only by accident
(a missing ``)``, a negative ``S`` or ``M``) and says what XLA would make of
it; docs/xla.md lists each case as checked against jaxlib's XLA.  Its tokens
come from the lexer, :mod:`tilespec.spec.reader`; the printer,
:mod:`tilespec.spec.printer`, writes XLA's canonical form:
``format_shape(parse_shape(s))`` is the canonical form of ``s``
(:func:`canonical`) and ``parse_shape(format_shape(x)) == x``.

>>> s = parse_shape("bf16[1024, 1024]{1,0:T(8,128)(2,1)}")
>>> format_shape(s)
'bf16[1024,1024]{1,0:T(8,128)(2,1)}'
>>> format_shape(parse_shape("f32[3,5]"))
'f32[3,5]{1,0}'
>>> format_shape(parse_shape("f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}"))
'f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}'
>>> format_shape(parse_shape("(s32[], f32[<=4,?]{0,1})"))
'(s32[], f32[<=4,?]{0,1})'
>>> format_shape(parse_shape("s32[]{:T(128)}"))
's32[]{:T(128)}'
>>> parse_shape("f32[3,5]{1,0:T(2,0)}")
Traceback (most recent call last):
...
tilespec.spec.errors.ParseError: tile entry 0 must be positive or '*' at column 18 in 'f32[3,5]{1,0:T(2,0)}'
>>> parse_shape("f32[3,5]{1,0:E(4)T(2,2)}")
Traceback (most recent call last):
...
tilespec.spec.errors.ParseError: layout field T must come before E (XLA's order is D, T, L, #, *, E, S, SC, P, M) at column 18 in 'f32[3,5]{1,0:E(4)T(2,2)}'
>>> parse_shape("f32[3,5")
Traceback (most recent call last):
...
tilespec.spec.errors.ParseError: expected ',' or ']' after a dim at column 8 in 'f32[3,5'
>>> parse_shape("f32[3]{0:S(300)}")
Traceback (most recent call last):
...
tilespec.spec.errors.ParseError: memory space S(300) does not fit XLA's 8-bit field (-128 to 127); XLA would read it as S(44) at column 12 in 'f32[3]{0:S(300)}'
>>> format_shape(parse_shape("f32[3]{0:D(C)}"))
'f32[3]{0}'
"""

from __future__ import annotations

import re
from typing import Any, Callable, TypeVar

from .dtypes import BIT_WIDTHS, NON_ARRAY_TYPES, UNSIGNED_TYPES
from .errors import LayoutError, ParseError, ShapeError, TilespecError
from .layout import (
    COMBINE,
    BufferShape,
    Layout,
    Shape,
    SplitConfig,
    Tile,
    TupleShape,
)
from .printer import format_layout, format_shape
from .reader import INT64_MIN, Reader, Slack, is_integer

_FIELDS = {"D": "dim_level_types", "T": "tiles",
           "L": "tail_padding_alignment_in_elements",
           "#": "index_primitive_type", "*": "pointer_primitive_type",
           "E": "element_size_in_bits", "S": "memory_space",
           "SC": "split_configs", "P": "physical_shape",
           "M": "dynamic_shape_metadata_prefix_bytes"}
_ORDER = tuple(_FIELDS)
#: XLA keeps a memory space in 8 bits: S(128) prints as S(-128), S(300) as S(44).
MEMORY_SPACE_MAX = 127
MEMORY_SPACE_MIN = -128
#: Fields XLA's layout validator allows only on sparse arrays; XLA no longer
#: has sparse arrays (its parser reads D(...) and drops it), so never valid.
_SPARSE_ONLY = {"#": "index_primitive_type", "*": "pointer_primitive_type",
                "P": "physical_shape"}


def read_shape(text: str) -> Shape | TupleShape | BufferShape:
    """Read one shape in XLA's text form, buffer shapes ``b(f32[8])`` included.

    >>> format_shape(read_shape("(b(f32[3]), s32[])"))
    '(b(f32[3]{0}), s32[])'
    """
    if not isinstance(text, str):
        raise ShapeError(f"shape text must be a string, not {type(text).__name__}")
    return _strictly(_read_shape, text)


def _read_shape(r: Reader) -> Shape | TupleShape | BufferShape:
    try:
        shape = _shape(r)
    except RecursionError:
        raise r.error("tuples nested too deeply", 0) from None
    if not r.at_end():
        raise r.error("unexpected text after the shape")
    return shape


_Read = TypeVar("_Read", Layout, "Shape | TupleShape | BufferShape")


def _strictly(read: Callable[[Reader], _Read], text: str) -> _Read:
    """``read(text)``, rejecting what XLA reads only by parser slack: then
    the message says what XLA reads instead (found by reading as XLA does)
    or, where XLA's parser fails anyway, nothing more."""
    try:
        return read(Reader(text))
    except Slack as slack:
        error = slack.error
    try:
        xla = read(Reader(text, lenient=True))
    except Slack:
        raise error from None
    except TilespecError as then:
        if isinstance(then, ParseError) and "XLA" not in then.message:
            raise error from None  # XLA's parser fails further on, as tilespec's
        # XLA's parser reads on; what it then meets, tilespec refuses too.
        raise ParseError(f"{error.message} (XLA's parser reads on from there, where "
                         f"tilespec then finds: {then})", error.text, error.column) from None
    shown = format_layout(xla) if isinstance(xla, Layout) else format_shape(xla)
    raise ParseError(f"{error.message} (XLA's parser lets this pass: it reads on "
                     f"from there and reads {shown})", error.text, error.column) from None


def parse_shape(text: str) -> Shape | TupleShape:
    """Parse one shape (array or tuple) in XLA's text form.

    Text with a buffer shape ``b(...)`` is read (see :func:`read_shape`) but
    refused here: tilespec lays out arrays.
    """
    shape = read_shape(text)
    if _holds_buffer(shape):
        raise ShapeError(f"{text!r} holds a buffer shape b(...), which XLA reads; "
                         "tilespec lays out arrays: give the array shape inside")
    return shape  # type: ignore[return-value]  # no buffer inside, checked above


def _holds_buffer(shape: Shape | TupleShape | BufferShape) -> bool:
    if isinstance(shape, TupleShape):
        return any(_holds_buffer(e) for e in shape.elements)
    return isinstance(shape, BufferShape)


def parse_array_shape(text: str) -> Shape:
    """Parse a shape that must be an array, not a tuple."""
    shape = parse_shape(text)
    if not isinstance(shape, Shape):
        raise ShapeError(f"{text!r} is a tuple; an array shape is needed here")
    return shape


def parse_layout(text: str, rank: int | None = None) -> Layout:
    """Parse a layout on its own, ``{1,0:T(8,128)}``.

    On its own, ``{}`` is read: it is how XLA's Layout::ToString prints the
    layout of a scalar (inside a shape, XLA's parser rejects it).

    >>> parse_layout("{}", 0).minor_to_major
    ()
    """
    layout = _strictly(_read_layout, text)
    if rank is not None and len(layout.minor_to_major) != rank:
        raise LayoutError(f"layout has {len(layout.minor_to_major)} entries "
                          f"for a rank-{rank} shape")
    return layout


def _read_layout(r: Reader) -> Layout:
    if r.accept("{") and r.accept("}"):
        layout = Layout(minor_to_major=())
    else:
        r.pos = 0
        layout = _layout(r)
    if not r.at_end():
        raise r.error("unexpected text after the layout")
    return layout


def _shape(r: Reader) -> Shape | TupleShape | BufferShape:
    if r.accept("("):
        elements = []
        if not r.accept(")"):
            while True:
                elements.append(_shape(r))
                if r.accept(")"):
                    break
                r.expect(",", "or ')' in a tuple")
        return TupleShape(tuple(elements))
    start = r.pos
    name = r.take()
    if name == "b" and r.peek() == "(":
        # HloParserImpl::ParseShape reads b(shape); ShapeUtil::MakeValidatedBufferShape
        # takes an array inside, never a tuple, token, opaque or buffer.
        r.take()
        inner_pos = r.pos
        inner = _shape(r)
        if not isinstance(inner, Shape) or inner.element_type in NON_ARRAY_TYPES:
            raise r.error("a buffer shape b(...) holds an array shape, and XLA's "
                          "parser rejects anything else", inner_pos)
        r.expect(")", "to close the buffer shape b(...)")
        return BufferShape(inner)
    if name not in BIT_WIDTHS and name not in NON_ARRAY_TYPES:
        if not name:
            raise r.error("expected an element type", start)
        raise r.error(f"unknown element type {name!r}", start)
    r.expect("[", f"after element type {name!r}")
    dims, dynamic = [], []
    if not r.accept("]"):
        while True:
            d, dyn = _dim(r)
            dims.append(d)
            dynamic.append(dyn)
            if r.accept("]"):
                break
            if not r.accept(","):
                raise r.error("expected ',' or ']' after a dim")
    layout_pos = r.pos
    # XLA's parser takes '{' as a layout only if an integer or ':' follows.
    has_layout = r.peek() == "{" and _after_brace(r) not in ("}", "")
    if name in NON_ARRAY_TYPES and (dims or has_layout):
        raise r.error(f"{name} with dims or a layout: XLA aborts reading it (Check "
                      "failed: buffer != nullptr, in Shape::"
                      "array_state_maybe_underneath_buffer, xla/shape.h)", start)
    layout = _layout(r) if r.peek() == "{" else None
    try:
        return Shape(name, tuple(dims), layout, tuple(dynamic))
    except TilespecError as e:
        if isinstance(e, LayoutError) and layout is not None:
            raise LayoutError(f"{e} (layout at column "
                              f"{r.error('', layout_pos).column})") from None
        raise


def _after_brace(r: Reader) -> str:
    """The token after the '{' at the cursor, the cursor left in place."""
    pos = r.pos
    r.take()
    token = r.peek()
    r.pos = pos
    return token


def _negative_size(value: int) -> str:
    return "a negative size, which XLA's parser rejects"


def _negative_bound(value: int) -> str:
    return ("which XLA reads as an unbounded dim '?'" if value == INT64_MIN
            else "a negative bound, which XLA's parser rejects")


def _dim(r: Reader) -> tuple[int | str | None, bool]:
    start = r.pos
    token = r.peek()
    if token == "<=":
        r.take()
        if r.peek() == str(INT64_MIN):
            # Shape::kUnboundedSize (INT64_MIN) as a bound is an unbounded
            # dim: Shape::IsValidDimensionSize allows it when dynamic.
            r.take()
            return None, True
        return r.integer("a bound after '<='", wrapped=_negative_bound), True
    if token == "?":
        r.take()
        return None, True
    if is_integer(token):
        return r.integer("a dim size", wrapped=_negative_size), False
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", token):
        r.take()
        return token, False
    raise r.error("expected a dim size, '<=N', '?' or a name", start)


def _layout(r: Reader) -> Layout:
    start = r.pos
    r.expect("{", "to open a layout")
    if r.peek() == "}":
        # XLA's parser does not take '{}' as a layout at all.
        raise r.error("an empty layout '{}' is a syntax error for XLA; write "
                      "'{:}' or leave the layout out", start)
    m2m = []
    if r.peek() not in (":", "}"):
        while True:
            m2m.append(r.integer("a dim number in minor_to_major", wrapped=lambda v: (
                "a negative dim number, which XLA's layout validator rejects")))
            if not r.accept(","):
                break
    fields: dict[str, Any] = {}
    if r.accept(":"):
        last = -1
        while r.peek() != "}":
            try:
                last = _field(r, fields, last)
            except Slack as slack:
                if not r.lenient:
                    raise
                # HloParserImpl::ParseLayout drops the field parser's verdict
                # and goes on to the next fields from the token that failed.
                r.pos, last = slack.resume, slack.place
    r.expect("}", "to close the layout")
    try:
        return Layout(tuple(m2m), **_finished(fields))
    except LayoutError as e:
        raise LayoutError(f"{e} (layout at column "
                          f"{r.error('', start).column})") from None


def _finished(fields: dict[str, Any]) -> dict[str, Any]:
    """The fields as Layout takes them (tiles and split configs are read
    into lists, so that a field cut short keeps what was read, as in XLA)."""
    out = dict(fields)
    if "tiles" in out:
        out["tiles"] = tuple(Tile(tuple(t)) for t in out["tiles"])
    if "split_configs" in out:
        out["split_configs"] = tuple(SplitConfig(d, tuple(i))
                                     for d, i in out["split_configs"])
    return out


def _field(r: Reader, fields: dict[str, Any], last: int) -> int:
    """Read one layout field; XLA's parser takes them once each, in order."""
    start = r.pos
    key = r.take()
    if key not in _FIELDS:
        raise r.error(f"unknown layout field {key!r}" if key else
                      "expected a layout field or '}'", start)
    place = _ORDER.index(key)
    if place == last:
        raise r.error(f"layout field {key} given twice", start)
    if place < last:
        raise r.error(f"layout field {key} must come before {_ORDER[last]} "
                      f"(XLA's order is {', '.join(_ORDER)})", start)
    try:
        _field_value(r, key, fields, start)
    except Slack as slack:
        slack.place = place
        raise
    return place


def _sparse_only(r: Reader, key: str, start: int) -> ParseError:
    return r.error(f"layout field {key}(...) ({_SPARSE_ONLY[key]}) is only for "
                   "sparse arrays; XLA rejects it on a dense array", start)


def _as_memory_space(value: int) -> str:
    """What XLA keeps of S(value): its int8 field, after two's complement."""
    wrapped = (value + 128) % 256 - 128
    return "no memory space" if wrapped == 0 else f"S({wrapped})"


def _memory_space(r: Reader) -> int:
    start = r.pos
    value = r.integer("a memory space in S(...)", INT64_MIN, wrapped=lambda v: (
        f"and XLA's 8-bit field then holds {_as_memory_space(v)}"))
    if not MEMORY_SPACE_MIN <= value <= MEMORY_SPACE_MAX:
        raise r.error(f"memory space S({value}) does not fit XLA's 8-bit field "
                      f"({MEMORY_SPACE_MIN} to {MEMORY_SPACE_MAX}); XLA would read "
                      f"it as {_as_memory_space(value)}", start)
    return value


def _field_value(r: Reader, key: str, fields: dict[str, Any], start: int) -> None:
    """Read a field's value.  Where XLA's field parser fails on a token (and
    XLA reads on), raise :class:`Slack`; the values read so far stay in
    ``fields``, as they do in XLA."""
    if key == "T":
        tiles: list[list[int]] = []
        fields["tiles"] = tiles
        while True:
            tiles.append([])  # XLA adds the tile, then reads its entries
            _tile(r, tiles[-1])
            if r.peek() != "(":
                return
    if key == "SC":
        configs: list[tuple[int, list[int]]] = []
        fields["split_configs"] = configs
        while True:
            _split_config(r, configs)
            if r.peek() != "(":
                return
    if key in ("#", "*"):
        _primitive_type_field(r, key, start)
    r.expect_field("(", f"after layout field {key}")
    if key == "D":
        # XLA's parser checks the letters, then drops the field: it has no
        # sparse arrays any more, and its printer never writes D(...).  The
        # list may be empty; each letter may carry one '+', then one '~'
        # (HloParserImpl::ParseDimLevelTypes).
        if r.peek() != ")":
            while True:
                if not re.fullmatch(r"[DCSH]", r.peek()):
                    raise r.slack(f"unknown dim level type {r.peek()!r}")
                r.take()
                r.accept("+")
                r.accept("~")
                if not r.accept(","):
                    break
    elif key == "P":
        _shape(r)
        raise _sparse_only(r, key, start)
    else:
        if not is_integer(r.peek()):
            raise r.slack(f"expected a number in {key}(...)")
        fields[_FIELDS[key]] = _number(r, key)
    r.expect_field(")", f"to close {key}(...)")


def _primitive_type_field(r: Reader, key: str, start: int) -> None:
    """``#(u8)`` or ``*(u8)``.  XLA's parser takes its three parts one by one
    whatever became of the one before ('(', a type, ')'), so ``{0:*}`` reads
    as no field at all.  Any type read is kept (ParseUnsignedIntegerType
    stores it before it checks it is unsigned) and makes the layout
    sparse-only, which XLA's layout validator rejects."""
    failed = []
    if not r.accept("("):
        failed.append(r.error(f"expected '(' after layout field {key}"))
    token = r.peek()
    if token in BIT_WIDTHS or token in NON_ARRAY_TYPES:
        if token not in UNSIGNED_TYPES:
            raise r.error(f"{key}(...) needs an unsigned integer type, not {token!r} "
                          "(XLA keeps it, and its layout validator rejects a "
                          f"{_SPARSE_ONLY[key]} on a dense array)")
        raise _sparse_only(r, key, start)
    failed.append(r.error(f"expected an unsigned integer type in {key}(...)"))
    if not r.accept(")"):
        failed.append(r.error(f"expected ')' to close {key}(...)"))
    raise Slack(failed[0], r.pos)


def _number(r: Reader, key: str) -> int:
    if key == "S":
        return _memory_space(r)
    if key == "M":
        # A negative M is kept and never printed (Layout::Print writes M
        # only when it is positive).
        return r.integer("a number in M(...)", INT64_MIN, wrapped=lambda v: (
            "negative, which XLA keeps and does not print"))
    if key == "L":
        return r.integer("a number in L(...)", 1, wrapped=lambda v: (
            "and XLA aborts (Check failed: value >= 1)"))
    return r.integer(f"a number in {key}(...)", 0, wrapped=lambda v: (
        "negative, which XLA's layout validator rejects"))


def _tile(r: Reader, entries: list[int]) -> None:
    r.expect_field("(", "to open a tile")
    if r.peek() == ")":
        raise r.error("an empty tile: XLA's parser reads it and its layout "
                      "validator rejects it ('layout has invalid tiles')")
    while True:
        start = r.pos
        if r.accept("*"):
            entries.append(COMBINE)
        elif not is_integer(r.peek()):
            raise r.slack("expected a tile size or '*'")
        else:
            value = r.integer("a tile size or '*'", INT64_MIN, wrapped=lambda v: (
                "which XLA reads as '*'" if v == INT64_MIN else
                "a negative tile entry other than '*', on which XLA aborts"))
            if value == INT64_MIN:
                # Tile::kCombineDimension, which XLA prints as '*'.
                entries.append(COMBINE)
            elif value <= 0:
                raise r.error(f"tile entry {value} must be positive or '*'", start)
            else:
                entries.append(value)
        if r.accept(")"):
            return
        if not r.accept(","):
            raise r.slack("expected ',' or ')' in a tile")


def _split_config(r: Reader, configs: list[tuple[int, list[int]]]) -> None:
    r.expect_field("(", "after SC")
    if not is_integer(r.peek()):
        raise r.slack("expected a dimension in SC(...)")
    dimension = r.integer("a dimension in SC(...)", 0, wrapped=lambda v: (
        "negative, which XLA's layout validator rejects"))
    indices: list[int] = []
    configs.append((dimension, indices))
    r.expect_field(":", "after the dimension in SC(...)")
    if r.peek() != ")":
        while True:
            if not is_integer(r.peek()):
                raise r.slack("expected a split index")
            indices.append(r.integer("a split index", 0, wrapped=_negative_split))
            if not r.accept(","):
                break
    r.expect_field(")", "to close SC(...)")


def _negative_split(value: int) -> str:
    return "negative, which XLA's layout validator rejects"


def canonical(text: str) -> str:
    """The canonical text of a shape: read then print."""
    return format_shape(read_shape(text))
