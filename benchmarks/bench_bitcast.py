"""How long ``tilespec bitcast`` takes to decide.  Prints figures; asserts nothing.

    python benchmarks/bench_bitcast.py [--repeat N]

Each question is decided once cold (the first also pays for the mixed-radix
lemma and the Horner identities, proved once per process) and then
``--repeat`` times; the table shows the verdict, the cold time and the
median of the repeats.
"""

from __future__ import annotations

import argparse
import statistics
import time

from tilespec.prover.bitcast import prove_reading
from tilespec.spec.text import parse_array_shape

QUESTIONS = [
    # (SRC, DST, transpose)
    ("f32[3,5]{1,0:T(2,2)}", "f32[15]{0}", None),
    ("f32[16,256]{1,0:T(8,128)}", "f32[4096]{0}", None),
    ("bf16[1024,1024]{1,0:T(8,128)(2,1)}", "bf16[8,128,1024]{2,1,0:T(8,128)(2,1)}", None),
    ("bf16[1024,1024]{1,0:T(8,128)(2,1)}", "bf16[1024,8,128]{2,1,0:T(8,128)(2,1)}", None),
    ("f32[4096,4096]{1,0:T(8,128)}", "f32[512,8,4096]{2,1,0:T(8,128)}", None),
    ("f32[65536,65536]{1,0:T(8,128)}", "f32[8192,8,65536]{2,1,0:T(8,128)}", None),
    ("f32[8,256]{1,0:T(8,128)}", "f32[256,8]{0,1:T(8,128)}", (1, 0)),
    # all shapes
    ("f32[m,n]{1,0:T(8,128)}", "f32[1,m,n]{2,1,0:T(8,128)}", None),
    ("f32[m,n]{1,0:T(8,128)}", "f32[m,n,1]{2,1,0:T(8,128)}", None),
    ("bf16[m,n]{1,0:T(8,128)(2,1)}", "bf16[1,m,n]{2,1,0:T(8,128)(2,1)}", None),
    ("f32[m,16,128]{2,1,0:T(8,128)}", "f32[m,2,8,128]{3,2,1,0:T(8,128)}", None),
    ("f32[a,b,m,n]{3,2,1,0:T(8,128)}", "f32[b,a,m,n]{3,2,0,1:T(8,128)}", (1, 0, 2, 3)),
    ("f32[m,n]{1,0}", "f32[n,m]{1,0}", None),
]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args()
    print(f"{'question':86} {'verdict':8} {'scope':11} {'cold ms':>8} {'median ms':>10}")
    for src, dst, t in QUESTIONS:
        a, b = parse_array_shape(src), parse_array_shape(dst)
        t0 = time.perf_counter()
        r = prove_reading(a, b, t)
        cold = time.perf_counter() - t0
        times = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            prove_reading(a, b, t)
            times.append(time.perf_counter() - t0)
        q = f"{src} -> {dst}" + (f" (transpose {','.join(map(str, t))})" if t else "")
        scope = "all shapes" if r.scope.startswith("all") else r.scope
        print(f"{q:86} {r.status:8} {scope:11} {cold * 1e3:8.1f} "
              f"{statistics.median(times) * 1e3:10.1f}")


if __name__ == "__main__":
    main()
