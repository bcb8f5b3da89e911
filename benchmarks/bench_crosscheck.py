"""A cvc5 cross-check campaign.  Prints figures; asserts nothing but agreement.

    python benchmarks/bench_crosscheck.py [--layouts N] [--seed S] [--timeout T]

Draws N small layouts as the differential suite does (ranks 0-3, up to two
tiling levels, some with a deliberately broken stage), decides every
property of each with every Z3 sat/unsat answer re-checked by cvc5
(:func:`tilespec.prover.core.crosscheck.cross_checking`), then the all-shapes
bitcast questions of ``bench_bitcast.py``.  Prints the verdicts, the
answers re-checked, cvc5's unknowns, the disagreements (a disagreement
stops the run with SolverDisagreement) and the time with and without the
cross-check.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from hypothesis import (  # noqa: E402
    HealthCheck,
    given,
    settings,
    strategies as st,  # noqa: E402
)
from mutants import mutate  # noqa: E402

from tilespec.prover.bitcast import prove_reading  # noqa: E402
from tilespec.prover.core.crosscheck import cross_checking  # noqa: E402
from tilespec.prover.properties.proof import PROPERTIES, prove  # noqa: E402
from tilespec.spec.text import parse_array_shape  # noqa: E402
from tilespec.testing import shapes_with_layout  # noqa: E402

BITCASTS = [
    ("f32[m,n]{1,0:T(8,128)}", "f32[1,m,n]{2,1,0:T(8,128)}", None),
    ("f32[m,n]{1,0:T(8,128)}", "f32[m,n,1]{2,1,0:T(8,128)}", None),
    ("f32[m,6]{1,0}", "f32[m,2,3]{2,1,0}", None),
    ("bf16[m,n]{1,0:T(8,128)(2,1)}", "bf16[m,1,n]{2,1,0:T(8,128)(2,1)}", None),
    ("f32[2,m]{1,0}", "f32[m,2]{0,1}", None),
    ("f32[m,4]{1,0}", "f32[m,4]{0,1}", None),
]


def draw_layouts(n: int, seed: int):
    """``n`` (shape, broken-stage kind) pairs, reproducibly."""
    out = []

    @settings(max_examples=n, database=None, derandomize=True, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(s=shapes_with_layout(max_rank=3, max_dim=7, max_tiles=2, max_elements=256),
           kind=st.sampled_from([None, "off_by_one", "floor", "swap"]))
    def collect(s, kind):
        out.append((s, kind))
    collect()
    random.Random(seed).shuffle(out)
    return out[:n]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--layouts", type=int, default=60)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=10.0)
    args = ap.parse_args()
    cases = draw_layouts(args.layouts, args.seed)
    verdicts, answers, unknown, seconds = Counter(), Counter(), Counter(), {}
    for checked in (False, True):
        start = time.perf_counter()
        for s, kind in cases:
            stages = mutate(s, kind) if kind else None
            for prop in PROPERTIES:
                if checked:
                    with cross_checking() as record:
                        r = prove(s, prop, stages=stages, timeout=args.timeout)
                    answers["checked"] += record.checked
                    answers["agreed"] += record.agreed
                    unknown.update(record.unknown)
                    verdicts[r.status] += 1
                else:
                    prove(s, prop, stages=stages, timeout=args.timeout)
        for src, dst, p in BITCASTS:
            a, b = parse_array_shape(src), parse_array_shape(dst)
            if checked:
                with cross_checking() as record:
                    r = prove_reading(a, b, p, timeout=args.timeout)
                answers["checked"] += record.checked
                answers["agreed"] += record.agreed
                unknown.update(record.unknown)
                verdicts[r.status] += 1
            else:
                prove_reading(a, b, p, timeout=args.timeout)
        seconds[checked] = time.perf_counter() - start
    print(f"{len(cases)} layouts x {len(PROPERTIES)} properties + {len(BITCASTS)} "
          f"all-shapes bitcasts: {sum(verdicts.values())} verdicts {dict(verdicts)}")
    print(f"Z3 answers re-checked by cvc5: {answers['checked']}, agreed {answers['agreed']}, "
          f"unknown to cvc5 {sum(unknown.values())} {dict(unknown)}, disagreements 0")
    print(f"time: {seconds[False]:.1f} s without the cross-check, "
          f"{seconds[True]:.1f} s with it")


if __name__ == "__main__":
    main()
