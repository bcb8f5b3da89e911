"""What a compiler really emits: optimised HLO modules of varied jax programs,
compiled by real XLA (jaxlib, CPU), to check ``tilespec check-hlo`` against.

:data:`PROGRAMS` names the programs (an MLP, attention with reshapes and
transposes, a convnet, scan and while loops, int8/int4 and quantized matmuls,
explicit tiled and column-major ``Format`` layouts, a small transformer and
its training step, programs sharded over four CPU devices); each is jitted,
lowered and compiled, and its ``compiled.as_text()`` is the module XLA runs.
:func:`generate` compiles them in one subprocess (started with
``--xla_force_host_platform_device_count=4``, which must be set before jax
starts; an XLA abort costs that subprocess, not the caller).

:func:`memory_agrees` asks the device the other question, for untiled
layouts: jax places an array of labels with the operand's layout and the
result of a reading (a reshape, a transpose, a TRT) of it with the result's
layout, and the raw bytes of the two device buffers are compared.  This is
the device's own answer to "does this bitcast keep every byte in place",
independent of tilespec's index arithmetic.

``python -m tilespec.xla.dumps DIR`` writes ``DIR/NAME.txt`` for every
program (``--program NAME`` to choose).

>>> sorted(PROGRAMS)[:3]
['attention', 'attention_grad', 'bf16_einsum']
>>> len(PROGRAMS) >= 15
True
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from .compiled import INSTALL_HINT, XlaUnavailable, available

#: Program name -> what it is.
PROGRAMS = {
    "mlp": "3-layer MLP, f32",
    "mlp_train": "MLP training step: value_and_grad and an SGD update",
    "attention": "multi-head attention: reshapes into heads and transposes",
    "attention_grad": "gradient of multi-head attention",
    "convnet": "NHWC convolutions, pooling, flatten, dense",
    "convnet_grad": "gradient of the convnet",
    "scan_rnn": "an RNN over time with lax.scan",
    "while_loop": "power iteration with lax.while_loop and reshapes inside",
    "int8_matmul": "int8 x int8 -> int32 matmul of reshaped operands",
    "int4_matmul": "int4 weights unpacked and multiplied, bf16 activations",
    "quantized_linear": "per-channel int8 quantize, integer matmul, dequantize",
    "tiled_format": "reshapes and transposes between explicit tiled Format layouts",
    "tiled_bf16": "a bf16 layer with T(8,128)(2,1) Format layouts",
    "column_major": "untiled non-default Format layouts ({0,1}, {0,2,1})",
    "transformer": "2-layer transformer: layer norm, attention, MLP",
    "transformer_train": "training step of the 2-layer transformer",
    "sharded_mlp": "MLP sharded over a 2x2 mesh of CPU devices (data x model)",
    "sharded_attention": "attention with heads sharded by shard_map over 4 devices",
    "vmap_batched": "a per-example function vmapped over a batch",
    "bf16_einsum": "bf16 einsums with head transposes and a reduction",
}
#: CPU devices the subprocess creates (the sharded programs need them).
DEVICES = 4


def _environment() -> dict:
    env = dict(os.environ)
    flags = env.get("XLA_FLAGS", "")
    env["XLA_FLAGS"] = f"{flags} --xla_force_host_platform_device_count={DEVICES}".strip()
    env.setdefault("JAX_PLATFORMS", "cpu")
    return env


def _ask(mode: str, payload: Any, timeout: float) -> list[dict]:
    if not available():
        raise XlaUnavailable(INSTALL_HINT)
    p = subprocess.run([sys.executable, "-m", "tilespec.xla.dumps", mode],
                       input=json.dumps(payload), capture_output=True, text=True,
                       timeout=timeout, env=_environment())
    if p.returncode != 0:
        tail = " | ".join(p.stderr.strip().splitlines()[-3:])
        raise RuntimeError(f"the jax subprocess failed ({p.returncode}): {tail}")
    return [json.loads(ln) for ln in p.stdout.splitlines() if ln.startswith("{")]


def generate(names=None, timeout: float = 600.0) -> dict[str, str]:
    """``{name: optimised HLO text}`` for each program (all by default)."""
    names = list(PROGRAMS if names is None else names)
    unknown = [n for n in names if n not in PROGRAMS]
    if unknown:
        raise ValueError(f"no such program: {', '.join(unknown)}")
    return {a["name"]: a["hlo"] for a in _ask("--worker", names, timeout)}


def memory_agrees(cases, timeout: float = 600.0) -> list[dict[str, bool]]:
    """For each case ``(src, dst, readings)`` -- two untiled shape texts and
    reading names (``"reshape"``, ``"trt"``, ``"transpose 1,0"``) -- whether
    each reading keeps every byte in place in the device's memory."""
    payload = [{"src": s, "dst": d, "readings": list(r)} for s, d, r in cases]
    answers = _ask("--memory", payload, timeout)
    return [a["agrees"] for a in sorted(answers, key=lambda a: a["i"])]


# --- readings, on numpy arrays (used by the worker and by the tests) -------------------

def reading_of(array, reading: str, dst_dims, src_major_to_minor, dst_major_to_minor):
    """The logical result of one reading of a bitcast applied to ``array``:
    ``reshape`` (row-major), ``transpose P`` (result dim i is operand dim
    P[i]), or ``trt`` (XLA's transpose into physical order, row-major
    reshape, transpose out of DST's physical order).

    >>> import numpy as np
    >>> a = np.arange(6).reshape(2, 3)
    >>> reading_of(a, "transpose 1,0", (3, 2), (0, 1), (0, 1)).tolist()
    [[0, 3], [1, 4], [2, 5]]
    >>> reading_of(a, "trt", (3, 2), (0, 1), (1, 0)).tolist()
    [[0, 3], [1, 4], [2, 5]]
    """
    import numpy as np
    if reading == "reshape":
        return array.reshape(tuple(dst_dims))
    if reading.startswith("transpose "):
        return array.transpose(tuple(int(x) for x in reading.split()[1].split(",")))
    if reading == "trt":
        physical = array.transpose(tuple(src_major_to_minor))
        dims = tuple(dst_dims[i] for i in dst_major_to_minor)
        return physical.reshape(dims).transpose(tuple(np.argsort(dst_major_to_minor)))
    raise ValueError(f"unknown reading {reading!r}")


# --- the worker (runs in the subprocess) -------------------------------------------------

def _programs():  # pragma: no cover - runs in the subprocess
    """name -> (function, argument specs, jit keywords)."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax
    from jax.experimental.layout import Format, Layout
    from jax.sharding import Mesh, NamedSharding, SingleDeviceSharding
    from jax.sharding import PartitionSpec as P

    S, f32, bf16 = jax.ShapeDtypeStruct, jnp.float32, jnp.bfloat16
    one = SingleDeviceSharding(jax.devices()[0])

    def mlp(params, x):
        for w, b in params[:-1]:
            x = jax.nn.relu(x @ w + b)
        w, b = params[-1]
        return x @ w + b

    mlp_params = [(S((64, 128), f32), S((128,), f32)), (S((128, 128), f32), S((128,), f32)),
                  (S((128, 10), f32), S((10,), f32))]

    def mlp_train(params, x, y):
        loss = lambda p: jnp.mean((mlp(p, x) - y) ** 2)
        value, grads = jax.value_and_grad(loss)(params)
        return value, jax.tree.map(lambda p, g: p - 0.01 * g, params, grads)

    def mha(x, wq, wk, wv, wo, heads=4):
        b, s, d = x.shape
        split = lambda t: t.reshape(b, s, heads, d // heads).transpose(0, 2, 1, 3)
        q, k, v = split(x @ wq), split(x @ wk), split(x @ wv)
        a = jax.nn.softmax(q @ k.transpose(0, 1, 3, 2) / np.sqrt(d // heads), axis=-1)
        return (a @ v).transpose(0, 2, 1, 3).reshape(b, s, d) @ wo

    mha_args = (S((2, 16, 128), f32),) + (S((128, 128), f32),) * 4

    def convnet(ws, x):
        for w in ws[:2]:
            x = lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                         dimension_numbers=("NHWC", "HWIO", "NHWC"))
            x = jax.nn.relu(x)
            x = lax.reduce_window(x, 0.0, lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "VALID") / 4
        return x.reshape(x.shape[0], -1) @ ws[2]

    conv_args = ([S((3, 3, 3, 8), f32), S((3, 3, 8, 16), f32), S((8 * 8 * 16, 10), f32)],
                 S((4, 32, 32, 3), f32))

    def scan_rnn(wx, wh, xs):
        def cell(h, x):
            h = jnp.tanh(x @ wx + h @ wh)
            return h, h.reshape(4, 16)
        h, ys = lax.scan(cell, jnp.zeros((64,), xs.dtype), xs)
        return h, ys.transpose(1, 0, 2)

    def while_loop(m):
        def body(c):
            i, v = c
            v = (m @ v.reshape(-1)).reshape(8, 8)
            return i + 1, v / jnp.linalg.norm(v)
        return lax.while_loop(lambda c: c[0] < 10, body, (0, jnp.ones((8, 8), m.dtype)))[1]

    def int8_matmul(a, b):
        a = a.reshape(32, 4, 64).transpose(1, 0, 2).reshape(128, 64)
        return lax.dot(a, b, preferred_element_type=jnp.int32).reshape(2, 64, 32)

    def int4_matmul(x, w):
        return (x @ w.astype(bf16)).reshape(8, 4, 64).transpose(1, 0, 2), w.reshape(2, 64, 64)

    def quantized_linear(x, w):
        scale = jnp.max(jnp.abs(w), axis=0) / 127
        q = jnp.round(w / scale).astype(jnp.int8)
        xs = jnp.max(jnp.abs(x)) / 127
        xq = jnp.round(x / xs).astype(jnp.int8)
        acc = lax.dot(xq.reshape(-1, 64), q, preferred_element_type=jnp.int32)
        return (acc.astype(f32) * scale * xs).reshape(x.shape[0], x.shape[1], -1)

    def fmt(major_to_minor, tiling=None):
        return Format(Layout(major_to_minor, tiling=tiling), one)

    def tiled_format(a, b, c, e):
        return a.reshape(4096), b.transpose(1, 0), c.reshape(2, 8, 256), e.reshape(32, 128)

    t8 = ((8, 128),)
    tiled_kw = dict(in_shardings=(fmt((0, 1), t8),) * 4,
                    out_shardings=(fmt((0,)), fmt((0, 1), t8), fmt((0, 1, 2), t8),
                                   fmt((0, 1), t8)),
                    donate_argnums=(0, 1, 2, 3))

    def tiled_bf16(x, w):
        return jax.nn.gelu(x @ w).reshape(2, 8, 256)

    bf16_tiles = ((8, 128), (2, 1))
    tiled_bf16_kw = dict(in_shardings=(fmt((0, 1), bf16_tiles), fmt((0, 1), bf16_tiles)),
                         out_shardings=fmt((0, 1, 2), bf16_tiles))

    def column_major(a, b, c):
        return (a.reshape(16, 2, 16).transpose(2, 0, 1), (a @ b).reshape(-1), b.T + 1,
                c.T.reshape(-1, 4, 8))

    column_kw = dict(in_shardings=(fmt((1, 0)), fmt((1, 0)), fmt((1, 0))),
                     out_shardings=(fmt((1, 2, 0)), fmt((0,)), fmt((1, 0)), fmt((0, 1, 2))),
                     donate_argnums=(0, 2))

    def layer_norm(x, g):
        m = x.mean(-1, keepdims=True)
        return (x - m) * lax.rsqrt(((x - m) ** 2).mean(-1, keepdims=True) + 1e-5) * g

    def transformer(layers, x):
        for wq, wk, wv, wo, w1, w2, g1, g2 in layers:
            x = x + mha(layer_norm(x, g1), wq, wk, wv, wo)
            x = x + jax.nn.gelu(layer_norm(x, g2) @ w1) @ w2
        return x

    d = 64
    layer = (S((d, d), f32),) * 4 + (S((d, 4 * d), f32), S((4 * d, d), f32),
                                     S((d,), f32), S((d,), f32))
    tf_args = ([layer, layer], S((2, 16, d), f32))

    def transformer_train(layers, x):
        loss = lambda p: jnp.mean(transformer(p, x) ** 2)
        value, grads = jax.value_and_grad(loss)(layers)
        return value, jax.tree.map(lambda p, g: p - 0.01 * g, layers, grads)

    mesh = Mesh(np.array(jax.devices()[:4]).reshape(2, 2), ("data", "model"))
    ns = lambda *spec: NamedSharding(mesh, P(*spec))

    def sharded_mlp(w1, w2, x):
        h = jax.nn.relu(x @ w1)
        return (h @ w2).reshape(x.shape[0], 8, -1)

    sharded_mlp_kw = dict(in_shardings=(ns(None, "model"), ns("model", None),
                                        ns("data", None)),
                          out_shardings=ns("data", None, None))

    flat = Mesh(np.array(jax.devices()[:4]), ("heads",))

    def sharded_attention(x, wq, wk, wv):
        def local(x, wq, wk, wv):
            b, s, _ = x.shape
            q, k, v = (t.reshape(b, s, 1, 32).transpose(0, 2, 1, 3)
                       for t in (x @ wq, x @ wk, x @ wv))
            a = jax.nn.softmax(q @ k.transpose(0, 1, 3, 2), axis=-1)
            return (a @ v).transpose(0, 2, 1, 3).reshape(b, s, 32)
        return jax.shard_map(local, mesh=flat, in_specs=(P(), P(None, "heads"),
                                                          P(None, "heads"), P(None, "heads")),
                             out_specs=P(None, None, "heads"))(x, wq, wk, wv)

    def vmap_batched(x, w):
        def one(v):
            m = v.reshape(8, 16)
            return (m.T @ w).reshape(-1) + m.sum(0).repeat(8)
        return jax.vmap(one)(x)

    def bf16_einsum(q, k, v):
        s = jnp.einsum("bqhd,bkhd->bhqk", q, k)
        o = jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(s, axis=-1), v)
        return o.reshape(o.shape[0], o.shape[1], -1).sum(axis=1)

    qkv = (S((2, 32, 4, 16), bf16),) * 3
    return {
        "mlp": (mlp, (mlp_params, S((32, 64), f32)), {}),
        "mlp_train": (mlp_train, (mlp_params, S((32, 64), f32), S((32, 10), f32)), {}),
        "attention": (mha, mha_args, {}),
        "attention_grad": (jax.grad(lambda *a: mha(*a).sum(), argnums=(0, 1, 2, 3, 4)),
                           mha_args, {}),
        "convnet": (convnet, conv_args, {}),
        "convnet_grad": (jax.grad(lambda *a: convnet(*a).sum()), conv_args, {}),
        "scan_rnn": (scan_rnn, (S((32, 64), f32), S((64, 64), f32), S((12, 32), f32)), {}),
        "while_loop": (while_loop, (S((64, 64), f32),), {}),
        "int8_matmul": (int8_matmul, (S((32, 256), jnp.int8), S((64, 32), jnp.int8)), {}),
        "int4_matmul": (int4_matmul, (S((32, 128), bf16), S((128, 64), jnp.int4)),
                        dict(donate_argnums=(1,))),
        "quantized_linear": (quantized_linear, (S((4, 16, 64), f32), S((64, 32), f32)), {}),
        "tiled_format": (tiled_format, (S((16, 256), f32),) * 4, tiled_kw),
        "tiled_bf16": (tiled_bf16, (S((16, 128), bf16), S((128, 256), bf16)), tiled_bf16_kw),
        "column_major": (column_major, (S((32, 16), f32), S((16, 32), f32),
                                        S((32, 16), f32)), column_kw),
        "transformer": (transformer, tf_args, {}),
        "transformer_train": (transformer_train, tf_args, {}),
        "sharded_mlp": (sharded_mlp, (S((64, 256), f32), S((256, 64), f32),
                                      S((32, 64), f32)), sharded_mlp_kw),
        "sharded_attention": (sharded_attention, (S((2, 16, 64), f32),) +
                              (S((64, 128), f32),) * 3, {}),
        "vmap_batched": (vmap_batched, (S((16, 128), f32), S((8, 8), f32)), {}),
        "bf16_einsum": (bf16_einsum, qkv, {}),
    }


def _say(**kw) -> None:  # pragma: no cover - runs in the subprocess
    sys.stdout.write(json.dumps(kw) + "\n")
    sys.stdout.flush()


def _compile_worker(names) -> None:  # pragma: no cover - runs in the subprocess
    import jax
    programs = _programs()
    for name in names:
        fn, args, kw = programs[name]
        _say(name=name, hlo=jax.jit(fn, **kw).lower(*args).compile().as_text())


#: numpy/jax dtypes of each byte width, for the labels the memory check places.
_LABELS = {1: "uint8", 2: "uint16", 4: "uint32", 8: "uint64"}


def _memory_worker(cases) -> None:  # pragma: no cover - runs in the subprocess
    import ctypes

    import jax
    import numpy as np
    from jax.experimental.layout import Format, Layout
    from jax.sharding import SingleDeviceSharding

    from ..spec import concrete_dims, parse_array_shape
    jax.config.update("jax_enable_x64", True)      # 8-byte labels stay 8 bytes
    one = SingleDeviceSharding(jax.devices()[0])

    def raw(array, shape):
        x = jax.device_put(array, Format(Layout(tuple(reversed(
            shape.layout.minor_to_major))), one))
        n = array.size * array.itemsize
        data = (ctypes.c_uint8 * n).from_address(x.unsafe_buffer_pointer())
        return bytes(data)

    for i, case in enumerate(cases):
        src, dst = parse_array_shape(case["src"]), parse_array_shape(case["dst"])
        width = src.element_bits // 8
        dtype = np.dtype(_LABELS[width])
        dims = concrete_dims(src)
        n = int(np.prod(dims, dtype=np.int64))
        labels = np.arange(n, dtype=np.uint64)
        # Labels of ``width`` bytes repeat past 2**(8*width) elements: one
        # pass per digit, so that equal buffers in every pass mean every
        # element kept its place.
        digits = []
        while True:
            digits.append((labels % (1 << (8 * width))).astype(dtype).reshape(dims))
            labels = labels >> np.uint64(8 * width)
            if not labels.any():
                break
        m2m_s = tuple(reversed(src.layout.minor_to_major))
        m2m_d = tuple(reversed(dst.layout.minor_to_major))
        agrees = {}
        for reading in case["readings"]:
            agrees[reading] = all(
                raw(a, src) == raw(np.ascontiguousarray(
                    reading_of(a, reading, concrete_dims(dst), m2m_s, m2m_d)), dst)
                for a in digits)
        _say(i=i, agrees=agrees)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m tilespec.xla.dumps",
                                description="write XLA's optimised HLO of varied jax programs")
    p.add_argument("directory", type=Path)
    p.add_argument("--program", action="append", choices=sorted(PROGRAMS),
                   help="only this program (repeatable; default: all)")
    args = p.parse_args(argv)
    args.directory.mkdir(parents=True, exist_ok=True)
    for name, hlo in generate(args.program).items():
        (args.directory / f"{name}.txt").write_text(hlo)
        print(args.directory / f"{name}.txt")
    return 0


if __name__ == "__main__":  # pragma: no cover
    if sys.argv[1:2] == ["--worker"]:
        _compile_worker(json.loads(sys.stdin.read()))
    elif sys.argv[1:2] == ["--memory"]:
        _memory_worker(json.loads(sys.stdin.read()))
    else:
        sys.exit(main())
