"""Held-out shape texts for the text differential, and how to judge them (tests/xla/test_xla_text.py
and tools/xla_versions.py): tuples and buffers, every element type,
whitespace and comments of every kind, odd tiles, big and negative numbers,
tokens with dims, parser slack.  Drawn afresh from a seed, never from the
cases tilespec's own tests were written against.

>>> len(held_out(3, 50)[0])
50
"""

from __future__ import annotations

import random
import re

from tilespec.spec.dtypes import ELEMENT_TYPES
from tilespec.spec.errors import TilespecError
from tilespec.spec.printer import format_shape
from tilespec.spec.text import read_shape
from tilespec.xla import real

BIG = [2**63 - 1, 2**63, 2**63 + 1, 2**64 - 1, 2**64, -(2**63), -(2**63) - 1]
#: Characters and comments between tokens: XLA skips space, tab, \n, \r and
#: comments, and nothing else.
GAPS = [" ", "\t", "\n", "\r", "\v", "\f", "\xa0", "/*c*/", "//x\n", "  "]


def _number(rng: random.Random, usual: list[int]) -> int:
    if rng.random() < 0.04:
        return rng.choice(BIG)
    if rng.random() < 0.04:
        return rng.choice([-1, -2, -128, -129, 0])
    return rng.choice(usual)


def _gap(rng: random.Random, odd: bool) -> str:
    return rng.choice(GAPS) if odd and rng.random() < 0.15 else ""


def _tile(rng: random.Random) -> list[str]:
    n = rng.choice([1, 1, 2, 2, 3])
    entries = []
    for _ in range(n):
        r = rng.random()
        entries.append("*" if r < 0.2 else str(_number(rng, [1, 2, 3, 4, 8, 128])))
    return ["("] + [x for e in entries for x in (e, ",")][:-1] + [")"]


def _layout(rng: random.Random, rank: int) -> list[str]:
    m2m = list(range(rank))
    rng.shuffle(m2m)
    if rng.random() < 0.05 and rank:
        m2m[0] = _number(rng, [0, 1, 5])
    out = ["{"] + [x for d in m2m for x in (str(d), ",")][:-1]
    fields: list[list[str]] = []
    if rng.random() < 0.1:
        letters = rng.choice(["", "D", "C", "C+", "C~", "C+~", "D,C", "C~+", "X"])
        fields.append(["D", "(", letters, ")"])
    if rng.random() < 0.5:
        t = ["T"] + _tile(rng)
        if rng.random() < 0.3:
            t += _tile(rng)
        fields.append(t)
    if rng.random() < 0.15:
        fields.append(["L", "(", str(_number(rng, [1, 2, 4, 1024])), ")"])
    if rng.random() < 0.03:
        fields.append([rng.choice(["#", "*"]), "(", rng.choice(["u8", "s32", "u32"]), ")"])
    if rng.random() < 0.15:
        fields.append(["E", "(", str(_number(rng, [0, 1, 2, 4, 8, 16])), ")"])
    if rng.random() < 0.2:
        fields.append(["S", "(", str(_number(rng, [-1, -3, -128, 1, 2, 127, 128, 300])), ")"])
    if rng.random() < 0.05 and rank:
        fields.append(["SC", "(", "0", ":", str(rng.choice([1, 2, 3])), ")"])
    if rng.random() < 0.1:
        fields.append(["M", "(", str(_number(rng, [-5, -1, 0, 4, 8])), ")"])
    if fields or rng.random() < 0.3:
        out.append(":")
    for f in fields:
        if rng.random() < 0.05:       # parser slack: a ')' left out, a stray '*'
            f = f[:-1] if f[-1] == ")" else f
        if rng.random() < 0.02:
            out.append("*")
        out += f
    return out + ["}"]


def _array(rng: random.Random) -> list[str]:
    kind = rng.choice(ELEMENT_TYPES + ("token", "opaque"))
    if kind in ("token", "opaque") and rng.random() < 0.5:
        return [kind, "[", "]"]
    rank = rng.choice([0, 1, 1, 2, 2, 3])
    dims: list[str] = []
    for _ in range(rank):
        r = rng.random()
        if r < 0.05:
            dims += ["?"]
        elif r < 0.12:
            dims += ["<=", str(_number(rng, [1, 3, 8]))]
        else:
            dims += [str(_number(rng, [0, 1, 2, 3, 5, 8, 16, 130]))]
        dims.append(",")
    out = [kind, "["] + dims[:-1] + ["]"]
    if rng.random() < 0.85:
        out += _layout(rng, rank)
    return out


def _shape(rng: random.Random, leaves: list[str], depth: int = 0) -> list[str]:
    """A shape's tokens; the texts of its arrays are added to ``leaves``."""
    r = rng.random()
    if depth < 2 and r < 0.12:
        elements = [_shape(rng, leaves, depth + 1) for _ in range(rng.randrange(0, 4))]
        return ["("] + [x for e in elements for x in e + [","]][:-1] + [")"]
    if r < 0.2:
        inner = (_array(rng) if rng.random() < 0.9 else _shape(rng, leaves, depth + 1))
        if inner[0] not in ("(", "b"):
            leaves.append("".join(inner))
        return ["b", "("] + inner + [")"]
    tokens = _array(rng)
    leaves.append("".join(tokens))
    return tokens


def held_out(seed: int, count: int) -> tuple[list[str], dict[str, list[str]]]:
    """``count`` distinct texts, and for each tuple or buffer the texts of
    its arrays (so that an array XLA does not validate inside a tuple can be
    asked alone)."""
    rng = random.Random(seed)
    texts: dict[str, list[str]] = {}
    while len(texts) < count:
        leaves: list[str] = []
        tokens = _shape(rng, leaves)
        odd = rng.random() < 0.3
        text = "".join(t + _gap(rng, odd) for t in tokens)
        texts.setdefault(text, leaves if tokens[0] in ("(", "b") else [])
    return list(texts), {t: a for t, a in texts.items() if a}


# --- judging tilespec's reading against XLA's -------------------------------------

#: tilespec's words for text XLA reads only by parser slack or wrap-around.
ALLOWED = ("XLA's parser lets this pass", "XLA's lexer wraps it", "8-bit field")
#: XLA's parser reads it but building the array aborts or fails (element
#: count beyond int64): both refuse it, at different steps.
OVERFLOW = "overflows int64"


def tilespec_reads(text: str) -> tuple[str | None, str | None]:
    try:
        return format_shape(read_shape(text)), None
    except TilespecError as e:
        return None, str(e)


def claim_holds(error: str, answer: real.Answer) -> bool:
    """Where tilespec's message names XLA's reading, XLA prints exactly that."""
    m = re.search(r"and reads (.*)\) at column \d+ in ", error)
    if m and m.group(1) != answer.printed:
        return False
    m = re.search(r"8-bit field then holds (S\(-?\d+\)|no memory space)", error) or \
        re.search(r"XLA would read it as (S\(-?\d+\)|no memory space)", error)
    if m and answer.printed is not None:
        space = m.group(1)
        if space == "no memory space":
            return "S(" not in answer.printed
        return space in answer.printed
    return True


#: Types jax cannot hand to XLA as themselves; XLA's layout validator does
#: not look at the element type (xla/layout_util.cc, ValidateLayoutForShape),
#: so an array of another type with the same layout answers for them.
STAND_IN = {"s1": "s8", "u1": "u8", "f6e2m3fn": "u8", "f6e3m2fn": "u8"}


def stand_in(text: str) -> str:
    """The array with a type and dims jax can give XLA's validator."""
    text = re.sub(r"\b(" + "|".join(STAND_IN) + r")\b", lambda m: STAND_IN[m.group(1)], text)
    return re.sub(r"\?", "<=64", text)


def evidence(text: str, leaves) -> list[str]:
    """Arrays whose validity XLA can be asked, standing in for ``text``'s."""
    return [stand_in(a) for a in leaves.get(text, [text])]


def asked(texts, leaves) -> list[str]:
    """Every text :func:`verdicts` asks XLA about: the texts, then the
    arrays standing in for theirs."""
    return list(texts) + sorted({a for t in texts for a in evidence(t, leaves)} - set(texts))


def verdicts(texts, leaves, python=None, answered=None):
    """Each text's class: 'agree', 'allowed' or a description of a difference,
    and XLA's answers (``python``: the interpreter whose jaxlib answers;
    ``answered``: answers recorded before, text -> ``real.Answer``, instead
    of asking)."""
    every = asked(texts, leaves)
    answers = (dict(zip(every, real.ask(every, measure=False, python=python)))
               if answered is None else {t: answered[t] for t in every})
    out = {}
    for text in texts:
        x = answers[text]
        printed, error = tilespec_reads(text)
        if error is None and x.accepted:
            out[text] = "agree" if printed == x.printed else (
                f"printed {printed!r}, XLA {x.printed!r}")
        elif error is not None and not x.accepted:
            out[text] = "agree"
        elif error is None:
            out[text] = f"tilespec accepts; {x.verdict}"
        elif any(w in error for w in ALLOWED):
            out[text] = "allowed" if claim_holds(error, x) else (
                f"wrong claim: {error}; {x.verdict}")
        elif OVERFLOW in error and x.valid is None:
            out[text] = "agree"  # XLA cannot build it either (int64-dims)
        elif x.valid is None and any(tilespec_reads(a)[1] and not answers[a].accepted
                                     for a in evidence(text, leaves)):
            # XLA's validator was not asked (a tuple, buffer, or a type or
            # dim jax cannot give it); it rejects the array standing in.
            out[text] = "agree"
        else:
            out[text] = f"tilespec rejects: {error}; {x.verdict} ({x.note})"
    return out, answers
