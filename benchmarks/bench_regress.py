"""How fast ``tilespec regress`` makes cases.  Prints figures; asserts nothing.

    python benchmarks/bench_regress.py [--count N]

* random cases per second: numpy draws elements and offsets, the spec's
  vectorised ``offsets`` / ``locate_many`` compute the expected values
  (target: at least 100,000 per second);
* the same, written out as JSONL lines;
* boundary classes: seconds per shape (one Z3 query per class).
"""

from __future__ import annotations

import argparse
import io
import time

import numpy as np

from tilespec.prover.regress.cases import Suite, boundary, random_cases
from tilespec.prover.regress.formats import write_jsonl
from tilespec.spec.text import parse_array_shape

SHAPES = [
    "f32[3,5]{1,0:T(2,2)}",
    "bf16[1024,1024]{1,0:T(8,128)(2,1)}",
    "f32[300,500]{1,0:T(8,128)}",
    "f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}",
    "s4[4096,4096]{1,0:T(8,128)(2,1)E(4)}",
]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--count", type=int, default=200_000, help="random cases per shape")
    args = p.parse_args()
    print(f"{'shape':44} {'random/s':>12} {'jsonl/s':>12} {'boundary s':>11} classes")
    total_n = total_t = 0.0
    for text in SHAPES:
        s = parse_array_shape(text)
        rng = np.random.default_rng(0)
        random_cases(s, 1000, rng)                      # warm up
        t0 = time.perf_counter()
        r = random_cases(s, args.count, rng)
        t1 = time.perf_counter()
        out = io.StringIO()
        write_jsonl(Suite((text,), 0, (), (r,)), out)
        t2 = time.perf_counter()
        b = boundary(s)
        t3 = time.perf_counter()
        total_n += len(r)
        total_t += t1 - t0
        print(f"{text:44} {len(r) / (t1 - t0):12,.0f} {len(r) / (t2 - t1):12,.0f} "
              f"{t3 - t2:11.3f} {len(b)} ({sum(o.status == 'empty' for o in b)} empty)")
    print(f"\nall shapes: {total_n / total_t:,.0f} random cases per second "
          f"(target >= 100,000)")


if __name__ == "__main__":
    main()
