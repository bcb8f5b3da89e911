"""Write a corpus of real TPU modules of large programs, for the corpus
figures of benchmarks/bench_speed.py (issue 35: 1,000,000 instructions in
100 modules checked by ``tilespec check-hlo DIR --jobs 2`` under 30 s).

Each module is what the TPU compiler (libtpu, no TPU needed) makes of a
transformer train step (8-10 layers, about 10,000 instructions) -- loss, ``value_and_grad`` and an SGD update over
unrolled pre-norm bf16 blocks -- for one chip of :data:`tilespec.xla.tpu.CHIPS`,
compiled by :func:`tilespec.xla.jax_adapter.compile_for_tpu` (the same path
as tools/tpu_corpus.py).  Programs differ in depth (layers), width, sequence
length and whether they are sharded over a 2x2 mesh, so the modules are
not copies of each other.  The files are named as XLA's dump names them
(``module_NNNN.<name>.tpu_after_optimizations.txt``), so check-hlo picks
them out of the directory; they go OUTSIDE git (tens of MB).

    pip install -e '.[tpu]'
    ALLOW_MULTIPLE_LIBTPU_LOAD=1 python benchmarks/make_tpu_corpus.py DIR
    python benchmarks/make_tpu_corpus.py DIR --modules 10 --instructions 100000
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("ALLOW_MULTIPLE_LIBTPU_LOAD", "1")


def train_step(layers: int, d: int, heads: int):  # pragma: no cover - needs jax
    """A ``layers``-deep pre-norm transformer's SGD step: the blocks are a
    Python loop, so every layer's forward and backward instructions appear in
    the module (``lax.scan`` would fold them into one while body)."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    def layer_norm(x, g, b):
        m = x.mean(-1, keepdims=True)
        v = ((x - m) ** 2).mean(-1, keepdims=True)
        return (x - m) * lax.rsqrt(v + 1e-6) * g + b

    def attention(x, wq, wk, wv, wo):
        bt, s, _ = x.shape
        split = lambda t: t.reshape(bt, s, heads, d // heads).transpose(0, 2, 1, 3)
        q, k, v = split(x @ wq), split(x @ wk), split(x @ wv)
        w = jax.nn.softmax(q @ k.transpose(0, 1, 3, 2) / (d // heads) ** 0.5, axis=-1)
        return (w @ v).transpose(0, 2, 1, 3).reshape(bt, s, d) @ wo

    def model(ws, x):
        for wq, wk, wv, wo, w1, w2, g1, b1, g2, b2 in ws:
            x = x + attention(layer_norm(x, g1, b1), wq, wk, wv, wo)
            x = x + jax.nn.gelu(layer_norm(x, g2, b2) @ w1) @ w2
        return x

    def step(ws, x, y):
        loss = lambda ws: jnp.mean((model(ws, x).astype(jnp.float32) - y) ** 2)
        value, g = jax.value_and_grad(loss)(ws)
        return value, jax.tree.map(lambda w, gw: w - 0.01 * gw.astype(w.dtype), ws, g)

    return step


def program(layers: int, d: int, seq: int, sharded: bool):
    """``(function, argument specs, result partition, devices)`` as in
    :mod:`tilespec.xla.tpu_programs`."""
    heads = max(1, d // 64)
    batch = 8 if sharded else 2
    col, row = ((None, "y"), ("y", None)) if sharded else (None, None)
    data = ("x", None, None) if sharded else None

    def a(dims, dtype="bfloat16", part=None):
        return (tuple(dims), dtype, part)

    layer = ((a((d, d), part=col),) * 3 + (a((d, d), part=row), a((d, 4 * d), part=col),
                                           a((4 * d, d), part=row)) + (a((d,)),) * 4)
    specs = ((layer,) * layers, a((batch, seq, d), part=data),
             a((batch, seq, d), "float32", data))
    # Results replicated: the sharded step ends in all-gathers of its update.
    return train_step(layers, d, heads), specs, None, 4 if sharded else 1


def variants():
    """An endless walk over distinct (layers, d, seq, sharded, chip): deep
    programs first, every chip of each before the next program; each round
    over the shapes doubles the sequence length."""
    from tilespec.xla.tpu import CHIPS
    # About 1,150 instructions a layer: nine layers make the 10,000 of an
    # average module of the corpus.
    shapes = [(9, 128, 32, False), (9, 256, 64, True), (10, 128, 64, True),
              (9, 256, 32, False), (8, 384, 32, False), (8, 128, 128, True),
              (10, 128, 32, True), (9, 256, 64, False)]
    for round_ in itertools.count():
        for layers, d, seq, sharded in shapes:
            for chip in CHIPS:
                yield layers, d, seq << round_, sharded, chip


def instructions(hlo: str) -> int:
    """Lines of the module that define an instruction (``%x = ...``)."""
    return sum(1 for line in hlo.splitlines() if " = " in line and not line.startswith(
        ("HloModule", "//")))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python benchmarks/make_tpu_corpus.py",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("out", type=Path, help="directory to write (outside git)")
    p.add_argument("--modules", type=int, default=100)
    p.add_argument("--instructions", type=int, default=1_000_000,
                   help="stop when the corpus holds this many and --modules are written")
    p.add_argument("--first", type=int, default=1,
                   help="start at this module number (a second process can write the "
                        "second half into the same directory)")
    args = p.parse_args(argv)
    from tilespec.xla.jax_adapter import compile_for_tpu
    from tilespec.xla.tpu import CHIPS
    args.out.mkdir(parents=True, exist_ok=True)
    total, start, index = 0, time.perf_counter(), []
    for number, (layers, d, seq, sharded, chip) in enumerate(variants(), 1):
        if number < args.first:
            continue
        name = f"train_{layers}l_d{d}_s{seq}{'_sharded' if sharded else ''}_{chip}"
        hlo, figures = compile_for_tpu(*program(layers, d, seq, sharded), CHIPS[chip])
        path = args.out / f"module_{number:04d}.{name}.tpu_after_optimizations.txt"
        path.write_text(hlo)
        n = instructions(hlo)
        total += n
        index.append({"file": path.name, "chip": chip, "layers": layers, "d": d, "seq": seq,
                      "sharded": sharded, "instructions": n, "figures": figures})
        print(f"{number:4d} {name:44} {n:7d} instructions  total {total:9d}  "
              f"{time.perf_counter() - start:6.0f} s", flush=True)
        if number >= args.modules and total >= args.instructions:
            break
    from importlib.metadata import version
    (args.out / "corpus.json").write_text(json.dumps({
        "versions": {n: version(n) for n in ("jax", "jaxlib", "libtpu")},
        "instructions": total, "modules": index}, indent=1))
    print(f"{len(index)} modules, {total} instructions in "
          f"{time.perf_counter() - start:.0f} s -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
