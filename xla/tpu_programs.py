"""The jax programs compiled for TPUs by :mod:`.tpu` (their names and
descriptions are ``tpu.PROGRAMS``): odd-shaped matmuls, every narrow element
type (bf16, int8, int4, fp8, bool), attention with heads split and merged,
an NHWC convolution, layer norm, scan, gather and scatter, cumsum, sort and
top_k, pad/slice/concatenate, a transformer block, a quantized matmul, and
programs sharded over four devices.

Each is ``(function, argument specs, result spec)``: an argument spec is
``(dims, dtype name, partition)`` -- ``partition`` ``None`` for a one-device
program, else a tuple of mesh axis names (``"x"``, ``"y"`` or ``None``) for
the 2x2 mesh; the result spec is a partition for every result (``()``:
replicated).  Public jax API only; jax is imported when the programs are
built (in the worker), not when this module is.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

#: A program: (function, argument specs, result partition, devices).
Program = tuple[Callable, tuple, Any, int]


def tpu_programs() -> dict[str, Program]:  # pragma: no cover - in the worker
    """name -> (function, argument specs, result partition, devices)."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    def a(dims, dtype="float32", part=None):
        return (tuple(dims), dtype, part)

    def layer_norm(x, g, b):
        m = x.mean(-1, keepdims=True)
        v = ((x - m) ** 2).mean(-1, keepdims=True)
        return (x - m) * lax.rsqrt(v + 1e-6) * g + b

    def attention(x, wq, wk, wv, wo, heads=4):
        b, s, d = x.shape
        split = lambda t: t.reshape(b, s, heads, d // heads).transpose(0, 2, 1, 3)
        q, k, v = split(x @ wq), split(x @ wk), split(x @ wv)
        w = jax.nn.softmax(q @ k.transpose(0, 1, 3, 2) / np.sqrt(d // heads), axis=-1)
        return (w @ v).transpose(0, 2, 1, 3).reshape(b, s, d) @ wo

    def block(x, ws):
        wq, wk, wv, wo, w1, w2, g1, b1, g2, b2 = ws
        x = x + attention(layer_norm(x, g1, b1), wq, wk, wv, wo)
        h = jax.nn.gelu(layer_norm(x, g2, b2) @ w1)
        return x + h @ w2

    d = 128
    block_ws = (a((d, d), "bfloat16"),) * 4 + (a((d, 4 * d), "bfloat16"),
                                               a((4 * d, d), "bfloat16")) \
        + (a((d,), "bfloat16"),) * 4

    def quantized(x, w8, scale):
        q = jnp.clip(jnp.round(x / jnp.abs(x).max(-1, keepdims=True) * 127), -127, 127)
        acc = lax.dot(q.astype(jnp.int8), w8, preferred_element_type=jnp.int32)
        return acc.astype(jnp.float32) * scale

    def int4_matmul(x, w4):
        return x @ w4.astype(jnp.bfloat16)

    def fp8_matmul(x, w):
        return lax.dot(x, w, preferred_element_type=jnp.float32)

    def scan_rnn(h, xs, w):
        def step(h, x):
            h = jnp.tanh(h @ w + x)
            return h, h.sum(-1)
        return lax.scan(step, h, xs)

    def gather_scatter(table, idx, upd):
        rows = table[idx]
        return rows, table.at[idx].add(upd)

    def sort_topk(x):
        return jnp.sort(x, axis=-1), lax.top_k(x, 5)

    def pad_slice_concat(x, y):
        p = jnp.pad(x, ((1, 2), (3, 0)))
        return jnp.concatenate([p[1:, :100], y], axis=0)[::2]

    def conv(x, w):
        y = lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                     dimension_numbers=("NHWC", "HWIO", "NHWC"))
        return jax.nn.relu(y).reshape(x.shape[0], -1)

    def bool_mask(m, x):
        return jnp.where(m, x, 0).sum(0), jnp.logical_not(m).reshape(-1)

    def sharded_mlp(x, w1, w2):
        return jax.nn.relu(x @ w1) @ w2

    def sharded_train(w, x, y):
        loss = lambda w: jnp.mean((jnp.tanh(x @ w) - y) ** 2)
        value, g = jax.value_and_grad(loss)(w)
        return value, w - 0.1 * g

    return {
        "matmul_129x257_bf16": (lambda x, w: x @ w,
                                (a((129, 257), "bfloat16"), a((257, 65), "bfloat16")), None, 1),
        "matmul_odd_f32": (lambda x, w: (x @ w).T,
                           (a((33, 17)), a((17, 1000))), None, 1),
        "reshape_1000": (lambda x: jnp.cumsum(x.reshape(1000) * 2),
                         (a((10, 100)),), None, 1),
        "cumsum_2d": (lambda x: jnp.cumsum(x, axis=0), (a((37, 300), "bfloat16"),), None, 1),
        "int8_matmul": (lambda x, w: lax.dot(x, w, preferred_element_type=jnp.int32),
                        (a((48, 200), "int8"), a((200, 96), "int8")), None, 1),
        "int4_matmul": (int4_matmul, (a((16, 256), "bfloat16"), a((256, 128), "int4")),
                        None, 1),
        "fp8_matmul": (fp8_matmul, (a((64, 128), "float8_e4m3fn"),
                                    a((128, 80), "float8_e4m3fn")), None, 1),
        "bool_mask": (bool_mask, (a((24, 130), "bool"), a((24, 130))), None, 1),
        "attention_heads": (attention, (a((2, 16, 128)),) + (a((128, 128)),) * 4, None, 1),
        "attention_bf16": (lambda x, q, k, v, o: attention(x, q, k, v, o, heads=8),
                           (a((3, 24, 256), "bfloat16"),) + (a((256, 256), "bfloat16"),) * 4,
                           None, 1),
        "conv_nhwc": (conv, (a((2, 14, 14, 3)), a((3, 3, 3, 16))), None, 1),
        "layer_norm": (layer_norm, (a((8, 50, 384), "bfloat16"), a((384,), "bfloat16"),
                                    a((384,), "bfloat16")), None, 1),
        "scan_rnn": (scan_rnn, (a((4, 96)), a((12, 4, 96)), a((96, 96))), None, 1),
        "gather_scatter": (gather_scatter, (a((500, 24)), a((7,), "int32"), a((7, 24))),
                           None, 1),
        "sort_topk": (sort_topk, (a((6, 333)),), None, 1),
        "pad_slice_concat": (pad_slice_concat, (a((30, 97), "bfloat16"),
                                                a((11, 100), "bfloat16")), None, 1),
        "transformer_block": (block, (a((2, 32, d), "bfloat16"), block_ws), None, 1),
        "quantized_matmul": (quantized, (a((32, 160)), a((160, 72), "int8"), a((72,))),
                             None, 1),
        "transpose_3d": (lambda x: x.transpose(2, 0, 1).reshape(-1, 6),
                         (a((6, 10, 129), "bfloat16"),), None, 1),
        "s16_u8_mix": (lambda x, y: (x.astype(jnp.int32) + y.astype(jnp.int32)).reshape(5, -1),
                       (a((20, 77), "int16"), a((20, 77), "uint8")), None, 1),
        "max_pool": (lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3, 1),
                                                 (1, 2, 2, 1), "VALID"),
                     (a((2, 17, 17, 24)),), None, 1),
        "sharded_mlp": (sharded_mlp, (a((64, 128), "float32", ("x", None)),
                                      a((128, 256), "float32", (None, "y")),
                                      a((256, 128), "float32", ("y", None))),
                        ("x", None), 4),
        "sharded_attention": (attention, (a((4, 16, 128), "bfloat16", ("x", None, None)),)
                              + (a((128, 128), "bfloat16", (None, "y")),) * 3
                              + (a((128, 128), "bfloat16", ("y", None)),),
                              ("x", None, None), 4),
        "sharded_train": (sharded_train, (a((256, 96), "float32", (None, "y")),
                                          a((32, 256), "float32", ("x", None)),
                                          a((32, 96), "float32", ("x", "y"))),
                          ((), (None, "y")), 4),
        "sharded_reshape": (lambda x: x.reshape(8, 50, 10).sum(1),
                            (a((8, 500), "bfloat16", ("x", None)),), ("x", None), 4),
    }
