"""Texts drawn per class of the text differential's past differences
(issue 31): each class is one place where XLA's parser and printer were
found to differ from tilespec's, and its generator draws many texts around
it so that the next difference of the kind is found by a test.

``tests/xla/test_xla_text_classes.py`` asks the binary about every class
(integration, the xla extra); ``tests/data/xla_text_classes.json`` holds
the binary's answers to a seeded sample of each (``tools/xla_text_classes.py``
regenerates it), replayed against tilespec in every run.

>>> sorted(CLASSES)
['buffer', 'd-bare', 'dynamic-layout', 'sc-unclosed', 'tile-star', 'tuple-leaf']
>>> len(draw("tile-star", 3, 20))
20
"""

from __future__ import annotations

import random
from typing import Callable

TYPES = ["f32", "s8", "bf16", "pred", "u4", "s4", "f16", "c64"]
GAPS = ["", "", "", " ", "\t", "\n", "/*c*/"]


def _dims(rng: random.Random, rank: int, dynamic: float = 0.0) -> list[str]:
    out = []
    for _ in range(rank):
        r = rng.random()
        if r < dynamic / 2:
            out.append("?")
        elif r < dynamic:
            out.append(f"<={rng.choice([0, 1, 3, 4, 8, 130])}")
        else:
            out.append(str(rng.choice([0, 1, 2, 3, 5, 8, 16, 130])))
    return out


def _m2m(rng: random.Random, rank: int) -> str:
    order = list(range(rank))
    rng.shuffle(order)
    return ",".join(map(str, order))


def _tile(rng: random.Random, rank: int) -> str:
    n = rng.randint(1, max(1, rank))
    return "T(" + ",".join(rng.choice(["1", "2", "4", "8", "128", "*"]) for _ in range(n)) + ")"


def _array(rng: random.Random, dynamic: float = 0.0, layout: float = 0.7,
           fields: Callable[[random.Random, int], str] | None = None) -> str:
    rank = rng.choice([0, 1, 1, 2, 2, 3])
    t = rng.choice(TYPES)
    text = f"{t}[{','.join(_dims(rng, rank, dynamic))}]"
    if rng.random() < layout:
        extra = fields(rng, rank) if fields else (
            ":" + _tile(rng, rank) if rng.random() < 0.4 else "")
        text += "{" + _m2m(rng, rank) + extra + "}"
    return text


def _gap(rng: random.Random) -> str:
    return rng.choice(GAPS)


def _tuple(rng: random.Random, leaf: Callable[[random.Random], str], depth: int = 0) -> str:
    n = rng.randrange(0, 4)
    items = [(_tuple(rng, leaf, depth + 1) if depth < 2 and rng.random() < 0.2 else leaf(rng))
             for _ in range(n)]
    return "(" + ("," + _gap(rng)).join(items) + ")"


def buffer(rng: random.Random) -> str:
    """``b(...)``: around arrays (dynamic ones too), tuples, tokens and
    buffers, alone or in tuples."""
    def leaf(r: random.Random) -> str:
        x = r.random()
        inner = (_array(r, dynamic=0.3) if x < 0.75 else
                 r.choice(["token[]", "opaque[]", "(f32[3])", "b(f32[3])", "()", "s8[?]"]))
        return f"b({_gap(r)}{inner}{_gap(r)})" if r.random() < 0.7 else inner
    return leaf(rng) if rng.random() < 0.5 else _tuple(rng, leaf)


def tuple_leaf(rng: random.Random) -> str:
    """``s8[?]``, ``opaque[]`` and ``token[]`` inside tuples, with and
    without layouts."""
    def leaf(r: random.Random) -> str:
        return r.choice(["s8[?]", "s8[?]{0}", "opaque[]", "token[]", "opaque[]{}", "token[]{:}",
                         "opaque[]{:}", "token[2]", "s8[<=4]", "s8[?,3]{0,1}",
                         _array(r, dynamic=0.4)])
    return _tuple(rng, leaf)


def _dynamic_fields(rng: random.Random, rank: int) -> str:
    parts = []
    if rng.random() < 0.6:
        parts.append(_tile(rng, rank))
    if rng.random() < 0.3:
        parts.append(f"L({rng.choice([1, 2, 4])})")
    if rng.random() < 0.3:
        parts.append(f"E({rng.choice([0, 4, 8, 32])})")
    if rng.random() < 0.3:
        parts.append(f"S({rng.choice([1, 5, 6])})")
    return (":" + "".join(parts)) if parts or rng.random() < 0.3 else ""


def dynamic_layout(rng: random.Random) -> str:
    """Dynamic dims ``<=N`` and ``?`` with layouts: tiles, ``L``, ``E``, ``S``."""
    return _array(rng, dynamic=0.7, layout=1.0, fields=_dynamic_fields)


def _sc_fields(rng: random.Random, rank: int) -> str:
    dim = rng.choice([0, 0, 1, 2])
    idx = ",".join(str(rng.choice([1, 2, 3, 64, 128])) for _ in range(rng.randint(0, 2)))
    sc = rng.choice([f"SC({dim}:{idx}", f"SC({dim}:{idx})", f"SC({dim}", "SC(", "SC",
                     f"SC({dim}:{idx},"])
    before = _tile(rng, rank) if rng.random() < 0.3 else ""
    after = rng.choice(["", "", "M(2)", "SC(0:1)", "}"])
    return ":" + before + sc + _gap(rng) + after


def sc_unclosed(rng: random.Random) -> str:
    """``SC(...)`` cut short: without its ``)``, its ``:``, its indices."""
    return _array(rng, layout=1.0, fields=_sc_fields)


def _d_fields(rng: random.Random, rank: int) -> str:
    d = rng.choice(["D", "D ", "D(", "D(C", "D(C,", "D()", "D(D", "D(C)", "D(C+", "D }"])
    after = rng.choice(["", "", _tile(rng, rank), "L(2)", "E(4)", "S(1)"])
    return ":" + d + _gap(rng) + after


def d_bare(rng: random.Random) -> str:
    """``D`` without its argument, or cut short, before other fields."""
    return _array(rng, layout=1.0, fields=_d_fields)


def _star_fields(rng: random.Random, rank: int) -> str:
    entry = rng.choice(["2*", "*2", "**", "2 *", "*", "2*,2", "1*", "*,*", "128*"])
    second = rng.choice(["", "", "(2,1)", "(*)", "(2*)"])
    after = rng.choice(["", "", "L(2)", "E(4)"])
    return f":T({entry}){second}{after}"


def tile_star(rng: random.Random) -> str:
    """``*`` written against a number in a tile: ``T(2*)``, ``T(*2)``."""
    return _array(rng, layout=1.0, fields=_star_fields)


CLASSES: dict[str, Callable[[random.Random], str]] = {
    "buffer": buffer, "tuple-leaf": tuple_leaf, "dynamic-layout": dynamic_layout,
    "sc-unclosed": sc_unclosed, "d-bare": d_bare, "tile-star": tile_star,
}


def draw(name: str, seed: int, count: int) -> list[str]:
    """``count`` distinct texts of class ``name``, drawn from ``seed``."""
    rng, out = random.Random(seed), dict[str, None]()
    gen = CLASSES[name]
    for _ in range(count * 50):
        out.setdefault(gen(rng), None)
        if len(out) == count:
            break
    return list(out)
