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
  :mod:`tilespec.prover.hlo.lexer`, which this reader works on, and
  whitespace between any two tokens: :mod:`tilespec.prover.hlo.reader`
  finds where each piece of an instruction ends.
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
import itertools
import re
from dataclasses import dataclass, field

import numpy as np

from ...spec import Shape, TilespecError, TupleShape
from .attributes import READ_ATTRIBUTES, computation_layout, read_attribute
from .canonical import read_canonical_head
from .lexer import lex
from .reader import PRIMITIVE, NotRead, Reader, cycles_paused, keyword_at

_OPCODE = re.compile(r"[a-z][a-z0-9\-]*")
# Where the reader resumes after text it did not understand: a line that
# starts an instruction, or the '}' closing a computation.
_RESUME = re.compile(r"^[ \t]*(?:ROOT\s+)?(?:%[A-Za-z_][\w.\-]*\s*=|[A-Za-z_][\w.\-]*\s+=)"
                     r"|^[ \t]*\}", re.M)
_COMPUTATION_LINE = re.compile(r"^[ \t]*(?:ENTRY\s+)?%?[A-Za-z_][\w.\-]*\s*[({]", re.M)
_INTEGER = re.compile(r"[0-9]+(?![\w.])")
_TABLES = ("FileNames", "FunctionNames", "FileLocations", "StackFrames")


@dataclass(frozen=True, init=False)
class Instruction:
    """One HLO instruction: its result shape, operands and attributes.

    ``attributes`` keeps each ``key=value`` as the text XLA printed;
    ``op_name`` is the metadata's op_name (the frontend's op, e.g.
    ``jit(f)/transpose``) or None; ``line`` is the 1-based line of its name.

    >>> from dataclasses import replace
    >>> i = Instruction("b", "bitcast", None, "f32[4]{0}", ("a",), (), 3, "e")
    >>> i.operands, i.is_root, replace(i, is_root=True) == i, replace(i) == i
    (('a',), False, False, True)
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

    def __init__(self, name: str, opcode: str, shape: Shape | TupleShape, shape_text: str,
                 operands: tuple[str, ...], attributes: tuple[tuple[str, str], ...],
                 line: int, computation: str, is_root: bool = False):
        # one per instruction of a dump: the fields set at once, where the
        # frozen dataclass's own __init__ sets each through object.__setattr__
        # (half the cost of building one)
        object.__setattr__(self, "__dict__", {
            "name": name, "opcode": opcode, "shape": shape, "shape_text": shape_text,
            "operands": operands, "attributes": attributes, "line": line,
            "computation": computation, "is_root": is_root})

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
    """A parsed HLO module: computations, each a scope of instruction names.

    ``entry_layout`` is the header's ``entry_computation_layout`` as printed
    (without its braces), ``entry_shapes`` the same read: the parameters'
    shapes and the result's (None without one).
    """

    name: str
    entry_layout: str | None
    computations: tuple[Computation, ...]
    skipped: tuple[Skipped, ...] = ()
    entry_shapes: tuple[tuple[Shape | TupleShape, ...], Shape | TupleShape] | None = None
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


def read_instruction(r: Reader, i: int, line: int, computation: str) -> tuple[Instruction, int]:
    """The instruction at ``i`` of the text ``r`` reads, and the offset past it."""
    head = read_canonical_head(r, i)
    if head is None:
        return read_instruction_by_tokens(r, i, line, computation)
    root, name, shape, shape_text, opcode, operands, k = head
    return finish_instruction(r, k, name, opcode, shape, shape_text, operands, line,
                              computation, root)


def read_instruction_by_tokens(r: Reader, i: int, line: int,
                               computation: str) -> tuple[Instruction, int]:
    """:func:`read_instruction` token by token, whitespace and comments
    between any two tokens: the reading
    :func:`~tilespec.prover.hlo.canonical.read_canonical_head` shortens."""
    root = False
    if keyword_at(r.s, i, "ROOT"):
        root, i = True, r.ws(i + 4)
    percent = r.s.startswith("%", i)
    name, k = r.ident(i + percent)
    if not percent and r.s.startswith(("=", ":"), k):
        raise NotRead(i, f"{name}= reads as an attribute, not a name")
    k = r.ws(k)
    if not r.s.startswith("=", k):
        raise NotRead(k, "not an instruction ('name = shape opcode(...)')")
    k = r.ws(k + 1)
    if not (r.s.startswith("(", k) or PRIMITIVE.match(r.s, k)):
        raise NotRead(k, "no result shape (XLA would infer it; not read here)")
    shape, shape_text, k = r.shape(k)
    k = r.ws(k)
    m = _OPCODE.match(r.s, k)
    if m is None:
        raise NotRead(k, "expected an opcode after the shape")
    opcode, k = m.group(), r.ws(m.end())
    if not r.s.startswith("(", k):
        raise NotRead(k, f"expected '(' after {opcode}")
    operands, k = r.operands(k, opcode)
    return finish_instruction(r, k, name, opcode, shape, shape_text, operands, line,
                              computation, root)


def finish_instruction(r: Reader, k: int, name: str, opcode: str, shape, shape_text: str,
                       operands: tuple[str, ...], line: int, computation: str,
                       root: bool) -> tuple[Instruction, int]:
    """The instruction whose attributes start at ``k``, and the offset past it."""
    attributes, k = r.attributes(k)
    for key, value in attributes:
        if key in READ_ATTRIBUTES:
            read_attribute_of(opcode, name, key, value)
    return Instruction(name, opcode, shape, shape_text, operands, attributes, line,
                       computation, root), k


def read_attribute_of(opcode: str, name: str, key: str, value: str) -> None:
    """Read the value of attribute ``key`` of instruction ``name``;
    TilespecError names the instruction if it is malformed.

    >>> read_attribute_of("transpose", "t", "dimensions", "{1,x}")
    Traceback (most recent call last):
    ...
    tilespec.spec.errors.TilespecError: transpose t: dimensions={1,x}: expected an integer, not 'x'
    """
    try:
        read_attribute(key, value)
    except TilespecError as e:
        raise TilespecError(f"{opcode} {name}: {key}={e}") from None


class _Lines:
    """1-based line numbers of offsets in one text.

    >>> lines = _Lines("a\\nbc\\n\\nd")
    >>> lines.starts, lines(0), lines(2), lines(6)
    ([0, 2, 5, 6], 1, 2, 4)
    >>> _Lines("\u00e9\\nb\\n").starts, _Lines("").starts
    ([0, 2, 4], [0])
    """

    def __init__(self, text: str):
        # where each line starts: past the newline ending the one before (in
        # an ASCII text, found by numpy in one pass over its bytes)
        if text.isascii():
            newlines = np.flatnonzero(np.frombuffer(text.encode("ascii"), np.uint8) == 10)
            self.starts = [0, *(newlines + 1).tolist()]
        else:
            self.starts = list(itertools.accumulate(
                map((1).__add__, map(len, text.split("\n")[:-1])), initial=0))

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
    r = Reader(lexed)
    try:
        inst, end = read_instruction(r, r.ws(0), line, computation)
    except NotRead as e:
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
    r = Reader(lex(text))
    i = r.ws(0)
    try:
        end = r.shape_end(i)
    except NotRead as e:
        raise TilespecError(e.reason) from None
    return text[i:end], end


class _ModuleReader:
    """One pass over a module's text, collecting computations and what was not read."""

    def __init__(self, text: str):
        self.text = text
        lexed = lex(text)
        self.r = Reader(lexed)
        self.s = lexed.skeleton
        self.line_of = _Lines(text)
        self.skipped = [Skipped(self.line_of(at), _line_text(text, at), reason)
                        for at, reason in lexed.problems]
        self.computations: list[Computation] = []
        self.computation_names: set[str] = set()
        self.name: str | None = None
        self.entry_layout: str | None = None
        self.entry_shapes: tuple | None = None

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
        except NotRead as e:
            return self.skip(e.at, f"module header: {e.reason}")
        layout = dict(attributes).get("entry_computation_layout")
        if layout is not None:
            try:
                self.entry_shapes = computation_layout(layout)
            except TilespecError as e:
                self.skipped.append(Skipped(self.line_of(i), _line_text(self.text, i),
                                            f"module header: {e}"))
            if layout.startswith("{") and layout.endswith("}"):
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
                raise NotRead(i, f"expected {table} (XLA's tables: {', '.join(_TABLES)})")
            i += len(table)
            while (m := _INTEGER.match(self.s, k := self.r.ws(i))) is not None:
                k = self.r.ws(m.end())
                if table in _TABLES[:2] and self.s.startswith(("\"", "'"), k):
                    i = self.s.index(self.s[k], k + 1) + 1
                elif table in _TABLES[2:] and self.s.startswith("{", k):
                    i = self.r.group_end(k)
                else:
                    raise NotRead(k, f"expected an entry of {table}")
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
                raise NotRead(i, "expected '->' after the parameters")
            i = self.r.ws(self.r.shape_end(self.r.ws(i + 2)))
        if not self.s.startswith("{", i):
            raise NotRead(i, f"expected '{{' opening computation {name}")
        line = self.line_of(start)
        duplicate = name in self.computation_names
        instructions: list[Instruction] = []
        seen: set[str] = set()
        # once per instruction of a dump: the names this loop uses, bound here
        r, s, n = self.r, self.s, len(self.s)
        ws, starts, line_at = r.ws, self.line_of.starts, bisect.bisect_right
        i += 1
        while True:
            i = ws(i)
            if i >= n:
                self.skipped.append(Skipped(line, f"computation {name}",
                                            "not closed by '}'"))
                break
            if s[i] == "}":
                i = ws(i + 1)
                try:
                    _, i = r.attributes(i)     # execution_thread="..."
                except NotRead as e:
                    i = self.skip(e.at, f"after computation {name}: {e.reason}")
                break
            at = i
            try:
                inst, i = read_instruction(r, i, line_at(starts, at), name)
            except NotRead as e:
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
            self.computation_names.add(name)
        return i

    def read(self) -> None:
        i = self.header(self.r.ws(0))
        try:
            i = self.tables(self.r.ws(i))
        except NotRead as e:
            i = self.skip(e.at, f"debug tables: {e.reason}", resume=_COMPUTATION_LINE)
        while (i := self.r.ws(i)) < len(self.s):
            try:
                i = self.computation(i)
            except NotRead as e:
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
    with cycles_paused():
        reader = _ModuleReader(text)
        reader.read()
        if not reader.computations:
            raise TilespecError("no computation found: not an HLO module "
                                "(expected 'name (...) -> shape {' lines)")
        skipped = sorted(reader.skipped, key=lambda s: s.line)
        return Module(reader.name or "?", reader.entry_layout, tuple(reader.computations),
                      tuple(skipped), entry_shapes=reader.entry_shapes)
