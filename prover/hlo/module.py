"""Reading an HLO module as XLA prints it (parsing only: no solver here).

XLA's text form of a module is a header line (``HloModule name, ...,
entry_computation_layout={...}``), optional debug tables (``FileNames``,
``StackFrames``, ...), then computations.  A computation opens with
``[ENTRY] [%]name (params) -> shape {`` and holds one instruction a line::

    [ROOT] [%]name = SHAPE opcode(operands), attr=value, attr={...}, ...

Every shape is read by :func:`tilespec.spec.text.parse_shape` (tiles,
``E(n)``, ``L(n)``, memory spaces ``S(1)``, tuples with ``/*index=*/``
comments).  Operands are ``%name``, ``name`` or, in older dumps,
``SHAPE %name``.  A line this reader does not understand is kept as a
:class:`Skipped` line with the reason -- never an exception -- so one odd
instruction does not hide the rest of a dump.

>>> m = parse_hlo('''HloModule m, entry_computation_layout={(f32[4,8]{1,0})->f32[32]{0}}
... ENTRY %main (p: f32[4,8]) -> f32[32] {
...   %p = f32[4,8]{1,0} parameter(0), metadata={op_name="x"}
...   ROOT %b = f32[32]{0} bitcast(%p), metadata={op_name="jit(f)/reshape"}
... }''')
>>> b = m.instruction("b")
>>> b.opcode, b.operands, b.op_name, b.line
('bitcast', ('p',), 'jit(f)/reshape', 4)
>>> from tilespec.spec.text import format_shape
>>> format_shape(m.operand_shapes(b)[0])
'f32[4,8]{1,0}'
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from tilespec.spec.errors import TilespecError
from tilespec.spec.layout import Shape, TupleShape
from tilespec.spec.text import parse_shape

# A dump repeats few shapes many times; shapes are frozen, so one parse each.
_parse_shape = lru_cache(maxsize=1 << 14)(parse_shape)

_NAME = r"[A-Za-z_][\w.\-]*"
_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_HEADER = re.compile(r"^\s*HloModule\s+(?P<name>[^\s,]+)")
_COMPUTATION = re.compile(
    r"^\s*(?P<entry>ENTRY\s+)?%?(?P<name>" + _NAME + r")\s*(?:\(.*\)\s*->.*)?\{\s*$")
_INSTRUCTION = re.compile(
    r"^\s*(?P<root>ROOT\s+)?%?(?P<name>" + _NAME + r")\s*=\s*(?P<rest>.*)$")
_OPCODE = re.compile(r"\s*(?P<op>[a-z][a-z0-9\-]*)\s*\(")
# Opcodes whose parentheses hold a literal or a number, not operands.
_NO_OPERANDS = {"constant", "parameter", "iota", "rng-get-and-update-state",
                "partition-id", "replica-id", "after-all"}


@dataclass(frozen=True)
class Instruction:
    """One HLO instruction: its result shape, operands and attributes.

    ``attributes`` keeps each ``key=value`` as the text XLA printed;
    ``op_name`` is the metadata's op_name (the frontend's op, e.g.
    ``jit(f)/transpose``) or None; ``line`` is the 1-based line in the dump.
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
        if text is None:
            return None
        text = text.strip().strip("{}").strip()
        return tuple(int(x) for x in text.split(",")) if text else ()


@dataclass(frozen=True)
class Skipped:
    """A line inside a computation that was not understood, and why."""

    line: int
    text: str
    reason: str


@dataclass(frozen=True)
class Computation:
    name: str
    is_entry: bool
    line: int
    instructions: tuple[Instruction, ...]


@dataclass(frozen=True)
class Module:
    """A parsed HLO module; instruction names are unique in it, as in XLA."""

    name: str
    entry_layout: str | None
    computations: tuple[Computation, ...]
    skipped: tuple[Skipped, ...] = ()
    _by_name: dict = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self):
        for c in self.computations:
            for i in c.instructions:
                self._by_name.setdefault(i.name, i)

    @property
    def instructions(self) -> tuple[Instruction, ...]:
        return tuple(i for c in self.computations for i in c.instructions)

    def instruction(self, name: str) -> Instruction | None:
        return self._by_name.get(name)

    def operand_shapes(self, inst: Instruction) -> tuple:
        """The operands' result shapes (None where an operand is unknown)."""
        out = []
        for n in inst.operands:
            o = self._by_name.get(n)
            out.append(None if o is None else o.shape)
        return tuple(out)


# --- splitting at the top level ------------------------------------------------------

def _unquoted(text: str, start: int = 0):
    """(index, character, bracket depth after it) for every character of
    ``text`` from ``start`` that is outside a quoted string."""
    depth, quote, i = 0, False, start
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == '"':
                quote = False
        elif ch == '"':
            quote = True
        else:
            depth += (ch in "([{") - (ch in ")]}")
            yield i, ch, depth
        i += 1


def _split_top(text: str, sep: str = ",") -> list[str]:
    """Split at ``sep`` outside brackets, braces, parentheses and quotes."""
    parts, start = [], 0
    for i, ch, depth in _unquoted(text):
        if ch == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def _closing(text: str, start: int) -> int:
    """Index just past the bracket that closes the one at ``start``."""
    for i, ch, depth in _unquoted(text, start):
        if ch in ")]}" and depth == 0:
            return i + 1
    raise TilespecError("unbalanced brackets")


def shape_prefix(text: str) -> tuple[str, int]:
    """The shape text at the start of ``text`` and where it ends.

    >>> shape_prefix("bf16[8,128]{1,0:T(8,128)(2,1)} bitcast(%x)")
    ('bf16[8,128]{1,0:T(8,128)(2,1)}', 30)
    >>> shape_prefix("(f32[2]{0}, /*index=1*/s32[]) tuple(%a, %b)")[0]
    '(f32[2]{0}, /*index=1*/s32[])'
    """
    i = len(text) - len(text.lstrip())
    if text.startswith("(", i):
        end = _closing(text, i)
        return text[i:end], end
    m = re.compile(r"[a-z][a-z0-9]*\[").match(text, i)
    if not m:
        raise TilespecError("expected a shape after '='")
    end = _closing(text, m.end() - 1)
    j = end
    while j < len(text) and text[j] == " ":
        j += 1
    if j < len(text) and text[j] == "{":
        end = _closing(text, j)
    return text[i:end], end


def _operand_name(text: str) -> str:
    # ``%name``, ``name`` or (older dumps) ``SHAPE %name``
    text = _COMMENT.sub("", text).strip()
    m = re.search(r"%?(" + _NAME + r")\s*$", text)
    if not m:
        raise TilespecError(f"cannot read operand {text!r}")
    return m.group(1)


def parse_instruction(text: str, line: int = 0, computation: str = "") -> Instruction:
    """One instruction line; TilespecError says what could not be read.

    >>> i = parse_instruction("%t = f32[16,8]{0,1} transpose(f32[8,16]{1,0} %a), dimensions={1,0}")
    >>> i.opcode, i.operands, i.dimensions
    ('transpose', ('a',), (1, 0))
    """
    m = _INSTRUCTION.match(text)
    if not m:
        raise TilespecError("not an instruction ('name = shape opcode(...)')")
    rest = m.group("rest")
    shape_text, end = shape_prefix(rest)
    shape = _parse_shape(shape_text)
    om = _OPCODE.match(rest, end)
    if not om:
        raise TilespecError("expected an opcode and '(' after the shape")
    opcode = om.group("op")
    close = _closing(rest, om.end() - 1)
    inside = rest[om.end():close - 1]
    operands = () if opcode in _NO_OPERANDS else tuple(
        _operand_name(p) for p in _split_top(inside))
    attributes = []
    for part in _split_top(rest[close:].lstrip().lstrip(",")):
        key, eq, value = part.partition("=")
        attributes.append((key.strip(), value.strip() if eq else ""))
    return Instruction(m.group("name"), opcode, shape, shape_text, operands,
                       tuple(attributes), line, computation, bool(m.group("root")))


def _strip_line_comment(text: str) -> str:
    # ``//`` starts a comment outside quotes (XLA's lexer); ``/*...*/``
    # comments stay, the shape parser skips them.
    quote = False
    for i, ch in enumerate(text):
        if ch == '"':
            quote = not quote
        elif not quote and text.startswith("//", i):
            return text[:i]
    return text


def parse_hlo(text: str) -> Module:
    """Read a module; lines not understood inside a computation are skipped.

    Raises TilespecError only when the text holds no computation at all
    (it is not an HLO module).
    """
    if not isinstance(text, str):
        raise TilespecError(f"HLO text must be a string, not {type(text).__name__}")
    name, entry_layout = None, None
    computations, skipped = [], []
    # the instructions of the computation being read, None between computations
    current: list[Instruction] | None = None
    cname, centry, cline = "", False, 0
    for number, raw in enumerate(text.splitlines(), start=1):
        line = _strip_line_comment(raw).strip()
        if not line:
            continue
        if current is None:
            h = _HEADER.match(line)
            if h:
                name = h.group("name")
                k = line.find("entry_computation_layout=")
                if k >= 0:
                    start = k + len("entry_computation_layout=")
                    try:
                        entry_layout = line[start + 1:_closing(line, start) - 1]
                    except TilespecError:
                        entry_layout = None
                continue
            c = _COMPUTATION.match(line)
            if c:
                current, cname, cline = [], c.group("name"), number
                centry = bool(c.group("entry"))
            # debug tables (FileNames, StackFrames, ...) are not computations
            continue
        if line.startswith("}"):
            # '}' may carry the computation's attributes (execution_thread=...)
            computations.append(Computation(cname, centry, cline, tuple(current)))
            current = None
            continue
        try:
            current.append(parse_instruction(line, number, cname))
        except (TilespecError, IndexError, ValueError) as e:
            skipped.append(Skipped(number, line, str(e)))
    if current is not None:
        skipped.append(Skipped(cline, f"computation {cname}", "not closed by '}'"))
        computations.append(Computation(cname, centry, cline, tuple(current)))
    if not computations:
        raise TilespecError("no computation found: not an HLO module "
                            "(expected 'name (...) -> shape {' lines)")
    return Module(name or "?", entry_layout, tuple(computations), tuple(skipped))
