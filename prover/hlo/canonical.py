"""Instructions printed as XLA prints them, read in one match.

Most lines of a dump are ``[ROOT ]%name = SHAPE opcode(%a, %b), ...`` with
one space between the tokens and no comment but the ``/*index=5*/`` XLA
puts before every fifth element of a list.  :func:`read_canonical_head`
reads such a head with one regular expression, to the same instruction
:func:`~tilespec.prover.hlo.module.read_instruction_by_tokens` reads token
by token (``tests/prover/hlo/test_fast_paths.py`` compares both on every
line of the recorded TPU modules and on altered lines); any other head is
left to that reading.
"""

from __future__ import annotations

import re

from ...spec import TilespecError
from .reader import NO_OPERANDS, Reader, parse_shape_cached

_NAME = r"[A-Za-z_][\w.\-]*"
_ARRAY = (r"[a-z][a-z0-9]*\[[\w<=,?]*\]"
          r"(?:\{[0-9:][\w:,*.+\-]*(?:\([\w:,*.+\-]*\)[\w:,*.+\-]*)*\})?")
# A tuple of such arrays and tuples of them, as XLA prints it: ', ' between
# the elements, and before every fifth a comment, blank in the skeleton
# (``(f32[2]{0}, /*index=1*/s32[])``).
_ELEMENTS = r"(?:{0}(?:, +{0})*)?"
_TUPLE = r"\(" + _ELEMENTS.format(r"(?:" + _ARRAY + r"|\(" + _ELEMENTS.format(_ARRAY) + r"\))") + r"\)"
#: An instruction's head and operands as XLA prints them, in one match:
#: ``[ROOT ]%name = SHAPE opcode(%a, %b)`` with one space between the tokens
#: (``, `` and a blank comment between operands), the shape an array without
#: whitespace or comments and a layout whose parentheses do not nest
#: (``bf16[8,128]{1,0:T(8,128)(2,1)S(3)}``) or a tuple of such arrays, the
#: operands ``%a, %b`` or a parameter's or constant's bracket-free text;
#: ASCII names only.  Text it matches is read by it as
#: :func:`~tilespec.prover.hlo.module.read_instruction_by_tokens` reads it
#: (the same tokens); any other instruction is read token by token.
CANONICAL_HEAD = re.compile(r"(ROOT )?%(" + _NAME + r") = (" + _ARRAY + r"|" + _TUPLE + r") "
                            r"([a-z][a-z0-9\-]*)\((?:((?:%" + _NAME + r"(?:, +%" + _NAME
                            + r")*)?)|[^()\[\]{}]*)\)", re.ASCII)
_SPACES = re.compile(" +")


def read_canonical_head(r: Reader, i: int):
    """(root, name, shape, shape text, opcode, operands, offset past them) of
    the instruction at ``i`` when it is printed as XLA prints it
    (:data:`CANONICAL_HEAD`), else None.

    >>> from tilespec.prover.hlo.lexer import lex
    >>> r = Reader(lex("ROOT %b.1 = f32[4]{0} bitcast(%a, %c), x=1"))
    >>> head = read_canonical_head(r, 0)
    >>> head[0], head[1], head[3], head[4], head[5], r.s[head[6]:]
    (True, 'b.1', 'f32[4]{0}', 'bitcast', ('a', 'c'), ', x=1')
    >>> read_canonical_head(r, 1) is None       # not at an instruction's start
    True
    """
    m = CANONICAL_HEAD.match(r.s, i)
    if m is None:
        return None
    root, name, shape_text, opcode, names = m.groups()
    if "  " in shape_text:
        # a tuple's comments: read token by token, whitespace runs are one space
        shape_text = _SPACES.sub(" ", shape_text)
    if opcode in NO_OPERANDS:
        operands: tuple[str, ...] = ()
    elif names is None:
        return None                     # not '%a, %b': read token by token
    else:
        # '%a, %b' (a comment blank before every fifth): each name is '%'
        # and IDENT, which holds no ' ', ',' or '%'
        operands = tuple(names.replace(" ", "")[1:].split(",%")) if names else ()
    try:
        shape = parse_shape_cached(shape_text)
    except (TilespecError, ValueError, IndexError):
        return None                     # the reading token by token says why
    return root is not None, name, shape, shape_text, opcode, operands, m.end()
