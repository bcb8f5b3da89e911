"""XLA's text form of shapes and layouts, parsed and printed.

The printer writes XLA's canonical form, always with the layout, its fields in
XLA's order; the parser reads text as XLA's parser does (whitespace and
comments anywhere between tokens, layout fields once each and in XLA's order,
``D(...)`` read and dropped) and rejects, in one line naming the reason, what
XLA's parser or layout validator rejects or aborts on: ``{}`` as a layout, the
sparse-only fields ``#``, ``*`` and ``P``, ``S(n)`` beyond XLA's 8 bits,
layout numbers beyond int64.  It also rejects text XLA takes only by accident
(a missing ``)``, a negative ``S`` or ``M``) and says what XLA would make of
it; docs/xla.md lists each case as checked against jaxlib's XLA.
``format_shape(parse_shape(s))`` is the canonical form of ``s`` and
``parse_shape(format_shape(x)) == x``.

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
tilespec.spec.errors.ParseError: memory space S(300) does not fit XLA's 8-bit field (at most 127); XLA would read it as S(44) at column 12 in 'f32[3]{0:S(300)}'
>>> format_shape(parse_shape("f32[3]{0:D(C)}"))
'f32[3]{0}'
"""

from __future__ import annotations

import re
from typing import Any

from tilespec.spec.dtypes import BIT_WIDTHS, NON_ARRAY_TYPES, UNSIGNED_TYPES
from tilespec.spec.errors import LayoutError, ParseError, ShapeError, TilespecError
from tilespec.spec.layout import COMBINE, Layout, Shape, SplitConfig, Tile, TupleShape

# Whitespace and C-style comments may stand between any two tokens, as in
# XLA's lexer (it prints ``/*index=5*/`` inside long tuples).
_SKIP = r"(?:\s|/\*.*?\*/|//[^\n]*)*"
_TOKEN = re.compile(_SKIP + r"(<=|[A-Za-z_][A-Za-z0-9_]*|-?[0-9]+|\S)", re.S)
_SKIP_ONLY = re.compile(_SKIP, re.S)


def _skip_end(text: str, pos: int) -> int:
    """Where the whitespace and comments starting at ``pos`` end (a pattern
    that matches the empty string always matches)."""
    m = _SKIP_ONLY.match(text, pos)
    assert m is not None
    return m.end()
_FIELDS = {"D": "dim_level_types", "T": "tiles",
           "L": "tail_padding_alignment_in_elements",
           "#": "index_primitive_type", "*": "pointer_primitive_type",
           "E": "element_size_in_bits", "S": "memory_space",
           "SC": "split_configs", "P": "physical_shape",
           "M": "dynamic_shape_metadata_prefix_bytes"}
_ORDER = tuple(_FIELDS)
#: Every number of a shape is int64 in XLA (a larger L(n) wraps and aborts XLA).
INT64_MAX = 2**63 - 1
#: XLA keeps a memory space in 8 bits: S(128) prints as S(-128), S(300) as S(44).
MEMORY_SPACE_MAX = 127
#: XLA's parser lets a missing ')' in a layout field pass (it reads on as
#: if the ')' were there); tilespec rejects it and says so.
_LENIENT = " (XLA's parser would read on as if it were there)"
#: Fields XLA's layout validator allows only on sparse arrays; XLA no longer
#: has sparse arrays (its parser reads D(...) and drops it), so never valid.
_SPARSE_ONLY = {"#": "index_primitive_type", "*": "pointer_primitive_type",
                "P": "physical_shape"}


class _Reader:
    """A cursor over the text that reports errors with a 1-based column."""

    def __init__(self, text: str):
        self.text = text
        self.pos = 0

    def error(self, message: str, pos: int | None = None) -> ParseError:
        pos = self.pos if pos is None else pos
        pos = _skip_end(self.text, pos)
        return ParseError(message, self.text, pos + 1)

    def peek(self) -> str:
        m = _TOKEN.match(self.text, self.pos)
        return m.group(1) if m else ""

    def take(self) -> str:
        m = _TOKEN.match(self.text, self.pos)
        if not m:
            return ""
        self.pos = m.end()
        return m.group(1)

    def accept(self, token: str) -> bool:
        if self.peek() == token:
            self.take()
            return True
        return False

    def expect(self, token: str, context: str) -> None:
        if not self.accept(token):
            raise self.error(f"expected {token!r} {context}")

    def integer(self, what: str, minimum: int = 0) -> int:
        start = self.pos
        token = self.take()
        if not re.fullmatch(r"-?[0-9]+", token):
            raise self.error(f"expected {what}", start)
        if len(token) > 100:  # Python refuses int() of 4300 digits; nothing needs 100
            raise self.error(f"{what} has {len(token.lstrip('-'))} digits", start)
        value = int(token)
        if value < minimum:
            raise self.error(f"{what} {value} is below {minimum}", start)
        if value > INT64_MAX:
            raise self.error(f"{what} {value} does not fit int64 (at most 2^63-1; "
                             "XLA's parser rejects it)", start)
        return value

    def at_end(self) -> bool:
        return _skip_end(self.text, self.pos) == len(self.text)


def parse_shape(text: str) -> Shape | TupleShape:
    """Parse one shape (array or tuple) in XLA's text form."""
    if not isinstance(text, str):
        raise ShapeError(f"shape text must be a string, not {type(text).__name__}")
    r = _Reader(text)
    try:
        shape = _shape(r)
    except RecursionError:
        raise r.error("tuples nested too deeply", 0) from None
    if not r.at_end():
        raise r.error("unexpected text after the shape")
    return shape


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
    r = _Reader(text)
    if r.accept("{") and r.accept("}"):
        layout = Layout(minor_to_major=())
    else:
        r = _Reader(text)
        layout = _layout(r)
    if not r.at_end():
        raise r.error("unexpected text after the layout")
    if rank is not None and len(layout.minor_to_major) != rank:
        raise LayoutError(f"layout has {len(layout.minor_to_major)} entries "
                          f"for a rank-{rank} shape")
    return layout


def _shape(r: _Reader) -> Shape | TupleShape:
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
        # XLA's parser reads b(f32[8]) as a buffer shape; tilespec lays out arrays.
        raise r.error("buffer shapes b(...) are not supported: tilespec lays out "
                      "arrays; give the array shape inside", start)
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
    layout = _layout(r) if r.peek() == "{" else None
    try:
        return Shape(name, tuple(dims), layout, tuple(dynamic))
    except TilespecError as e:
        if isinstance(e, LayoutError) and layout is not None:
            raise LayoutError(f"{e} (layout at column "
                              f"{r.error('', layout_pos).column})") from None
        raise


def _dim(r: _Reader) -> tuple[int | str | None, bool]:
    start = r.pos
    token = r.peek()
    if token == "<=":
        r.take()
        return r.integer("a bound after '<='"), True
    if token == "?":
        r.take()
        return None, True
    if re.fullmatch(r"-?[0-9]+", token):
        return r.integer("a dim size"), False
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", token):
        r.take()
        return token, False
    raise r.error("expected a dim size, '<=N', '?' or a name", start)


def _layout(r: _Reader) -> Layout:
    start = r.pos
    r.expect("{", "to open a layout")
    if r.peek() == "}":
        # XLA's parser does not take '{}' as a layout at all.
        raise r.error("an empty layout '{}' is a syntax error for XLA; write "
                      "'{:}' or leave the layout out", start)
    m2m = []
    if r.peek() not in (":", "}"):
        while True:
            m2m.append(r.integer("a dim number in minor_to_major"))
            if not r.accept(","):
                break
    fields: dict[str, Any] = {}
    if r.accept(":"):
        last = -1
        while r.peek() != "}":
            last = _field(r, fields, last)
    r.expect("}", "to close the layout")
    try:
        return Layout(tuple(m2m), **fields)
    except LayoutError as e:
        raise LayoutError(f"{e} (layout at column "
                          f"{r.error('', start).column})") from None


def _field(r: _Reader, fields: dict[str, Any], last: int) -> int:
    """Read one layout field; XLA's parser takes them once each, in order."""
    start = r.pos
    key = r.take()
    names = _FIELDS
    if key not in names:
        raise r.error(f"unknown layout field {key!r}" if key else
                      "expected a layout field or '}'", start)
    place = _ORDER.index(key)
    if place == last:
        raise r.error(f"layout field {key} given twice", start)
    if place < last:
        raise r.error(f"layout field {key} must come before {_ORDER[last]} "
                      f"(XLA's order is {', '.join(_ORDER)})", start)
    _field_value(r, key, fields, start)
    return place


def _sparse_only(r: _Reader, key: str, start: int) -> ParseError:
    return r.error(f"layout field {key}(...) ({_SPARSE_ONLY[key]}) is only for "
                   "sparse arrays; XLA rejects it on a dense array", start)


def _memory_space(r: _Reader) -> int:
    start = r.pos
    value = r.integer("a memory space in S(...)", -(2**63))
    if not 0 <= value <= MEMORY_SPACE_MAX:
        wrapped = (value + 128) % 256 - 128
        why = ("is negative" if value < 0 else
               f"does not fit XLA's 8-bit field (at most {MEMORY_SPACE_MAX})")
        raise r.error(f"memory space S({value}) {why}; XLA would read it as "
                      + ("no memory space" if wrapped == 0 else f"S({wrapped})"), start)
    return value


def _field_value(r: _Reader, key: str, fields: dict[str, Any], start: int) -> None:
    names = _FIELDS
    if key == "T":
        tiles = [_tile(r)]
        while r.peek() == "(":
            tiles.append(_tile(r))
        fields["tiles"] = tuple(tiles)
        return
    if key == "SC":
        configs = [_split_config(r)]
        while r.peek() == "(":
            configs.append(_split_config(r))
        fields["split_configs"] = tuple(configs)
        return
    r.expect("(", f"after layout field {key}")
    if key == "D":
        # XLA's parser checks the letters, then drops the field: it has no
        # sparse arrays any more, and its printer never writes D(...).
        while True:
            t_start = r.pos
            token = r.take()
            if not re.fullmatch(r"[DCSH]", token):
                raise r.error(f"unknown dim level type {token!r}", t_start)
            while r.peek() in ("+", "~"):
                r.take()
            if not r.accept(","):
                break
    elif key in ("#", "*"):
        t_start = r.pos
        token = r.take()
        if token not in UNSIGNED_TYPES:
            raise r.error(f"{key}(...) needs an unsigned integer type, "
                          f"not {token!r}", t_start)
        raise _sparse_only(r, key, start)
    elif key == "P":
        _shape(r)
        raise _sparse_only(r, key, start)
    elif key == "S":
        fields["memory_space"] = _memory_space(r)
    elif key == "M":
        m_start = r.pos
        value = r.integer("a number in M(...)", -(2**63))
        if value < 0:
            raise r.error(f"M({value}) is negative; XLA would drop it", m_start)
        fields[names[key]] = value
    else:
        minimum = 1 if key == "L" else 0
        fields[names[key]] = r.integer(f"a number in {key}(...)", minimum)
    r.expect(")", f"to close {key}(...){_LENIENT}")


def _tile(r: _Reader) -> Tile:
    r.expect("(", "to open a tile")
    entries = []
    while True:
        start = r.pos
        if r.accept("*"):
            entries.append(COMBINE)
        else:
            value = r.integer("a tile size or '*'", -(2**63))
            if value <= 0:
                raise r.error(f"tile entry {value} must be positive or '*'", start)
            entries.append(value)
        if r.accept(")"):
            break
        r.expect(",", f"or ')' in a tile{_LENIENT}")
    try:
        return Tile(tuple(entries))
    except LayoutError as e:
        # The only error left: '*' as the last entry; point at it.
        raise r.error(str(e), start) from None


def _split_config(r: _Reader) -> SplitConfig:
    r.expect("(", "after SC")
    dimension = r.integer("a dimension in SC(...)", 0)
    r.expect(":", "after the dimension in SC(...)")
    indices = []
    if re.fullmatch(r"-?[0-9]+", r.peek()):
        indices.append(r.integer("a split index", 0))
        while r.accept(","):
            indices.append(r.integer("a split index", 0))
    r.expect(")", f"to close SC(...){_LENIENT}")
    return SplitConfig(dimension, tuple(indices))


def format_dim(d: int | str | None, dynamic: bool) -> str:
    if d is None:
        return "?"
    return f"<={d}" if dynamic else str(d)


def format_layout(layout: Layout) -> str:
    """XLA's printed form of a layout, ``{1,0:T(8,128)(2,1)}``."""
    parts = []
    # No D(...): XLA's printer no longer writes dim level types.
    if layout.tiles:
        parts.append("T" + "".join(str(t) for t in layout.tiles))
    if layout.tail_padding_alignment_in_elements != 1:
        parts.append(f"L({layout.tail_padding_alignment_in_elements})")
    if layout.index_primitive_type:
        parts.append(f"#({layout.index_primitive_type})")
    if layout.pointer_primitive_type:
        parts.append(f"*({layout.pointer_primitive_type})")
    if layout.element_size_in_bits:
        parts.append(f"E({layout.element_size_in_bits})")
    if layout.memory_space:
        parts.append(f"S({layout.memory_space})")
    if layout.split_configs:
        parts.append("SC" + "".join(
            f"({sc.dimension}:" + ",".join(map(str, sc.split_indices)) + ")"
            for sc in layout.split_configs))
    if layout.physical_shape is not None:
        parts.append(f"P({format_shape(layout.physical_shape)})")
    if layout.dynamic_shape_metadata_prefix_bytes:
        parts.append(f"M({layout.dynamic_shape_metadata_prefix_bytes})")
    m2m = ",".join(map(str, layout.minor_to_major))
    return "{" + m2m + (":" + "".join(parts) if parts else "") + "}"


def format_shape(shape: Shape | TupleShape) -> str:
    """XLA's printed form of a shape, with its layout."""
    if isinstance(shape, TupleShape):
        # XLA marks every fifth element's index in a comment.
        return "(" + "".join(
            ("" if i == 0 else f", /*index={i}*/" if i % 5 == 0 else ", ")
            + format_shape(s) for i, s in enumerate(shape.elements)) + ")"
    dims = ",".join(format_dim(d, f) for d, f in zip(shape.dims, shape.dynamic))
    layout = format_layout(shape.layout)
    if shape.element_type in NON_ARRAY_TYPES or layout == "{}":
        return f"{shape.element_type}[{dims}]"
    return f"{shape.element_type}[{dims}]{layout}"


def canonical(text: str) -> str:
    """The canonical text of a shape: parse then print."""
    return format_shape(parse_shape(text))
