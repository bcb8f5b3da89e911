"""Reading an HLO module as XLA's parser reads it (parsing only: no solver here).

XLA's text form of a module is a header (``HloModule name, attr=value, ...``),
optional debug tables (``FileNames``, ``StackFrames``, ...), then computations.
A computation is ``[ENTRY] [%]name [(params) -> shape] { instructions }``,
optionally followed by ``, execution_thread="..."``, and an instruction is::

    [ROOT] [%]name = SHAPE opcode(operands) (, attr=value)*

Newlines mean nothing to XLA: an instruction ends where its attributes do,
whatever lines it spans.  The facts read from XLA's source (the mirror of
openxla/xla, ``xla/hlo/parser/hlo_lexer.cc`` at commit fc61c13acb and
``hlo_parser.cc`` at 99624fff12):

* comments and strings as ``HloLexer::LexToken`` reads them: see
  :mod:`tilespec.prover.hlo.lexer`, which this reader works on.
* ``HloLexer::LexIdentifier``: an identifier is ``[a-zA-Z_][a-zA-Z0-9_.-]*``;
  followed at once by ``=`` it is an attribute name, so a name without ``%``
  is followed by a space before the instruction's ``=``.
* ``HloParserImpl::ParseShape``: a ``{`` after a shape opens its layout only
  when the next token is an integer or ``:`` (otherwise it opens a body).
* ``HloParserImpl::ParseInstructionList`` opens a name scope per computation
  (``Scope scope(&scoped_name_tables_)``), so operands are resolved in their
  own computation; ``AddInstruction`` and ``AddComputation`` reject a name
  defined twice in one scope.
* ``HloParserImpl::ParseOperands``: an operand is ``[shape] name`` or a nested
  instruction (not read here: it is reported as not understood).

Every shape is read by :func:`tilespec.spec.text.parse_shape`.  Text this
reader does not understand inside a computation is kept as a
:class:`Skipped` with the reason -- never an exception -- and the reader
resumes at the next line that starts an instruction, so one odd instruction
does not hide the rest of a dump.  XLA also requires an operand to be
defined before its use; this reader resolves it anywhere in the computation.

>>> m = parse_hlo('''HloModule m, entry_computation_layout={(f32[4,8]{1,0})->f32[32]{0}}
... ENTRY %main (p: f32[4,8]) -> f32[32] {
...   %p = f32[4,8]{1,0} parameter(0), metadata={op_name="x"}
...   ROOT %b = f32[32]{0} /* a comment */ bitcast(
...       %p), metadata={op_name="jit(f)/reshape"}
... }''')
>>> b = m.instruction("b")
>>> b.opcode, b.operands, b.op_name, b.line
('bitcast', ('p',), 'jit(f)/reshape', 4)
>>> from tilespec.spec.printer import format_shape
>>> format_shape(m.operand_shapes(b)[0])
'f32[4,8]{1,0}'
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from functools import lru_cache

from ...spec import Shape, TilespecError, TupleShape, parse_shape
from .attributes import READ_ATTRIBUTES, read_attribute
from .lexer import Lexed, lex

# A dump repeats few shapes many times; shapes are frozen, so one parse each.
_parse_shape = lru_cache(maxsize=1 << 14)(parse_shape)

_IDENT = re.compile(r"[A-Za-z_][\w.\-]*")
#: XLA's whitespace: exactly these four (HloLexer::LexToken).
_XLA_SPACE = " \t\n\r"
_WS = re.compile(r"[ \t\n\r]*")
_BRACKET = re.compile(r"[()\[\]{}]")
# A primitive type and its '[': XLA's lexer skips whitespace and comments
# between the two tokens (a comment is blank in the skeleton this reads).
_PRIMITIVE = re.compile(r"[a-z][a-z0-9]*[ \t\n\r]*\[")
_OPCODE = re.compile(r"[a-z][a-z0-9\-]*")
# Where the reader resumes after text it did not understand: a line that
# starts an instruction, or the '}' closing a computation.
_RESUME = re.compile(r"^[ \t]*(?:ROOT\s+)?(?:%[A-Za-z_][\w.\-]*\s*=|[A-Za-z_][\w.\-]*\s+=)"
                     r"|^[ \t]*\}", re.M)
_COMPUTATION_LINE = re.compile(r"^[ \t]*(?:ENTRY\s+)?%?[A-Za-z_][\w.\-]*\s*[({]", re.M)
_INTEGER = re.compile(r"[0-9]+(?![\w.])")
_TABLES = ("FileNames", "FunctionNames", "FileLocations", "StackFrames")
# Opcodes whose parentheses hold a literal or a number, not operands.
_NO_OPERANDS = {"constant", "parameter"}


@dataclass(frozen=True)
class Instruction:
    """One HLO instruction: its result shape, operands and attributes.

    ``attributes`` keeps each ``key=value`` as the text XLA printed;
    ``op_name`` is the metadata's op_name (the frontend's op, e.g.
    ``jit(f)/transpose``) or None; ``line`` is the 1-based line of its name.
    """

    name: str
    opcode: str
    shape: Shape | TupleShape
    shape_text: str
    operands: tuple[str, ...]
    attributes: tuple[tuple[str, str], ...]
    line: int
    computation: str
    is_root: bool = False

    def attribute(self, key: str) -> str | None:
        return dict(self.attributes).get(key)

    @property
    def op_name(self) -> str | None:
        m = re.search(r'op_name="((?:[^"\\]|\\.)*)"', self.attribute("metadata") or "")
        return m.group(1) if m else None

    @property
    def dimensions(self) -> tuple[int, ...] | None:
        """``dimensions={...}`` as ints (a transpose's permutation)."""
        text = self.attribute("dimensions")
        return None if text is None else read_attribute("dimensions", text)


@dataclass(frozen=True)
class Skipped:
    """Text inside a module that was not understood, and why."""

    line: int
    text: str
    reason: str


@dataclass(frozen=True)
class Computation:
    """A computation and its instructions; their names are its own scope."""

    name: str
    is_entry: bool
    line: int
    instructions: tuple[Instruction, ...]
    by_name: dict = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self):
        for i in self.instructions:
            self.by_name.setdefault(i.name, i)


@dataclass(frozen=True)
class Module:
    """A parsed HLO module: computations, each a scope of instruction names."""

    name: str
    entry_layout: str | None
    computations: tuple[Computation, ...]
    skipped: tuple[Skipped, ...] = ()
    by_computation: dict = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self):
        for c in self.computations:
            self.by_computation.setdefault(c.name, c)

    @property
    def instructions(self) -> tuple[Instruction, ...]:
        return tuple(i for c in self.computations for i in c.instructions)

    def instruction(self, name: str, computation: str | None = None) -> Instruction | None:
        """The instruction ``name`` of ``computation`` or, without one, of the
        only computation that defines it (TilespecError if several do)."""
        if computation is not None:
            c = self.by_computation.get(computation)
            return None if c is None else c.by_name.get(name)
        found = [c.by_name[name] for c in self.computations if name in c.by_name]
        if len(found) > 1:
            raise TilespecError(f"{name!r} names an instruction in several computations "
                                f"({', '.join(i.computation for i in found)})")
        return found[0] if found else None

    def operand_shapes(self, inst: Instruction) -> tuple:
        """The operands' result shapes, looked up in the instruction's own
        computation (None where an operand is not defined there)."""
        c = self.by_computation.get(inst.computation)
        by_name = {} if c is None else c.by_name
        return tuple(None if (o := by_name.get(n)) is None else o.shape
                     for n in inst.operands)


class _NotRead(Exception):
    """Text not understood, at an offset (internal to the reader)."""

    def __init__(self, at: int, reason: str):
        super().__init__(reason)
        self.at, self.reason = at, reason


class _Reader:
    """Positions in one lexed text: skipping whitespace, groups, shapes, values."""

    def __init__(self, lexed: Lexed):
        self.code, self.s = lexed.code, lexed.skeleton
        # Where the bracket opened at each position closes, found in one pass
        # over the text (depth only, as the reader counts it): a search per
        # group would make the reading quadratic in nested text.
        self.closing: dict[int, int] = {}
        opened: list[int] = []
        for m in _BRACKET.finditer(self.s):
            if m.group() in "([{":
                opened.append(m.start())
            elif opened:
                self.closing[opened.pop()] = m.end()

    def ws(self, i: int) -> int:
        return _WS.match(self.s, i).end()  # type: ignore[union-attr]

    def ident(self, i: int) -> tuple[str, int]:
        m = _IDENT.match(self.s, i)
        if m is None:
            raise _NotRead(i, "expected a name")
        return m.group(), m.end()

    def group_end(self, i: int) -> int:
        """Past the bracket closing the one at ``i``."""
        end = self.closing.get(i)
        if end is None:
            raise _NotRead(i, f"the {self.s[i]!r} here is never closed")
        return end

    def shape_end(self, i: int) -> int:
        """Past the shape at ``i`` (``HloParserImpl::ParseShape``)."""
        if self.s.startswith("(", i):
            return self.group_end(i)
        m = _PRIMITIVE.match(self.s, i)
        if m is None:
            raise _NotRead(i, "expected a shape")
        end = self.group_end(m.end() - 1)
        k = self.ws(end)
        if self.s.startswith("{", k):
            after = self.ws(k + 1)
            if after < len(self.s) and (self.s[after].isdigit() or self.s[after] == ":"):
                end = self.group_end(k)
        return end

    def shape(self, i: int) -> tuple[Shape | TupleShape, str, int]:
        end = self.shape_end(i)
        text = re.sub(r"[ \t\n\r]+", " ", self.code[i:end]).strip(_XLA_SPACE)
        try:
            return _parse_shape(text), text, end
        except (TilespecError, ValueError, IndexError) as e:
            raise _NotRead(i, f"shape {text!r}: {e}") from e

    def value_end(self, i: int) -> int:
        """Past an attribute's value (``HloParserImpl::ParseAttributeHelper``
        reads one value of the attribute's type): groups, strings and words
        with no space between them (``%f.1``, ``{...}``, ``"..."``), where a
        ``%`` starts a name only at the start and a name never follows a
        group or a string at once (``}%next =`` and ``}ROOT`` end the value:
        XLA's lexer makes them tokens of their own); and an iota list
        ``[2,4]<=[8]T(1,0)`` with whitespace between any of its tokens
        (``HloParserImpl::ParseTileAssignment``)."""
        start = i
        while i < len(self.s):
            ch = self.s[i]
            if ch in "([{":
                i = self.group_end(i)
            elif ch in "\"'":
                i = self.s.index(ch, i + 1) + 1
            elif ch in _XLA_SPACE:
                k = self.ws(i)
                if not self.iota_goes_on(start, i, k):
                    break
                i = k
            elif ch in ",)]}" or (ch == "%" and i > start) or (
                    i > start and self.s[i - 1] in ")]}\"'" and _IDENT.match(self.s, i)
                    and not self.iota_goes_on(start, i, i)):
                break
            else:
                i += 1
        if i == start:
            raise _NotRead(start, "an attribute without a value")
        return i

    def iota_goes_on(self, start: int, i: int, k: int) -> bool:
        """Whether the token at ``k`` continues the iota list read from
        ``start`` to ``i``: ``<=`` after its dims, ``[`` after ``<=``,
        ``T`` then ``(`` after the reshape dims."""
        s, before = self.s, self.s[start:i].rstrip(_XLA_SPACE)
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

    def attributes(self, i: int) -> tuple[tuple[tuple[str, str], ...], int]:
        """``(, name=value)*`` from ``i`` (``HloParserImpl::ParseAttributes``)."""
        out: list[tuple[str, str]] = []
        while True:
            k = self.ws(i)
            if not self.s.startswith(",", k):
                return tuple(out), i
            k = self.ws(k + 1)
            key, k = self.ident(k)
            if not self.s.startswith("=", k):
                raise _NotRead(k, f"expected '=' right after attribute {key}")
            v = self.ws(k + 1)
            i = self.value_end(v)
            # 'ROOT' is a keyword and 'x =' the next instruction: no value
            if self.s[v:i] == "ROOT" or self.s.startswith("=", self.ws(i)):
                raise _NotRead(v, f"attribute {key} without a value")
            out.append((key, " ".join(self.code[v:i].split()) if "\n" in self.code[v:i]
                        else self.code[v:i].strip()))

    def operand(self, text_start: int, text_end: int) -> str:
        """``[shape] name`` between the offsets (a nested instruction is not read)."""
        i = self.ws(text_start)
        if self.s.startswith("(", i) or _PRIMITIVE.match(self.s, i):
            i = self.ws(self.shape_end(i))
        if self.s.startswith("%", i):
            i += 1
        name, end = self.ident(i)
        if self.ws(end) != text_end:
            raise _NotRead(text_start, "an operand that is not '[shape] name' "
                                       "(a nested instruction is not read)")
        return name

    def operands(self, open_at: int, opcode: str) -> tuple[tuple[str, ...], int]:
        close = self.group_end(open_at)
        if opcode in _NO_OPERANDS:
            return (), close
        out, start, depth = [], open_at + 1, 0
        for k in range(open_at + 1, close - 1):
            ch = self.s[k]
            depth += (ch in "([{") - (ch in ")]}")
            if ch == "," and depth == 0:
                out.append(self.operand(start, k))
                start = k + 1
        if self.s[start:close - 1].strip():
            out.append(self.operand(start, close - 1))
        return tuple(out), close

    def instruction(self, i: int, line: int, computation: str) -> tuple[Instruction, int]:
        """The instruction at ``i`` and the offset past it."""
        root = False
        if keyword_at(self.s, i, "ROOT"):
            root, i = True, self.ws(i + 4)
        percent = self.s.startswith("%", i)
        name, k = self.ident(i + percent)
        if not percent and self.s.startswith(("=", ":"), k):
            raise _NotRead(i, f"{name}= reads as an attribute, not a name")
        k = self.ws(k)
        if not self.s.startswith("=", k):
            raise _NotRead(k, "not an instruction ('name = shape opcode(...)')")
        k = self.ws(k + 1)
        if not (self.s.startswith("(", k) or _PRIMITIVE.match(self.s, k)):
            raise _NotRead(k, "no result shape (XLA would infer it; not read here)")
        shape, shape_text, k = self.shape(k)
        k = self.ws(k)
        m = _OPCODE.match(self.s, k)
        if m is None:
            raise _NotRead(k, "expected an opcode after the shape")
        opcode, k = m.group(), self.ws(m.end())
        if not self.s.startswith("(", k):
            raise _NotRead(k, f"expected '(' after {opcode}")
        operands, k = self.operands(k, opcode)
        attributes, k = self.attributes(k)
        for key, value in attributes:
            if key in READ_ATTRIBUTES:
                try:
                    read_attribute(key, value)
                except TilespecError as e:
                    raise TilespecError(f"{opcode} {name}: {key}={e}") from None
        return Instruction(name, opcode, shape, shape_text, operands, attributes, line,
                           computation, root), k


def keyword_at(text: str, i: int, word: str) -> bool:
    """Whether the identifier at ``i`` is ``word`` (and not a longer name).

    >>> keyword_at("ROOT %x", 0, "ROOT"), keyword_at("ROOT.1 = ", 0, "ROOT")
    (True, False)
    """
    m = _IDENT.match(text, i)
    return m is not None and m.group() == word


class _Lines:
    """1-based line numbers of offsets in one text."""

    def __init__(self, text: str):
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def __call__(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset)


def _line_text(text: str, offset: int) -> str:
    start = text.rfind("\n", 0, offset) + 1
    end = text.find("\n", offset)
    return text[start:None if end < 0 else end].strip()


def parse_instruction(text: str, line: int = 0, computation: str = "") -> Instruction:
    """One instruction; TilespecError says what could not be read.

    >>> i = parse_instruction("%t = f32[16,8]{0,1} transpose(f32[8,16]{1,0} %a), dimensions={1,0}")
    >>> i.opcode, i.operands, i.dimensions
    ('transpose', ('a',), (1, 0))
    """
    lexed = lex(text)
    if lexed.problems:
        raise TilespecError(lexed.problems[0][1])
    r = _Reader(lexed)
    try:
        inst, end = r.instruction(r.ws(0), line, computation)
    except _NotRead as e:
        raise TilespecError(e.reason) from None
    if r.ws(end) != len(text):
        raise TilespecError("text after the instruction")
    return inst


def shape_prefix(text: str) -> tuple[str, int]:
    """The shape text at the start of ``text`` and where it ends.

    >>> shape_prefix("bf16[8,128]{1,0:T(8,128)(2,1)} bitcast(%x)")
    ('bf16[8,128]{1,0:T(8,128)(2,1)}', 30)
    >>> shape_prefix("(f32[2]{0}, /*index=1*/s32[]) tuple(%a, %b)")[0]
    '(f32[2]{0}, /*index=1*/s32[])'
    """
    r = _Reader(lex(text))
    i = r.ws(0)
    try:
        end = r.shape_end(i)
    except _NotRead as e:
        raise TilespecError(e.reason) from None
    return text[i:end], end


class _ModuleReader:
    """One pass over a module's text, collecting computations and what was not read."""

    def __init__(self, text: str):
        self.text = text
        lexed = lex(text)
        self.r = _Reader(lexed)
        self.s = lexed.skeleton
        self.line_of = _Lines(text)
        self.skipped = [Skipped(self.line_of(at), _line_text(text, at), reason)
                        for at, reason in lexed.problems]
        self.computations: list[Computation] = []
        self.name: str | None = None
        self.entry_layout: str | None = None

    def skip(self, at: int, reason: str, resume: re.Pattern = _RESUME) -> int:
        """Record the line at ``at`` as not read; the offset to resume at: the
        first match of ``resume`` on a later line."""
        self.skipped.append(Skipped(self.line_of(at), _line_text(self.text, at),
                                    reason))
        nl = self.s.find("\n", at)
        m = resume.search(self.s, nl + 1) if nl >= 0 else None
        return len(self.s) if m is None else m.start()

    def header(self, i: int) -> int:
        if not keyword_at(self.s, i, "HloModule"):
            return i
        try:
            self.name, k = self.r.ident(self.r.ws(i + 9))
            attributes, k = self.r.attributes(k)
        except _NotRead as e:
            return self.skip(e.at, f"module header: {e.reason}")
        layout = dict(attributes).get("entry_computation_layout")
        if layout and layout.startswith("{") and layout.endswith("}"):
            self.entry_layout = layout[1:-1]
        return k

    def tables(self, i: int) -> int:
        """Past the debug tables (``HloParserImpl::ParseStackFrameIndex``):
        after ``FileNames``, each of ``FunctionNames``, ``FileLocations``,
        ``StackFrames`` in this order, each followed by its entries: an
        integer and a string (names) or a ``{...}`` (locations, frames)."""
        if not keyword_at(self.s, i, _TABLES[0]):
            return i
        for table in _TABLES:
            i = self.r.ws(i)
            if not keyword_at(self.s, i, table):
                raise _NotRead(i, f"expected {table} (XLA's tables: {', '.join(_TABLES)})")
            i += len(table)
            while (m := _INTEGER.match(self.s, k := self.r.ws(i))) is not None:
                k = self.r.ws(m.end())
                if table in _TABLES[:2] and self.s.startswith(("\"", "'"), k):
                    i = self.s.index(self.s[k], k + 1) + 1
                elif table in _TABLES[2:] and self.s.startswith("{", k):
                    i = self.r.group_end(k)
                else:
                    raise _NotRead(k, f"expected an entry of {table}")
        return i

    def computation(self, i: int) -> int:
        start = i
        entry = keyword_at(self.s, i, "ENTRY")
        if entry:
            i = self.r.ws(i + 5)
        i += self.s.startswith("%", i)
        name, i = self.r.ident(i)
        i = self.r.ws(i)
        if self.s.startswith("(", i):
            i = self.r.ws(self.r.group_end(i))
            if not self.s.startswith("->", i):
                raise _NotRead(i, "expected '->' after the parameters")
            i = self.r.ws(self.r.shape_end(self.r.ws(i + 2)))
        if not self.s.startswith("{", i):
            raise _NotRead(i, f"expected '{{' opening computation {name}")
        line = self.line_of(start)
        duplicate = any(c.name == name for c in self.computations)
        instructions: list[Instruction] = []
        seen: set[str] = set()
        i += 1
        while True:
            i = self.r.ws(i)
            if i >= len(self.s):
                self.skipped.append(Skipped(line, f"computation {name}",
                                            "not closed by '}'"))
                break
            if self.s[i] == "}":
                i = self.r.ws(i + 1)
                try:
                    _, i = self.r.attributes(i)     # execution_thread="..."
                except _NotRead as e:
                    i = self.skip(e.at, f"after computation {name}: {e.reason}")
                break
            at = i
            try:
                inst, i = self.r.instruction(i, self.line_of(at), name)
            except _NotRead as e:
                i = self.skip(at, e.reason)
                continue
            except TilespecError as e:
                # XLA's parser rejects the whole module on a malformed value
                raise TilespecError(f"line {self.line_of(at)}: {e}") from None
            if inst.name in seen:
                self.skip(at, f"{inst.name} is defined twice in computation {name}")
            else:
                seen.add(inst.name)
                instructions.append(inst)
        if duplicate:
            self.skipped.append(Skipped(line, f"computation {name}",
                                        f"computation {name} is defined twice"))
        else:
            self.computations.append(Computation(name, entry, line, tuple(instructions)))
        return i

    def read(self) -> None:
        i = self.header(self.r.ws(0))
        try:
            i = self.tables(self.r.ws(i))
        except _NotRead as e:
            i = self.skip(e.at, f"debug tables: {e.reason}", resume=_COMPUTATION_LINE)
        while (i := self.r.ws(i)) < len(self.s):
            try:
                i = self.computation(i)
            except _NotRead as e:
                i = self.skip(e.at, e.reason, resume=_COMPUTATION_LINE)


def parse_hlo(text: str) -> Module:
    """Read a module; text not understood inside it is kept as :class:`Skipped`.

    Raises TilespecError (one line) only when the text holds no computation
    at all (it is not an HLO module), or when the value of an attribute
    this reader interprets is malformed (:mod:`tilespec.prover.hlo.attributes`;
    XLA's parser rejects the module): the line, the instruction and what is
    wrong.

    >>> parse_hlo("ENTRY %e (p: f32[4,8]) -> f32[8,4] {\\n  %p = f32[4,8]{1,0} parameter(0)\\n"
    ...           "  ROOT %t = f32[8,4]{1,0} transpose(%p), dimensions={1,0,}\\n}")
    Traceback (most recent call last):
    ...
    tilespec.spec.errors.TilespecError: line 3: transpose t: dimensions={1,0,}: expected an integer, not '}'
    """
    if not isinstance(text, str):
        raise TilespecError(f"HLO text must be a string, not {type(text).__name__}")
    reader = _ModuleReader(text)
    reader.read()
    if not reader.computations:
        raise TilespecError("no computation found: not an HLO module "
                            "(expected 'name (...) -> shape {' lines)")
    skipped = sorted(reader.skipped, key=lambda s: s.line)
    return Module(reader.name or "?", reader.entry_layout, tuple(reader.computations),
                  tuple(skipped))
