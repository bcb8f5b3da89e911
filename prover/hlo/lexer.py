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

import numpy as np

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
# What XLA's lexer takes outside strings and comments, as bytes to delete:
# a skeleton left empty by deleting them has no character it rejects.
_TOKEN_BYTES = bytes(range(0x20, 0x7F)) + b"\t\n\r"
# The mask of a string's inside, by its length (grown when a longer one comes).
_MASKS = ["_" * n for n in range(256)]


def lex(text: str) -> Lexed:
    """Blank comments and mask strings as ``HloLexer::LexToken`` reads them.

    A dump holds hundreds of thousands of ``"..."`` strings (op names, the
    keys of every backend_config) and few comments, so the text is first
    cut at its double quotes (:func:`lex_by_quotes`); a text that cutting
    cannot read alone is split at its comments and strings by one regular
    expression (:func:`lex_by_pieces`).  All three readings agree on every
    text (``tests/prover/hlo/test_module.py``).

    >>> lex('%a = f32[2] add(%b), metadata={op_name="f(x)/y"} /* z */').skeleton
    '%a = f32[2] add(%b), metadata={op_name="______"}        '
    """
    lexed = lex_by_quotes(text)
    return lex_by_pieces(text) if lexed is None else lexed


def lex_by_quotes(text: str) -> Lexed | None:
    """:func:`lex` of a text cut at its double quotes, or None when the cut
    alone cannot say where strings are: an odd number of quotes (one never
    closed), a backslash before a quote or a newline (an escape may hide a
    quote or end the string), or text between two strings holding a comment
    or a ``'``-string not closed before the next quote.  Otherwise the
    ``"``-strings' insides are masked at once (:func:`strings_masked`), and
    comments and ``'``-strings lie whole outside them: each piece that holds a
    ``/`` or a ``'`` (found in the text with its strings masked) is read
    alone.

    >>> lex_by_quotes('a "b/*" c') == lex_by_pieces('a "b/*" c')
    True
    >>> lex_by_quotes('a "b" /* c "d" */') is None
    True
    """
    if "\\" in text and ("\\\"" in text or "\\\n" in text):
        return None
    if text.isascii():
        masked_bytes = strings_masked(text.encode("ascii"))
        if masked_bytes is None:
            return None
        masked = masked_bytes.decode("ascii")
        # nothing the lexer rejects outside strings, so none in the skeleton
        clean = not masked_bytes.translate(None, _TOKEN_BYTES)
    elif text.count('"') % 2:
        return None
    else:
        masked, clean = strings_masked_by_split(text), False
    # (start, end, code, skeleton) of each piece between strings holding a
    # comment or a '-string: the code blanks its comments, the skeleton also
    # masks the strings
    read = []
    at = _next_special(masked, 0)
    while at >= 0:
        start = masked.rfind('"', 0, at) + 1
        end = masked.find('"', at)
        end = len(masked) if end < 0 else end
        pieces = _PIECES.split(masked[start:end])
        odd = pieces[1::2]
        for j, p in enumerate(odd):
            # a comment or string never closed, or a // comment running
            # into the next quote (its line goes on after the cut)
            if p in ("/*", "'") or (p[:2] == "//" and 2 * j + 3 == len(pieces)
                                    and pieces[-1] == "" and end < len(masked)):
                return None
        if odd:
            blanked = [_NOT_NEWLINE.sub(" ", p) if p[0] == "/" else p for p in odd]
            pieces[1::2] = blanked
            code = "".join(pieces)
            pieces[1::2] = [b if p[0] == "/" else p[0] + "_" * (len(p) - 2) + p[0]
                            for p, b in zip(odd, blanked)]
            read.append((start, end, code, "".join(pieces)))
        at = _next_special(masked, end)
    if not read:
        return Lexed(text, masked, () if clean else token_problems(masked))
    code = _replaced(text, [(a, b, c) for a, b, c, _ in read])
    skeleton = _replaced(masked, [(a, b, k) for a, b, _, k in read])
    # blanking comments and masking '-strings puts in no character the lexer rejects
    return Lexed(code, skeleton, () if clean else token_problems(skeleton))


def strings_masked(text: bytes) -> bytes | None:
    """ASCII ``text`` with no ``"`` escaped, each string's inside replaced
    by ``_``, or None when a string is never closed (an odd number of
    ``"``): one pass of numpy over the bytes (a dump holds hundreds of
    thousands of strings; cutting the text at each would make as many
    Python strings).

    >>> strings_masked(b'a "b,c" d "" e'), strings_masked(b'a "b')
    (b'a "___" d "" e', None)
    """
    codes = np.frombuffer(text, np.uint8)
    quote = codes == ord('"')
    # inside a string: an odd number of quotes before, and not a quote
    inside = np.bitwise_xor.accumulate(quote)
    if len(inside) and inside[-1]:
        return None
    inside &= ~quote
    masked = codes.copy()
    masked[inside] = ord("_")
    return masked.tobytes()


def strings_masked_by_split(text: str) -> str:
    """:func:`strings_masked` of any text: cut at its quotes, every odd
    piece replaced by its mask.

    >>> strings_masked_by_split('a "b,\u00e9" d')
    'a "___" d'
    """
    parts = text.split('"')
    inside = parts[1::2]
    try:
        parts[1::2] = map(_MASKS.__getitem__, map(len, inside))
    except IndexError:
        # a string longer than any mask kept (the masks take the square of
        # their length in memory: past a few thousand, each is made anew)
        longest = max(map(len, inside))
        if longest < 4096:
            _MASKS.extend("_" * n for n in range(len(_MASKS), longest + 1))
            parts[1::2] = map(_MASKS.__getitem__, map(len, inside))
        else:
            parts[1::2] = ["_" * len(p) for p in inside]
    return '"'.join(parts)


def _next_special(masked: str, i: int) -> int:
    """Where the next ``/`` or ``'`` outside the masked strings is, or -1."""
    slash, quote = masked.find("/", i), masked.find("'", i)
    return quote if slash < 0 else slash if quote < 0 else min(slash, quote)


def _replaced(text: str, pieces: list[tuple[int, int, str]]) -> str:
    """``text`` with each (start, end, new) piece in place, in order.

    >>> _replaced("abcdef", [(1, 2, "B"), (4, 6, "EF")])
    'aBcdEF'
    """
    out, at = [], 0
    for start, end, new in pieces:
        out += [text[at:start], new]
        at = end
    out.append(text[at:])
    return "".join(out)


def token_problems(skeleton: str) -> tuple[tuple[int, str], ...]:
    """(offset, reason) of each character XLA's lexer rejects in a skeleton.

    >>> token_problems("a b"), [at for at, _ in token_problems("a" + chr(11) + "b" + chr(233))]
    ((), [1, 3])
    """
    if skeleton.isascii() and not skeleton.encode("ascii").translate(None, _TOKEN_BYTES):
        return ()
    return tuple((m.start(), f"a character XLA's lexer rejects: {m.group()!r}")
                 for m in _NOT_A_TOKEN.finditer(skeleton))


def lex_by_pieces(text: str) -> Lexed:
    """:func:`lex` of a text split at its comments and strings in one scan; a
    dump repeats the same strings (op names, file names) thousands of times,
    so each distinct piece is blanked or masked once."""
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
    return Lexed(code, skeleton, token_problems(skeleton))


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
