"""HLO text re-spaced between XLA's tokens, and XLA's own parser to judge it.

``tokens`` splits a module into the tokens of XLA's lexer (openxla/xla
``xla/hlo/parser/hlo_lexer.cc`` at commit 183fa00cb5, ``HloLexer::LexToken``):
whitespace (space, tab, ``\\n``, ``\\r``) and comments stand between tokens;
an identifier followed at once by ``:`` or ``=`` is one token with it
(``LexIdentifier``: a name, an attribute name), so is ``%name``
(``LexPercent``), a string, ``->``, ``<=``, ``...``, a number or number
pattern (``LexNumberOrPattern``: ``3x3``, ``1_1x0_0``, ``1.5e-3``) and a
convolution's dim labels (``b01f_01io->b01f``).  ``respace`` changes the
gaps between them: inserting whitespace or a comment never changes the
tokens (XLA must read the module alike), removing the whitespace of a gap
may merge two tokens into one (XLA may then reject the module, or read
another one: ``ROOT b`` -> ``ROOTb``, an instruction named so).

``XlaParser`` keeps one subprocess with jaxlib's ``hlo_module_from_text``
(``ParseAndReturnUnverifiedModule``) for a whole test: a request per text,
answered with XLA's error or its computations.  A subprocess, so that an
abort in XLA ends one answer (``"aborted"``), not the session.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass

from tilespec.process import Ended, JsonLinesWorker
from tilespec.prover.hlo.lexer import lex

_SPACE = re.compile(r"(?:[ \t\n\r]|/\*.*?\*/|//[^\n\r]*)*", re.S)
_TOKEN = re.compile(
    r"[0-9bf?]{2,}_[0-9io?]{2,}->[0-9bf?]{2,}"              # dim labels
    r"|%[A-Za-z_][\w.\-]*"                                   # %name
    r"|[A-Za-z_][\w.\-]*[:=]?"                               # ident, name:, attr=
    r"|->|<=|\.\.\.|\"_*\"|'_*'"                              # strings are masked
    r"|-?[0-9.][0-9A-Za-z_.]*(?:[-+](?!>)[0-9A-Za-z_.]+)*"  # numbers and patterns
    r"|-[A-Za-z_][\w.\-]*"                                   # -inf, -nan
    r"|[^ \t\n\r]")


def tokens(text: str) -> list[tuple[int, int]]:
    """The (start, end) of every token of ``text``, in order."""
    skeleton = lex(text).skeleton
    out, i = [], 0
    while True:
        i = _SPACE.match(text, i).end()
        if i >= len(text):
            return out
        m = _TOKEN.match(skeleton, i)
        out.append((i, m.end()))
        i = m.end()


#: What may be inserted between two tokens.
INSERTIONS = (" ", "\n", "\t", "  \n    ", "\r\n", "/*c*/", "/*index=5*/ ", " // x\n")


@dataclass(frozen=True)
class Edit:
    """At gap ``gap`` (before token ``gap``), insert ``INSERTIONS[what]``,
    or with ``what == -1`` remove the whitespace there."""

    gap: int
    what: int


def respace(text: str, edits: list[Edit]) -> str:
    """``text`` with the gaps before the given tokens changed.  A removal
    takes out a gap that is whitespace only (comments stay)."""
    spans = tokens(text)
    by_gap = {}
    for e in edits:
        if 0 < e.gap < len(spans):
            by_gap[e.gap] = e.what
    out, last = [], 0
    for k, (a, b) in enumerate(spans):
        gap = text[last:a]
        what = by_gap.get(k)
        if what == -1 and not gap.strip():
            gap = ""
        elif what is not None and what >= 0:
            gap += INSERTIONS[what]
        out += [gap, text[a:b]]
        last = b
    out.append(text[last:])
    return "".join(out)


#: The subprocess: one JSON request per line ({"text"}), one answer per line.
WORKER = r"""
import json, sys
from jax._src.lib import xla_client as xc
hlo = xc._xla.hlo if hasattr(xc._xla, "hlo") else xc.hlo

def split(printed):
    rest = printed.split(" = ", 1)[1]
    depth = 0
    for k, ch in enumerate(rest):
        depth += (ch in "([{") - (ch in ")]}")
        if ch == " " and depth == 0:
            return rest[:k], rest[k + 1:].split("(", 1)[0]
    raise ValueError(printed)

for line in sys.stdin:
    req = json.loads(line)
    answer = {}
    try:
        m = hlo.hlo_module_from_text(req["text"])
    except Exception as e:
        answer["error"] = str(e).replace("\n", " ")[:500]
    else:
        answer["computations"] = {
            c.name: [dict(zip(("shape", "opcode"), split(i.to_string())), name=i.name,
                          operands=[o.name for o in i.operands()])
                     for i in c.instructions()]
            for c in m.computations()}
    print(json.dumps(answer), flush=True)
"""


class XlaParser:
    """XLA's parser in one subprocess, restarted after an abort."""

    def __init__(self):
        self.worker = JsonLinesWorker([sys.executable, "-c", WORKER], timeout=None)

    def parse(self, text: str) -> dict:
        """``{"error": ...}``, ``{"computations": ...}`` or ``{"aborted": True}``."""
        answer = self.worker.ask({"text": text})
        return {"aborted": True} if isinstance(answer, Ended) else answer

    def close(self):
        self.worker.close()
