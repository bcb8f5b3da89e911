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

One core (the default): the process pins itself to one CPU
(``os.sched_setaffinity``, as ``taskset -c N`` would) and runs tilespec with
``TILESPEC_THREADS=1``; ``--cores all`` leaves it on every core it may use
(numpy's copy is one thread either way).  Each layout is timed with both
implementations of the word interleave (:mod:`tilespec.image.kernel`): the C
kernel, and numpy (``TILESPEC_KERNEL=off``); the header says whether the
kernel was built (else both columns are numpy).  The machine's load is
printed beside them.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import time

import ml_dtypes
import numpy as np

import tilespec
from tilespec.image.blocks import threads
from tilespec.image.kernel import kernel_status

CASES = [
    ("f32", "{1,0:T(8,128)}", np.float32, 4),
    ("bf16", "{1,0:T(8,128)(2,1)}", ml_dtypes.bfloat16, 2),
    ("s8", "{1,0:T(32,128)(4,1)}", np.int8, 1),
    ("s4", "{1,0:T(8,128)(2,1)E(4)}", ml_dtypes.int4, 1),
]


def _with_env(name: str, value: str | None, fn):
    saved = os.environ.get(name)
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value
    try:
        return fn()
    finally:
        if saved is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = saved


def one_round(shape: str, a: np.ndarray, b: np.ndarray, image: np.ndarray) -> dict[str, float]:
    """Seconds for each, one after the other."""
    def timed(fn) -> float:
        start = time.perf_counter()
        fn()
        return time.perf_counter() - start

    def numpy(fn) -> float:
        return _with_env("TILESPEC_KERNEL", "off", lambda: timed(fn))
    to = lambda: tilespec.to_bytes(shape, a)  # noqa: E731
    back = lambda: tilespec.from_bytes(shape, image)  # noqa: E731
    return {"copy": timed(lambda: a.copy()),
            "into": timed(lambda: b.__setitem__(Ellipsis, a)),
            "to": timed(to), "from": timed(back), "to_np": numpy(to), "from_np": numpy(back)}


def pin_one_core() -> int:
    """Run this process on one of the CPUs it may use (the last); its number."""
    cpu = max(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpu})
    os.environ["TILESPEC_THREADS"] = "1"
    return cpu


@contextlib.contextmanager
def one_core():
    """:func:`pin_one_core` for a block: the CPUs and ``TILESPEC_THREADS``
    this process had are restored after it (bench_speed.py's T10 measures on
    one core among figures measured on all)."""
    cpus, saved = os.sched_getaffinity(0), os.environ.get("TILESPEC_THREADS")
    try:
        yield pin_one_core()
    finally:
        os.sched_setaffinity(0, cpus)
        if saved is None:
            os.environ.pop("TILESPEC_THREADS", None)
        else:
            os.environ["TILESPEC_THREADS"] = saved


def figures(mib: int = 256, runs: int = 5) -> list[dict]:
    """Each layout of :data:`CASES` timed beside numpy's copy: per layout its
    shape and the medians of ``runs`` rounds in milliseconds (``copy``,
    ``into``, ``to``, ``from`` with the interleave :func:`kernel_status`
    names, ``to_np``, ``from_np`` with numpy's); the ratios are
    ``copy / to`` and so on.  Every image is checked against numpy's
    interleave and read back first."""
    out = []
    for element, layout, dtype, width in CASES:
        rows = 8192
        cols = mib * 2**20 // width // rows
        cols -= cols % 256
        shape = f"{element}[{rows},{cols}]{layout}"
        rng = np.random.default_rng(0)
        a = rng.integers(-8, 8, (rows, cols), dtype=np.int8).astype(dtype)
        b = np.empty_like(a)
        image = tilespec.to_bytes(shape, a)
        expect = a.astype(np.int8) if element == "s4" else a
        assert (tilespec.from_bytes(shape, image) == expect).all()
        slow = _with_env("TILESPEC_KERNEL", "off", lambda s=shape, x=a: tilespec.to_bytes(s, x))
        assert (slow == image).all()
        rounds = [one_round(shape, a, b, image) for _ in range(runs)]
        medians = {k: statistics.median(r[k] for r in rounds) * 1000 for k in rounds[0]}
        out.append({"shape": shape, **medians})
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--mib", type=int, default=256, help="array size (default %(default)s)")
    p.add_argument("--runs", type=int, default=5, help="rounds (default %(default)s)")
    p.add_argument("--cores", choices=("one", "all"), default="one",
                   help="pin to one CPU (default) or use all this process may")
    args = p.parse_args()
    os.environ.pop("TILESPEC_THREADS", None)
    where = f"pinned to CPU {pin_one_core()}" if args.cores == "one" else "not pinned"
    n = threads()
    kernel = kernel_status()
    print(f"Milliseconds, medians of {args.runs} rounds; {where}, tilespec on {n} thread(s).\n"
          "copy: numpy's a.copy() (allocating as to_bytes does); b[...]=a: numpy's copy into "
          "memory\nalready touched. ratio: a.copy()'s time over tilespec's (the share of the "
          "copy's bandwidth;\nthe goal is 0.5 or more). Word interleave: "
          f"{kernel}, then numpy (TILESPEC_KERNEL=off).\n")
    first = "C kernel" if kernel == "C kernel" else "numpy (no kernel)"
    print(f"{'':36} {'':7} {'':8} {first:^29}   {'numpy':^29}")
    print(f"{'layout':36} {'copy':>7} {'b[...]=a':>8} "
          + "   ".join([f"{'to':>7} {'ratio':>5} {'from':>7} {'ratio':>5}"] * 2))
    for m in figures(args.mib, args.runs):
        cells = [f"{m[t]:7.1f} {m['copy'] / m[t]:5.2f} {m[f]:7.1f} {m['copy'] / m[f]:5.2f}"
                 for t, f in (("to", "from"), ("to_np", "from_np"))]
        print(f"{m['shape']:36} {m['copy']:7.1f} {m['into']:8.1f} " + "   ".join(cells))
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
