"""Prover speed, printed (not asserted).  Run: python benchmarks/bench_prove.py

1. Each property for all shapes of the catalogue's named-dim entries
   (target < 50 ms each; the once-per-rank lemma is proved first, cached).
2. Concrete proofs at f32[3,5], f32[65536,65536] and a 2^40-element shape,
   same layout (target < 10 ms per property, huge/tiny ratio <= 2).
3. Against islpy (pip install -e '.[bench]'): the same layouts as integer maps, their
   is_injective / is_bijective checks (target: faster than islpy on each).
4. Against numpy enumeration of every offset at 2^26 elements (target: the
   proof >= 100x faster).

Timings are medians of several runs on this machine.
"""

from __future__ import annotations

import statistics
import sys
import time
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from tilespec.prover.core.lemma import mixed_radix  # noqa: E402
from tilespec.prover.properties.catalogue import CATALOGUE  # noqa: E402
from tilespec.prover.properties.proof import PROPERTIES, prove  # noqa: E402
from tilespec.spec.arith import Arithmetic  # noqa: E402
from tilespec.spec.index import all_offsets, evaluate, padded_elements, shape_pipeline  # noqa: E402
from tilespec.spec.text import parse_array_shape  # noqa: E402

REPEATS = 7


def median_ms(fn, repeats=REPEATS) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)


def warm():
    for k in range(1, 16):
        mixed_radix(k)


def all_shapes():
    print("1. each property for all shapes (ms, median of %d)" % REPEATS)
    entries = [s for s, _ in CATALOGUE if parse_array_shape(s).is_symbolic]
    props = list(PROPERTIES)
    print(f"{'shape':42}" + "".join(f"{p[:10]:>11}" for p in props))
    worst = 0.0
    for text in entries:
        shape = parse_array_shape(text)
        row = []
        for p in props:
            assert prove(shape, p).status == "proved"
            ms = median_ms(partial(prove, shape, p))
            worst = max(worst, ms)
            row.append(ms)
        print(f"{text:42}" + "".join(f"{ms:11.1f}" for ms in row))
    print(f"   slowest: {worst:.1f} ms (target < 50 ms)\n")


SIZES = [("tiny", "f32[3,5]"), ("huge", "f32[65536,65536]"),
         ("2^40", "f32[1048576,1048576]")]
LAYOUT = "{1,0:T(8,128)(2,1)}"


def concrete():
    print(f"2. concrete proofs, layout {LAYOUT} (ms, median of {REPEATS})")
    props = list(PROPERTIES)
    print(f"{'':6}{'shape':24}" + "".join(f"{p[:10]:>11}" for p in props))
    table = {}
    for name, dims in SIZES:
        shape = parse_array_shape(dims + LAYOUT)
        table[name] = [median_ms(partial(prove, shape, p)) for p in props]
        print(f"{name:6}{dims:24}" + "".join(f"{ms:11.1f}" for ms in table[name]))
    ratios = [h / t for h, t in zip(table["2^40"], table["tiny"])]
    print(f"{'ratio':6}{'2^40 / tiny':24}" + "".join(f"{r:11.2f}" for r in ratios))
    print(f"   slowest: {max(max(v) for v in table.values()):.1f} ms (target < 10 ms); "
          f"largest ratio {max(ratios):.2f} (target <= 2)\n")


class IslArithmetic(Arithmetic):
    """The spec's formula written in isl's quasi-affine syntax."""

    def _plain(self, *v):
        return all(isinstance(x, int) for x in v)

    def add(self, a, b):
        return a + b if self._plain(a, b) else f"({a} + {b})"

    def mul(self, a, b):
        # isl takes a constant factor in front: "8*(e0)"
        if self._plain(a, b):
            return a * b
        const, expr = (a, b) if isinstance(a, int) else (b, a)
        return f"{const}*({expr})"

    def floordiv(self, a, b):
        return a // b if self._plain(a, b) else f"floor(({a})/{b})"

    def mod(self, a, b):
        return a % b if self._plain(a, b) else f"(({a}) mod {b})"


def isl_maps(shape):
    """The layout as isl maps: on the elements, and on the padded box."""
    import islpy as isl
    ar = IslArithmetic()
    names = [f"e{i}" for i in range(shape.rank)]
    expr = evaluate(shape_pipeline(shape), names, shape.dims, ar)
    tile = shape.layout.tiles[0].sizes
    padded = [-(-d // t) * t for d, t in zip(shape.dims, tile)]

    def build(bounds):
        box = " and ".join(f"0 <= {n} < {b}" for n, b in zip(names, bounds))
        return isl.Map(f"{{ [{','.join(names)}] -> [o] : {box} and o = {expr} }}")
    return build(shape.dims), build(padded)


def versus_islpy():
    print(f"3. against islpy: injective and bijective, layout {LAYOUT} (ms)")
    try:
        import islpy as isl
    except ImportError:
        print("   islpy not installed: pip install -e '.[bench]'\n")
        return
    print(f"{'shape':24}{'tilespec inj':>14}{'islpy inj':>11}{'tilespec bij':>14}"
          f"{'islpy bij':>11}   faster?")
    for _name, dims in SIZES:
        shape = parse_array_shape(dims + LAYOUT)
        P = padded_elements(shape)
        ours_i = median_ms(partial(prove, shape, "injective"))
        ours_b = median_ms(partial(prove, shape, "bijective"))

        def isl_inj(shape=shape):
            elements, _ = isl_maps(shape)
            assert elements.is_injective()

        def isl_bij(shape=shape, P=P):
            _, box = isl_maps(shape)
            assert box.is_bijective()
            assert box.range() == isl.Set(f"{{ [o] : 0 <= o < {P} }}")
        theirs_i, theirs_b = median_ms(isl_inj), median_ms(isl_bij)
        ok = "yes" if ours_i < theirs_i and ours_b < theirs_b else "NO"
        print(f"{dims:24}{ours_i:14.1f}{theirs_i:11.1f}{ours_b:14.1f}{theirs_b:11.1f}   {ok}")
    print()


def versus_numpy():
    text = "f32[8192,8192]" + LAYOUT
    shape = parse_array_shape(text)
    print(f"4. against numpy enumeration, {text} (2^26 elements)")
    ours = median_ms(partial(prove, shape, "injective"))

    def enumerate_all():
        offs = all_offsets(shape).ravel()
        seen = np.zeros(padded_elements(shape), dtype=bool)
        seen[offs] = True
        assert seen.sum() == offs.size  # every offset distinct
    theirs = median_ms(enumerate_all, repeats=3)
    print(f"   tilespec proof {ours:.1f} ms, numpy enumeration {theirs:.1f} ms: "
          f"{theirs / ours:.0f}x faster (target >= 100x)\n")


if __name__ == "__main__":
    warm()
    all_shapes()
    concrete()
    versus_islpy()
    versus_numpy()
