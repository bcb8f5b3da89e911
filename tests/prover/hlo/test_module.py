"""``prover.hlo.module`` reads HLO text as XLA's lexer and parser do, and
``check_module`` never calls a module proved when something in it was not
read or a bitcast in it was not decided.

The hand-written modules in tests/data/hlo hide or split instructions the
way an adversarial audit found (comments between tokens, literals and
attributes over several lines, ``//`` in a string after an escaped quote,
instruction names reused across computations); each holds one bitcast that
moves data (``f32[8,128]{1,0:T(8,128)} -> f32[2,512]{1,0:T(8,128)}``) or
one that does not.  tests/prover/hlo/test_module_xla.py checks the same
modules against XLA's own parser.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st
from locations import DATA

from tilespec.cli.main import main
from tilespec.prover.hlo.check import check_module
from tilespec.prover.hlo.lexer import lex, lex_by_pieces, lex_by_quotes, lex_each_character
from tilespec.prover.hlo.module import parse_hlo, parse_instruction
from tilespec.spec.errors import TilespecError
from tilespec.spec.printer import format_shape

DATA = DATA / "hlo"
MOVES = "bitcast-refuted"


def read(name: str):
    return parse_hlo((DATA / f"{name}.hlo").read_text())


def verdicts(name: str) -> dict:
    """instruction -> its bitcast rule, and the module's status."""
    r = check_module(read(name))
    return {f.instruction: f.rule for f in r.findings
            if f.rule.startswith("bitcast-")} | {"status": r.status}


# --- names are scoped per computation ----------------------------------------------------

def test_operands_resolve_in_their_own_computation():
    m = read("names_reused_false_proved")
    keep, main_ = m.computations
    assert [i.name for i in keep.instructions] == ["p", "b"]
    assert [i.name for i in main_.instructions] == ["p", "c"]
    assert format_shape(m.operand_shapes(m.instruction("c"))[0]) == "f32[8,128]{1,0:T(8,128)}"
    assert format_shape(m.operand_shapes(m.instruction("b"))[0]) == "f32[2,512]{1,0:T(8,128)}"
    assert m.instruction("p", "main").shape != m.instruction("p", "keep").shape
    with pytest.raises(TilespecError, match="several computations"):
        m.instruction("p")


def test_a_name_reused_across_computations_gives_no_false_proved():
    assert verdicts("names_reused_false_proved") == {
        "b": "bitcast-proved", "c": MOVES, "status": "refuted"}


def test_a_name_reused_across_computations_gives_no_false_refuted():
    assert verdicts("names_reused_false_refuted") == {
        "b": "bitcast-proved", "status": "proved"}


def test_a_name_defined_twice_in_one_computation_is_not_read():
    m = parse_hlo("ENTRY %e (p: f32[2]) -> f32[2] {\n  %p = f32[2]{0} parameter(0)\n"
                  "  %p = f32[2]{0} negate(%p)\n  ROOT %r = f32[2]{0} negate(%p)\n}\n")
    assert [(s.line, "defined twice" in s.reason) for s in m.skipped] == [(3, True)]
    assert check_module(m).status == "unknown"


# --- XLA's lexer: comments, strings, line breaks ----------------------------------------

def test_a_comment_between_tokens_hides_no_bitcast():
    assert verdicts("comment_between_tokens") == {"c": MOVES, "status": "refuted"}
    c = read("comment_between_tokens").instruction("c")
    assert (c.opcode, c.operands, c.line) == ("bitcast", ("p",), 5)


def test_a_literal_over_several_lines_does_not_end_the_computation():
    m = read("multiline_literal")
    assert not m.skipped
    assert [i.name for i in m.instructions] == ["p", "k", "c", "t"]
    assert [i.line for i in m.instructions] == [4, 5, 9, 10]
    assert verdicts("multiline_literal") == {"c": MOVES, "status": "refuted"}


def test_attributes_and_operands_over_several_lines_are_read():
    m = read("multiline_attributes")
    assert not m.skipped
    c = m.instruction("c")
    assert (c.line, c.operands, c.op_name) == (7, ("p",), "jit(f)/reshape")
    assert m.instruction("p").op_name == "jit(f)/x"
    assert verdicts("multiline_attributes") == {"c": MOVES, "status": "refuted"}


def test_slashes_in_a_string_after_an_escaped_quote_are_not_a_comment():
    c = read("string_with_slashes").instruction("c")
    assert c.op_name == 'a\\"//b'
    assert c.attribute("metadata") == '{op_name="a\\"//b" source_file="c//d"}'


def test_lexer_masks_strings_and_blanks_comments_position_for_position():
    text = "a /* x\n y */ b \"c//d\\\"e\" 'f/*g' // h\n/* i */"
    x = lex(text)
    assert len(x.code) == len(x.skeleton) == len(text)
    assert x.code.count("\n") == text.count("\n")          # line numbers kept
    assert x.code.split() == ["a", "b", '"c//d\\"e"', "'f/*g'"]
    assert x.skeleton.split() == ["a", "b", '"' + "_" * 7 + '"', "'" + "_" * 4 + "'"]
    assert lex("a /* never closed").problems == ((2, "a /* comment that is never closed"),)
    assert lex('a "never closed').problems == ((2, "a string that is never closed"),)


LEXER_TEXTS = st.text(st.sampled_from(['/', '*', '"', "'", "\\", "\n", "\r", "a", " ", "}",
                                       "\x0b", "\u00e9"]), max_size=16)


@given(LEXER_TEXTS)
@settings(max_examples=500, deadline=None)
def test_the_one_scan_lexer_reads_as_the_character_scan(text):
    """:func:`lex` finds comments and strings with one regular expression,
    and falls back to a scan character by character when one is never
    closed: both read every text alike (the campaign below, -m slow, reads
    3,000 texts)."""
    assert lex(text) == lex_each_character(text)


@pytest.mark.slow
@given(LEXER_TEXTS)
@settings(max_examples=3000, deadline=None)
def test_the_one_scan_lexer_reads_thousands_of_texts_as_the_character_scan(text):
    assert lex(text) == lex_each_character(text)


#: Texts as a dump holds them: strings, comments and '-strings side by side,
#: so that the cut at double quotes answers for many of them.
QUOTED_TEXTS = st.lists(st.sampled_from(['"a/b"', '"x"', "/*c*/", "//d", "'e\"'", "'f'", "\n",
                                         " ", "g", '"', "'", "/", "*", "\\", '""', "\r"]),
                        max_size=10).map("".join)


@given(QUOTED_TEXTS)
@settings(max_examples=300, deadline=None)
def test_the_cut_at_double_quotes_reads_as_the_character_scan(text):
    by_quotes = lex_by_quotes(text)
    assert by_quotes is None or by_quotes == lex_each_character(text)
    assert lex_by_pieces(text) == lex_each_character(text)


def test_a_string_longer_than_the_kept_masks_is_masked_whole():
    text = 'a "' + "x" * 5000 + '" b "' + "/" * 300 + '"'
    assert lex(text) == lex_each_character(text)


def test_instructions_need_no_line_of_their_own():
    m = parse_hlo("ENTRY %e (p: f32[8,128]) -> f32[2,512] { %p = f32[8,128]{1,0:T(8,128)} "
                  "parameter(0) ROOT %c = f32[2,512]{1,0:T(8,128)} bitcast(%p) }")
    assert [i.name for i in m.instructions] == ["p", "c"] and not m.skipped
    assert check_module(m).status == "refuted"


def test_a_brace_after_a_shape_opens_a_layout_only_before_an_integer_or_colon():
    # HloParserImpl::ParseShape: '-> f32[2] {' opens the body, not a layout
    m = parse_hlo("%f (p: f32[2]) -> f32[2] {%p = f32[2]{0} parameter(0)}\n"
                  "ENTRY %e (p: f32[2]) -> f32[2]{0} {\n ROOT %p = f32[2] {0} parameter(0)\n}")
    assert [c.name for c in m.computations] == ["f", "e"] and not m.skipped
    assert format_shape(m.instruction("p", "e").shape) == "f32[2]{0}"


def test_a_name_without_percent_needs_a_space_before_equals():
    # HloLexer::LexIdentifier: 'x=' is an attribute name, so XLA rejects it
    with pytest.raises(ValueError, match="attribute"):
        parse_instruction("x= f32[2]{0} parameter(0)")
    assert parse_instruction("x = f32[2]{0} parameter(0)").name == "x"
    assert parse_instruction("%x=f32[2]{0} parameter(0)").name == "x"


# --- nothing passes unseen --------------------------------------------------------------

@pytest.mark.parametrize("line", [
    "  this line is not HLO at all",
    "  %z = f32[2,512]{1,0:T(8,128)} bitcast(f32[8,128]{1,0:T(8,128)} negate(%p))",
    "  %z = bitcast(%p)",
    "  %z = f32[2,512]{1,0:T(8,128)} bitcast(%p), metadata=",
])
def test_a_line_not_understood_makes_the_module_unknown(line):
    m = parse_hlo("ENTRY %e (p: f32[2,512]) -> f32[2,512] {\n"
                  "  %p = f32[2,512]{1,0:T(8,128)} parameter(0)\n"
                  f"{line}\n"
                  "  ROOT %b = f32[2,512]{1,0:T(8,128)} bitcast(%p)\n}\n")
    assert [s.line for s in m.skipped] == [3]
    assert [i.name for i in m.instructions] == ["p", "b"]       # the reader resumed
    assert check_module(m).status == "unknown"


def test_a_nested_operand_is_not_read_so_the_module_is_unknown():
    m = read("nested_operand")
    assert [s.line for s in m.skipped] == [7] and "nested" in m.skipped[0].reason
    assert check_module(m).status == "unknown"


def test_a_bitcast_not_decided_makes_the_module_unknown():
    # its operand is defined in another computation only: not decided
    m = parse_hlo("%f (q: f32[2]) -> f32[2] {\n  ROOT %q = f32[2]{0} parameter(0)\n}\n"
                  "ENTRY %e (p: f32[2]) -> f32[2] {\n  %p = f32[2]{0} parameter(0)\n"
                  "  ROOT %b = f32[2]{0} bitcast(%q)\n}\n")
    assert not m.skipped
    r = check_module(m)
    assert [(f.rule, f.line) for f in r.findings if f.rule == "skipped"] == [("skipped", 6)]
    assert r.status == "unknown"


def test_an_unclosed_comment_makes_the_module_unknown():
    m = parse_hlo("ENTRY %e (p: f32[2]) -> f32[2] {\n  %p = f32[2]{0} parameter(0)\n"
                  "  ROOT %b = f32[2]{0} bitcast(%p) /* never closed\n}\n")
    assert m.skipped and check_module(m).status == "unknown"


@pytest.mark.parametrize("name,code", [("comment_between_tokens", 1),
                                       ("names_reused_false_refuted", 0),
                                       ("nested_operand", 3)])
def test_check_hlo_exit_status(capsys, name, code):
    assert main(["check-hlo", str(DATA / f"{name}.hlo")]) == code
    capsys.readouterr()
