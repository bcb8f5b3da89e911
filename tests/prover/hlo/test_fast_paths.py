"""The reader's fast paths read as the token-by-token reading does: the
canonical head of an instruction (:mod:`~tilespec.prover.hlo.canonical`,
arrays and tuples), the attributes read by one expression and the lines
remembered (:meth:`~tilespec.prover.hlo.reader.Reader.attributes`), the
text cut at its quotes (:func:`~tilespec.prover.hlo.lexer.lex_by_quotes`)
and the bracket ends found when first asked
(:class:`~tilespec.prover.hlo.reader.Closing`), on every instruction of
the recorded real TPU modules and on generated variants of their lines."""

from __future__ import annotations

import gzip
import json
import re
from functools import lru_cache

from hypothesis import given, settings, strategies as st
from locations import DATA

from tilespec.prover.hlo.lexer import lex, lex_by_pieces, lex_by_quotes
from tilespec.prover.hlo.module import (
    read_canonical_head,
    read_instruction,
    read_instruction_by_tokens,
)
from tilespec.prover.hlo.reader import SIMPLE_VALUE, Closing, NotRead, Reader
from tilespec.spec.errors import TilespecError

#: Where an instruction starts: a line's first token after its indentation.
_STARTS = re.compile(r"^[ \t]+(?=(?:ROOT )?%)", re.M)


@lru_cache(maxsize=1)
def tpu_texts() -> list[str]:
    with gzip.open(DATA / "tpu" / "corpus.json.gz", "rt") as f:
        return [e["hlo"] for e in json.load(f)["modules"]]


def both_readings(text: str, i: int):
    """(the reading, the reading token by token) at ``i``: each an
    (instruction, end) or the NotRead reason."""
    out = []
    for read in (read_instruction, read_instruction_by_tokens):
        try:
            out.append(read(Reader(lex(text)), i, 1, "c"))
        except (NotRead, TilespecError) as e:
            out.append(str(e))
    return out


def test_the_canonical_head_reads_every_real_tpu_instruction_as_the_tokens_do():
    read = 0
    for text in tpu_texts()[::3]:
        r, tokens = Reader(lex(text)), Reader(lex(text))
        for m in _STARTS.finditer(text):
            if read_canonical_head(r, m.end()) is None:
                continue
            fast = read_instruction(r, m.end(), 1, "c")
            slow = read_instruction_by_tokens(tokens, m.end(), 1, "c")
            assert fast == slow
            read += 1
    assert read > 2000             # the fast path is the common one


def test_the_cut_at_double_quotes_reads_every_recorded_tpu_module():
    # sharded modules too, with their mesh['x'=2] and backslashes in strings:
    # the cut answers for each, as the one scan reads it
    for text in tpu_texts():
        by_quotes = lex_by_quotes(text)
        assert by_quotes is not None and by_quotes == lex_by_pieces(text)


LINES = ["%b.1 = f32[4,8]{1,0:T(8,128)} bitcast(%a, %c.2), metadata={op_name=\"x\"}",
         "ROOT %p = bf16[]{:T(256)} parameter(0)",
         "%t = f32[8,4]{0,1} transpose(%p), dimensions={1,0}",
         "%c = s32[2]{0} constant({1, 2})",
         "ROOT %t = (f32[2]{0}, /*index=1*/s32[], (u8[1]{0}, f32[])) tuple(%a, /*index=1*/%b)"]


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(LINES), st.lists(st.tuples(st.integers(0, 60), st.sampled_from(
    [" ", "", "(", ")", "{", "}", "[", "]", ",", "%", "/*c*/", "\n", "ROOT ", ":", "x"])),
    max_size=3))
def test_the_fast_and_the_token_reading_agree_on_altered_lines(line, edits):
    for at, piece in edits:
        at = min(at, len(line))
        line = line[:at] + piece + line[at:]
    fast, slow = both_readings(line, 0)
    assert fast == slow


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet="()[]{}ab", max_size=30))
def test_brackets_close_where_one_scan_of_the_whole_text_closes_them(s):
    whole: dict[int, int] = {}
    opened: list[int] = []
    for k, ch in enumerate(s):
        if ch in "([{":
            opened.append(k)
        elif ch in ")]}" and opened:
            whole[opened.pop()] = k + 1
    lazy = Closing(s)
    for k in sorted(range(len(s)), key=lambda k: (k * 7) % (len(s) or 1)):
        assert lazy.get(k) == whole.get(k)


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet='{}()[]"%, \n=->ab_.1:', max_size=14),
       st.sampled_from(["", "mesh", "maximal_mesh", "{op_name=\"x y\"}", "kLoop", "%f.1"]))
def test_a_simple_value_ends_where_value_end_ends(tail, head):
    r = Reader(lex(head + tail))
    m = SIMPLE_VALUE.match(r.s, 0)
    if m is None or m.group() in ("mesh", "maximal_mesh"):
        return
    try:
        end = r.value_end(0)
    except NotRead:
        end = None
    assert end == m.end()


def test_the_simple_values_are_the_common_ones_in_real_tpu_modules():
    simple = other = 0
    for text in tpu_texts()[::3]:
        r = Reader(lex(text))
        for m in re.finditer(r", [A-Za-z_][\w.\-]*=", r.s):
            v = SIMPLE_VALUE.match(r.s, m.end())
            if v is None or v.group() in ("mesh", "maximal_mesh"):
                other += 1
                continue
            assert r.value_end(m.end()) == v.end()
            simple += 1
    assert simple > 2 * other


def attribute_readings(text: str, starts: list[int]):
    """(the reading, the reading token by token) of the attributes at each
    of ``starts``, in order, by one reader each (the first remembers the
    lines it read): an (attributes, end) or the NotRead reason."""
    out = []
    for read in (Reader.attributes, Reader.attributes_by_tokens):
        r, here = Reader(lex(text)), []
        for i in starts:
            try:
                here.append(read(r, i))
            except NotRead as e:
                here.append(e.reason)
        out.append(here)
    return out


def test_remembered_attribute_lines_read_every_real_tpu_instruction_as_the_tokens_do():
    read = 0
    for text in tpu_texts()[::3]:
        r = Reader(lex(text))
        starts = [head[6] for m in _STARTS.finditer(text)
                  if (head := read_canonical_head(r, m.end())) is not None]
        fast, slow = attribute_readings(text, starts)
        assert fast == slow
        read += len(starts)
    assert read > 2000


TAILS = [', metadata={op_name="a(b)/c" stack_frame_id=3}',
         ', kind=kLoop, calls=%f.1, backend_config={"a":[],"b":{"c":[{"d":["1"]}]}}',
         ", dimensions={1,0}, sharding={devices=[2,1]<=[2]}", ", x=ROOT", ", y=mesh"]


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(TAILS), st.sampled_from(["", " = 1", ", z=2", "=", "  ,w=4", "ROOT"]),
       st.lists(st.tuples(st.integers(0, 80), st.sampled_from(
           [" ", "\n", "{", "}", "[", "]", ",", "=", "%", "/*c*/", "ROOT", "x"])), max_size=2))
def test_a_remembered_attribute_line_reads_as_the_tokens_whatever_follows(tail, after, edits):
    # the line is read, then read again with other text after it: what the
    # reader remembered of the first must not decide the second
    second = tail
    for at, piece in edits:
        at = min(at, len(second))
        second = second[:at] + piece + second[at:]
    head = "%a = f32[] add()"
    text = f"{head}{tail}\n{head}{second}\n{after}\n%next = f32[] add()\n"
    fast, slow = attribute_readings(text, [len(head), 2 * len(head) + len(tail) + 1])
    assert fast == slow


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet="()[]{}ab", max_size=40), st.integers(0, 16))
def test_a_group_ends_where_the_brackets_are_counted_to(s, deep):
    # GROUP matches groups nested up to 12 deep; deeper ones are counted
    s = "(" * deep + s + ")" * deep
    r, counted = Reader(lex(s)), Closing(s)
    for k in range(len(s)):
        if s[k] in "([{":
            try:
                end = r.group_end(k)
            except NotRead:
                end = None
            assert end == counted.get(k)


def test_lines_printing_the_same_attributes_share_one_tuple_and_others_keep_their_own():
    # the skeleton masks strings: 'ab' and 'cd' read alike there, not in the code
    line = '%{0} = f32[] add(), metadata={{op_name="{1}"}}, sharding={{replicated}}\n'
    text = line.format("a", "ab") + line.format("b", "cd") + line.format("c", "ab")
    r = Reader(lex(text))
    heads = [read_canonical_head(r, m.start()) for m in re.finditer("%", text)]
    (a, _), (b, _), (c, _) = (r.attributes(head[6]) for head in heads)
    assert a == (("metadata", '{op_name="ab"}'), ("sharding", "{replicated}"))
    assert b == (("metadata", '{op_name="cd"}'), ("sharding", "{replicated}"))
    assert c is a
