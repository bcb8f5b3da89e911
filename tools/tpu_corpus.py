"""Regenerate the recorded TPU corpus, tests/data/tpu/corpus.json.gz: every
program of ``tilespec.xla.tpu.PROGRAMS`` compiled by the TPU compiler
(libtpu, no TPU needed) for each chip, with its truth -- the compiler's
memory figures (argument, output, alias, temp and generated-code bytes),
the chip, the topology and the program's name -- and the versions that
answered.  tests/xla/test_tpu_corpus.py replays it without libtpu.

    pip install -e '.[tpu]'
    python tools/tpu_corpus.py                      # the five chips: ~1 minute
    python tools/tpu_corpus.py --chips v5e --program reshape_1000 --out one.json.gz
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from importlib.metadata import version
from pathlib import Path

from tilespec.xla import tpu

OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "tpu" / "corpus.json.gz"
CHIPS = tuple(tpu.CHIPS)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python tools/tpu_corpus.py", description=__doc__.split(
        "\n\n")[0])
    p.add_argument("--chips", nargs="+", default=list(CHIPS), choices=sorted(tpu.CHIPS))
    p.add_argument("--program", action="append", choices=sorted(tpu.PROGRAMS),
                   help="only this program (repeatable; default: all)")
    p.add_argument("--out", type=Path, default=OUT)
    args = p.parse_args(argv)
    start = time.perf_counter()
    modules = tpu.compile_tpu(args.program or list(tpu.PROGRAMS), args.chips)
    seconds = time.perf_counter() - start
    corpus = {
        "versions": {n: version(n) for n in ("jax", "jaxlib", "libtpu")},
        "compile_seconds": round(seconds, 1),
        "modules": [{"program": m.program, "chip": m.chip, "topology": tpu.CHIPS[m.chip],
                     "description": tpu.PROGRAMS[m.program], "figures": m.figures,
                     "hlo": m.hlo} for m in modules],
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(args.out, "wt", compresslevel=9) as f:
        json.dump(corpus, f, indent=1, sort_keys=True)
    print(f"{len(modules)} modules of {len(set(m.program for m in modules))} programs on "
          f"{len(args.chips)} chips in {seconds:.0f} s -> {args.out} "
          f"({args.out.stat().st_size // 1024} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
