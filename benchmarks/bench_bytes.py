"""``to_bytes``/``from_bytes`` beside a plain numpy copy.  Prints figures; asserts nothing.

    python benchmarks/bench_bytes.py [--mib 256] [--runs 5]

For each layout of issue 21 (f32 ``T(8,128)``, bf16 ``T(8,128)(2,1)``, s8
``T(32,128)(4,1)``, s4 ``T(8,128)(2,1)E(4)``) an array of ``--mib`` MiB (the
s4 one as ``ml_dtypes.int4``, one byte per value: its image is half that,
so its copy moves twice the image's bytes) is tiled with
``tilespec.to_bytes`` and read back with ``tilespec.from_bytes``, and the
same array is copied with numpy: ``a.copy()`` (allocates, as to_bytes does)
and ``b[...] = a`` (into memory already touched).  Rounds interleave them,
so a loaded machine slows them alike; the figures are medians of ``--runs``
rounds and the ratios are copy time / tilespec time (the share of the
copy's bandwidth reached; the goal is 0.5 or more against ``a.copy()``).

tilespec runs large images on the cores this process may use
(:func:`tilespec.image.blocks.threads`), numpy's copy on one: each layout is
timed both ways, with the default threads and with ``TILESPEC_THREADS=1``.
The machine's load is printed beside them.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import ml_dtypes
import numpy as np

import tilespec
from tilespec.image.blocks import threads

CASES = [
    ("f32", "{1,0:T(8,128)}", np.float32, 4),
    ("bf16", "{1,0:T(8,128)(2,1)}", ml_dtypes.bfloat16, 2),
    ("s8", "{1,0:T(32,128)(4,1)}", np.int8, 1),
    ("s4", "{1,0:T(8,128)(2,1)E(4)}", ml_dtypes.int4, 1),
]


def one_round(shape: str, a: np.ndarray, b: np.ndarray, image: np.ndarray) -> dict[str, float]:
    """Seconds for each, one after the other."""
    def timed(fn) -> float:
        start = time.perf_counter()
        fn()
        return time.perf_counter() - start

    def single(fn) -> float:
        os.environ["TILESPEC_THREADS"] = "1"
        try:
            return timed(fn)
        finally:
            del os.environ["TILESPEC_THREADS"]
    to = lambda: tilespec.to_bytes(shape, a)  # noqa: E731
    back = lambda: tilespec.from_bytes(shape, image)  # noqa: E731
    return {"copy": timed(lambda: a.copy()),
            "into": timed(lambda: b.__setitem__(Ellipsis, a)),
            "to": timed(to), "from": timed(back), "to1": single(to), "from1": single(back)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--mib", type=int, default=256, help="array size (default %(default)s)")
    p.add_argument("--runs", type=int, default=5, help="rounds (default %(default)s)")
    args = p.parse_args()
    os.environ.pop("TILESPEC_THREADS", None)
    n = threads()
    print(f"Milliseconds, medians of {args.runs} rounds. copy: numpy's a.copy() (one thread, "
          "allocating as to_bytes does);\nb[...]=a: numpy's copy into memory already "
          "touched. ratio: a.copy()'s time over tilespec's\n(the share of the copy's "
          f"bandwidth; the goal is 0.5 or more). tilespec runs on {n} thread(s), the cores\n"
          "this process may use, then on one (TILESPEC_THREADS=1).\n")
    print(f"{'':36} {'':7} {'':8} {f'tilespec, {n} thread(s)':^35}   {'tilespec, 1 thread':^26}")
    print(f"{'layout':36} {'copy':>7} {'b[...]=a':>8} {'to_bytes':>8} {'ratio':>5} "
          f"{'from_bytes':>10} {'ratio':>5}   {'to':>6} {'ratio':>5} {'from':>6} {'ratio':>5}")
    for element, layout, dtype, width in CASES:
        rows = 8192
        cols = args.mib * 2**20 // width // rows
        cols -= cols % 256
        shape = f"{element}[{rows},{cols}]{layout}"
        rng = np.random.default_rng(0)
        a = rng.integers(-8, 8, (rows, cols), dtype=np.int8).astype(dtype)
        b = np.empty_like(a)
        image = tilespec.to_bytes(shape, a)
        back = tilespec.from_bytes(shape, image)
        assert (back == (a.astype(np.int8) if element == "s4" else a)).all()
        rounds = [one_round(shape, a, b, image) for _ in range(args.runs)]
        m = {k: statistics.median(r[k] for r in rounds) * 1000 for k in rounds[0]}
        print(f"{shape:36} {m['copy']:7.1f} {m['into']:8.1f} {m['to']:8.1f} "
              f"{m['copy'] / m['to']:5.2f} {m['from']:10.1f} {m['copy'] / m['from']:5.2f}   "
              f"{m['to1']:6.1f} {m['copy'] / m['to1']:5.2f} {m['from1']:6.1f} "
              f"{m['copy'] / m['from1']:5.2f}")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
