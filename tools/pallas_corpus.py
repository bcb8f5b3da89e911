"""Regenerate the recorded Pallas corpus, tests/data/pallas/corpus.json.gz:
a grid of Pallas TPU kernels (copy, add, reduce, transpose, reshape) over
operand shapes, element types and block shapes, each compiled by the real
TPU compiler (libtpu: Pallas's lowering, then Mosaic inside XLA; no TPU is
needed, only a described topology) for several chip generations.  Per kernel
it records whether it compiled, the compiler's message when not, the layouts
XLA chose for the entry parameters and the custom call's operands and result,
and the custom call's ``operand_layout_constraints``.
tests/mosaic/test_mosaic_corpus.py replays it against tilespec's model without libtpu.

    pip install -e '.[tpu]'
    nice -n 10 python tools/pallas_corpus.py                  # 3,584 kernels: ~15 min
    nice -n 10 python tools/pallas_corpus.py --grid layouts --chips v4 v5e v6e   # 324: ~20 min
    nice -n 10 python tools/pallas_corpus.py --grid boundary --chips v4 v5e v5p  # 1,329: ~45 min
    nice -n 10 python tools/pallas_corpus.py --grid issues --chips v4 v5e v6e # 18: ~2 min
    nice -n 10 python tools/pallas_corpus.py --grid offgrid                   # 602: ~10 min
    # jax-ml/jax#34001 under the report's jax[tpu] (0.8.1), later ones, and today's
    # (each ~3 min, one record: topp.json.gz); V: 0.8.1 0.9.0 0.9.2 0.10.0 0.10.1;
    # VENV: a new directory outside the repository, one for each V
    python3 -m venv VENV && VENV/bin/pip install "jax[tpu]==V"
    nice -n 10 python tools/pallas_corpus.py --grid topp --chips v5e --append --python VENV/bin/python
    nice -n 10 python tools/pallas_corpus.py --grid topp --chips v5e --append
    # today's libtpu under the report's jax: a VENV with jax==0.8.1 jaxlib==0.8.1, then
    # pip install --no-deps libtpu==0.0.42.1, and --python VENV/bin/python as above
    python tools/pallas_corpus.py --chips v5e --limit 20 --out one.json.gz

Each chip's kernels are compiled in a worker process (this file with
``--worker``): a compiler abort (a CHECK failure) ends the worker, is
recorded as the kernel's answer (``abort`` with the worker's last words),
and a new worker takes the next kernel.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import subprocess
import sys
import time
from importlib.metadata import version
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tilespec.process import Ended

OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "pallas" / "corpus.json.gz"

#: Chip generation -> the topology its kernels are compiled for (as tilespec.xla.tpu.CHIPS).
CHIPS = {"v4": "v4:2x2x1", "v5e": "v5e:2x2", "v5p": "v5p:2x2x1", "v6e": "v6e:2x2"}

#: XLA's element type name -> numpy (ml_dtypes) name.
DTYPES = {"f32": "float32", "bf16": "bfloat16", "s32": "int32", "s8": "int8", "s4": "int4",
          "f8e4m3fn": "float8_e4m3fn", "f8e5m2": "float8_e5m2", "pred": "bool"}

#: (array shape, block shape) of the 2-D operands: divisible, whole, odd,
#: not dividing the array, zero-size, below and above the native tile.
PAIRS_2D = [
    ((16, 3072), (8, 128)), ((16, 3072), (16, 3072)), ((16, 3072), (4, 128)),
    ((16, 3072), (8, 100)), ((17, 300), (17, 300)), ((17, 300), (8, 128)),
    ((17, 300), (16, 256)), ((24, 256), (8, 256)), ((32, 512), (16, 128)),
    ((32, 512), (32, 128)), ((64, 256), (24, 128)), ((8, 128), (8, 128)),
    ((1, 128), (1, 128)), ((3, 5), (3, 5)), ((0, 128), (0, 128)),
    ((128, 256), (8, 128)), ((40, 384), (40, 128)), ((16, 1024), (16, 640)),
    ((48, 200), (16, 200)), ((64, 256), (64, 256)),
]
#: Rank-1 operands (copy only).
PAIRS_1D = [((1024,), (1024,)), ((1000,), (1000,)), ((2048,), (1024,)), ((4096,), (512,)),
            ((1000,), (128,)), ((0,), (0,)), ((3072,), (384,)), ((8192,), (256,))]
#: Rank-3 operands (copy only); None squeezes the leading block dim.
PAIRS_3D = [((2, 16, 256), (1, 8, 128)), ((2, 16, 256), (None, 16, 256)),
            ((4, 17, 300), (2, 17, 300)), ((2, 24, 128), (1, 12, 128))]

KERNELS = ("copy", "add", "reduce", "transpose", "reshape")

#: The layout grid: a copy whose input XLA is told to give a tiling of its
#: own (jax's ``Format(Layout(..., tiling=...))``), as torch_xla and other
#: frontends do; Mosaic then checks XLA's layout against the one it infers.
LAYOUT_DTYPES = ("f32", "bf16", "s8")
LAYOUT_SHAPES = ((16, 3072), (17, 300), (64, 256))
LAYOUT_ROWS = (None, 1, 2, 4, 8, 16)      # None: the 1-d tile T(128)
LAYOUT_CHIPS = ("v4", "v5e", "v6e")


def layout_grid(chips):
    """The copies with a given input tiling."""
    out = []
    for chip in chips:
        if chip not in LAYOUT_CHIPS:
            continue
        for dtype in LAYOUT_DTYPES:
            packing = {"f32": 1, "bf16": 2, "s8": 4}[dtype]
            for shape in LAYOUT_SHAPES:
                for block in (shape, (min(shape[0], 8), 128)):
                    for rows in LAYOUT_ROWS:
                        tiles = [[128] if rows is None else [rows, 128]]
                        if packing > 1:
                            tiles.append([packing, 1])
                        out.append({"kernel": "copy", "chip": chip, "dtype": dtype,
                                    "shape": list(shape), "block": list(block),
                                    "tiling": tiles})
    return out


#: The boundary grid: neighbours of the kernels the first model got wrong,
#: one dim, block or type varied at a time, to find the rule the compiler
#: follows (-> boundary.json.gz).
BOUNDARY_ROWS = (1, 2, 4, 8, 16, 24, 32, 48, 64, 128)
BOUNDARY_COLS = (128, 256, 512, 1024, 2048, 3072)
#: Columns between those, at 16 rows, to place the boundary exactly.
BOUNDARY_FINE_COLS = (640, 768, 896, 1152, 1280, 1536, 1792, 2304, 4096)
#: Rows around 32 (and multiples of it) for the bool adds.
BOUNDARY_FINE_ROWS = (31, 33, 40, 56, 96, 160, 256)
BOUNDARY_DTYPES = ("s8", "f8e4m3fn", "s4", "pred", "bf16")


def boundary_grid(chips):
    """Whole-array reshapes of packed and bool types over rows x columns, and
    bool adds of (8,128) blocks over array shapes (v5p's XLA aborts on some)."""
    out = []
    for chip in chips:
        for dtype in BOUNDARY_DTYPES:
            cells = [(r, c) for r in BOUNDARY_ROWS for c in BOUNDARY_COLS]
            cells += [(16, c) for c in BOUNDARY_FINE_COLS]
            for r, c in cells:
                out.append({"kernel": "reshape", "chip": chip, "dtype": dtype,
                            "shape": [r, c], "block": [r, c]})
        cells = [(r, c) for r in (8, 16, 24, 32, 48, 64, 128) for c in BOUNDARY_COLS]
        for r, c in cells + [(r, 128) for r in BOUNDARY_FINE_ROWS]:
            for kernel in ("add", "copy"):
                out.append({"kernel": kernel, "chip": chip, "dtype": "pred",
                            "shape": [r, c], "block": [8, 128]})
    return out


#: Kernels after the reports jax-ml/jax#39366 (a gather in a rank-1 block)
#: and jax-ml/jax#34001 (a (1,128) slice of a row broadcast to (8,128)
#: lanes, then a take_along_axis), written from the issues' prose ->
#: issues.json.gz; jax-ml/jax#34001's own kernel is ``--grid topp``.
ISSUE_KERNELS = ("jax-39366-take", "jax-39366-flat-take", "jax-34001-iota", "jax-34001-max",
                 "jax-34001-argmax", "jax-34001-row")


#: jax-ml/jax#34001's top-p kernel, (n, b) as its report tried them: the
#: three it names good and three of those it names bad (-> topp.json.gz).
TOPP_SHAPES = ((128, 128), (128, 193), (137, 256), (128, 256), (128, 384), (256, 256))


def topp_grid(chips):
    """jax-ml/jax#34001's kernel (``jax-34001-topp``) over :data:`TOPP_SHAPES`."""
    return [{"kernel": "jax-34001-topp", "chip": chip, "dtype": "f32", "shape": list(s),
             "block": list(s)} for chip in chips for s in TOPP_SHAPES]


def _build_topp(k):
    """jax-ml/jax#34001's kernel, rebuilt from its report's script: per
    column, the count of rows whose value is below ``p`` (``n - 1`` where
    ``p`` is 1), a (1, b) int32 row broadcast to (n, b), then a gather of
    the (n, b) block along its rows by those indices, tile by tile of
    (8, 128) on the block padded to whole tiles (each 8-row tile of values
    against each 8-row tile of indices, masked), and the values at least
    the gathered threshold kept.  The broadcast row is sliced 128 lanes at
    a time; the report's failing operation is that slice's broadcast."""
    import jax
    import jax.numpy as jnp
    from jax import lax
    from jax.experimental import pallas as pl

    n, b = k["shape"]
    rows, lanes = 8, 128

    def padded(a):
        return jnp.pad(a, [(0, -a.shape[0] % rows), (0, -a.shape[1] % lanes)])

    def gather_rows(values, index):
        # values, index: (N, 128) with N a multiple of 8
        out = []
        for i0 in range(0, index.shape[0], rows):
            it = lax.slice_in_dim(index, i0, i0 + rows, axis=0)
            acc = jnp.zeros((rows, lanes), values.dtype)
            for v0 in range(0, values.shape[0], rows):
                vt = lax.slice_in_dim(values, v0, v0 + rows, axis=0)
                hit = (it >= v0) & (it < v0 + rows)
                acc = jnp.where(hit, jnp.take_along_axis(vt, (it - v0) % rows, axis=0), acc)
            out.append(acc)
        return jnp.concatenate(out, axis=0)

    def body(x_ref, p_ref, o_ref):
        x, p = x_ref[...], p_ref[...]
        below = jnp.sum(x < p[None, :], axis=0, keepdims=True)
        index = jnp.where(p[None, :] == 1.0, n - 1, below)
        vals, idx = padded(x), padded(jnp.broadcast_to(index, (n, b)))
        chunks = [gather_rows(v, i) for v, i in
                  zip(jnp.split(vals, vals.shape[1] // lanes, axis=1),
                      jnp.split(idx, idx.shape[1] // lanes, axis=1))]
        threshold = jnp.concatenate(chunks, axis=1)[:n, :b]
        o_ref[...] = jnp.where(x >= threshold, x, -1e12)
    f = pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct((n, b), jnp.float32))
    return f, [((n, b), jnp.dtype("float32")), ((b,), jnp.dtype("float32"))]


def issue_grid(chips):
    """The kernels of :data:`ISSUE_KERNELS` on each chip."""
    shapes = {"jax-39366-take": [128], "jax-39366-flat-take": [32, 128]}
    return [{"kernel": k, "chip": chip, "dtype": "f32" if "34001" in k else "s32",
             "shape": shapes.get(k, [128, 256]), "block": shapes.get(k, [128, 256])}
            for chip in chips for k in ISSUE_KERNELS]


def _build_issue(k):
    """An issue's kernel: 39366's gathers of a rank-1 f32 payload of 256 by
    s32 offsets of ``shape``; 34001's gathers of (8,128) lanes of an f32
    (n,b) block by a (1,128) slice of a row broadcast to 8 sublanes."""
    import jax
    import jax.numpy as jnp
    from jax.experimental import pallas as pl

    name, shape = k["kernel"], tuple(k["shape"])
    if name.startswith("jax-39366"):
        def body(off_ref, pay_ref, o_ref):
            offsets = off_ref[...]
            if name == "jax-39366-flat-take":
                offsets = offsets.reshape(-1)
            got = jnp.take_along_axis(pay_ref[...], offsets, axis=0)
            o_ref[...] = got.reshape(shape)
        f = pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct(shape, jnp.float32))
        return f, [(shape, jnp.dtype("int32")), ((256,), jnp.dtype("float32"))]
    n, b = shape
    row = {"jax-34001-iota": lambda x: jax.lax.broadcasted_iota(jnp.int32, (1, b), 1),
           "jax-34001-max": lambda x: jnp.max(x, axis=0, keepdims=True).astype(jnp.int32),
           "jax-34001-argmax": lambda x: jnp.argmax(x, axis=0, keepdims=True).astype(jnp.int32),
           "jax-34001-row": lambda x: x[0:1, :].astype(jnp.int32)}[name]

    def body(x_ref, o_ref):
        x = x_ref[...]
        r = row(x)
        for j in range(b // 128):
            lanes = slice(j * 128, (j + 1) * 128)
            idx = jnp.broadcast_to(r[:, lanes], (8, 128)) % 128
            o_ref[0:8, lanes] = jnp.take_along_axis(x[0:8, lanes], idx, axis=1)
    f = pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct(shape, jnp.float32))
    return f, [(shape, jnp.dtype("float32"))]


def grid(chips):
    """Every kernel of the corpus, as the dicts the worker takes."""
    out = []
    for chip in chips:
        for dtype in DTYPES:
            for kernel in KERNELS:
                pairs = list(PAIRS_2D)
                if kernel == "copy":
                    pairs += PAIRS_1D + PAIRS_3D
                for shape, block in pairs:
                    out.append({"kernel": kernel, "chip": chip, "dtype": dtype,
                                "shape": list(shape), "block": list(block)})
    return out


#: The columns of the whole-array copies of the off-grid set: below, at and
#: past 16 (the fewest an 8- or 4-bit input takes the large tiling with)
#: and the large tilings' multiples.
OFFGRID_COLUMNS = (1, 2, 4, 7, 8, 9, 12, 15, 16, 24, 32, 33, 40, 48, 64, 65, 96, 100,
                   127, 128, 129, 200, 216, 256)
#: Rows of those copies, per type (multiples of the large tiling).
OFFGRID_ROWS = {"s8": 64, "s4": 128, "f8e4m3fn": 256}


def _random_kernel(rng, chip):
    """One kernel off the recorded grids: any kind, type, shape and block."""
    def dim(most):
        return rng.choice([rng.randint(1, 40), rng.randint(1, most), 8 * rng.randint(1, 40),
                           128 * rng.randint(1, 12), rng.choice([1, 2, 4, 8, 16, 32, 64, 256, 512])])

    def block(d, lane):
        return rng.choice([d, d, max(1, d // 2), 8, 16, 32, 128, 256, rng.randint(1, d)]
                          + ([128, 256, 384, 512] if lane else []))
    kernel = rng.choice(KERNELS + ("copy",))
    dtype = rng.choice(list(DTYPES))
    rank = rng.choice([1, 2, 2, 3]) if kernel == "copy" else 2
    if rank == 1:
        shape = [dim(5000)]
        blk = [block(shape[0], True)]
    elif rank == 2:
        shape = [dim(300), dim(3000)]
        blk = [block(shape[0], False), block(shape[1], True)]
    else:
        shape = [rng.randint(1, 4), dim(64), dim(600)]
        blk = [rng.choice([None, 1, shape[0]]), block(shape[1], False), block(shape[2], True)]
    return {"kernel": kernel, "chip": chip, "dtype": dtype, "shape": shape, "block": blk}


def offgrid_grid(chips, per_chip=80):
    """Kernels off the other grids (-> offgrid.json.gz): ``per_chip`` random
    ones per chip (seeded by the chip's name), whole-array 8- and 4-bit
    copies over :data:`OFFGRID_COLUMNS`, copies whose block is fewer rows
    than the large tiling, and flattened blocks of one column."""
    import random

    out = []
    for chip in chips:
        rng = random.Random(f"offgrid-{chip}")
        out += [_random_kernel(rng, chip) for _ in range(per_chip)]
        columns = OFFGRID_COLUMNS if chip == "v5e" else (8, 16)
        for dtype, rows in OFFGRID_ROWS.items():
            out += [{"kernel": "copy", "chip": chip, "dtype": dtype, "shape": [rows, c],
                     "block": [rows, c]} for c in columns]
            out += [{"kernel": "copy", "chip": chip, "dtype": dtype, "shape": shape,
                     "block": blk} for shape, blk in
                    (([64, 16], [16, 16]), ([64, 48], [8, 48]), ([128, 96], [16, 96]),
                     ([256, 100], [32, 100]), ([64, 200], [16, 200]), ([128, 40], [64, 40]))]
        for dtype in ("f32", "bf16", "s8", "s4", "pred", "f8e5m2"):
            out += [{"kernel": "reshape", "chip": chip, "dtype": dtype, "shape": shape,
                     "block": blk} for shape, blk in
                    (([1, 1], [1, 1]), ([2, 1], [2, 1]), ([23, 1], [16, 1]),
                     ([256, 1], [128, 1]), ([16, 2], [16, 2]))]
    return out


# --------------------------------------------------------------------- worker

def _cdiv(a, b):
    return -(-a // b) if b else 1


def _build(k):
    """The jitted pallas_call of kernel ``k`` and its argument structs."""
    import jax
    import jax.numpy as jnp
    from jax.experimental import pallas as pl

    if k["kernel"] == "jax-34001-topp":
        return _build_topp(k)
    if k["kernel"].startswith("jax-"):
        return _build_issue(k)
    dtype = jnp.dtype(DTYPES[k["dtype"]])
    shape, block = tuple(k["shape"]), tuple(k["block"])
    sizes = tuple(1 if b is None else b for b in block)
    g = tuple(_cdiv(s, b) for s, b in zip(shape, sizes))
    ident = lambda *i: i  # noqa: E731
    name = k["kernel"]
    if name == "copy":
        def body(x, o):
            o[...] = x[...]
        ins, out_shape, out_block, out_map = [block], shape, block, ident
    elif name == "add":
        def body(x, y, o):
            o[...] = x[...] + y[...]
        ins, out_shape, out_block, out_map = [block, block], shape, block, ident
    elif name == "reduce":
        # every row's max over the whole last dim; the grid walks rows only
        g = (g[0],)
        blk = (block[0], shape[1])

        def body(x, o):
            o[...] = jnp.max(x[...], axis=1, keepdims=True)
        ins, out_shape, out_block = [blk], (shape[0], 1), (block[0], 1)
        ident = out_map = lambda i: (i, 0)  # noqa: E731
    elif name == "transpose":
        def body(x, o):
            o[...] = x[...].T
        ins, out_shape, out_block = [block], shape[::-1], block[::-1]
        out_map = lambda i, j: (j, i)  # noqa: E731
    elif name == "reshape":
        n = block[0] * block[1]

        def body(x, o):
            o[...] = x[...].reshape(n)
        ins, out_shape, out_block = [block], (g[0], g[1], n), (None, None, n)
        out_map = lambda i, j: (i, j, 0)  # noqa: E731
    else:
        raise ValueError(name)
    f = pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct(out_shape, dtype), grid=g,
                       in_specs=[pl.BlockSpec(b, ident) for b in ins],
                       out_specs=pl.BlockSpec(out_block, out_map))
    return f, [(shape, dtype)] * len(ins)


_LAYOUT = re.compile(r"\b([a-z0-9]+\[[0-9,]*\]\{[^}]*\})")


def _layouts(hlo: str) -> dict:
    """XLA's chosen layouts: entry parameters, the custom call's operands
    (by the instructions they name), its result and its constraints."""
    shapes, params, call = {}, [], None
    for line in hlo.splitlines():
        m = re.match(r"\s*(?:ROOT )?%?([\w.\-]+) = (\S+\{[^}]*\}|\S+\[\S*\]) ", line)
        if m:
            shapes[m.group(1)] = m.group(2)
            if " parameter(" in line:
                params.append(m.group(2))
            if 'custom_call_target="tpu_custom_call"' in line:
                call = (m.group(2), line)
    copies = sum(1 for ln in hlo.splitlines() if re.search(r"= \S+ copy\(", ln))
    out = {"parameters": params, "copies": copies}
    if call:
        result, line = call
        args = re.search(r"custom-call\(([^)]*)\)", line).group(1)
        out["operands"] = [shapes.get(a.strip().lstrip("%"), a.strip())
                           for a in args.split(",") if a.strip()]
        out["result"] = result
        c = re.search(r"operand_layout_constraints=\{(.*?)\}, ", line)
        out["constraints"] = _LAYOUT.findall(c.group(1)) if c else []
    return out


def _message(e: Exception) -> str:
    text = str(e)
    keep = [ln for ln in text.splitlines() if ln.strip()]
    return "\n".join(keep[:6])[:1500]


def worker() -> None:  # pragma: no cover - runs in the subprocess
    os.environ.setdefault("ALLOW_MULTIPLE_LIBTPU_LOAD", "1")
    import jax
    import numpy as np
    from jax.experimental import topologies
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

    topo = topologies.get_topology_desc(topology_name=sys.argv[2], platform="tpu")
    mesh = Mesh(np.array(topo.devices[:1]), ("x",))
    s = NamedSharding(mesh, P())
    # Pallas asks the default device which chip it lowers for (tpu_info.get_device_kind)
    jax.config.update("jax_default_device", topo.devices[0])
    for line in iter(sys.stdin.readline, ""):
        k = json.loads(line)
        start = time.perf_counter()
        stage = "lower"
        try:
            f, args = _build(k)
            ins = [s] * len(args)
            if k.get("tiling"):
                from jax.experimental.layout import Format, Layout
                order = tuple(range(len(k["shape"])))
                ins[0] = Format(Layout(order, tiling=tuple(map(tuple, k["tiling"]))), s)
            structs = [jax.ShapeDtypeStruct(sh, dt, sharding=i)
                       for (sh, dt), i in zip(args, ins)]
            lowered = jax.jit(f, in_shardings=tuple(ins), out_shardings=s).trace(
                *structs).lower(lowering_platforms=("tpu",))
            stage = "compile"
            compiled = lowered.compile()
            answer = {"accepted": True, **_layouts(compiled.as_text())}
        except Exception as e:  # the compiler's refusal is the answer
            answer = {"accepted": False, "stage": stage, "error": type(e).__name__,
                      "message": _message(e)}
        answer["seconds"] = round(time.perf_counter() - start, 3)
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


# --------------------------------------------------------------------- parent

def _run_chip(chip, kernels, log, python=None):
    """Answers for ``kernels`` of one chip, a new worker after each abort
    (each worker this file under ``python``, default this interpreter)."""
    # Here, not at the top: the worker (this file with --worker) may run under
    # another venv's interpreter (--python), where tilespec is not installed.
    from tilespec.process import Ended, JsonLinesWorker
    answers = []
    env = dict(os.environ, ALLOW_MULTIPLE_LIBTPU_LOAD="1", TPU_ACCELERATOR_TYPE="",
               PYTHONWARNINGS="ignore")
    with JsonLinesWorker([python or sys.executable, __file__, "--worker", CHIPS[chip]],
                         timeout=None,
                         environment=lambda: env) as worker:
        for i, kernel in enumerate(kernels, 1):
            answer = worker.ask(kernel)
            answers.append(_aborted(answer) if isinstance(answer, Ended) else answer)
            if i % 50 == 0:
                print(f"{chip}: {i}/{len(kernels)}", file=log, flush=True)
    return answers


def _aborted(ended: Ended) -> dict:
    """The answer of a kernel the compiler aborted on: its last words."""
    err = ended.stderr.strip().splitlines()
    words = [ln for ln in err if "Check failed" in ln or "F0000" in ln
             or "Fatal" in ln or "abort" in ln.lower()] or err[-3:]
    return {"accepted": False, "stage": "compile", "error": "abort",
            "message": "\n".join(words[-4:])[:1500]}


def _versions(python=None) -> dict:
    """jax's, jaxlib's and libtpu's versions under ``python`` (default this
    interpreter)."""
    names = ("jax", "jaxlib", "libtpu")
    if python is None:
        return {n: version(n) for n in names}
    code = ("import json; from importlib.metadata import version; "
            f"print(json.dumps({{n: version(n) for n in {names!r}}}))")
    return json.loads(subprocess.run([python, "-c", code], capture_output=True, text=True,
                                     check=True).stdout)


def main(argv=None) -> int:
    if argv is None and len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker()
        return 0
    p = argparse.ArgumentParser(prog="python tools/pallas_corpus.py",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--chips", nargs="+", default=["v4", "v5e", "v6e", "v5p"],
                   choices=sorted(CHIPS))
    p.add_argument("--limit", type=int, default=0, help="only the first N kernels per chip")
    p.add_argument("--grid", choices=("kernels", "layouts", "boundary", "issues", "topp",
                                      "offgrid"),
                   default="kernels",
                   help="kernels: the five kernels over shapes, types and blocks; layouts: "
                        "copies whose input XLA is given a tiling (-> layouts.json.gz); "
                        "boundary: neighbours of the model's old misses (-> boundary.json.gz); "
                        "issues: kernels after jax-ml/jax#39366 and #34001 (-> issues.json.gz); "
                        "topp: jax-ml/jax#34001's own kernel (-> topp.json.gz); "
                        "offgrid: random kernels and the input-tiling and one-column boundaries "
                        "(-> offgrid.json.gz)")
    p.add_argument("--out", type=Path)
    p.add_argument("--python", help="the interpreter whose jax and libtpu compile (another "
                   "venv's, e.g. an older jax[tpu]); default this one")
    p.add_argument("--append", action="store_true",
                   help="keep OUT's records of other libtpu versions and add these")
    args = p.parse_args(argv)
    if args.out is None:
        args.out = OUT if args.grid == "kernels" else OUT.with_name(f"{args.grid}.json.gz")
    start = time.perf_counter()
    versions = _versions(args.python)
    # a record of several compilers names each kernel's
    each = bool(args.python or args.append or args.grid == "topp")
    records = []
    for chip in args.chips:
        kernels = {"layouts": layout_grid, "boundary": boundary_grid, "issues": issue_grid,
                   "topp": topp_grid, "offgrid": offgrid_grid,
                   "kernels": grid}[args.grid]([chip])
        if args.limit:
            kernels = kernels[:args.limit]
        for k, a in zip(kernels, _run_chip(chip, kernels, sys.stderr, args.python)):
            records.append({**k, **a, **({"versions": versions} if each else {})})
    seconds = time.perf_counter() - start
    corpus = {"versions": versions, "topologies": {c: CHIPS[c] for c in args.chips},
              "compile_seconds": round(seconds, 1), "kernels": records}
    if args.append and args.out.exists():
        old = json.load(gzip.open(args.out, "rt"))
        records = [r for r in old["kernels"] if r.get("versions") != versions] + records
        corpus.update(topologies={**old["topologies"], **corpus["topologies"]},
                      compile_seconds=round(old["compile_seconds"] + seconds, 1),
                      kernels=records)
    if each:
        corpus["versions"] = [json.loads(v) for v in sorted(
            {json.dumps(r["versions"], sort_keys=True) for r in records})]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(args.out, "wt", compresslevel=9) as f:
        json.dump(corpus, f, indent=0, sort_keys=True)
    ok = sum(r["accepted"] for r in records)
    print(f"{len(records)} kernels on {len(args.chips)} chips, {ok} accepted, in "
          f"{seconds:.0f} s -> {args.out} ({args.out.stat().st_size // 1024} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
