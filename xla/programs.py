"""The jax programs whose optimised HLO :mod:`.dumps` collects (their names
and descriptions are ``dumps.PROGRAMS``), built in the worker: an MLP,
attention with reshapes and transposes, a convnet, scan and while loops,
int8/int4 and quantized matmuls, explicit tiled and column-major ``Format``
layouts, a small transformer and its training step, programs sharded over
four CPU devices.

Public jax API only; jax is imported when the programs are built (in the
worker), not when this module is.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np


def programs() -> dict[str, tuple[Callable, Any, dict]]:  # pragma: no cover - in the worker
    """name -> (function, argument specs, jit keywords)."""
    import jax
    import jax.numpy as jnp
    from jax import lax
    from jax.experimental.layout import Format, Layout
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P, SingleDeviceSharding

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
