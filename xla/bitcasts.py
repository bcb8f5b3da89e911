"""A family of reshapes and transposes between tiled layouts, compiled by real
XLA (:mod:`tilespec.xla.compiled`), each decision set beside tilespec's model
of XLA's rules (``ShapeUtil::ReshapeIsBitcast`` / ``TransposeIsBitcast``,
:mod:`tilespec.prover.models.bitcast_rules`) and beside the spec's verdict
(:func:`tilespec.prover.bitcast.decide.is_bitcast` asked for the case's reading:
are the two layouts physically the same?).

What a row can say (``Row.kind``):

``agree``
    compiler, model and spec give the same answer.
``conservative``
    the compiler copies where the spec proves a bitcast: allowed (a compiler
    may move data it need not move), not a bug.
``finding``
    the compiler emits a bitcast the spec refutes: the bytes XLA reuses are,
    by the layout document, in a different order.  Reported loudly, with the
    spec's replayed counterexample and whether the CPU client stores the
    source's tiles at all (``memory``).
``model``
    the compiler and tilespec's model of its rules differ (the model is
    then wrong about this compiler, or the compiler decides by other rules).
    The model is :func:`compiler_rule`: ReshapeIsBitcast, or for a transpose
    TransposeIsBitcast -- unless the transpose only moves unit dims, which
    StableHLO rewrites as a reshape first.
``unanswered``
    XLA rejected the layouts or aborted, or the spec's verdict is unknown.

Run ``python -m tilespec.xla.bitcasts --count 300`` for a bigger family.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from dataclasses import dataclass

from ..prover.models import spec_verdict, verdict
from ..prover.result import Counterexample
from ..spec import format_shape, parse_array_shape
from . import compiled

#: (element type, tilings that fit it); a tiling is applied to both sides
#: or to one side only, so tiled-untiled and untiled-tiled pairs occur.
TILINGS = {
    "f32": ((), ((8, 128),), ((2, 128),), ((4,),), ((1, 128),), ((2, 2),)),
    "bf16": ((), ((8, 128), (2, 1)), ((16, 128),), ((8, 128),)),
    "s8": ((), ((8, 128), (4, 1)), ((32, 128),)),
}
#: Element counts and their shapes (dims major to minor).
SHAPES = {
    2048: ((2048,), (8, 256), (16, 128), (2, 8, 128), (4, 512), (256, 8), (2, 4, 256)),
    4096: ((4096,), (16, 256), (32, 128), (2, 16, 128), (1, 16, 256), (16, 256, 1),
           (256, 16), (4, 8, 128)),
    384: ((384,), (3, 128), (24, 16), (3, 8, 16), (1, 384), (384, 1)),
    60: ((60,), (3, 20), (12, 5), (3, 4, 5), (5, 12)),
}


@dataclass(frozen=True)
class Row:
    src: str
    dst: str
    transpose: tuple | None
    compiler: str            # bitcast / copy / rejected / aborted
    model: bool              # tilespec's model of XLA's rule says bitcast
    spec: str                # proved / refuted / unknown
    kind: str                # agree / conservative / finding / model / unanswered
    memory: str | None = None
    ops: tuple = ()
    spec_counterexample: Counterexample | None = None

    def to_json(self) -> dict:
        return {"src": self.src, "dst": self.dst,
                "transpose": list(self.transpose) if self.transpose else None,
                "compiler": self.compiler, "model_says_bitcast": self.model,
                "spec": self.spec, "kind": self.kind, "memory": self.memory,
                "ops": list(self.ops), "spec_counterexample": None if self.spec_counterexample is None
                else self.spec_counterexample.to_json()}


def _layout(rank: int, rng: random.Random, tiling) -> str:
    m2m = list(range(rank - 1, -1, -1))
    if rank > 1 and rng.random() < 0.3:
        rng.shuffle(m2m)
    tiles = "".join("(" + ",".join(map(str, t)) + ")" for t in tiling)
    return "{" + ",".join(map(str, m2m)) + (":T" + tiles if tiles else "") + "}"


def _shape(et: str, dims, rng, tiling) -> str:
    return f"{et}[{','.join(map(str, dims))}]{_layout(len(dims), rng, tiling)}"


def family(count: int, seed: int = 0) -> list[tuple[str, str, tuple | None]]:
    """``count`` reshapes and transposes (about one in three a transpose),
    deterministic for a seed; each side tiled or not."""
    rng = random.Random(seed)
    out: list = []
    seen: set = set()
    while len(out) < count:
        et = rng.choice(sorted(TILINGS))
        n = rng.choice(sorted(SHAPES))
        a = rng.choice(SHAPES[n])
        t_src = rng.choice(TILINGS[et])
        t_dst = t_src if rng.random() < 0.6 else rng.choice(TILINGS[et])
        if rng.random() < 0.35 and len(a) > 1:
            perm = list(range(len(a)))
            while perm == sorted(perm):
                rng.shuffle(perm)
            b, transpose = tuple(a[p] for p in perm), tuple(perm)
        else:
            b, transpose = rng.choice(SHAPES[n]), None
        case = (_shape(et, a, rng, t_src), _shape(et, b, rng, t_dst), transpose)
        if case not in seen:
            seen.add(case)
            out.append(case)
    return out


def moves_only_unit_dims(shape, transpose) -> bool:
    """A transpose that keeps the order of the dims of size > 1 is a reshape:
    StableHLO's simplifier rewrites it as one (``TransposeIsReshape``) before
    XLA decides, so the compiler judges it by ReshapeIsBitcast."""
    big = [p for p in transpose if shape.dims[p] != 1]
    return big == sorted(big)


def compiler_rule(a, b, transpose) -> bool:
    """The rule the compiler applies, as tilespec models it: ReshapeIsBitcast
    for a reshape (or a transpose that only moves unit dims), else
    TransposeIsBitcast (openxla/xla xla/shape_util.cc)."""
    if transpose is not None and moves_only_unit_dims(a, transpose):
        return verdict(a, b, None).bitcast
    return verdict(a, b, transpose).bitcast


def compare(cases, timeout: float = 5.0) -> list[Row]:
    """Compile every case with real XLA (one subprocess) and set each
    decision beside the model's and the spec's."""
    decisions = compiled.compiled_bitcasts(cases)
    rows = []
    for (src, dst, t), d in zip(cases, decisions):
        a, b = parse_array_shape(src), parse_array_shape(dst)
        model = compiler_rule(a, b, t)
        spec = spec_verdict(a, b, t, timeout)
        if d.verdict not in ("bitcast", "copy") or spec.status == "unknown":
            kind = "unanswered"
        elif (d.verdict == "bitcast") != model:
            kind = "model"
        elif d.verdict == "bitcast" and spec.status == "refuted":
            kind = "finding"
        elif d.verdict == "copy" and spec.status == "proved":
            kind = "conservative"
        else:
            kind = "agree"
        if kind == "model" and d.verdict == "bitcast" and spec.status == "refuted":
            kind = "finding"        # a finding whatever the model says
        rows.append(Row(format_shape(a), format_shape(b), t, d.verdict, model,
                        spec.status, kind, d.memory, d.ops,
                        spec.counterexample if spec.status == "refuted"
                        else None))
    return rows


def summary(rows) -> dict:
    kinds: dict[str, int] = {}
    for r in rows:
        kinds[r.kind] = kinds.get(r.kind, 0) + 1
    return {"cases": len(rows), **dict(sorted(kinds.items())),
            "compiler_bitcasts": sum(r.compiler == "bitcast" for r in rows),
            "findings_on_row_major_memory": sum(r.kind == "finding" and
                                                r.memory == "row-major" for r in rows)}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m tilespec.xla.bitcasts",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--count", type=int, default=300)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="one JSON object per row")
    args = p.parse_args(argv)
    start = time.perf_counter()
    rows = compare(family(args.count, args.seed))
    if args.json:
        for r in rows:
            print(json.dumps(r.to_json()))
    for r in rows:
        if r.kind in ("finding", "model"):
            loud = "FINDING: XLA emits a bitcast the spec refutes" if r.kind == "finding" \
                else "the model of XLA's rule differs from the compiler"
            print(f"{loud}: {r.src} -> {r.dst}"
                  + (f" --transpose {','.join(map(str, r.transpose))}" if r.transpose else "")
                  + f"  [compiler {r.compiler}, model {'bitcast' if r.model else 'no'}, "
                  f"spec {r.spec}, CPU memory of SRC: {r.memory}]", file=sys.stderr)
    print(json.dumps({"xla": compiled.versions(), **summary(rows),
                      "seconds": round(time.perf_counter() - start, 1)}))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
