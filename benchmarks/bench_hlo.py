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
"""

from __future__ import annotations

import argparse
import random
import time

from tilespec.prover.hlo_check import check_module
from tilespec.spec.hlo import parse_hlo


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


if __name__ == "__main__":
    main()
