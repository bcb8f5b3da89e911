"""Regenerate the recorded answers of the real Triton,
tests/data/triton/corpus.json.gz: seeded layouts asked of Triton's
``LinearLayout`` binding through tilespec's oracle (tilespec.triton.real,
each query in a forked worker, so an abort is recorded as Triton's
answer), with the versions that answered.  tests/triton/test_real_triton.py
replays it against tilespec.triton without Triton.

Three kinds of query, each a JSON object the worker takes:

- ``random``: layouts with random bases (1-3 in-dims, 1-3 out-dims of
  sizes 1..16, a few with a size that is not a power of two or a basis out
  of range), and every operation the binding exposes on each: from_bases
  (with and without ``require_surjective``), apply on up to 64 inputs,
  is_injective/is_surjective/is_invertible, get_matrix_view, invert,
  pseudoinvert, compose with a layout on its out-dims, invert_and_compose
  with a layout on its out-dims (often invertible);
- ``xla``: XLA tiled layouts (random dims, orders and tiles, powers of two
  and not, ``*``), exported by tilespec.triton.from_xla, and Triton's apply
  of the exported bases at every element; where from_xla refuses, Triton's
  apply of the per-bit bases at the refutation's ``a ^ b``;
- ``swizzle``: Triton's linear layout of ``SwizzledSharedEncodingAttr(vec,
  perPhase, maxPhase, order)`` on 2-D shapes;
- ``constructor``: identity_1d, strided_1d and zeros_1d;
- ``edge``: invert_and_compose where the random layouts seldom go: an
  outer layout larger or smaller than this one, not surjective, or with
  no in-dims left (or only this one with some) after the in-dims that map
  by the identity.

    pip install -e '.[triton]'
    nice python tools/triton_corpus.py                  # ~5 minutes on one core
    python tools/triton_corpus.py --layouts 50 --shapes 20 --out small.json.gz
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import random
import sys
import time
from pathlib import Path

from tilespec.spec import TilespecError, offset, parse_array_shape
from tilespec.triton import Refutation, linear_or_refutation, real

OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "triton" / "corpus.json.gz"
IN_NAMES = ("register", "lane", "warp", "block")
OUT_NAMES = ("dim0", "dim1", "dim2")


def random_layout(rng: random.Random, in_names=None, out_dims=None,
                  permutation: float = 0.35) -> dict:
    """A layout in the worker's wire form: random bases, often clean
    (each basis one bit), sometimes a permutation (invertible)."""
    if out_dims is None:
        out_dims = [[n, 1 << rng.randint(0, 4)] for n in OUT_NAMES[:rng.choice((1, 1, 2, 2, 3))]]
        if rng.random() < 0.04:
            out_dims[rng.randrange(len(out_dims))][1] = rng.choice((3, 5, 6, 12))
    in_names = in_names or rng.sample(IN_NAMES, rng.randint(1, 3))
    out_bits = [(k, i) for k, (_, size) in enumerate(out_dims)
                for i in range(max(size - 1, 0).bit_length())]
    style = rng.random()
    if style < permutation and out_bits:           # a permutation of the out bits
        bits = rng.sample(out_bits, len(out_bits))
        counts = _split(rng, len(bits), len(in_names))
        vectors, it = [], iter(bits)
        for n in counts:
            vs = []
            for _ in range(n):
                k, i = next(it)
                vs.append([1 << i if j == k else 0 for j in range(len(out_dims))])
            vectors.append(vs)
    else:
        vectors = []
        for _ in in_names:
            vs = []
            for _ in range(rng.randint(0, 4)):
                vs.append([_value(rng, size) for _, size in out_dims])
            vectors.append(vs)
    if rng.random() < 0.03 and vectors[0]:   # a basis out of range
        vectors[0][0][0] = out_dims[0][1]
    return {"bases": [[n, vs] for n, vs in zip(in_names, vectors)], "out_dims": out_dims}


def _split(rng: random.Random, total: int, parts: int) -> list[int]:
    cuts = sorted(rng.randint(0, total) for _ in range(parts - 1))
    return [b - a for a, b in zip([0, *cuts], [*cuts, total])]


def _value(rng: random.Random, size: int) -> int:
    top = max(size, 1)
    r = rng.random()
    if r < 0.3:
        return 0
    if r < 0.7:
        return 1 << rng.randrange(max(top - 1, 0).bit_length() or 1) if top > 1 else 0
    return rng.randrange(top)


def _in_dims(layout: dict) -> list[list]:
    return [[n, 1 << len(vs)] for n, vs in layout["bases"]]


def _inputs(rng: random.Random, layout: dict, most: int = 64) -> list:
    dims = _in_dims(layout)
    total = 1
    for _, size in dims:
        total *= size
    if total <= most:
        points = itertools.product(*(range(size) for _, size in dims))
    else:
        points = (tuple(rng.randrange(size) for _, size in dims) for _ in range(most))
    return [[[n, v] for (n, _), v in zip(dims, p)] for p in points]


def random_queries(rng: random.Random, count: int) -> list[dict]:
    out = []
    for _ in range(count):
        lay = random_layout(rng)
        outer_in = [[n, s if rng.random() < 0.9 else max(s // 2, 1)] for n, s in lay["out_dims"]]
        composed = random_layout(rng, in_names=[n for n, _ in outer_in],
                                 out_dims=[["o" + str(k), 1 << rng.randint(0, 4)]
                                           for k in range(rng.randint(1, 2))])
        # compose's outer layout has the in-dims of this one's out-dims
        composed["bases"] = [[n, (vs + [[0] * len(composed["out_dims"])] * 8)
                              [:max(s - 1, 0).bit_length()]]
                             for (n, s), (_, vs) in zip(outer_in, composed["bases"])]
        inverted = random_layout(rng, in_names=rng.sample(("x", "y", "z"), rng.randint(1, 2)),
                                 out_dims=[list(d) for d in lay["out_dims"]], permutation=0.7)
        out += [{"op": "from_bases", "layout": lay},
                {"op": "from_bases", "layout": {**lay, "surjective": True}},
                {"op": "apply", "layout": lay, "inputs": _inputs(rng, lay)},
                {"op": "is_injective", "layout": lay},
                {"op": "is_surjective", "layout": lay},
                {"op": "is_invertible", "layout": lay},
                {"op": "get_matrix_view", "layout": lay},
                {"op": "invert", "layout": lay},
                {"op": "pseudoinvert", "layout": lay},
                {"op": "compose", "layout": lay, "other": composed},
                {"op": "invert_and_compose", "layout": lay, "other": inverted}]
    return out


def random_shape(rng: random.Random) -> str | None:
    """An XLA array shape with a tiled layout, or None where it is not one."""
    rank = rng.randint(1, 3)
    dims = [rng.choice((1, 2, 3, 4, 5, 6, 8, 12, 16, 24, 32)) for _ in range(rank)]
    order = rng.sample(range(rank), rank)
    tiles = []
    for _ in range(rng.choice((0, 1, 1, 1, 2))):
        n = rng.randint(1, rank + (1 if not tiles else 0))
        tiles.append(tuple(rng.choice((1, 2, 2, 4, 4, 8, 3, "*")) for _ in range(n)))
    text = (f"{rng.choice(('f32', 'bf16', 's8'))}[{','.join(map(str, dims))}]"
            f"{{{','.join(map(str, order))}"
            + (":" + "".join(f"T({','.join(map(str, t))})" for t in tiles) if tiles else "")
            + "}")
    try:
        parse_array_shape(text)
    except TilespecError:
        return None
    return text


def xla_queries(rng: random.Random, count: int) -> list[dict]:
    out, seen = [], set()
    while len(out) < count:
        text = random_shape(rng)
        if text is None or text in seen:
            continue
        seen.add(text)
        shape = parse_array_shape(text)
        try:
            found = linear_or_refutation(shape)
        except TilespecError:
            continue
        dims = shape.dims
        if isinstance(found, Refutation):
            x = tuple(p ^ q for p, q in zip(found.a, found.b))
            bases = []
            for k, d in enumerate(dims):  # the per-bit bases from_xla would take
                unit = [0] * len(dims)
                vs = []
                for i in range(max(d - 1, 0).bit_length()):
                    unit[k] = 1 << i
                    vs.append([offset(shape, unit)])
                bases.append([f"dim{k}", vs])
            points = [x]
        else:
            bases = [[n, [list(b) for b in vs]] for n, vs in found.bases]
            points = list(itertools.product(*(range(d) for d in dims)))
        top = max([v[0] for _, vs in bases for v in vs] + [0])
        layout = {"bases": bases, "out_dims": [["offset", 1 << top.bit_length()]]}
        out.append({"op": "apply", "layout": layout, "shape": text,
                    "inputs": [[[f"dim{k}", v] for k, v in enumerate(p)] for p in points]})
    return out


def swizzle_queries() -> list[dict]:
    out = []
    for vec, per_phase, max_phase in itertools.product((1, 2, 4, 8), repeat=3):
        for rows, cols in itertools.product((2, 4, 8, 16), (2, 4, 8, 16, 32)):
            out.append({"op": "swizzled_shared", "vec": vec, "per_phase": per_phase,
                        "max_phase": max_phase, "order": [1, 0], "shape": [rows, cols]})
    for vec, per_phase, max_phase in ((2, 3, 4), (3, 1, 4), (2, 1, 3), (1, 6, 8)):
        out.append({"op": "swizzled_shared", "vec": vec, "per_phase": per_phase,
                    "max_phase": max_phase, "order": [1, 0], "shape": [16, 16]})
    out.append({"op": "swizzled_shared", "vec": 2, "per_phase": 1, "max_phase": 4,
                "order": [0, 1], "shape": [8, 16]})
    for shape in ([6, 8], [1, 1]):
        out.append({"op": "swizzled_shared", "vec": 2, "per_phase": 1, "max_phase": 4,
                    "order": [1, 0], "shape": shape})
    return out


def compact(query: dict, reply: dict) -> tuple[dict, dict]:
    """An apply case as it is recorded: each input a list of values in the
    layout's in-dim order (``points``), each answer a list of values in
    its out-dim order; the test expands them back to the worker's pairs."""
    if query["op"] != "apply":
        return query, reply
    out = {k: v for k, v in query.items() if k != "inputs"}
    out["points"] = [[v for _, v in pairs] for pairs in query["inputs"]]
    if "answer" in reply:
        reply = {"answer": [[v for _, v in pairs] for pairs in reply["answer"]]}
    return out, reply


def constructor_queries() -> list[dict]:
    """Triton's 1-D constructors, at sizes and strides powers of two and
    not."""
    out = []
    for size in (1, 2, 4, 8, 3, 6):
        out.append({"op": "identity_1d", "size": size, "in_dim": "i", "out_dim": "o"})
        out.append({"op": "zeros_1d", "size": size, "in_dim": "i", "out_dim": "o"})
        for stride in (1, 2, 4, 3):
            out.append({"op": "strided_1d", "size": size, "stride": stride, "in_dim": "i",
                        "out_dim": "o"})
    return out


def edge_queries() -> list[dict]:
    """invert_and_compose's corners, each (this, outer) as bases and
    out-dims."""
    def ll(bases, out_dims):
        return {"bases": bases, "out_dims": out_dims}
    pairs = [
        (ll([["r", [[1], [2]]]], [["x", 4]]), ll([["s", [[4], [1], [2]]]], [["x", 8]])),
        (ll([["s", [[4], [1], [2]]]], [["x", 8]]), ll([["r", [[1], [2]]]], [["x", 4]])),
        (ll([["r", [[1], [2]]]], [["x", 8]]), ll([["r", [[1], [2]]], ["s", [[4]]]], [["x", 8]])),
        (ll([["r", [[1], [2]]]], [["x", 4]]), ll([["r", [[1], [2]]]], [["y", 4]])),
        (ll([["r", [[1]]], ["t", [[1]]]], [["x", 2]]), ll([["r", [[1]]]], [["x", 2]])),
        (ll([["r", [[1], [2]]], ["t", [[0]]]], [["x", 4]]), ll([["r", [[1], [2]]]], [["x", 4]])),
        (ll([["r", [[1]]], ["t", [[2]]]], [["x", 4]]), ll([["r", [[1]]]], [["x", 4]])),
        (ll([["r", [[1]]]], [["x", 8]]), ll([["r", [[1]]], ["s", [[0]]]], [["x", 8]])),
        (ll([["r", [[4]]]], [["x", 8]]), ll([["s", [[4], [4]]]], [["x", 8]])),
        (ll([["r", [[2]]]], [["x", 8]]), ll([["s", [[4], [4]]]], [["x", 8]])),
        (ll([["r", [[1, 0]]]], [["x", 2], ["y", 2]]), ll([["s", [[0, 1], [1, 0]]]],
                                                          [["y", 2], ["x", 2]])),
    ]
    return [{"op": "invert_and_compose", "layout": a, "other": b} for a, b in pairs]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python tools/triton_corpus.py",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--layouts", type=int, default=1000, help="random layouts (default 1000)")
    p.add_argument("--shapes", type=int, default=300, help="XLA shapes (default 300)")
    p.add_argument("--seed", type=int, default=33)
    p.add_argument("--out", type=Path, default=OUT)
    args = p.parse_args(argv)
    real.require()
    rng = random.Random(args.seed)
    queries = ([("random", q) for q in random_queries(rng, args.layouts)]
               + [("xla", q) for q in xla_queries(rng, args.shapes)]
               + [("swizzle", q) for q in swizzle_queries()]
               + [("constructor", q) for q in constructor_queries()]
               + [("edge", q) for q in edge_queries()])
    start = time.perf_counter()
    replies = real.ask([q for _, q in queries])
    seconds = time.perf_counter() - start
    corpus = {
        "versions": {"triton": real.version()},
        "seed": args.seed,
        "seconds": round(seconds, 1),
        "cases": [dict(zip(("query", "reply"), compact(q, real.to_json(r))), kind=kind)
                  for (kind, q), r in zip(queries, replies)],
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(args.out, "wt") as f:
        json.dump(corpus, f, separators=(",", ":"))
    aborted = sum(isinstance(r, real.Aborted) for r in replies)
    print(f"{len(queries)} queries ({aborted} aborted) in {seconds:.0f} s -> {args.out}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
