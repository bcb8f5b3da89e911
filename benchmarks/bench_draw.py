"""How long ``tilespec draw`` takes per figure.  Prints figures; asserts nothing.

    python benchmarks/bench_draw.py [--repeat N]

For each layout: the scene (every number, from the spec), then the SVG, the
HTML page and the PNG (200 dpi, at most 2400 pixels wide) written to a
temporary directory; the median of ``--repeat`` runs after one warm-up (the
first PNG pays for importing matplotlib and loading the font), the PNG's
CPU time (what it costs on a machine nobody else is using), and the file
sizes.  Times are wall-clock seconds unless marked cpu.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from functools import partial
from pathlib import Path

from tilespec.spec.text import parse_array_shape
from tilespec.teach.draw.figure import picture

LAYOUTS = [
    "f32[3,5]{1,0:T(2,2)}",                    # the document's Figure 1
    "bf16[4,8]{1,0:T(2,4)(2,1)}",              # the document's Figure 2
    "bf16[16,256]{1,0:T(8,128)(2,1)}",
    "f32[1024,1024]{1,0:T(8,128)}",
    "f32[4,20,300]{2,1,0:T(8,128)}",           # rank 3
    "s4[16,256]{1,0:T(8,128)(2,1)E(4)}",
    "f32[65536,65536]{1,0:T(8,128)}",
]


def _median(f, repeat: int, clock=time.perf_counter) -> float:
    f()
    times = []
    for _ in range(repeat):
        start = clock()
        f()
        times.append(clock() - start)
    return statistics.median(times)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"load average {load:.1f} on {os.cpu_count()} cores; median of {args.repeat}")
    print(f"{'layout':40} {'scene':>7} {'svg':>7} {'html':>7} {'png':>7} "
          f"{'png cpu':>7} {'svg KB':>7} {'png KB':>7}")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        for text in LAYOUTS:
            shape = parse_array_shape(text)
            pic = picture(shape)
            t_scene = _median(partial(picture, shape), args.repeat)
            t_svg = _median(partial(pic.save, out / "f.svg"), args.repeat)
            t_html = _median(partial(pic.save, out / "f.html"), args.repeat)
            t_png = _median(lambda shape=shape: picture(shape).save(out / "f.png"), args.repeat)
            # CPU time of this process: what the figure costs on an idle machine.
            c_png = _median(lambda shape=shape: picture(shape).save(out / "f.png"), args.repeat,
                            time.process_time)
            print(f"{text:40} {t_scene:7.3f} {t_svg:7.3f} {t_html:7.3f} {t_png:7.3f} "
                  f"{c_png:7.3f} "
                  f"{(out / 'f.svg').stat().st_size / 1000:7.1f} "
                  f"{(out / 'f.png').stat().st_size / 1000:7.1f}")


if __name__ == "__main__":
    main()
