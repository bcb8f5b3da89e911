"""How long ``tilespec check-hlo`` takes on a large module and on a
directory of modules.  Prints figures; asserts nothing.

    python benchmarks/bench_hlo.py [--instructions 25000] [--layouts 200]
        [--modules 100] [--module-instructions 500] [--module-layouts 10]
        [--jobs 2] [--corpus-dir DIR] [--parts module,formats,corpus,isl]

A synthetic module: ``--layouts`` distinct pairs of tiled shapes (reshapes
that are bitcasts, transposes into the layout that keeps the bytes, tiled
reshapes that move bytes, copies), each pair repeated as bitcasts, copies
and transposes until the module has ``--instructions`` instructions.  The
table shows, for growing prefixes of the module, the time to read it, the
time to check it, the decisions made and reused, and the time per
instruction (it falls as repeats are reused) and the process's CPU time
(wall time on a shared machine counts the neighbours too).

The last row checks the whole module again, warm (imports done, Z3 started),
the figure the target of < 3 s is about.

Then ``tilespec check-hlo`` on the module as text, ``--json`` and
``--format sarif``, side by side (the command in this process, warm:
checking and rendering; the target is about the same time in every format).

Then a directory of ``--modules`` modules as an XLA dump names them (each
``--module-instructions`` instructions over its own ``--module-layouts``
distinct questions, generated here; ``--corpus-dir`` keeps it), checked by
the work units of ``check-hlo DIR``: in one process, then in ``--jobs``
processes, wall and CPU time side by side (CPU time includes the worker
processes'; on a shared machine wall time counts the neighbours too).

Then the same distinct bitcasts decided by islpy in one run: each side's
offset as an integer map (quasi-affine: floor division and mod by constants,
written by evaluating the spec's stage pipeline on isl text), the bitcast
holding when the two maps are equal.  Verdicts are compared with tilespec's
(offsets only: isl's maps say nothing of sizes).
"""

from __future__ import annotations

import argparse
import os
import random
import tempfile
import time
from collections import Counter
from pathlib import Path

from tilespec.cli.main import main as tilespec
from tilespec.prover.bitcast import is_bitcast, question
from tilespec.prover.hlo.check import check_module
from tilespec.prover.hlo.corpus import check_files, module_paths
from tilespec.prover.hlo.module import parse_hlo
from tilespec.spec.arith import Arithmetic
from tilespec.spec.index import evaluate, shape_pipeline
from tilespec.spec.text import parse_array_shape


class IslText(Arithmetic):
    """Integers fold; anything else is isl's quasi-affine text."""

    name = "isl"

    def _op(self, a, b, f, text):
        if isinstance(a, int) and isinstance(b, int):
            return f(a, b)
        return text

    def add(self, a, b):
        if a == 0 or b == 0:
            return b if a == 0 else a
        return self._op(a, b, lambda x, y: x + y, f"({a}) + ({b})")

    def mul(self, a, b):
        # isl reads a product only as constant * expression
        if isinstance(a, int) and isinstance(b, int):
            return a * b
        if 0 in (a, b):
            return 0
        if 1 in (a, b):
            return b if a == 1 else a
        c, x = (a, b) if isinstance(a, int) else (b, a)
        return f"{c} * ({x})"

    def floordiv(self, a, b):
        if b == 1:
            return a
        return self._op(a, b, lambda x, y: x // y, f"floor(({a})/{b})")

    def mod(self, a, b):
        if b == 1:
            return 0
        return self._op(a, b, lambda x, y: x % y, f"(({a}) mod {b})")


def isl_same_offsets(src, dst, perm) -> bool:
    import islpy as isl
    ar = IslText()
    q = question(src, dst, perm)
    e = tuple(f"e{i}" for i in range(src.rank))
    box = " and ".join(f"0 <= {x} < {d}" for x, d in zip(e, src.dims)) or "true"
    a = evaluate(shape_pipeline(src), e, src.dims, ar)
    b = evaluate(shape_pipeline(dst), q.pair(e, ar), dst.dims, ar)
    head = "[" + ", ".join(e) + "]"
    ma = isl.Map(f"{{ {head} -> [o] : {box} and o = {a} }}")
    mb = isl.Map(f"{{ {head} -> [o] : {box} and o = {b} }}")
    return ma.is_equal(mb)


def compare_with_isl(n_layouts: int) -> None:
    try:
        import islpy  # noqa: F401
    except ImportError:
        print("islpy is not installed: no comparison")
        return
    qs = [(parse_array_shape(s), parse_array_shape(d), (1, 0) if op == "transpose"
           else (0, 1) if op == "copy" else None) for op, s, d, _ in pairs(n_layouts)]
    t0 = time.process_time()
    ours = [is_bitcast(s, d, "reshape" if p is None else p) for s, d, p in qs]
    t1 = time.process_time()
    theirs = [isl_same_offsets(s, d, p) for s, d, p in qs]
    t2 = time.process_time()
    agree = sum((r.counterexample is None or r.counterexample.side("source").offset is None) == i
                for r, i in zip(ours, theirs) if r.status != "unknown")
    print(f"\n{n_layouts} distinct questions, offsets compared (CPU s): "
          f"tilespec {t1 - t0:.2f}, islpy {t2 - t1:.2f}; "
          f"verdicts on offsets agree on {agree} of {len(qs)}")


def pairs(n: int, seed: int = 0) -> list[tuple[str, str, str, str]]:
    """``n`` distinct (opcode, SRC, DST, attributes) questions."""
    rng = random.Random(seed)
    out, seen = [], set()
    while len(out) < n:
        a = rng.choice((8, 16, 24, 32, 64, 96, 128, 256, 384, 512))
        b = 128 * rng.choice((1, 2, 3, 4, 6, 8, 16))
        t = rng.choice(("f32", "bf16"))
        tile = "T(8,128)" if t == "f32" else "T(8,128)(2,1)"
        kind = rng.choice(("reshape", "reshape", "split", "transpose", "copy"))
        if kind == "reshape":
            q = ("bitcast", f"{t}[{a},{b}]{{1,0:{tile}}}", f"{t}[1,{a},{b}]{{2,1,0:{tile}}}", "")
        elif kind == "split":
            q = ("bitcast", f"{t}[{a},{b}]{{1,0:{tile}}}",
                 f"{t}[{a},{b // 128},128]{{2,1,0:{tile}}}", "")
        elif kind == "transpose":
            q = ("transpose", f"{t}[{a},{b}]{{1,0:{tile}}}", f"{t}[{b},{a}]{{0,1:{tile}}}",
                 ", dimensions={1,0}")
        else:
            q = ("copy", f"{t}[{a},{b}]{{1,0:{tile}}}", f"{t}[{a},{b}]{{0,1}}", "")
        if q not in seen:
            seen.add(q)
            out.append(q)
    return out


def module_text(n_instructions: int, n_layouts: int, seed: int = 0) -> str:
    qs = pairs(n_layouts, seed)
    lines = [f"HloModule bench_{seed}, entry_computation_layout={{()->f32[]}}", "",
             "ENTRY %main () -> f32[] {"]
    params = {}
    k = 0
    while len(lines) - 3 < n_instructions - 1:
        op, src, dst, attrs = qs[k % len(qs)]
        if src not in params:
            params[src] = f"p{len(params)}"
            lines.append(f"  %{params[src]} = {src} parameter({len(params) - 1})")
        lines.append(f"  %i{k} = {dst} {op}(%{params[src]}){attrs}, "
                     f'metadata={{op_name="jit(f)/{op}"}}')
        k += 1
    lines += ["  ROOT %r = f32[] constant(0)", "}"]
    return "\n".join(lines) + "\n"


def cpu_seconds() -> float:
    """CPU time of this process and of its children that have ended."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def one_module(n_instructions: int, n_layouts: int) -> None:
    """The module, cold (the process's first proofs included), then growing
    prefixes, then whole again, warm; each check with a fresh verdict cache."""
    text = module_text(n_instructions, n_layouts)
    print(f"module: {n_instructions} instructions, {n_layouts} distinct questions")
    print(f"{'':>5} {'instructions':>12} {'read s':>8} {'check s':>8} {'decided':>8} "
          f"{'reused':>8} {'ms/instr':>9} {'cpu s':>7} {'status':>8}")
    lines = text.splitlines()
    body = lines[3:-2]
    for label, frac in (("cold", 1.0), ("", 0.1), ("", 0.25), ("", 0.5), ("warm", 1.0)):
        sub = "\n".join(lines[:3] + body[:int(len(body) * frac)] + lines[-2:])
        c0 = time.process_time()
        t0 = time.perf_counter()
        m = parse_hlo(sub)
        t1 = time.perf_counter()
        r = check_module(m)
        t2 = time.perf_counter()
        cpu = time.process_time() - c0
        n = len(m.instructions)
        print(f"{label:>5} {n:>12} {t1 - t0:>8.2f} {t2 - t1:>8.2f} {r.counts['proofs']:>8} "
              f"{r.counts['reused']:>8} {1000 * (t2 - t0) / n:>9.3f} {cpu:>7.2f} "
              f"{r.status:>8}")
    print(f"warm, read and checked: {t2 - t0:.2f} s wall, {cpu:.2f} s CPU (target < 3 s)")


def formats(n_instructions: int, n_layouts: int) -> None:
    """``tilespec check-hlo`` on the module in each output format, warm
    (each format once first), wall and CPU time side by side."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "module.hlo"
        path.write_text(module_text(n_instructions, n_layouts))
        runs = {"text": [], "--json": ["--json"], "sarif": ["--format", "sarif"]}
        for argv in runs.values():
            tilespec(["check-hlo", str(path), *argv, "-o", os.devnull])
        print(f"\ncheck-hlo on the module, warm, by output format (target < 1.5 s "
              f"at 10,000 instructions)\n{'format':>8} {'wall s':>8} {'cpu s':>8}")
        for name, argv in runs.items():
            c0, t0 = time.process_time(), time.perf_counter()
            tilespec(["check-hlo", str(path), *argv, "-o", os.devnull])
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            print(f"{name:>8} {wall:>8.2f} {cpu:>8.2f}")


def write_corpus(directory: Path, n_modules: int, n_instructions: int,
                 n_layouts: int) -> list[str]:
    """``n_modules`` modules named as in an XLA dump, each over its own
    ``n_layouts`` distinct questions (seeded by its number)."""
    directory.mkdir(parents=True, exist_ok=True)
    for k in range(n_modules):
        name = f"module_{k:04d}.jit_bench_{k}.cpu_after_optimizations.txt"
        (directory / name).write_text(module_text(n_instructions, n_layouts, seed=k))
    return module_paths([str(directory)])


def corpus(args) -> None:
    """The directory checked by one process, then by ``--jobs`` processes
    (the work units of ``check-hlo DIR --jobs N``), side by side."""
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(args.corpus_dir or tmp)
        paths = write_corpus(where, args.modules, args.module_instructions,
                             args.module_layouts)
        print(f"\ncorpus: {len(paths)} modules of {args.module_instructions} instructions, "
              f"{args.module_layouts} distinct questions each, in {where}")
        print(f"{'jobs':>6} {'wall s':>8} {'cpu s':>8} {'modules/s':>10}  statuses")
        figures = {}
        for jobs in dict.fromkeys((1, args.jobs)):
            c0, t0 = cpu_seconds(), time.perf_counter()
            results = check_files(paths, jobs=jobs)
            wall, cpu = time.perf_counter() - t0, cpu_seconds() - c0
            statuses = Counter(r.status for r in results)
            figures[jobs] = wall, [r.status for r in results]
            print(f"{jobs:>6} {wall:>8.2f} {cpu:>8.2f} {len(paths) / wall:>10.2f}  "
                  + ", ".join(f"{n} {s}" for s, n in sorted(statuses.items())))
        if len(figures) == 2:
            (w1, s1), (wn, sn) = figures[1], figures[args.jobs]
            print(f"--jobs {args.jobs}: {w1 / wn:.2f}x the single process "
                  f"(target < 60 s); same verdicts: {s1 == sn}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--instructions", type=int, default=25000)
    p.add_argument("--layouts", type=int, default=200)
    p.add_argument("--modules", type=int, default=100, help="modules in the corpus")
    p.add_argument("--module-instructions", type=int, default=500)
    p.add_argument("--module-layouts", type=int, default=10)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--corpus-dir", help="write the corpus here and keep it "
                   "(then: tilespec check-hlo DIR --jobs N)")
    p.add_argument("--parts", default="module,formats,corpus,isl",
                   help="which figures, comma-separated (default %(default)s)")
    args = p.parse_args()
    parts = set(args.parts.split(","))
    if "module" in parts:
        one_module(args.instructions, args.layouts)
    if "formats" in parts:
        formats(args.instructions, args.layouts)
    if "corpus" in parts:
        corpus(args)
    if "isl" in parts:
        compare_with_isl(args.layouts)


if __name__ == "__main__":
    main()
