"""T7 of benchmarks/bench_speed.py (issue 35): the first all-shapes proof
of a layout of the covered class (prover/properties/covered.py), every
property, in a process with an empty user cache, where every proof is a
citation of the theorems shipped with tilespec."""

from __future__ import annotations

import subprocess
import sys

from command_runs import fresh_env, interleaved, verdict

PY = sys.executable


#: Layouts of the covered class (prover/properties/covered.py) that no
#: catalogue entry shares a signature with: rank 6, '*', E(n), L(n), tile
#: sizes no catalogue entry has, named and concrete dims.
COVERED = ["f32[a,b]{0,1:T(3,5)(2,1,1,1)}", "u8[a,b,c,d]{3,1,2,0:T(32,128)(4,1)}",
           "f32[a,b,c,d,e,f]{2,5,0,4,1,3:T(*,3,*,7)(2,*,2,5)(*,*,*,3)}",
           "s4[a,b,c,d,e,f]{5,4,3,2,1,0:T(8,128)(2,1)(4,4,4,4)E(4)}",
           "bf16[a,b,c,d,e,f]{5,3,1,0,2,4:T(*,8,*,128)(2,1)(*,*,*,2)}",
           "s4[m,n,k]{0,2,1:T(*,16,128)(4,1)E(4)}", "u2[n]{0:T(512)(4,1)L(2048)E(2)}",
           "f32[7,9,11]{2,1,0:T(3,*,5)(2,2)}"]

#: Every property T7 times (prover/names.py's, in its order).
T7_PROPERTIES = ("bijective", "inverse", "injective", "in_bounds", "formula_equals_prt",
                 "combine_equals_reshape", "packing")


def first_all_shapes(results: list) -> None:
    """T7 (issue 35): the first all-shapes proof of a layout of the covered
    class, in a process with an empty user cache (only the shipped proofs):
    each property's own time (every one a citation of shipped theorems), and
    a fresh process's wall time beside a bare import."""
    code = ("import sys, time\n"
            "from tilespec.spec.text import parse_array_shape as p\n"
            "from tilespec.prover.properties.proof import prove\n"
            "prove(p('f32[3,5]'), 'bijective')\n"
            "s = p(sys.argv[1])\n"
            f"for prop in {T7_PROPERTIES!r}:\n"
            "    t = time.perf_counter(); r = prove(s, prop)\n"
            "    print(prop, r.status, time.perf_counter() - t)\n")
    worst: dict[str, tuple[float, str]] = {}
    for text in COVERED:
        out = subprocess.run([PY, "-c", code, text], capture_output=True, text=True,
                             env=fresh_env(), check=True).stdout.split()
        for prop, status, secs in zip(out[::3], out[1::3], out[2::3]):
            assert status == "proved", (text, prop, status)
            worst[prop] = max(worst.get(prop, (0.0, "")), (float(secs), text))
    slowest = max(worst.values())
    tilespec = [PY, "-m", "tilespec", "prove", "--quiet", COVERED[0], "--property", "bijective"]
    base, fresh = interleaved([([PY, "-c", "import numpy, z3"], None),
                                (tilespec, fresh_env)], 5)
    results.append(slowest[0] < 0.05)
    print(f"T7 first all-shapes proof, empty cache, {len(COVERED)} covered layouts x "
          f"{len(T7_PROPERTIES)} properties: slowest {slowest[0] * 1e3:.1f} ms "
          f"({slowest[1]}; target < 50 ms); per property "
          + ", ".join(f"{p} {worst[p][0] * 1e3:.1f}" for p in T7_PROPERTIES)
          + f" ms; fresh `tilespec prove {COVERED[0]} --property bijective` {fresh:.3f} s "
          f"({fresh / base:.2f}x bare import {base:.3f} s)  {verdict(results[-1])}")
