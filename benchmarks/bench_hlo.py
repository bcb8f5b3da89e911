"""How long ``tilespec check-hlo`` takes on large modules.  Prints figures;
asserts nothing.

    python benchmarks/bench_hlo.py [--instructions 10000] [--layouts 200]

A synthetic module: ``--layouts`` distinct pairs of tiled shapes (reshapes
that are bitcasts, transposes into the layout that keeps the bytes, tiled
reshapes that move bytes, copies), each pair repeated as bitcasts, copies
and transposes until the module has ``--instructions`` instructions.  The
table shows, for growing prefixes of the module, the time to read it, the
time to check it, the decisions made and reused, and the time per
instruction (it falls as repeats are reused) and the process's CPU time
(wall time on a shared machine counts the neighbours too).

Then the same distinct bitcasts decided by islpy in one run: each side's
offset as an integer map (quasi-affine: floor division and mod by constants,
written by evaluating the spec's stage pipeline on isl text), the bitcast
holding when the two maps are equal.  Verdicts are compared with tilespec's
(offsets only: isl's maps say nothing of sizes).
"""

from __future__ import annotations

import argparse
import random
import time

from tilespec.prover.bitcast.decide import is_bitcast
from tilespec.prover.bitcast.reading import question
from tilespec.prover.hlo.check import check_module
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


def module_text(n_instructions: int, n_layouts: int) -> str:
    qs = pairs(n_layouts)
    lines = ["HloModule bench, entry_computation_layout={()->f32[]}", "",
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


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--instructions", type=int, default=10000)
    p.add_argument("--layouts", type=int, default=200)
    args = p.parse_args()
    text = module_text(args.instructions, args.layouts)
    print(f"module: {args.instructions} instructions, {args.layouts} distinct questions")
    print(f"{'instructions':>12} {'read s':>8} {'check s':>8} {'decided':>8} "
          f"{'reused':>8} {'ms/instr':>9} {'cpu s':>7} {'status':>8}")
    lines = text.splitlines()
    body = lines[3:-2]
    # the whole module first, cold (the process's first proofs included),
    # then growing prefixes, each with a fresh cache
    for frac in (1.0, 0.1, 0.25, 0.5, 1.0):
        sub = "\n".join(lines[:3] + body[:int(len(body) * frac)] + lines[-2:])
        c0 = time.process_time()
        t0 = time.perf_counter()
        m = parse_hlo(sub)
        t1 = time.perf_counter()
        r = check_module(m)
        t2 = time.perf_counter()
        cpu = time.process_time() - c0
        n = len(m.instructions)
        print(f"{n:>12} {t1 - t0:>8.2f} {t2 - t1:>8.2f} {r.counts['proofs']:>8} "
              f"{r.counts['reused']:>8} {1000 * (t2 - t0) / n:>9.3f} {cpu:>7.2f} "
              f"{r.status:>8}")
    compare_with_isl(args.layouts)


if __name__ == "__main__":
    main()
