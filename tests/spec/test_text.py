"""XLA's text form: printing, parsing, round trips and errors."""

import itertools
import re

import pytest
from hypothesis import given, settings, strategies as st

import tilespec.spec.printer as printer_module
import tilespec.spec.text as text_module
from tilespec.spec import (
    Layout,
    LayoutError,
    ParseError,
    Shape,
    ShapeError,
    Tile,
    TilespecError,
    TupleShape,
    canonical,
    format_layout,
    format_shape,
    parse_array_shape,
    parse_layout,
    parse_shape,
)
from tilespec.testing import xla_shapes

# --- round trips ------------------------------------------------------------------


@settings(max_examples=300)
@given(xla_shapes(allow_names=True))
def test_parse_inverts_format(x):
    text = format_shape(x)
    assert parse_shape(text) == x
    assert canonical(text) == text
    assert "\n" not in text


_TOKENS = re.compile(r"/\*.*?\*/|<=|[A-Za-z_][A-Za-z0-9_]*|\d+|\S")
_GAPS = st.sampled_from(["", "", " ", "  ", "\t", "\n", " \n  ", "/* c */",
                         "/*index=9*/", "// note\n"])


def tokens(text):
    out = _TOKENS.findall(text)
    assert "".join(out) == re.sub(r"\s", "", text)
    return out


@settings(max_examples=200)
@given(xla_shapes(), st.data())
def test_whitespace_and_comments_between_tokens(x, data):
    text = format_shape(x)
    parts = tokens(text)
    gaps = data.draw(st.lists(_GAPS, min_size=len(parts) + 1, max_size=len(parts) + 1))
    spaced = "".join(g + p for g, p in zip(gaps, parts)) + gaps[-1]
    assert canonical(spaced) == text
    assert parse_shape(spaced) == x


@settings(max_examples=200)
@given(xla_shapes(allow_tuples=False, fields=(), max_tiles=0))
def test_default_layout_may_be_left_out(x):
    """A shape without layout text gets the default (row-major) layout."""
    text = format_shape(x)
    bare = text.split("{")[0]
    parsed = parse_shape(bare)
    assert parsed.layout == Layout.default(x.rank)
    assert canonical(bare) == format_shape(x.with_layout(Layout.default(x.rank)))


@pytest.mark.parametrize("text, expected", [
    ("bf16[1024, 1024]{1,0:T(8,128)(2,1)}", "bf16[1024,1024]{1,0:T(8,128)(2,1)}"),
    ("  f32 [ 3 , 5 ] { 1 , 0 : T ( 2 , 2 ) }  ", "f32[3,5]{1,0:T(2,2)}"),
    ("f32[3,5]", "f32[3,5]{1,0}"),
    ("f32[3,5]{0,1}", "f32[3,5]{0,1}"),
    ("s32[]", "s32[]"),
    ("s32[]{:}", "s32[]"),
    ("s32[]{:T(128)}", "s32[]{:T(128)}"),
    ("pred[7]{0:E(1)}", "pred[7]{0:E(1)}"),
    ("s4[3]{0:E(4)}", "s4[3]{0:E(4)}"),
    ("f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}", "f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}"),
    ("f32[<=4,?]{0,1}", "f32[<=4,?]{0,1}"),
    ("f32[<= 4, ?]", "f32[<=4,?]{1,0}"),
    ("f32[m,n]{1,0:T(8,128)}", "f32[m,n]{1,0:T(8,128)}"),
    ("f32[4,6]{1,0:T(2,2)L(1)}", "f32[4,6]{1,0:T(2,2)}"),   # L(1) is the default
    ("f32[4,6]{1,0:E(0)S(0)M(0)}", "f32[4,6]{1,0}"),
    # XLA reads D(...) (any count) and drops it; its printer never writes it
    ("f32[4,6]{1,0:D(D,C+~,H)T(2,2)L(4)E(32)S(1)SC(0:1,2)M(8)}",
     "f32[4,6]{1,0:T(2,2)L(4)E(32)S(1)SC(0:1,2)M(8)}"),
    ("f32[4,6]{1,0:S(127)}", "f32[4,6]{1,0:S(127)}"),
    ("f32[4,6]{1,0:SC(0:1)(1:2,4)}", "f32[4,6]{1,0:SC(0:1)(1:2,4)}"),
    ("token[]", "token[]"),
    ("()", "()"),
    ("(())", "(())"),
    ("(f32[2], (s32[], pred[]))", "(f32[2]{0}, (s32[], pred[]))"),
    ("(s32[],s32[],s32[],s32[],s32[],s32[])",
     "(s32[], s32[], s32[], s32[], s32[], /*index=5*/s32[])"),
])
def test_canonical(text, expected):
    assert canonical(text) == expected
    assert canonical(expected) == expected


def test_tuple_index_comments():
    """XLA marks every fifth tuple element's index in a comment."""
    x = TupleShape(tuple(Shape("f32", (i,)) for i in range(12)))
    text = format_shape(x)
    assert text.count("/*index=") == 2
    assert ", /*index=5*/f32[5]{0}, " in text
    assert ", /*index=10*/f32[10]{0}, " in text
    assert parse_shape(text) == x
    assert parse_shape(text.replace("/*index=5*/", "").replace("/*index=10*/", "")) == x


def test_layout_alone():
    layout = parse_layout("{1,0:T(8,128)(2,1)}", rank=2)
    assert layout == Layout((1, 0), tiles=[(8, 128), (2, 1)])
    assert format_layout(layout) == "{1,0:T(8,128)(2,1)}"
    with pytest.raises(LayoutError, match="rank-3"):
        parse_layout("{1,0}", rank=3)


def test_shape_str_is_its_text():
    s = Shape("bf16", (16, 256), Layout((1, 0), tiles=[(8, 128), (2, 1)]))
    assert str(s) == "bf16[16,256]{1,0:T(8,128)(2,1)}"


# --- errors -----------------------------------------------------------------------

# (text, error class, words the message must contain, 1-based column)
INVALID = [
    # minor_to_major not a permutation
    ("f32[3,5]{1,1}", LayoutError, "not a permutation", 9),
    ("f32[3,5]{2,0}", LayoutError, "not a permutation", 9),
    ("f32[3]{0:P(f32[3]{1})}", LayoutError, "not a permutation", 18),
    # tile entries
    ("f32[3,5]{1,0:T(2,0)}", ParseError, "tile entry 0 must be positive", 18),
    ("f32[3,5]{1,0:T(2,-3)}", ParseError, "tile entry -3 must be positive", 18),
    ("f32[3,5]{1,0:T(-1,2)}", ParseError, "tile entry -1 must be positive", 16),
    ("f32[3,5]{1,0:T()}", ParseError, "an empty tile", 16),
    ("f32[3]{0:T(2.5)}", ParseError, "in a tile", 13),
    # rank mismatch
    ("f32[3,5]{0}", LayoutError, "rank-2", 9),
    ("f32[3]{1,0:T(2,2)}", LayoutError, "rank-1", 7),
    # Read as XLA reads them (each checked against jaxlib's XLA, docs/xla.md):
    ("f32[]{}", ParseError, "empty layout '{}'", 6),
    ("f32[3]{}", ParseError, "empty layout '{}'", 7),
    ("token[]{}", ParseError, "empty layout '{}'", 8),
    ("f32[3]{0:#(u16)}", ParseError, "only for sparse arrays", 10),
    ("f32[3]{0:*(u16)}", ParseError, "only for sparse arrays", 10),
    ("f32[3]{0:T(2)*(u32)}", ParseError, "only for sparse arrays", 14),
    ("f32[3]{0:P(f32[3])}", ParseError, "only for sparse arrays", 10),
    ("f32[3]{0:S(300)}", ParseError, "XLA would read it as S(44)", 12),
    ("f32[3]{0:S(256)}", ParseError, "XLA would read it as no memory space", 12),
    ("f32[3]{0:S(128)}", ParseError, "S(-128)", 12),
    ("f32[3]{0:S(-129)}", ParseError, "XLA would read it as S(127)", 12),
    ("f32[3]{0:L(9223372036854775808)}", ParseError,
     "wraps it to -9223372036854775808, and XLA aborts", 12),
    ("f32[3]{0:T(9223372036854775808)}", ParseError,
     "wraps it to -9223372036854775808, which XLA reads as '*'", 12),
    ("f32[3]{0:T(18446744073709551615)}", ParseError,
     "wraps it to -1, a negative tile entry other than '*', on which XLA aborts", 12),
    ("f32[3]{0:S(18446744073709551615)}", ParseError,
     "wraps it to -1, and XLA's 8-bit field then holds S(-1)", 12),
    ("f32[3]{0:S(9223372036854775808)}", ParseError,
     "8-bit field then holds no memory space", 12),
    ("f32[3]{0:M(18446744073709551616)}", ParseError,
     "does not fit int64 (nor uint64); XLA's parser rejects it", 12),
    ("f32[<=9223372036854775808]", ParseError, "which XLA reads as an unbounded dim '?'", 7),
    ("f32[18446744073709551615]", ParseError, "a negative size, which XLA's parser rejects", 5),
    ("b((f32[3]))", ParseError, "holds an array shape", 3),
    ("b(token[])", ParseError, "holds an array shape", 3),
    ("b(b(f32[3]))", ParseError, "holds an array shape", 3),
    # token and opaque with dims or a layout abort XLA
    ("token[16]{0:E(8)}", ParseError, "XLA aborts reading it", 1),
    ("token[]{:}", ParseError, "XLA aborts reading it", 1),
    ("opaque[2]", ParseError, "XLA aborts reading it", 1),
    # \v, \f and U+00A0 are not whitespace for XLA's lexer
    ("f32[3]\v{0}", ParseError, "unexpected text after the shape", 7),
    ("f32[3]\f{0}", ParseError, "unexpected text after the shape", 7),
    ("f32[3]\xa0{0}", ParseError, "unexpected text after the shape", 7),
    ("f32[\xa03]", ParseError, "expected a dim size", 5),
    ("f32[3]{0:D(C++)}", ParseError, "expected ')' to close D(...) at", 14),
    # element types
    ("f17[3]", ParseError, "unknown element type 'f17'", 1),
    ("(f32[3], x32[])", ParseError, "unknown element type 'x32'", 10),
    ("F32[3,5]", ParseError, "unknown element type 'F32'", 1),
    # malformed text
    ("", ParseError, "expected an element type", 1),
    ("f32[3,5", ParseError, "expected ',' or ']'", 8),
    ("f32[3;5]", ParseError, "expected ',' or ']'", 6),
    ("f32[3,5]{1,0", ParseError, "expected '}'", 13),
    ("f32[3,5] x", ParseError, "unexpected text after the shape", 10),
    ("f32[-1]", ParseError, "dim size -1 is below 0", 5),
    ("f32[<=x]", ParseError, "bound after '<='", 7),
    ("(f32[3]", ParseError, "in a tuple", 8),
    ("f32[3]{a}", ParseError, "minor_to_major", 8),
    ("f32[3]{0:Q(1)}", ParseError, "unknown layout field 'Q'", 10),
    ("f32[3]{0:T(2)", ParseError, "expected a layout field or '}'", 14),
    ("f32[3]{0:L(0)}", ParseError, "L(...) 0 is below 1", 12),
    ("f32[3]{0:E(x)}", ParseError, "E(...)", 12),
    ("f32[3]{0:#(s32)}", ParseError, "unsigned integer type", 12),
    ("f32[3]{0:*(f32)}", ParseError, "unsigned integer type", 12),
    ("f32[3]{0:D(X)}", ParseError, "unknown dim level type 'X'", 12),
    # fields out of XLA's order, or twice
    ("f32[3,5]{1,0:E(4)T(2,2)}", ParseError, "T must come before E", 18),
    ("f32[3,5]{1,0:M(1)D(D,D)}", ParseError, "D must come before M", 18),
    ("f32[3,5]{1,0:T(2,2)T(2,2)}", ParseError, "T given twice", 20),
    # split configs
    ("f32[3]{0:SC(0:5)}", LayoutError, "split indices", 7),
    ("f32[3,5]{1,0:SC(5:1)}", LayoutError, "out of range", 9),
]


@pytest.mark.parametrize("text, error, words, column", INVALID)
def test_invalid_text(text, error, words, column):
    with pytest.raises(error) as info:
        parse_shape(text)
    e = info.value
    assert isinstance(e, TilespecError) and isinstance(e, ValueError)
    message = str(e)
    assert "\n" not in message
    assert words in message
    assert f"column {column}" in message
    if isinstance(e, ParseError):
        assert e.column == column
        assert repr(text) in message


# Every layout field, each valid for f32[4,6]{1,0}, in XLA's order.
FIELDS = [("D", "D(D,C)"), ("T", "T(2,2)"), ("L", "L(4)"), ("#", "#(u32)"),
          ("*", "*(u32)"), ("E", "E(32)"), ("S", "S(1)"), ("SC", "SC(0:1)"),
          ("P", "P(f32[24])"), ("M", "M(8)")]


@pytest.mark.parametrize("first, second", list(itertools.combinations(FIELDS, 2)),
                         ids=lambda f: f[0])
def test_fields_must_follow_xlas_order(first, second):
    prefix = "f32[4,6]{1,0:"
    if {first[0], second[0]} & set(SPARSE_ONLY):
        with pytest.raises(ParseError, match="only for sparse arrays"):
            parse_shape(prefix + first[1] + second[1] + "}")
    else:
        parse_shape(prefix + first[1] + second[1] + "}")
    with pytest.raises(ParseError) as info:
        parse_shape(prefix + second[1] + first[1] + "}")
    if second[0] in SPARSE_ONLY:   # rejected as soon as it is read
        assert "only for sparse arrays" in str(info.value)
        return
    assert f"{first[0]} must come before {second[0]}" in str(info.value)
    assert info.value.column == len(prefix) + len(second[1]) + 1


SPARSE_ONLY = ("#", "*", "P")


def test_all_fields_in_order_parse():
    text = "f32[4,6]{1,0:" + "".join(f for k, f in FIELDS if k not in SPARSE_ONLY) + "}"
    assert canonical(text) == text.replace("D(D,C)", "")


@pytest.mark.parametrize("make, error, words", [
    (lambda: Layout((1, 1)), LayoutError, "not a permutation"),
    (lambda: Layout((0,), tiles=[(0,)]), LayoutError, "must be positive"),
    (lambda: Tile((2, -1)).combinable(), LayoutError, "most minor"),
    (lambda: parse_shape("b(f32[3])"), ShapeError, "tilespec lays out arrays"),
    (lambda: parse_shape("(s32[], b(f32[3]))"), ShapeError, "holds a buffer shape"),
    (lambda: Tile(()), LayoutError, "empty tile"),
    (lambda: Tile((2.5,)), LayoutError, "not an integer"),
    (lambda: Shape("f17", (3,)), ShapeError, "unknown element type"),
    (lambda: Shape("f32", (3, 5), Layout((0,))), LayoutError, "rank-2"),
    (lambda: Shape("f32", (-3,)), ShapeError, "non-negative"),
    (lambda: parse_array_shape("(f32[3])"), ShapeError, "tuple"),
    (lambda: parse_shape(17), ShapeError, "string"),
])
def test_invalid_values(make, error, words):
    with pytest.raises(error, match=re.escape(words)) as info:
        make()
    assert "\n" not in str(info.value)
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("text, xla", [
    ("f32[3]{0:T(2}", "f32[3]{0:T(2)}"), ("f32[3]{0:E(4S(1)}", "f32[3]{0:E(4)S(1)}"),
    ("f32[3]{0:SC(0:1}", "f32[3]{0:SC(0:1)}"), ("f32[3]{0:T(2 E(4)}", "f32[3]{0:T(2)E(4)}"),
    ("f32[3]{0:T(2)*E(4)}", "f32[3]{0:T(2)E(4)}"), ("f32[3]{0:*}", "f32[3]{0}"),
    ("f32[3]{0:D(C}", "f32[3]{0}"), ("f32[3]{0:S}", "f32[3]{0}"), ("f32[3]{0:M(}", "f32[3]{0}"),
])
def test_parser_slack_rejected_saying_what_xla_reads(text, xla):
    # XLA's layout parser drops its field parsers' verdicts and reads on;
    # each reading checked against jaxlib's XLA (tests/xla/test_xla_text.py).
    with pytest.raises(ParseError, match=re.escape(
            f"(XLA's parser lets this pass: it reads on from there and reads {xla})")):
        parse_shape(text)


@pytest.mark.parametrize("text", ["f32[3]{0:T(2 2)}", "f32[3]{0:T(,2)}", "f32[3]{0:D(C++)}",
                                  "f32[3]{0:E(x)}", "f32[3]{0:T(2)(}"])
def test_a_field_error_xla_does_not_read_past_claims_nothing(text):
    with pytest.raises(ParseError) as info:
        parse_shape(text)
    assert "lets this pass" not in str(info.value)


@pytest.mark.parametrize("given, printed", [
    ("f32[3,5]{1,0:T(2,*)}", "f32[3,5]{1,0:T(2,*)}"),
    ("f32[3,5]{1,0:T(8,128)(*)}", "f32[3,5]{1,0:T(8,128)(*)}"),
    ("f32[3]{0:T(-9223372036854775808)}", "f32[3]{0:T(*)}"),
    ("f32[3]{0:S(-1)}", "f32[3]{0:S(-1)}"),
    ("f32[3]{0:S(-128)}", "f32[3]{0:S(-128)}"),
    ("f32[3]{0:S(-3)M(-5)}", "f32[3]{0:S(-3)}"),
    ("f32[3]{0:M(-9223372036854775808)}", "f32[3]{0}"),
    ("f32[]{:D()}", "f32[]"),
    ("f32[3]{0:D(C+~,D~)}", "f32[3]{0}"),
    ("f32[<=-9223372036854775808]", "f32[?]{0}"),
    ("f32[3]\r{0}", "f32[3]{0}"),
    ("f32[3]//x\v\r{0}", "f32[3]{0}"),
    ("b(f32[3])", "b(f32[3]{0})"),
    ("b (f32[3,5]{0,1:T(2,*)})", "b(f32[3,5]{0,1:T(2,*)})"),
    ("(b(f32[3]), (b(s32[2,2]{0,1})))", "(b(f32[3]{0}), (b(s32[2,2]{0,1})))"),
    ("token[]", "token[]"),
])
def test_read_as_xla_reads_and_printed_as_xla_prints(given, printed):
    # Each pair is what jaxlib's XLA parses and prints (tests/xla/test_xla_text.py).
    assert printer_module.format_shape(text_module.read_shape(given)) == printed


def test_only_ascii_digits_are_numbers():
    """XLA's lexer reads ASCII digits only; Python's \\d (and int()) also take
    other scripts' digits, so f32[١٢] was read as f32[12]."""
    for text in ("f32[١٢]{0}", "f32[3,５]{1,0}", "f32[3]{0:T(２)}"):
        with pytest.raises(ParseError):
            parse_shape(text)
