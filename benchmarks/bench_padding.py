"""How long ``tilespec padding`` takes to advise.  Prints figures; asserts nothing.

    python benchmarks/bench_padding.py [--count 1000] [--seed 0]

Advises ``--count`` shapes drawn at random (ranks 1-5, dims from the sizes
models use and small odd ones, the TPU tiles, 32-, 16- and 8-bit types, each
minor-to-major order equally likely), with every bitcast question of the
alternatives decided as ``tilespec padding`` decides it, and prints the time
for all of them (the goal: 1,000 in under 10 s), the slowest shape, how
many alternatives were proved bitcasts, the time without the solver, and the
machine's load (the solver's share is most of the time).
"""

from __future__ import annotations

import argparse
import os
import random
import time

from tilespec.prover.bitcast import remembering
from tilespec.prover.padding.advice import advise

DIMS = (1, 1, 2, 3, 4, 7, 8, 16, 100, 128, 256, 300, 1024, 4096)
TYPES = {"f32": "", "s32": "", "bf16": "(2,1)", "s8": "(4,1)"}
TILES = ("(8,128)", "(4,128)", "(1,128)")


def random_shape(rng: random.Random) -> str:
    rank = rng.randint(1, 5)
    dims = [rng.choice(DIMS) for _ in range(rank)]
    order = list(range(rank))
    rng.shuffle(order)
    element = rng.choice(list(TYPES))
    tile = rng.choice(TILES) + TYPES[element]
    return (f"{element}[{','.join(map(str, dims))}]"
            f"{{{','.join(map(str, order))}:T{tile}}}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--count", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    rng = random.Random(args.seed)
    shapes = [random_shape(rng) for _ in range(args.count)]
    advise(shapes[0])  # imports and the solver's first call
    slowest, bitcasts, alternatives = (0.0, ""), 0, 0
    start = time.perf_counter()
    with remembering():
        for s in shapes:
            t = time.perf_counter()
            a = advise(s)
            slowest = max(slowest, (time.perf_counter() - t, s))
            alternatives += len(a.alternatives)
            bitcasts += sum(alt.bitcast for alt in a.alternatives)
    total = time.perf_counter() - start
    start = time.perf_counter()
    for s in shapes:
        advise(s, decide=False)
    sizes_only = time.perf_counter() - start
    print(f"{args.count} shapes advised in {total:.2f} s "
          f"({1000 * total / args.count:.2f} ms a shape); goal: 1,000 in under 10 s")
    print(f"without the solver (sizes, breakdown, ranked alternatives): {sizes_only:.2f} s")
    print(f"load average while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{alternatives} alternatives, {bitcasts} proved bitcasts; "
          f"slowest: {slowest[1]} ({1000 * slowest[0]:.0f} ms)")


if __name__ == "__main__":
    main()
