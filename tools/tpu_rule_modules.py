"""Regenerate the small TPU modules check-hlo's bitcast rules are tested on.

Each program is compiled by the TPU compiler (libtpu, no TPU needed) for one
device of a ``v5e:2x2`` topology; the optimized module is written to
``tests/data/hlo/tpu_v5e_NAME.hlo``:

* ``cumsum`` -- a cumsum of ``f32[1000]``: the compiler bitcasts
  ``f32[1024]{0:T(1024)}`` to ``f32[1000]{0:T(1024)}`` (a prefix of equal
  byte size);
* ``bitcast_convert`` -- ``bitcast_convert_type`` f32 -> bf16: a
  ``bitcast-convert`` whose result lies in another memory space (``S(1)``);
* ``transpose_slice`` -- the first 1000 elements of a ``u4[40,50]``
  transposed and flattened: the compiler bitcasts
  ``u4[40,50]{1,0:T(8,128)(8,1)E(4)}`` to ``u4[25,40]{0,1:T(8,128)(8,1)E(4)}``
  (a slice in physical order; v4, v5e, v5p, v6e and tpu7x alike).

    python tools/tpu_rule_modules.py          # needs jax[tpu] (libtpu)
"""

from __future__ import annotations

from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "tests" / "data" / "hlo"


def compiled(f, *args) -> str:
    """The optimized TPU module of ``f`` on ``args`` ((shape, dtype) pairs)."""
    import jax
    import numpy as np
    from jax.experimental import topologies
    from jax.sharding import Mesh, NamedSharding, PartitionSpec

    topology = topologies.get_topology_desc(topology_name="v5e:2x2", platform="tpu")
    one = NamedSharding(Mesh(np.array(topology.devices[:1]), ("x",)), PartitionSpec())
    specs = [jax.ShapeDtypeStruct(s, t, sharding=one) for s, t in args]
    return (jax.jit(f, in_shardings=(one,) * len(specs), out_shardings=one)
            .trace(*specs).lower(lowering_platforms=("tpu",)).compile().as_text())


def main() -> None:
    import jax
    import jax.numpy as jnp

    programs = {
        "cumsum": (jnp.cumsum, ((1000,), jnp.float32)),
        "bitcast_convert": (lambda a: jax.lax.bitcast_convert_type(a, jnp.bfloat16)
                            .reshape(16, 256) * 2, ((16, 128), jnp.float32)),
        "transpose_slice": (lambda a: a.T.reshape(-1)[:1000], ((40, 50), jnp.uint4)),
    }
    for name, (f, *args) in programs.items():
        (OUT / f"tpu_v5e_{name}.hlo").write_text(compiled(f, *args))


if __name__ == "__main__":
    main()
