"""HLO text as XLA's lexer sees it: comments blanked, strings masked.

Facts from XLA's source (the mirror of openxla/xla,
``xla/hlo/parser/hlo_lexer.cc`` at commits fc61c13acb and 183fa00cb5),
``HloLexer::LexToken``:
``/*...*/`` is skipped between any two tokens and may span lines (unclosed, it
is an error); ``//`` skips to the end of the line; ``"`` and ``'`` open a
string (``HloLexer::LexString``: ``"([^"\\\\]|\\\\.)*"``, where ``.`` does not
match a newline), so no comment opens inside a string; whitespace is space,
tab, ``\\n`` and ``\\r``, and any other character that is not printable
ASCII is an error (``kError``) outside strings and comments.  No token holds a
quote or a ``/``, so these rules can be applied character by character
before any token is read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_NOT_NEWLINE = re.compile(r"[^\r\n]")
_LINE_END = re.compile(r"[^\r\n]*")
_SPECIAL = re.compile(r"[/\"']")
# Outside strings and comments XLA's lexer takes printable ASCII and its
# four whitespace characters only (\v, \f, U+00A0, any other is kError).
_NOT_A_TOKEN = re.compile(r"[^\x20-\x7e\t\n\r]")
_STRING = {'"': re.compile(r'"(?:[^"\\]|\\.)*"'), "'": re.compile(r"'(?:[^'\\]|\\.)*'")}


@dataclass(frozen=True)
class Lexed:
    """The text as XLA's lexer sees it, position for position.

    ``code`` has every comment replaced by spaces (newlines kept);
    ``skeleton`` also has every string's inside replaced by ``_``, so that
    brackets, commas and ``=`` in it are the lexer's tokens.  ``problems``
    are (offset, reason) of text the lexer rejects.

    >>> x = lex('a /* b\\n c */ d = "x//y\\\\"z" // e')
    >>> x.code
    'a     \\n      d = "x//y\\\\"z"     '
    >>> x.skeleton
    'a     \\n      d = "_______"     '
    """

    code: str
    skeleton: str
    problems: tuple[tuple[int, str], ...] = ()


# Every comment and string in one scan; a lone opener (never closed) leaves
# the text to the scan below, which says where and why.
_COMMENT_OR_STRING = re.compile(r"/\*[\s\S]*?\*/|//[^\r\n]*|\"[^\"\\]*(?:\\[^\n][^\"\\]*)*\""
                                r"|'[^'\\]*(?:\\[^\n][^'\\]*)*'|/\*|[\"']")


_PIECES = re.compile("(" + _COMMENT_OR_STRING.pattern + ")")


def lex(text: str) -> Lexed:
    """Blank comments and mask strings as ``HloLexer::LexToken`` reads them.

    The text is split at its comments and strings in one scan; a dump
    repeats the same strings (op names, file names) thousands of times, so
    each distinct piece is blanked or masked once."""
    parts = _PIECES.split(text)
    odd = parts[1::2]
    pieces = set(odd)
    if "/*" in pieces or '"' in pieces or "'" in pieces:
        return lex_each_character(text)
    masked = {p: _NOT_NEWLINE.sub(" ", p) if p[0] == "/" else p[0] + "_" * (len(p) - 2) + p[0]
              for p in pieces}
    if any(p[0] == "/" for p in pieces):
        parts[1::2] = [masked[p] if p[0] == "/" else p for p in odd]
        code = "".join(parts)
    else:
        code = text
    parts[1::2] = [masked[p] for p in odd]
    skeleton = "".join(parts)
    problems = [(m.start(), f"a character XLA's lexer rejects: {m.group()!r}")
                for m in _NOT_A_TOKEN.finditer(skeleton)]
    return Lexed(code, skeleton, tuple(problems))


def lex_each_character(text: str) -> Lexed:
    """:func:`lex` of a text with a comment or string never closed, read
    character by character to say where."""
    code, skel, problems = list(text), list(text), []
    i, n = 0, len(text)

    def blank(a: int, b: int, into: list) -> None:
        into[a:b] = _NOT_NEWLINE.sub(" ", text[a:b])

    while i < n:
        # only '/', '"' and "'" start what the lexer treats specially
        special = _SPECIAL.search(text, i)
        if special is None:
            break
        i = special.start()
        ch = text[i]
        if ch == "/" and text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                problems.append((i, "a /* comment that is never closed"))
                end = n - 2
            blank(i, end + 2, code)
            blank(i, end + 2, skel)
            i = end + 2
        elif ch == "/" and text.startswith("//", i):
            end = _LINE_END.match(text, i).end()  # type: ignore[union-attr]
            blank(i, end, code)
            blank(i, end, skel)
            i = end
        elif ch in _STRING:
            m = _STRING[ch].match(text, i)
            if m is None:
                problems.append((i, "a string that is never closed"))
                end = text.find("\n", i)
                end = n if end < 0 else end
                blank(i, end, code)
                blank(i, end, skel)
                i = end
                continue
            skel[i + 1:m.end() - 1] = "_" * (m.end() - i - 2)
            i = m.end()
        else:
            i += 1
    skeleton = "".join(skel)
    problems += [(m.start(), f"a character XLA's lexer rejects: {m.group()!r}")
                 for m in _NOT_A_TOKEN.finditer(skeleton)]
    return Lexed("".join(code), skeleton, tuple(sorted(problems)))
