"""The attribute values the HLO reader interprets, read as XLA's parser reads them.

The reader keeps every ``name=value`` of an instruction as text; the values
it uses are read here, and a malformed one is bad input for its module
(XLA's parser rejects the whole module on it), said in one line.  Facts
from XLA's source (the mirror of openxla/xla, ``xla/hlo/parser/hlo_parser.cc``
at commit 183fa00cb5):

* every opcode that takes ``dimensions`` declares it
  ``AttrTy::kBracedInt64List``, read by ``HloParserImpl::ParseInt64List``
  with ``{``, ``}`` and ``,``: ``{}`` or ``{i (, i)*}``, each ``i`` an
  integer token (no trailing ``,``, no ``+``, no decimal point), whitespace
  and comments between any two tokens;
* an integer token is ``-?[0-9]+`` read by ``HloLexer::LexNumberOrPattern``
  as int64; one from 2^63 to 2^64-1 is read as uint64 and wraps to a
  negative int64, beyond that it is an error (``hlo_lexer.cc``).

>>> braced_int64_list("{1, 0}"), braced_int64_list("{}")
((1, 0), ())
>>> braced_int64_list("{1,x}")
Traceback (most recent call last):
...
tilespec.spec.errors.TilespecError: {1,x}: expected an integer, not 'x'
"""

from __future__ import annotations

import re
from functools import lru_cache

from ...spec import Shape, TilespecError, TupleShape
from .lexer import lex
from .reader import NotRead, Reader

#: The attributes this reader interprets, with the reader of each value.
READ_ATTRIBUTES = ("dimensions",)

# XLA's whitespace is exactly space, tab, \n and \r (HloLexer::LexToken)
_TOKEN = re.compile(r"[{},]|[^{}, \t\n\r]+")
_INTEGER = re.compile(r"-?[0-9]+")
_UINT64_END = 2**64
_INT64_END = 2**63


def _integer(token: str, value: str) -> int:
    if not _INTEGER.fullmatch(token):
        raise TilespecError(f"{value}: expected an integer, not {token!r}")
    if len(token) > 25:           # no int64 has more digits; int() of 5000 would fail
        raise TilespecError(f"{value}: {token[:12]}... does not fit int64")
    n = int(token)
    if n >= _UINT64_END or n < -_INT64_END:
        raise TilespecError(f"{value}: {n} does not fit int64")
    return n - _UINT64_END if n >= _INT64_END else n


def braced_int64_list(value: str) -> tuple[int, ...]:
    """``{i, j, ...}`` as ``HloParserImpl::ParseInt64List`` reads it;
    TilespecError (one line) names what is wrong.

    >>> braced_int64_list("{1,0,}")
    Traceback (most recent call last):
    ...
    tilespec.spec.errors.TilespecError: {1,0,}: expected an integer, not '}'
    >>> braced_int64_list("{1 0}")
    Traceback (most recent call last):
    ...
    tilespec.spec.errors.TilespecError: {1 0}: expected ',' or '}' after 1, not '0'
    """
    tokens = _TOKEN.findall(value)
    shown = " ".join(value.split())
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    if not tokens or tokens[0] != "{":
        raise TilespecError(f"{shown}: expected '{{' opening a list of integers")
    out: list[int] = []
    k = 1
    if tokens[k:k + 1] != ["}"]:
        while True:
            if k >= len(tokens):
                raise TilespecError(f"{shown}: expected an integer, not the end")
            out.append(_integer(tokens[k], shown))
            k += 1
            if tokens[k:k + 1] != [","]:
                break
            k += 1
    if tokens[k:k + 1] != ["}"]:
        after = tokens[k] if k < len(tokens) else "the end"
        raise TilespecError(f"{shown}: expected ',' or '}}' after {out[-1]}, not "
                            + (repr(after) if k < len(tokens) else after))
    if k + 1 < len(tokens):
        raise TilespecError(f"{shown}: {tokens[k + 1]!r} after the closing '}}'")
    return tuple(out)


def computation_layout(value: str) -> tuple[tuple[Shape | TupleShape, ...], Shape | TupleShape]:
    """A module's ``entry_computation_layout={(p0, p1, ...)->result}``: the
    parameters' shapes and the result's, as
    ``HloParserImpl::ParseComputationLayout`` reads it (``{``, ``(``, shapes
    separated by ``,`` -- one may end the list --, ``)``, ``->``, a shape,
    ``}``; comments and whitespace between any two tokens).  TilespecError
    (one line) names what is wrong.

    >>> ps, r = computation_layout("{(f32[8]{0:T(128)}, /*index=1*/s8[]{:S(1)})->(u32[])}")
    >>> from tilespec.spec.printer import format_shape
    >>> [format_shape(p) for p in ps], format_shape(r)
    (['f32[8]{0:T(128)}', 's8[]{:S(1)}'], '(u32[])')
    >>> computation_layout("{(f32[8]{0})}")
    Traceback (most recent call last):
    ...
    tilespec.spec.errors.TilespecError: entry_computation_layout: expected '->' after the parameters
    """
    lexed = lex(value)
    if lexed.problems:
        raise TilespecError(f"entry_computation_layout: {lexed.problems[0][1]}")
    r = Reader(lexed)
    try:
        i = r.ws(0)
        if not r.s.startswith("{", i) or not r.s.startswith("(", i := r.ws(i + 1)):
            raise NotRead(i, "expected '{(' opening the parameters")
        params: list[Shape | TupleShape] = []
        i = r.ws(i + 1)
        while not r.s.startswith(")", i):
            shape, _, i = r.shape(i)
            params.append(shape)
            i = r.ws(i)
            if r.s.startswith(",", i):
                i = r.ws(i + 1)
            elif not r.s.startswith(")", i):
                raise NotRead(i, "expected ',' between the parameters")
        i = r.ws(i + 1)
        if not r.s.startswith("->", i):
            raise NotRead(i, "expected '->' after the parameters")
        result, _, i = r.shape(r.ws(i + 2))
        i = r.ws(i)
        if not r.s.startswith("}", i) or r.ws(i + 1) != len(r.s):
            raise NotRead(i, "expected '}' closing the layout")
    except NotRead as e:
        raise TilespecError(f"entry_computation_layout: {e.reason}") from None
    return tuple(params), result


@lru_cache(maxsize=1 << 12)
def read_attribute(name: str, value: str):
    """The value of attribute ``name`` as this reader uses it (None for one
    it keeps as text only); TilespecError if it is malformed.  A dump
    repeats few values (``{1,0}``): each is read once.

    >>> read_attribute("dimensions", "{2,0,1}"), read_attribute("metadata", "{}")
    ((2, 0, 1), None)
    """
    if name == "dimensions":
        return braced_int64_list(value)
    return None
