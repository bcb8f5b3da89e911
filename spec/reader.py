"""XLA's lexer for shape and layout text: tokens, integers and columns.

A :class:`Reader` is a cursor over the text.  It reads tokens as XLA's lexer
does (whitespace and comments skipped between any two tokens), integers as
XLA reads them (int64, with what XLA makes of the text that does not fit),
and reports errors as :class:`~tilespec.spec.errors.ParseError` with a
1-based column.  The grammar that reads shapes and layouts with it is
:mod:`tilespec.spec.text`.

>>> r = Reader("f32[3, /* a comment */ 5]")
>>> [r.take() for _ in range(6)], r.at_end()
(['f32', '[', '3', ',', '5', ']'], True)
"""

from __future__ import annotations

import re
from typing import Callable

from .errors import ParseError

# Whitespace and C-style comments may stand between any two tokens, as in
# XLA's lexer (it prints ``/*index=5*/`` inside long tuples).  Whitespace is
# exactly space, tab, \n and \r: HloLexer::LexToken (openxla/xla
# xla/hlo/parser/hlo_lexer.cc) skips those four and no other character, so
# \v, \f and U+00A0 are not whitespace; a // comment ends at \n or \r.
_SKIP = r"(?:[ \t\n\r]|/\*.*?\*/|//[^\n\r]*)*"
_TOKEN = re.compile(_SKIP + r"(<=|[A-Za-z_][A-Za-z0-9_]*|-?[0-9]+|[^ \t\n\r])", re.S)
_SKIP_ONLY = re.compile(_SKIP, re.S)

#: Every number of a shape is int64 in XLA (a larger L(n) wraps and aborts XLA).
INT64_MAX = 2**63 - 1
#: XLA's lexer reads a non-negative integer as uint64 and bit-casts it to
#: int64 (HloLexer::LexInt64Impl, xla/hlo/parser/hlo_lexer.cc): 2^63 to 2^64-1
#: wrap to negative numbers; from 2^64 on, and below -2^63, it is an error.
UINT64_END = 2**64
INT64_MIN = -(2**63)


def skip_end(text: str, pos: int) -> int:
    """Where the whitespace and comments starting at ``pos`` end.

    >>> skip_end("[ /* x */ 3]", 1)
    10
    >>> skip_end("[3]", 1)
    1
    """
    m = _SKIP_ONLY.match(text, pos)
    assert m is not None  # a pattern that matches the empty string always matches
    return m.end()


def is_integer(token: str) -> bool:
    """Whether a token is an integer, as XLA's lexer reads one (ASCII digits).

    >>> is_integer("-12"), is_integer("1.5"), is_integer("٣")
    (True, False, False)
    """
    return re.fullmatch(r"-?[0-9]+", token) is not None


class Slack(Exception):
    """A layout field's parser failed on a token; XLA's parser drops that
    verdict and reads on (HloParserImpl::ParseLayout ignores what its field
    parsers return).  ``error`` is tilespec's message, ``resume`` where XLA
    reads on, ``place`` the field's place in XLA's order.

    >>> Reader("T[").slack("expected '('").resume
    0
    """

    def __init__(self, error: ParseError, resume: int):
        super().__init__(str(error))
        self.error = error
        self.resume = resume
        self.place = -1


class Reader:
    """A cursor over the text that reports errors with a 1-based column.

    ``lenient``: read on past a layout field's syntax error, as XLA does
    (the grammar catches :class:`Slack` and goes on from ``resume``).

    >>> r = Reader("<=8, ?")
    >>> r.peek(), r.take(), r.integer("a bound"), r.accept(","), r.accept("]")
    ('<=', '<=', 8, True, False)
    >>> r.expect("]", "after a dim")
    Traceback (most recent call last):
    ...
    tilespec.spec.errors.ParseError: expected ']' after a dim at column 6 in '<=8, ?'
    """

    def __init__(self, text: str, lenient: bool = False):
        self.text = text
        self.pos = 0
        self.lenient = lenient

    def slack(self, message: str) -> Slack:
        """A field's syntax error at the next token, where XLA reads on."""
        return Slack(self.error(message), self.pos)

    def expect_field(self, token: str, context: str) -> None:
        """Take ``token`` inside a layout field, or raise :class:`Slack`."""
        if not self.accept(token):
            raise self.slack(f"expected {token!r} {context}")

    def error(self, message: str, pos: int | None = None) -> ParseError:
        """The error at the token at ``pos`` (the cursor by default).

        >>> Reader("f32[3,  x]").error("here", 6).column
        9
        """
        pos = self.pos if pos is None else pos
        pos = skip_end(self.text, pos)
        return ParseError(message, self.text, pos + 1)

    def peek(self) -> str:
        """The next token, the cursor left in place; ``""`` at the end."""
        m = _TOKEN.match(self.text, self.pos)
        return m.group(1) if m else ""

    def take(self) -> str:
        """The next token, the cursor moved past it; ``""`` at the end."""
        m = _TOKEN.match(self.text, self.pos)
        if not m:
            return ""
        self.pos = m.end()
        return m.group(1)

    def accept(self, token: str) -> bool:
        """Take the next token if it is ``token``."""
        if self.peek() == token:
            self.take()
            return True
        return False

    def expect(self, token: str, context: str) -> None:
        """Take ``token``, or raise the error saying it was expected."""
        if not self.accept(token):
            raise self.error(f"expected {token!r} {context}")

    def integer(self, what: str, minimum: int = 0,
                wrapped: Callable[[int], str] | None = None) -> int:
        """An int64 as XLA's lexer reads it.  Text from 2^63 to 2^64-1 wraps
        to a negative int64 in XLA; it is rejected here with what XLA then
        makes of it: ``wrapped(value)`` says so for this field (else: the
        value is below ``minimum``, which XLA rejects too).

        >>> Reader("18446744073709551615").integer("a dim size")
        Traceback (most recent call last):
        ...
        tilespec.spec.errors.ParseError: a dim size 18446744073709551615 does not fit int64: XLA's lexer wraps it to -1, which is below 0, and XLA rejects it at column 1 in '18446744073709551615'
        """
        start = self.pos
        token = self.take()
        if not is_integer(token):
            raise self.error(f"expected {what}", start)
        if len(token) > 100:  # Python refuses int() of 4300 digits; nothing needs 100
            raise self.error(f"{what} has {len(token.lstrip('-'))} digits", start)
        value = int(token)
        if value >= UINT64_END or value < INT64_MIN:
            raise self.error(f"{what} {value} does not fit int64 (nor uint64); "
                             "XLA's parser rejects it", start)
        if value > INT64_MAX:
            xla = value - UINT64_END
            then = wrapped(xla) if wrapped else f"which is below {minimum}, and XLA rejects it"
            raise self.error(f"{what} {value} does not fit int64: XLA's lexer wraps "
                             f"it to {xla}, {then}", start)
        if value < minimum:
            raise self.error(f"{what} {value} is below {minimum}", start)
        return value

    def at_end(self) -> bool:
        """Whether only whitespace and comments are left."""
        return skip_end(self.text, self.pos) == len(self.text)
