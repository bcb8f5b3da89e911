"""Proving speed, printed side by side with islpy and the bare import.

Run: python benchmarks/bench_speed.py [--targets-only] [--png PATH] [--quick]

First the targets of issue 19, each measured in this one run (medians; the
machine is shared, so each line also says what it was measured against):

T1. First ``tilespec prove 'bf16[m,n]{1,0:T(8,128)(2,1)}'`` on a fresh
    install (an empty user cache: only the proofs shipped in the package):
    at most 3x ``python -c "import numpy, z3"``.
T2. The README's catalogue (``tilespec prove``, no shape) on a fresh
    install: under 2 s.
T3. Warm in_bounds + injective at least 10x faster than islpy on every
    layout of the benchmark (high-rank and unit-dim layouts included).
T4. A fresh ``tilespec prove SHAPE`` process (warm cache): at most 2x the
    bare import.
T5. ``tilespec check-hlo`` on a generated 10,000-instruction module
    (benchmarks/bench_hlo.py's), warm disk cache: under 3 s.
T6. ``tilespec explain`` of a legal tile of 5,001 entries: under 1 s (the
    command's own time, in a process whose imports are done; the fresh
    process's wall time is printed beside it).
T7. (issue 35) The first all-shapes proof of a covered layout: under 50 ms.
T8. (issue 35) A corpus of real TPU modules, 1,000,000 instructions in 100
    modules (benchmarks/make_tpu_corpus.py writes it; ``--corpus DIR``,
    default $TILESPEC_TPU_CORPUS, else ``tilespec-tpu-corpus`` in the
    system's temporary directory; measured by benchmarks/bench_corpus.py),
    ``tilespec check-hlo DIR --jobs 2``: under
    30 s in text, ``--json`` and ``--format sarif``.
T9. (issue 35) On that corpus, ``--jobs 2`` and a two-worker Dask
    LocalCluster (``--scheduler``) at least 1.7x one process.  T8 and T9
    depend on the number of cores (2 here: the line says how many and the
    load average around the runs); every other target is one process.
T10. (issue 35) Bytes on one core: ``to_bytes`` and ``from_bytes`` at least
    0.5 of numpy's ``a.copy()`` for every layout family of
    benchmarks/bench_bytes.py (measured by it, the process pinned to one CPU
    with ``TILESPEC_THREADS=1``), saying whether the C kernel or the numpy
    fallback interleaved the words.

``--markdown`` prints the targets measured in this run as the table of the
README's speed section, with a column saying which depend on the number of
cores.

Then the sections below (skipped with --targets-only).

Figures (medians; "warm" = in one process after a first call; the disk
cache of proved theorems, prover/core/cache.py, lives in $TILESPEC_CACHE_DIR,
which this script points at a directory of its own, filled by section 0):

0. The cache is filled once: every theorem the catalogue cites (Z3).
1. Warm, each property on the spec's own layouts, and in_bounds + injective
   against islpy (the same layout as an integer map over the elements:
   ``is_injective`` plus the range inside [0, P)).  Target: each property
   <= 0.2 ms, >= 10x faster than islpy on every layout.
2. The built-in catalogue (every property of every entry): first pass in a
   fresh process and warm.  Target < 1 s.
3. Several hundred XLA-style layout strings (TPU tilings of XLA's
   layout_util / the source document, over shapes of real models): every
   property, first pass in a fresh process and warm.  Target < 2 s.
4. All-shapes proofs: each property of each named-dim catalogue entry, the
   first call in a fresh process (target < 50 ms), and warm.
5. Cold: a fresh ``tilespec prove SHAPE`` (all properties) against
   ``python -c "import numpy, z3"``.  Target <= 2x.
6. Growth against rank (1-8), tile levels (1-4) and the number of distinct
   layouts in a batch (1-10,000), plotted into a PNG.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("TILESPEC_CACHE_DIR", os.path.join(tempfile.gettempdir(),
                                                         "tilespec-bench-cache"))

from tilespec.prover.properties.catalogue import CATALOGUE  # noqa: E402
from tilespec.prover.properties.proof import PROPERTIES, prove  # noqa: E402
from tilespec.spec.index import evaluate, padded_elements, shape_pipeline  # noqa: E402
from tilespec.spec.text import parse_array_shape  # noqa: E402

sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_corpus import CORPUS_DIR, CORPUS_REPEATS, tpu_corpus_figures  # noqa: E402
from bench_prove import IslArithmetic  # noqa: E402
from command_runs import (  # noqa: E402
    fresh_cache_dir,
    fresh_env,
    interleaved,
    median_run,
    run_seconds,
    verdict,
)
from first_proofs import first_all_shapes  # noqa: E402
from target_table import CORES, Tee, markdown  # noqa: E402

REPEATS = 7
PY = sys.executable

LAYOUTS = [
    "f32[1,3,1,5,1,7,2]{6,5,4,3,2,1,0:T(8,128)}",
    "bf16[2,1,4,1,8,1,16,256]{7,6,5,4,3,2,1,0:T(8,128)(2,1)}",
    "f32[1,1,1,1,1,1,1]{0,1,2,3,4,5,6:T(8,128)}",
    "f32[3,5]{1,0:T(2,2)}",
    "f32[3,5]",
    "s32[29360128,10]{1,0:T(8,128)}",
    "bf16[1024,1024]{1,0:T(8,128)(2,1)}",
    "f32[65536,65536]{1,0:T(8,128)}",
    "s8[100,300]{1,0:T(8,128)(4,1)}",
    "f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}",
    "f32[1000]{0:T(256)}",
]


def median_s(fn, repeats=REPEATS) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def us(seconds: float) -> str:
    return f"{seconds * 1e6:9.0f}"


# --- the targets ----------------------------------------------------------------

def compile_tree() -> None:
    """Byte-compile tilespec as an install does (pip writes the .pyc files),
    so that a fresh process is timed loading code, not compiling it (stale
    or missing .pyc files: a checkout just edited, PYTHONDONTWRITEBYTECODE)."""
    import compileall
    for folder in sorted(p for p in ROOT.iterdir() if (p / "__init__.py").is_file()):
        compileall.compile_dir(str(folder), quiet=1)
    compileall.compile_dir(str(ROOT), maxlevels=0, quiet=1)   # the root's own modules


def targets(corpus: Path = CORPUS_DIR, corpus_repeats: int = CORPUS_REPEATS) -> bool:
    """Every target of issue 19, measured in this run; True when all are met."""
    import io

    from tilespec.cli.main import main as cli
    tilespec = [PY, "-m", "tilespec"]
    compile_tree()
    print("Targets (issue 19), medians; every ratio against a bare import measured now")
    results = []
    bare = median_run([PY, "-c", "import numpy, z3"], 7)
    print(f"   bare python -c 'import numpy, z3'                {bare:7.3f} s")

    shape = "bf16[m,n]{1,0:T(8,128)(2,1)}"
    base, first = interleaved([([PY, "-c", "import numpy, z3"], None),
                                (tilespec + ["prove", "--quiet", shape], fresh_env)], 7)
    results.append(first <= 3 * base)
    print(f"T1 first prove, fresh install (empty user cache)   {first:7.3f} s  "
          f"{first / base:5.2f}x bare ({base:.3f} s beside it)  (target <= 3x)  "
          f"{verdict(results[-1])}")

    catalogue = median_run(tilespec + ["prove", "--quiet"], 3, fresh=True)
    results.append(catalogue < 2.0)
    print(f"T2 README catalogue, fresh install                 {catalogue:7.3f} s  "
          f"(target < 2 s)  {verdict(results[-1])}")

    try:
        import islpy  # noqa: F401
        ratios = []
        for text in LAYOUTS:
            s = parse_array_shape(text)
            assert prove(s, "in_bounds").proved and prove(s, "injective").proved, text
            assert isl_check(s), text
            ours = median_s(lambda s=s: (prove(s, "in_bounds"), prove(s, "injective")), 201)
            theirs = median_s(partial(isl_check, s), 21)
            ratios.append(theirs / ours)
            print(f"   {text:58} ours {ours * 1e6:7.1f} us  islpy {theirs * 1e6:8.1f} us  "
                  f"{theirs / ours:6.1f}x")
        results.append(min(ratios) >= 10)
        print(f"T3 warm in_bounds + injective vs islpy, {len(LAYOUTS)} layouts: "
              f"min {min(ratios):.1f}x, median {statistics.median(ratios):.1f}x "
              f"(target >= 10x on every one)  {verdict(results[-1])}")
    except ImportError:
        results.append(False)
        print("T3 islpy not installed (pip install -e '.[bench]'): NOT MEASURED")

    warm_dir = fresh_cache_dir()
    env = dict(os.environ, TILESPEC_CACHE_DIR=warm_dir)
    shape = "bf16[1024,1024]{1,0:T(8,128)(2,1)}"
    run_seconds(tilespec + ["prove", "--quiet", shape], env)
    base, fresh = interleaved([([PY, "-c", "import numpy, z3"], None),
                                (tilespec + ["prove", "--quiet", shape], env)], 9)
    results.append(fresh <= 2 * base)
    print(f"T4 fresh process, tilespec prove {shape}  {fresh:7.3f} s  "
          f"{fresh / base:5.2f}x bare ({base:.3f} s beside it)  (target <= 2x)  "
          f"{verdict(results[-1])}")

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_hlo import module_text
    hlo = Path(warm_dir) / "bench.hlo"
    hlo.write_text(module_text(10000, 200))
    cold_hlo = run_seconds(tilespec + ["check-hlo", str(hlo)], env)
    warm_hlo = statistics.median(run_seconds(tilespec + ["check-hlo", str(hlo)], env)
                                 for _ in range(3))
    results.append(warm_hlo < 3.0)
    print(f"T5 check-hlo, 10,000 instructions: warm {warm_hlo:.2f} s, first {cold_hlo:.2f} s "
          f"(target warm < 3 s)  {verdict(results[-1])}")

    tile = f"f32[3,5,7,9,11]{{4,3,2,1,0:T({','.join(['1'] * 5001)})}}"
    with contextlib.redirect_stdout(io.StringIO()):
        cli(["explain", "f32[3,5]{1,0:T(2,2)}"])        # imports done
        times = []
        for _ in range(5):
            start = time.perf_counter()
            code = cli(["explain", tile])
            times.append(time.perf_counter() - start)
    inside = statistics.median(times)
    wall = median_run(tilespec + ["explain", tile], 3)
    results.append(inside < 1.0 and code == 0)
    print(f"T6 explain, a tile of 5,001 entries: {inside:.3f} s (exit {code}); a fresh "
          f"process {wall:.2f} s wall  (target < 1 s)  {verdict(results[-1])}")
    first_all_shapes(results)
    tpu_corpus_figures(results, corpus, corpus_repeats)
    bytes_on_one_core(results)
    print(f"   {sum(results)} of {len(results)} targets met")
    print(f"   depend on the number of cores ({os.cpu_count()} here): "
          + ", ".join(t for t, cores in CORES.items() if cores.startswith("yes"))
          + "; T10 is pinned to one core; the others run in one process\n")
    return all(results)


def bytes_on_one_core(results: list, mib: int = 256, runs: int = 5) -> None:
    """T10 (issue 35): benchmarks/bench_bytes.py's figures, pinned to one
    CPU: each layout's ``a.copy()`` time over tilespec's, both directions,
    with the interleave that ran (the C kernel or the numpy fallback) and
    numpy's interleave beside it."""
    try:
        from bench_bytes import figures, kernel_status, one_core
    except ImportError as e:               # ml_dtypes comes with jax (the xla extra)
        results.append(False)
        print(f"T10 bytes on one core: {e.name} not installed: NOT MEASURED")
        return
    with one_core() as cpu:
        kernel = kernel_status()
        rows = figures(mib, runs)
    ratio = {(m["shape"], way): m["copy"] / m[way] for m in rows
             for way in ("to", "from", "to_np", "from_np")}
    for m in rows:
        print(f"   {m['shape']:36} a.copy() {m['copy']:6.1f} ms  to {ratio[m['shape'], 'to']:.2f} "
              f"from {ratio[m['shape'], 'from']:.2f}  (numpy interleave: to "
              f"{ratio[m['shape'], 'to_np']:.2f} from {ratio[m['shape'], 'from_np']:.2f})")
    worst = min(ratio[m["shape"], way] for m in rows for way in ("to", "from"))
    results.append(worst >= 0.5)
    print(f"T10 bytes on one core (CPU {cpu}), {len(rows)} layout families x to/from_bytes, "
          f"word interleave: {kernel}: least {worst:.2f} of a.copy() "
          f"(target >= 0.5 each)  {verdict(results[-1])}")


# --- 0 ------------------------------------------------------------------------

def fill_cache():
    start = time.perf_counter()
    for text, _ in CATALOGUE:
        for p in PROPERTIES:
            prove(parse_array_shape(text), p)
    for text in LAYOUTS:
        for p in PROPERTIES:
            prove(parse_array_shape(text), p)
    print(f"0. cache filled ({os.environ['TILESPEC_CACHE_DIR']}): "
          f"{time.perf_counter() - start:.1f} s in this process (theorems proved the first "
          "time only)\n")


# --- 1 ------------------------------------------------------------------------

def isl_check(shape):
    """in_bounds + injective by islpy: the element box's map is injective and
    its range lies in [0, P)."""
    import islpy as isl
    names = [f"e{i}" for i in range(shape.rank)]
    expr = evaluate(shape_pipeline(shape), names, shape.dims, IslArithmetic())
    box = " and ".join(f"0 <= {n} < {b}" for n, b in zip(names, shape.dims)) or "true"
    m = isl.Map(f"{{ [{','.join(names)}] -> [o] : {box} and o = {expr} }}")
    P = padded_elements(shape)
    return m.is_injective() and m.range().is_subset(isl.Set(f"{{ [o] : 0 <= o < {P} }}"))


def warm_properties():
    print(f"1. warm, per property (us, median of {REPEATS}); in_bounds+injective "
          "against islpy")
    try:
        import islpy  # noqa: F401
        have_isl = True
    except ImportError:
        have_isl = False
    props = list(PROPERTIES)
    print(f"{'layout':42}" + "".join(f"{p[:9]:>10}" for p in props)
          + f"{'ib+inj':>10}{'islpy':>10}{'ratio':>8}")
    worst, ratios = 0.0, []
    for text in LAYOUTS:
        shape = parse_array_shape(text)
        row = []
        for p in props:
            assert prove(shape, p).proved, (text, p)
            row.append(median_s(partial(prove, shape, p)))
        worst = max(worst, max(row))
        ours = median_s(lambda shape=shape: (prove(shape, "in_bounds"), prove(shape, "injective")))
        line = f"{text:42}" + "".join(us(t) + " " for t in row) + us(ours) + " "
        if have_isl:
            assert isl_check(shape)
            theirs = median_s(partial(isl_check, shape))
            ratios.append(theirs / ours)
            line += f"{us(theirs)} {theirs / ours:7.1f}x"
        print(line)
    print(f"   slowest property {worst * 1e3:.3f} ms (target <= 0.2 ms)"
          + (f"; islpy / tilespec: min {min(ratios):.1f}x, median "
             f"{statistics.median(ratios):.1f}x (target >= 10x)" if ratios else
             "; islpy not installed") + "\n")


# --- 2, 3 ---------------------------------------------------------------------

XLA_STYLE_TILINGS = {
    1: ["T(128)", "T(256)", "T(512)", "T(1024)", "T(2)(128)", "T(256)(2)"],
    2: ["T(8,128)", "T(8,128)(2,1)", "T(8,128)(4,1)", "T(16,128)(2,1)", "T(32,128)(4,1)",
        "T(4,128)", "T(2,128)", "T(1,128)", "T(8,256)"],
    3: ["T(8,128)", "T(8,128)(2,1)", "T(1,8,128)", "T(*,8,128)"],
    4: ["T(8,128)", "T(8,128)(2,1)", "T(2,8,128)"],
}
XLA_STYLE_DIMS = {
    1: [(1000,), (4096,), (29360128,), (50257,)],
    2: [(29360128, 10), (1024, 1024), (4096, 11008), (128, 50257), (3, 5), (768, 3072)],
    3: [(32, 128, 128), (8, 2048, 128), (12, 64, 64)],
    4: [(8, 32, 128, 128), (2, 12, 64, 64)],
}
TYPES = {"T(8,128)(2,1)": ["bf16", "f16"], "T(16,128)(2,1)": ["bf16"],
         "T(8,128)(4,1)": ["s8", "u8"], "T(32,128)(4,1)": ["s8"]}


def xla_style_layouts() -> list[str]:
    out = []
    for rank, tilings in XLA_STYLE_TILINGS.items():
        m2m = ",".join(str(i) for i in reversed(range(rank)))
        alt = ",".join(str(i) for i in [0] + list(reversed(range(1, rank)))) if rank > 1 else m2m
        for tiling in tilings:
            for dtype in TYPES.get(tiling, ["f32", "s32", "bf16"]):
                for dims in XLA_STYLE_DIMS[rank]:
                    for order in dict.fromkeys((m2m, alt)):
                        out.append(f"{dtype}[{','.join(map(str, dims))}]{{{order}:{tiling}}}")
    return out


_BATCH = """
import sys, time, json
sys.path.insert(0, {root!r})
t0 = time.perf_counter()
from tilespec.prover.properties.proof import PROPERTIES, prove
from tilespec.spec.text import parse_array_shape
texts = json.loads(sys.argv[1])
t1 = time.perf_counter()
bad = []
for t in texts:
    s = parse_array_shape(t)
    for p in PROPERTIES:
        if not prove(s, p).proved:
            bad.append((t, p))
t2 = time.perf_counter()
for t in texts:
    s = parse_array_shape(t)
    for p in PROPERTIES:
        prove(s, p)
t3 = time.perf_counter()
print(json.dumps([t1 - t0, t2 - t1, t3 - t2, bad]))
"""


def batch(title, texts, target):
    """Two fresh processes: the first may prove new signatures (and stores
    them on disk), the second finds them there."""
    import json
    n = len(texts) * len(PROPERTIES)
    print(f"   {title}: {len(texts)} shapes x {len(PROPERTIES)} properties = {n} proofs "
          f"(target < {target})")
    for run in ("1st process", "2nd process"):
        out = subprocess.run([PY, "-c", _BATCH.format(root=str(ROOT)), json.dumps(texts)],
                             capture_output=True, text=True, check=True)
        imp, first, warm, bad = json.loads(out.stdout)
        print(f"      {run}: imports {imp:.2f} s, first pass {first:.3f} s, warm pass "
              f"{warm:.3f} s ({warm / n * 1e6:.0f} us per proof)"
              + (f"; NOT PROVED: {bad[:3]}" if bad else ""))


def catalogue_and_many():
    print("2./3. batches (disk cache filled by section 0)")
    batch("catalogue", [t for t, _ in CATALOGUE], "1 s")
    many = xla_style_layouts()
    batch("XLA-style layout strings", many, "2 s")
    print()


# --- 4 ------------------------------------------------------------------------

_FIRST = """
import sys, time, json
sys.path.insert(0, {root!r})
from tilespec.prover.properties.proof import PROPERTIES, prove
from tilespec.spec.text import parse_array_shape
s = parse_array_shape(sys.argv[1])
out = []
for p in PROPERTIES:
    t = time.perf_counter(); r = prove(s, p); out.append((time.perf_counter() - t, r.status))
print(json.dumps(out))
"""


def all_shapes():
    import json
    entries = [t for t, _ in CATALOGUE if parse_array_shape(t).is_symbolic]
    props = list(PROPERTIES)
    print("4. all-shapes proofs (ms): first calls in a fresh process / warm median")
    print(f"{'shape':32}" + "".join(f"{p[:9]:>14}" for p in props))
    worst_first = worst_warm = 0.0
    for text in entries:
        out = subprocess.run([PY, "-c", _FIRST.format(root=str(ROOT)), text],
                             capture_output=True, text=True, check=True)
        first = json.loads(out.stdout)
        shape = parse_array_shape(text)
        warm = [median_s(partial(prove, shape, p)) for p in props]
        worst_first = max(worst_first, max(t for t, _ in first))
        worst_warm = max(worst_warm, max(warm))
        print(f"{text:32}" + "".join(f"{f * 1e3:7.2f}/{w * 1e3:<6.3f}"
                                     for (f, _), w in zip(first, warm)))
    print(f"   slowest first call {worst_first * 1e3:.1f} ms, slowest warm "
          f"{worst_warm * 1e3:.3f} ms (target < 50 ms)\n")


# --- 5 ------------------------------------------------------------------------

def cold():
    shape = "bf16[1024,1024]{1,0:T(8,128)(2,1)}"
    tilespec = [PY, "-c", f"import sys; sys.path.insert(0, {str(ROOT)!r}); "
                "from tilespec.cli.main import main; sys.exit(main(sys.argv[1:]))"]

    base, prove_all, version, bad = interleaved(
        [([PY, "-c", "import numpy, z3"], None),
         (tilespec + ["prove", "--quiet", shape], None),
         (tilespec + ["--version"], None), (tilespec + ["prove", "f32[3"], None)], 5)
    print("5. cold, fresh processes (median of 5, run in turn, s)")
    print(f"   python -c 'import numpy, z3'        {base:.3f}")
    print(f"   tilespec prove {shape}  {prove_all:.3f}  ({prove_all / base:.2f}x; target <= 2x)")
    print(f"   tilespec --version                  {version:.3f}")
    print(f"   tilespec prove 'f32[3' (bad input)  {bad:.3f}\n")


# --- 6 ------------------------------------------------------------------------

def growth(png: Path, quick: bool):
    props = list(PROPERTIES)

    def per_shape(texts, properties=props):
        shapes = [parse_array_shape(t) for t in texts]
        for s in shapes:        # the first pass proves what is new
            for p in properties:
                prove(s, p)
        return median_s(lambda: [prove(s, p) for s in shapes for p in properties],
                        3 if len(shapes) < 1000 else 1)

    ranks = list(range(1, 9))
    by_rank = []
    for r in ranks:
        dims = ",".join(str(3 + i) for i in range(r))
        m2m = ",".join(str(i) for i in reversed(range(r)))
        tile = "T(8,128)" if r >= 2 else "T(128)"
        by_rank.append(per_shape([f"f32[{dims}]{{{m2m}:{tile}}}"]) / len(props))
    levels = [1, 2, 3, 4]
    tiles = ["T(8,128)", "(2,1)", "(2,1)", "(1,1)"]
    by_level = [per_shape([f"f32[64,256]{{1,0:{''.join(tiles[:k])}}}"]) / len(props)
                for k in levels]
    counts = [1, 10, 100, 1000] + ([] if quick else [10000])
    cited = ["in_bounds", "injective", "bijective", "inverse"]
    by_count, by_count_all = [], []
    for n in counts:
        texts = [f"f32[{5 + i % 97},{7 + i // 97}]{{1,0:T({1 + i % 8},{1 + i // 8 % 64})}}"
                 for i in range(n)]
        by_count.append(per_shape(texts, cited))
        if n <= 100:
            by_count_all.append(per_shape(texts))
    print("6. growth (warm; median of 3, one pass from 1,000 layouts)")
    print("   rank          " + "".join(f"{r:>9}" for r in ranks))
    print("   us/property   " + "".join(us(t) for t in by_rank))
    print("   tile levels   " + "".join(f"{k:>9}" for k in levels))
    print("   us/property   " + "".join(us(t) for t in by_level))
    print("   distinct      " + "".join(f"{n:>9}" for n in counts))
    print("   ms, 4 cited   " + "".join(f"{t * 1e3:9.1f}" for t in by_count))
    print("   ms, all 7     " + "".join(f"{t * 1e3:9.1f}" for t in by_count_all)
          + "   (the 3 others: one Z3 proof per new signature, then cached)")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("   matplotlib not installed: no PNG\n")
        return
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
    axes[0].plot(ranks, [t * 1e6 for t in by_rank], "o-")
    axes[0].set(xlabel="rank", ylabel="us per property (warm)", title="rank")
    axes[1].plot(levels, [t * 1e6 for t in by_level], "o-")
    axes[1].set(xlabel="tile levels", ylabel="us per property (warm)", title="tile levels")
    axes[2].loglog(counts, [t * 1e3 for t in by_count], "o-", label="4 cited properties")
    axes[2].loglog(counts[:len(by_count_all)], [t * 1e3 for t in by_count_all], "s-",
                   label="all 7 properties")
    axes[2].set(xlabel="distinct layouts in a batch", ylabel="ms per batch (warm)",
                title="batch size")
    axes[2].legend()
    for ax in axes:
        ax.grid(True, alpha=0.3)
    for ax in axes[:2]:
        ax.set_ylim(bottom=0)       # flat is flat: no zoom into the noise
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    print(f"   plotted into {png}\n")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--png", type=Path, default=ROOT / "benchmarks" / "bench_speed.png")
    ap.add_argument("--quick", action="store_true", help="batches up to 1,000 layouts")
    ap.add_argument("--targets-only", action="store_true", help="only the targets")
    ap.add_argument("--corpus", type=Path, default=CORPUS_DIR,
                    help="the TPU corpus of T8/T9 (benchmarks/make_tpu_corpus.py)")
    ap.add_argument("--corpus-repeats", type=int, default=CORPUS_REPEATS)
    ap.add_argument("--corpus-only", action="store_true", help="only T8 and T9")
    ap.add_argument("--markdown", action="store_true",
                    help="after the targets, their table for the README's speed section")
    args = ap.parse_args()
    if args.corpus_only:
        corpus_results: list = []
        tpu_corpus_figures(corpus_results, args.corpus, args.corpus_repeats)
        sys.exit(0 if all(corpus_results) else 1)
    if args.markdown:
        tee = Tee(sys.stdout)
        with contextlib.redirect_stdout(tee):
            met = targets(args.corpus, args.corpus_repeats)
        print(markdown("".join(tee.lines)))
    else:
        met = targets(args.corpus, args.corpus_repeats)
    if args.targets_only:
        sys.exit(0 if met else 1)
    fill_cache()
    warm_properties()
    catalogue_and_many()
    all_shapes()
    cold()
    growth(args.png, args.quick)
