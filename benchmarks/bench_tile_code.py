"""How fast the generated C ``tile``/``untile`` run, beside ``memcpy`` of the
same bytes.  Prints figures; asserts nothing.

    python benchmarks/bench_tile_code.py [--mib 64] [--repeat 5] [--opt -O2]

For each layout the code of ``tilespec codegen --c`` is compiled (named
dims, so the sizes are parameters as a user would have them) into one shared
library with a ``memcpy`` of the logical bytes, called through ctypes on
arrays of about ``--mib`` MiB, and checked once against the generated
Python (numpy) before it is timed.  Medians of ``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import ctypes
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from tilespec.codegen import tile_code
from tilespec.spec.text import parse_array_shape

#: (layout, bytes per element in the logical array, its numpy dtype)
LAYOUTS = [
    ("f32[m,n]{1,0:T(8,128)}", 4, np.uint32),
    ("bf16[m,n]{1,0:T(8,128)(2,1)}", 2, np.uint16),
    ("s8[m,n]{1,0:T(32,128)(4,1)}", 1, np.uint8),
    ("s4[m,n]{1,0:T(8,128)(2,1)E(4)}", 1, np.uint8),
]


def build(directory: Path, opt: str) -> ctypes.CDLL:
    parts = ["#include <string.h>", "#include <stdint.h>",
             "void copy(const uint8_t *a, uint8_t *b, int64_t n) { memcpy(b, a, n); }"]
    for k, (text, _, _) in enumerate(LAYOUTS):
        (directory / f"l{k}.c").write_text(tile_code.c_source(parse_array_shape(text)))
        names = ("offset", "tile_bytes", "tile", "untile")
        parts += [f"#define {n} {n}_{k}" for n in names]
        parts += [f'#include "l{k}.c"'] + [f"#undef {n}" for n in names]
    (directory / "all.c").write_text("\n".join(parts) + "\n")
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        raise SystemExit("no C compiler")
    subprocess.run([cc, "-std=c99", *opt.split(), "-shared", "-fPIC", str(directory / "all.c"),
                    "-o", str(directory / "lib.so")], check=True)
    return ctypes.CDLL(str(directory / "lib.so"))


def median_seconds(repeat: int, fn, *args) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mib", type=int, default=64)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--opt", default="-O2")
    args = p.parse_args()
    ptr = ctypes.c_void_p
    with tempfile.TemporaryDirectory() as tmp:
        lib = build(Path(tmp), args.opt)
        print(f"{'layout':34} {'MiB':>5} {'memcpy':>8} {'tile':>8} {'untile':>8}"
              f" {'tile/memcpy':>12} {'untile/memcpy':>14}")
        for k, (text, width, dtype) in enumerate(LAYOUTS):
            n = 1024
            m = args.mib * 2**20 // (width * n)
            a = (np.arange(m * n) % 7).astype(dtype).reshape(m, n)   # fits s4 too
            size_fn = getattr(lib, f"tile_bytes_{k}")
            size_fn.restype = ctypes.c_int64
            size = size_fn(ctypes.c_int64(m), ctypes.c_int64(n))
            image = np.empty(size, np.uint8)
            back = np.empty_like(a)
            dims = (ctypes.c_int64(m), ctypes.c_int64(n))
            tile, untile = getattr(lib, f"tile_{k}"), getattr(lib, f"untile_{k}")
            pad = ctypes.c_uint8(0) if width == 1 else (
                ctypes.c_uint16(0) if width == 2 else ctypes.c_uint32(0))
            tile(a.ctypes.data_as(ptr), image.ctypes.data_as(ptr), pad, *dims)
            want = tile_code.python_functions(parse_array_shape(text)).tile(a)
            assert image.tobytes() == want.tobytes(), text
            copy_out = np.empty(a.nbytes, np.uint8)
            n_bytes = ctypes.c_int64(a.nbytes)
            src, out = a.ctypes.data_as(ptr), copy_out.ctypes.data_as(ptr)
            img, dst = image.ctypes.data_as(ptr), back.ctypes.data_as(ptr)
            t_copy = median_seconds(args.repeat, lib.copy, src, out, n_bytes)
            t_tile = median_seconds(args.repeat, tile, src, img, pad, *dims)
            t_untile = median_seconds(args.repeat, untile, img, dst, *dims)
            assert back.tobytes() == a.tobytes()
            mib = a.nbytes / 2**20
            print(f"{text:34} {mib:5.0f} {t_copy * 1e3:6.1f}ms {t_tile * 1e3:6.1f}ms "
                  f"{t_untile * 1e3:6.1f}ms {t_tile / t_copy:11.1f}x {t_untile / t_copy:13.1f}x")


if __name__ == "__main__":
    main()
