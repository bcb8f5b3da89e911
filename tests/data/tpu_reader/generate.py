"""Regenerate the real TPU modules of this directory (needs libtpu; no TPU).

Each program is compiled by the TPU compiler for a topology without
hardware (``jax.experimental.topologies``) and its optimized module text is
written as ``NAME.hlo``.  Run from the repository root::

    python tests/data/tpu_reader/generate.py             # the committed modules
    python tests/data/tpu_reader/generate.py v5e_sharded_2x2_update   # one of them
    python tests/data/tpu_reader/generate.py --big DIR   # a 24-layer training step, for timing

Each program compiles in a child process, so an abort in XLA costs one
module, not the run.
"""

from __future__ import annotations

import argparse
import functools
import multiprocessing
import os
import pathlib

HERE = pathlib.Path(__file__).parent


@functools.lru_cache(maxsize=None)
def _mesh(chip: str, devices: int):
    import numpy as np
    from jax.experimental import topologies
    from jax.sharding import Mesh
    t = topologies.get_topology_desc(topology_name=chip, platform="tpu")
    return Mesh(np.array(t.devices[:devices]), ("x",))


def _compile(fn, args, in_specs, out_specs, chip: str, devices: int) -> str:
    import jax
    from jax.sharding import NamedSharding, PartitionSpec
    mesh = _mesh(chip, devices)
    ins = tuple(NamedSharding(mesh, s) for s in in_specs)
    outs = jax.tree_util.tree_map(lambda s: NamedSharding(mesh, s), out_specs,
                                  is_leaf=lambda x: isinstance(x, PartitionSpec))
    shaped = [jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=s) for a, s in zip(args, ins)]
    return jax.jit(fn, in_shardings=ins, out_shardings=outs).trace(*shaped).lower(
        lowering_platforms=("tpu",)).compile().as_text()


def _transformer(layers: int, d: int, heads: int, seq: int, batch: int):
    """A training step: a few pre-norm attention+MLP layers, jax.grad, Adam."""
    import jax
    import jax.numpy as jnp

    def init(key):
        ps = []
        for k in jax.random.split(key, layers):
            k1, k2, k3, k4 = jax.random.split(k, 4)
            ps.append({"qkv": jax.random.normal(k1, (d, 3 * d), jnp.float32) * 0.02,
                       "o": jax.random.normal(k2, (d, d), jnp.float32) * 0.02,
                       "up": jax.random.normal(k3, (d, 4 * d), jnp.float32) * 0.02,
                       "down": jax.random.normal(k4, (4 * d, d), jnp.float32) * 0.02,
                       "g": jnp.ones((d,), jnp.float32)})
        return ps

    def norm(x, g):
        m = x.mean(-1, keepdims=True)
        v = ((x - m) ** 2).mean(-1, keepdims=True)
        return (x - m) * jax.lax.rsqrt(v + 1e-5) * g

    def loss(ps, x):
        h = x
        for p in ps:
            a = norm(h, p["g"]).astype(jnp.bfloat16)
            q, k, v = jnp.split(a @ p["qkv"].astype(jnp.bfloat16), 3, -1)
            sh = (batch, seq, heads, d // heads)
            q, k, v = (t.reshape(sh) for t in (q, k, v))
            w = jax.nn.softmax(jnp.einsum("bqhd,bkhd->bhqk", q, k).astype(jnp.float32), -1)
            o = jnp.einsum("bhqk,bkhd->bqhd", w.astype(jnp.bfloat16), v).reshape(batch, seq, d)
            h = h + (o @ p["o"].astype(jnp.bfloat16)).astype(jnp.float32)
            u = jax.nn.gelu(norm(h, p["g"]).astype(jnp.bfloat16) @ p["up"].astype(jnp.bfloat16))
            h = h + (u @ p["down"].astype(jnp.bfloat16)).astype(jnp.float32)
        return (h ** 2).mean()

    def step(ps, m, v, x):
        g = jax.grad(loss)(ps, x)
        m = jax.tree_util.tree_map(lambda m, g: 0.9 * m + 0.1 * g, m, g)
        v = jax.tree_util.tree_map(lambda v, g: 0.999 * v + 0.001 * g * g, v, g)
        ps = jax.tree_util.tree_map(lambda p, m, v: p - 1e-3 * m / (jnp.sqrt(v) + 1e-8),
                                    ps, m, v)
        return ps, m, v

    ps = jax.eval_shape(init, jax.random.PRNGKey(0))
    x = jax.ShapeDtypeStruct((batch, seq, d), jnp.float32)
    return step, ps, x


def _train(layers, d, heads, seq, batch, chip, devices):
    import jax
    from jax.sharding import PartitionSpec as P
    step, ps, x = _transformer(layers, d, heads, seq, batch)
    rep = jax.tree_util.tree_map(lambda _: P(), ps)
    flat = jax.tree_util.tree_leaves(ps)
    tree = jax.tree_util.tree_structure(ps)

    def f(*leaves):
        n = len(flat)
        unflat = [jax.tree_util.tree_unflatten(tree, leaves[k * n:(k + 1) * n]) for k in range(3)]
        return step(*unflat, leaves[-1])
    specs = [P()] * (3 * len(flat)) + [P("x")]
    return _compile(f, flat * 3 + [x], specs, (rep, rep, rep), chip, devices)


def _program(name: str) -> str:
    import jax
    import jax.numpy as jnp
    from jax.sharding import PartitionSpec as P
    S = jax.ShapeDtypeStruct
    if name == "v5e_matmul_bf16":
        return _compile(lambda a, b: (a @ b).reshape(-1) * 2,
                        [S((129, 257), jnp.bfloat16), S((257, 65), jnp.bfloat16)],
                        [P(), P()], P(), "v5e:2x2", 1)
    if name == "v4_cumsum_sort":
        return _compile(lambda a, b: (jnp.cumsum(a), jax.lax.top_k(b, 3)),
                        [S((1000,), jnp.float32), S((7, 300), jnp.bfloat16)],
                        [P(), P()], P(), "v4:2x2x1", 1)
    if name == "v5e_sharded_sum":
        return _compile(lambda a, b: (a.sum(0), (a * b).mean(), a.T @ b),
                        [S((64, 256), jnp.float32), S((64, 256), jnp.float32)],
                        [P("x"), P("x")], (P(), P(), P()), "v5e:2x2", 4)
    if name == "v6e_int8_gather":
        return _compile(lambda t, i, w: (jnp.take(t, i, axis=0).astype(jnp.bfloat16)
                                         @ w.astype(jnp.bfloat16)),
                        [S((50, 96), jnp.int8), S((33,), jnp.int32), S((96, 40), jnp.int8)],
                        [P(), P(), P()], P(), "v6e:2x2", 1)
    if name == "v5e_pallas_add":
        from jax.experimental import pallas as pl

        def kernel(x, y, o):
            o[...] = x[...] + y[...] * 2

        def f(a, b):
            return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(a.shape, a.dtype))(a, b)
        return _compile(f, [S((16, 256), jnp.float32), S((16, 256), jnp.float32)],
                        [P(), P()], P(), "v5e:2x2", 1)
    if name == "v4_scatter_pad_concat":
        return _compile(lambda a, i, u: (a.at[i].add(u), jax.lax.dynamic_update_slice(
                            a, u[:2], (i[0], 0)), jnp.pad(a, ((1, 2), (3, 4)))[::2],
                            jnp.concatenate([a, a[:3]], 0)),
                        [S((40, 72), jnp.float32), S((5,), jnp.int32), S((5, 72), jnp.float32)],
                        [P(), P(), P()], P(), "v4:2x2x1", 1)
    if name == "v6e_layernorm_fp8_int4":
        return _compile(lambda x, q, b: ((x - x.mean(-1, keepdims=True))
                                         / (x.std(-1, keepdims=True) + 1e-5),
                                         q.astype(jnp.float32) * 2,
                                         b.astype(jnp.int8) + (b == 0), jnp.sort(x, -1)),
                        [S((33, 130), jnp.float32), S((64, 64), jnp.float8_e4m3fn),
                         S((16, 256), jnp.int4)], [P(), P(), P()], P(), "v6e:2x2", 1)
    if name == "v5e_train_1layer":
        return _train(1, 128, 4, 32, 8, "v5e:2x2", 4)
    if name == "v5p_collectives":
        from jax.experimental.shard_map import shard_map
        mesh = _mesh("v5p:2x2x1", 4)

        def body(a, b):
            g = jax.lax.all_gather(a, "x", tiled=True)
            r = jax.lax.psum_scatter(b, "x", tiled=True)
            n = jax.lax.ppermute(a, "x", [(k, (k + 1) % 4) for k in range(4)])
            t = jax.lax.all_to_all(b, "x", 0, 0, tiled=True)
            return g.sum(0, keepdims=True), r, n, t
        f = shard_map(body, mesh=mesh, in_specs=(P("x"), P("x")),
                      out_specs=(P("x"), P("x"), P("x"), P("x")))
        return _compile(f, [S((16, 128), jnp.float32), S((64, 128), jnp.bfloat16)],
                        [P("x"), P("x")], P("x"), "v5p:2x2x1", 4)
    if name == "v6e_scan_cond_donated":
        def g(c, xs):
            def step(h, x):
                h = jax.lax.cond(x.sum() > 0, lambda h: jnp.tanh(h @ c), lambda h: h * 0.5, h)
                return h, h.sum()
            return jax.lax.scan(step, xs[0], xs)
        import jax as _jax
        mesh = _mesh("v6e:2x2", 1)
        from jax.sharding import NamedSharding
        sh = NamedSharding(mesh, P())
        args = [S((24, 24), jnp.float32, sharding=sh), S((5, 24, 24), jnp.float32, sharding=sh)]
        return _jax.jit(g, donate_argnums=(0,), in_shardings=(sh, sh), out_shardings=sh).trace(
            *args).lower(lowering_platforms=("tpu",)).compile().as_text()
    if name in ("v5e_sharded_2x2_update", "v5e_update_one_device"):
        # A 2x2 mesh ("x", "y") whose devices are not in iota order: the
        # all-gathers of the replicated update print their groups as
        # mesh[...], device_ids=([2,2]T(1,0)) {...}; the twin is the same
        # step on one device.
        from tilespec.xla.jax_adapter import compile_for_tpu

        def update(w1, w2, x):
            h = jnp.tanh(x @ w1) @ w2
            return (h.astype(jnp.float32) ** 2).mean(), w1 * 0.5, w2 * 0.5
        sharded = name == "v5e_sharded_2x2_update"
        col, row, data = ((None, "y"), ("y", None), ("x", None)) if sharded else (None,) * 3
        specs = (((128, 256), "bfloat16", col), ((256, 128), "bfloat16", row),
                 ((16, 128), "bfloat16", data))
        return compile_for_tpu(update, specs, None, 4 if sharded else 1, "v5e:2x2")[0]
    if name == "big_train_24layers":
        return _train(24, 256, 8, 128, 8, "v5e:2x2", 4)
    raise ValueError(name)


PROGRAMS = ("v5e_matmul_bf16", "v4_cumsum_sort", "v5e_sharded_sum", "v6e_int8_gather",
            "v5e_train_1layer", "v5p_collectives", "v5e_pallas_add",
            "v4_scatter_pad_concat", "v6e_layernorm_fp8_int4", "v6e_scan_cond_donated",
            "v5e_sharded_2x2_update", "v5e_update_one_device")


def _write(name: str, out: str) -> None:
    # several compilers may run on one machine (libtpu's lockfile refuses a second)
    os.environ.setdefault("ALLOW_MULTIPLE_LIBTPU_LOAD", "1")
    path = pathlib.Path(out) / f"{name}.hlo"
    path.write_text(_program(name))
    print(path, len(path.read_text().splitlines()), "lines", flush=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--big", metavar="DIR", help="write the 24-layer training step to DIR")
    p.add_argument("names", nargs="*", default=PROGRAMS)
    a = p.parse_args()
    names, out = (["big_train_24layers"], a.big) if a.big else (a.names, str(HERE))
    ctx = multiprocessing.get_context("spawn")
    for name in names:
        proc = ctx.Process(target=_write, args=(name, out))
        proc.start()
        proc.join()
        if proc.exitcode:
            print(name, "failed: exit", proc.exitcode, flush=True)


if __name__ == "__main__":
    main()
