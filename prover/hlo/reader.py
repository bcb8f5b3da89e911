"""Positions in HLO text as XLA's lexer and parser read it.

A :class:`Reader` walks the lexed text of a module
(:mod:`tilespec.prover.hlo.lexer`: comments blanked, strings masked) and
finds where each piece ends: whitespace, a name, a bracket group, a shape,
an attribute's value, the attributes of an instruction, its operands.  Text
it does not understand raises :class:`NotRead` at an offset, which the
module reader (:mod:`tilespec.prover.hlo.module`) records as skipped.
Facts from XLA's source (the mirror of openxla/xla,
``xla/hlo/parser/hlo_lexer.cc`` and ``hlo_parser.cc`` at commit
183fa00cb5): whitespace is exactly space, tab, ``\\n`` and ``\\r``, and it
may stand between any two tokens (``HloLexer::LexToken``), so also between
a primitive type and its ``[`` (``f32 [4096]``).

>>> from tilespec.prover.hlo.lexer import lex
>>> r = Reader(lex("f32 [4096] {0} bitcast(%p), dimensions={1, 0}"))
>>> r.shape(0)[1:], r.operands(22, "bitcast"), r.attributes(26)[0]
(('f32 [4096] {0}', 14), (('p',), 26), (('dimensions', '{1, 0}'),))
"""

from __future__ import annotations

import gc
import re
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache

from ...spec import Shape, TilespecError, TupleShape, parse_shape
from .lexer import Lexed
from .mesh import mesh_refusal

# A dump repeats few shapes many times; shapes are frozen, so one parse each.
parse_shape_cached = lru_cache(maxsize=1 << 14)(parse_shape)

IDENT = re.compile(r"[A-Za-z_][\w.\-]*")
#: XLA's whitespace: exactly these four (HloLexer::LexToken).
XLA_SPACE = " \t\n\r"
_WS = re.compile(r"[ \t\n\r]*")
_BRACKET = re.compile(r"[()\[\]{}]")
_SEPARATOR = re.compile(r"[(),\[\]{}]")
# A primitive type and its '[': XLA's lexer skips whitespace and comments
# between the two tokens (a comment is blank in the skeleton this reads).
PRIMITIVE = re.compile(r"[a-z][a-z0-9]*[ \t\n\r]*\[")
# The start of a mesh's replica groups, up to its '['.
_MESH = re.compile(r"(?:maximal_)?mesh[ \t\n\r]*\[")
# A mesh's optional device order after its ']' (HloParserImpl::ParseMesh).
_DEVICE_IDS = re.compile(r",[ \t\n\r]*device_ids=[ \t\n\r]*")
#: An attribute's value as XLA prints most of them: a ``{...}`` with no
#: bracket inside (``metadata={op_name="..."}``: strings are masked), a
#: ``"..."`` string or a word (``kLoop``, ``%fused_computation.1``,
#: ``0bf_io0->0bf``), followed by what ends every value (``,``, whitespace,
#: a closing bracket, a ``%``).  :meth:`Reader.value_end` reads such a value
#: to the same end; any other value (nested brackets, iota lists, meshes) is
#: read by it.
SIMPLE_VALUE = re.compile(r'(?:\{[^()\[\]{}]*\}|"[^"]*"|%?[\w.\->]+)(?=[, \t\n\r)\]}%]|\Z)')

def _brackets_nested(depth: int) -> str:
    """A bracket group holding groups nested up to ``depth`` deep, any
    closing bracket closing the last one opened (as :class:`Closing` counts)."""
    inner = r"[^()\[\]{}]*"
    group = r"[({\[]" + inner + r"[)}\]]"
    for _ in range(depth - 1):
        group = r"[({\[]" + inner + r"(?:" + group + inner + r")*[)}\]]"
    return group


#: A bracket group with groups nested up to 12 deep: it ends where
#: :class:`Closing` counts it to (one match where a computation's parameters
#: would be counted bracket by bracket).
GROUP = re.compile(_brackets_nested(12))
#: One attribute as XLA prints it after the previous one: ``, name=value``
#: with the value :data:`SIMPLE_VALUE` reads or a ``{...}`` with groups
#: nested inside (a backend_config's JSON, its strings masked), followed by
#: the next attribute's ``,`` or the end of the line.  :meth:`Reader.
#: attributes` reads such an attribute to the same name, value and end as
#: it reads one token by token; any other falls to that reading.
ATTRIBUTE = re.compile(r", ([A-Za-z_][\w.\-]*)=(\{[^()\[\]{}]*(?:" + _brackets_nested(12)
                       + r"[^()\[\]{}]*)*\}|\"[^\"]*\"|%?[\w.\->]+)(?=[,\n])")
# Words that start a mesh's replica groups (value_end reads them on).
_MESH_WORDS = ("mesh", "maximal_mesh")
# Opcodes whose parentheses hold a literal or a number, not operands.
NO_OPERANDS = {"constant", "parameter"}


class NotRead(Exception):
    """Text not understood, at an offset (the module reader records it as skipped)."""

    def __init__(self, at: int, reason: str):
        super().__init__(reason)
        self.at, self.reason = at, reason


class Closing:
    """Where the bracket opened at each position of ``s`` closes (past it),
    counting depth only, as the reader does: any closing bracket closes the
    last one opened.  Found when first asked, by one scan to the bracket's
    close that also records every group inside it, so each bracket is
    scanned at most once (a search per group would make reading quadratic
    in nested text) and brackets no one asks about (those of instructions
    read by :data:`~tilespec.prover.hlo.canonical.CANONICAL_HEAD`) never.
    What brackets before the one asked about do cannot change where it
    closes: only brackets opened after it are on the stack above it.

    >>> c = Closing("a(b[c]) (")
    >>> c.get(1), c.get(3), c.get(8), c.get(0)
    (7, 6, None, None)
    """

    def __init__(self, s: str):
        self.s = s
        # position of an opening bracket -> past its close, or -1: never closed
        self.found: dict[int, int] = {}

    def get(self, i: int) -> int | None:
        end = self.found.get(i)
        if end is None:
            if i >= len(self.s) or self.s[i] not in "([{":
                return None
            end = self.scan(i)
        return None if end < 0 else end

    def scan(self, i: int) -> int:
        s, found = self.s, self.found
        opened = [i]
        push, pop = opened.append, opened.pop
        for m in _BRACKET.finditer(s, i + 1):
            k = m.start()
            if s[k] in "([{":
                push(k)
            else:
                found[pop()] = k + 1
                if not opened:
                    return k + 1
        for k in opened:
            found[k] = -1
        return -1


class Reader:
    """Positions in one lexed text: skipping whitespace, groups, shapes, values."""

    def __init__(self, lexed: Lexed):
        self.code, self.s = lexed.code, lexed.skeleton
        self.closing = Closing(self.s)
        self.ws_from = self.ws_to = -1
        # the rest of a line read by ATTRIBUTE -> (name, start, end) of each
        self.known_tails: dict[str, tuple[tuple[str, int, int], ...]] = {}
        # the code of such a rest -> its attributes, one tuple for every line
        # that prints the same (most lines of a dump repeat an earlier one's)
        self.known_values: dict[str, tuple[tuple[str, str], ...]] = {}

    def ws(self, i: int) -> int:
        if i < len(self.s) and self.s[i] not in XLA_SPACE:
            return i
        # the end of an instruction's line is asked for twice: by its
        # attributes (is a ',' next?) and by the computation (what is next?)
        if i == self.ws_from:
            return self.ws_to
        self.ws_from, self.ws_to = i, _WS.match(self.s, i).end()  # type: ignore[union-attr]
        return self.ws_to

    def ident(self, i: int) -> tuple[str, int]:
        m = IDENT.match(self.s, i)
        if m is None:
            raise NotRead(i, "expected a name")
        return m.group(), m.end()

    def group_end(self, i: int) -> int:
        """Past the bracket closing the one at ``i``: where :data:`GROUP`
        ends (groups nested at most 12 deep), else where :class:`Closing`
        counts it to."""
        m = GROUP.match(self.s, i)
        if m is not None:
            return m.end()
        end = self.closing.get(i)
        if end is None:
            raise NotRead(i, f"the {self.s[i]!r} here is never closed")
        return end

    def shape_end(self, i: int) -> int:
        """Past the shape at ``i`` (``HloParserImpl::ParseShape``)."""
        if self.s.startswith("(", i):
            return self.group_end(i)
        m = PRIMITIVE.match(self.s, i)
        if m is None:
            raise NotRead(i, "expected a shape")
        end = self.group_end(m.end() - 1)
        k = self.ws(end)
        if self.s.startswith("{", k):
            after = self.ws(k + 1)
            if after < len(self.s) and (self.s[after].isdigit() or self.s[after] == ":"):
                end = self.group_end(k)
        return end

    def shape(self, i: int) -> tuple[Shape | TupleShape, str, int]:
        end = self.shape_end(i)
        text = re.sub(r"[ \t\n\r]+", " ", self.code[i:end]).strip(XLA_SPACE)
        try:
            return parse_shape_cached(text), text, end
        except (TilespecError, ValueError, IndexError) as e:
            raise NotRead(i, f"shape {text!r}: {e}") from e

    def value_end(self, i: int) -> int:
        """Past an attribute's value (``HloParserImpl::ParseAttributeHelper``
        reads one value of the attribute's type): groups, strings and words
        with no space between them (``%f.1``, ``{...}``, ``"..."``), where a
        ``%`` starts a name only at the start and a name never follows a
        group or a string at once (``}%next =`` and ``}ROOT`` end the value:
        XLA's lexer makes them tokens of their own); an iota list
        ``[2,4]<=[8]T(1,0)`` with whitespace between any of its tokens
        (``HloParserImpl::ParseTileAssignment``); and a mesh's replica
        groups ``mesh['x'=4] {'x'}`` (:meth:`mesh_end`)."""
        start = i
        if _MESH.match(self.s, i):
            return self.mesh_end(i)
        while i < len(self.s):
            ch = self.s[i]
            if ch in "([{":
                i = self.group_end(i)
            elif ch in "\"'":
                i = self.s.index(ch, i + 1) + 1
            elif ch in XLA_SPACE:
                k = self.ws(i)
                if not self.iota_goes_on(start, i, k):
                    break
                i = k
            elif ch in ",)]}" or (ch == "%" and i > start) or (
                    i > start and self.s[i - 1] in ")]}\"'" and IDENT.match(self.s, i)
                    and not self.iota_goes_on(start, i, i)):
                break
            else:
                i += 1
        if i == start:
            raise NotRead(start, "an attribute without a value")
        return i

    def iota_goes_on(self, start: int, i: int, k: int) -> bool:
        """Whether the token at ``k`` continues the iota list read from
        ``start`` to ``i``: ``<=`` after its dims, ``[`` after ``<=``,
        ``T`` then ``(`` after the reshape dims."""
        s, before = self.s, self.s[start:i].rstrip(XLA_SPACE)
        if not before.startswith("["):
            return False
        if before.endswith("]") and "<=" not in before:
            return s.startswith("<=", k)
        if before.endswith("<="):
            return s.startswith("[", k)
        if "<=" not in before:
            return False
        if before.endswith("]"):
            return keyword_at(s, k, "T") and s.startswith("(", self.ws(k + 1))
        return re.search(r"\][ \t\n\r]*T$", before) is not None and s.startswith("(", k)

    def mesh_end(self, start: int) -> int:
        """Past the replica groups of a mesh at ``start``.
        ``HloParserImpl::ParseCollectiveDeviceListBase`` reads ``mesh`` or
        ``maximal_mesh``, then its ``[...]`` (``ParseMesh``: ``'name'=size``
        pairs, or ``device_id=N`` in a maximal mesh), then -- after a mesh
        with axes -- an optional ``, device_ids=(...)`` (an iota
        ``[2,2]T(1,0)`` or a list of device numbers: the order of the
        devices when it is not the plain iota), then the axes of each group
        as a ``{...}`` list (``ParseAxisRefList``), whitespace between any
        two tokens.  ``device_ids=`` is one token, the ``=`` right after the
        name (``HloLexer::LexIdentifier``: an attribute name).

        >>> from tilespec.prover.hlo.lexer import lex
        >>> r = Reader(lex("mesh ['a'=4,'b'=1]  {'a','b'}, x=1"))
        >>> r.code[:r.mesh_end(0)]
        "mesh ['a'=4,'b'=1]  {'a','b'}"
        >>> r = Reader(lex("mesh['a'=2,'b'=2], device_ids=([2,2]T(1,0)) {'b'}, x=1"))
        >>> r.code[:r.mesh_end(0)]
        "mesh['a'=2,'b'=2], device_ids=([2,2]T(1,0)) {'b'}"
        """
        s, m = self.s, _MESH.match(self.s, start)
        assert m is not None
        close = self.group_end(m.end() - 1)
        i, device_ids = self.ws(close), None
        maximal = m.group().startswith("maximal")
        if not maximal and s[m.end():close - 1].strip(XLA_SPACE) and (
                d := _DEVICE_IDS.match(s, i)):
            if not s.startswith("(", d.end()):
                raise NotRead(d.end(), "device_ids= of a mesh without its (...) "
                                       "(HloParserImpl::ParseMesh)")
            i = self.group_end(d.end())
            device_ids = self.code[d.end() + 1:i - 1]
            i = self.ws(i)
        if not s.startswith("{", i):
            raise NotRead(start, "mesh[...] without the axes {...} of its groups "
                                 "(HloParserImpl::ParseAxisRefList)")
        end = self.group_end(i)
        refusal = mesh_refusal(self.code[m.end() - 1:close], device_ids,
                               self.code[i + 1:end - 1], maximal)
        if refusal is not None:
            raise NotRead(start, refusal)
        return end

    def attributes(self, i: int) -> tuple[tuple[tuple[str, str], ...], int]:
        """``(, name=value)*`` from ``i`` (``HloParserImpl::ParseAttributes``).

        A dump repeats the same attribute lists (strings masked) thousands
        of times: the rest of a line read whole by :data:`ATTRIBUTE` is
        remembered with where each name and value lies in it, and a line
        ending in the same text is read from that; a line whose code (its
        strings too) is that of an earlier one gets the same tuple.  That
        reading looks at nothing past the line's end but the next token,
        asked again each time."""
        s = self.s
        end_of_line = s.find("\n", i)
        if end_of_line == i and not s.startswith(",", self.ws(i)):
            return (), i                # no attribute: the line ends here
        if end_of_line < 0:
            return self.read_attributes(i, [], "")
        # the code from i decides the skeleton (i is outside any string),
        # so a line whose code was read before reads as it did
        code_tail = self.code[i:end_of_line]
        out = self.known_values.get(code_tail)
        known = None
        if out is None:
            tail = s[i:end_of_line]
            known = self.known_tails.get(tail)
            if known is None:
                return self.read_attributes(i, [], tail)
        k = self.ws(end_of_line)
        # a value before 'x =' is an error the token reading reports
        if s.startswith("=", k):
            return self.read_attributes(i, [], s[i:end_of_line])
        if known is not None:
            if "\n" in code_tail:      # a string over several lines
                out = tuple((key, value_text(code_tail[a:b])) for key, a, b in known)
            else:
                out = tuple((key, code_tail[a:b].strip()) for key, a, b in known)
            self.known_values[code_tail] = out
        assert out is not None
        if not s.startswith(",", k):
            return out, end_of_line
        return self.read_attributes(end_of_line, list(out), "")

    def read_attributes(self, i: int, out: list[tuple[str, str]],
                        tail: str) -> tuple[tuple[tuple[str, str], ...], int]:
        """:meth:`attributes` from ``i`` after those in ``out``, each by
        :data:`ATTRIBUTE` where it reads it, else token by token; ``tail``
        (the text from ``i`` to the end of its line) is remembered when
        :data:`ATTRIBUTE` reads all of it."""
        s, code, start = self.s, self.code, i
        spans: list[tuple[str, int, int]] | None = [] if tail else None
        while True:
            m = ATTRIBUTE.match(s, i)
            if m is not None:
                v, end = m.start(2), m.end()
                # 'ROOT' and a value before 'x =' are read token by token (an error)
                if (s[end] != "\n" or not s.startswith("=", self.ws(end))) and (
                        m.group(2) != "ROOT"):
                    out.append((m.group(1), value_text(code[v:end])))
                    if spans is not None:
                        spans.append((m.group(1), v - start, end - start))
                    i = end
                    continue
            step = self.attribute_by_tokens(i)
            if step is None:
                read = tuple(out)
                if spans and i == start + len(tail):
                    self.known_tails[tail] = tuple(spans)
                    self.known_values[code[start:i]] = read
                return read, i
            spans = None
            key, value, i = step
            out.append((key, value))

    def attributes_by_tokens(self, i: int) -> tuple[tuple[tuple[str, str], ...], int]:
        """:meth:`attributes` token by token, whitespace and comments between
        any two tokens: the reading :data:`ATTRIBUTE` and the lines
        remembered shorten."""
        out = []
        while (step := self.attribute_by_tokens(i)) is not None:
            key, value, i = step
            out.append((key, value))
        return tuple(out), i

    def attribute_by_tokens(self, i: int) -> tuple[str, str, int] | None:
        """The name, value and end of the ``, name=value`` at ``i``, or None
        where no ``,`` comes next."""
        k = self.ws(i)
        if not self.s.startswith(",", k):
            return None
        k = self.ws(k + 1)
        key, k = self.ident(k)
        if not self.s.startswith("=", k):
            raise NotRead(k, f"expected '=' right after attribute {key}")
        v = self.ws(k + 1)
        m = SIMPLE_VALUE.match(self.s, v)
        i = m.end() if m is not None and m.group() not in _MESH_WORDS else self.value_end(v)
        # 'ROOT' is a keyword and 'x =' the next instruction: no value
        if self.s[v:i] == "ROOT" or self.s.startswith("=", self.ws(i)):
            raise NotRead(v, f"attribute {key} without a value")
        return key, value_text(self.code[v:i]), i

    def operand(self, text_start: int, text_end: int) -> str:
        """``[shape] name`` between the offsets (a nested instruction is not read)."""
        i = self.ws(text_start)
        if self.s.startswith("(", i) or PRIMITIVE.match(self.s, i):
            i = self.ws(self.shape_end(i))
        if self.s.startswith("%", i):
            i += 1
        name, end = self.ident(i)
        if self.ws(end) != text_end:
            raise NotRead(text_start, "an operand that is not '[shape] name' "
                                       "(a nested instruction is not read)")
        return name

    def operands(self, open_at: int, opcode: str) -> tuple[tuple[str, ...], int]:
        close = self.group_end(open_at)
        if opcode in NO_OPERANDS:
            return (), close
        out, start, depth = [], open_at + 1, 0
        for m in _SEPARATOR.finditer(self.s, open_at + 1, close - 1):
            ch = m.group()
            if ch == ",":
                if depth == 0:
                    out.append(self.operand(start, m.start()))
                    start = m.end()
            else:
                depth += 1 if ch in "([{" else -1
        if self.s[start:close - 1].strip():
            out.append(self.operand(start, close - 1))
        return tuple(out), close


@contextmanager
def cycles_paused() -> Iterator[None]:
    """Python's cycle collector paused while a module is read or checked:
    they make a few objects per instruction and no cycles, and each full
    collection would walk every object made so far (an eighth of the time
    of a large module).  Objects are still freed when no longer used; the
    collector runs again afterwards, if it ran before.

    >>> with cycles_paused():
    ...     gc.isenabled()
    False
    """
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def value_text(value: str) -> str:
    """An attribute's value as kept: its code, a value over several lines
    joined by single spaces.

    >>> value_text("{a,\\n  b} "), value_text(" kLoop")
    ('{a, b}', 'kLoop')
    """
    return " ".join(value.split()) if "\n" in value else value.strip()


def keyword_at(text: str, i: int, word: str) -> bool:
    """Whether the identifier at ``i`` is ``word`` (and not a longer name).

    >>> keyword_at("ROOT %x", 0, "ROOT"), keyword_at("ROOT.1 = ", 0, "ROOT")
    (True, False)
    """
    m = IDENT.match(text, i)
    return m is not None and m.group() == word
