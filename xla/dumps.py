"""What a compiler really emits: optimised HLO modules of varied jax programs,
compiled by real XLA (jaxlib, CPU), to check ``tilespec check-hlo`` against.

:data:`PROGRAMS` names the programs (an MLP, attention with reshapes and
transposes, a convnet, scan and while loops, int8/int4 and quantized matmuls,
explicit tiled and column-major ``Format`` layouts, a small transformer and
its training step, programs sharded over four CPU devices); each is jitted,
lowered and compiled, and its ``compiled.as_text()`` is the module XLA runs.
:func:`generate` compiles them in one worker (:mod:`.worker`, started with
``--xla_force_host_platform_device_count=4``, which must be set before jax
starts; an XLA abort costs that subprocess, not the caller).  The programs
themselves are built in the worker (:mod:`.programs`).

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
import sys
from pathlib import Path

from ..spec import concrete_dims, parse_array_shape
from .client import WorkerSetup, require, run
from .protocol import (
    ArrayLayout,
    BytesInPlaceRequest,
    BytesInPlaceResponse,
    DumpRequest,
    DumpResponse,
)
from .readings import reading_of

__all__ = ["DEVICES", "PROGRAMS", "generate", "memory_agrees", "reading_of"]

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


def _answers(requests, expected: type, timeout: float, x64: bool = False) -> list:
    require()
    answers = run(requests, WorkerSetup(devices=DEVICES, x64=x64, timeout=timeout))
    for a in answers:
        if not isinstance(a, expected):
            raise RuntimeError(f"the jax subprocess failed: {a}")
    return answers


def generate(names=None, timeout: float = 600.0) -> dict[str, str]:
    """``{name: optimised HLO text}`` for each program (all by default)."""
    names = list(PROGRAMS if names is None else names)
    unknown = [n for n in names if n not in PROGRAMS]
    if unknown:
        raise ValueError(f"no such program: {', '.join(unknown)}")
    answers = _answers([DumpRequest(n) for n in names], DumpResponse, timeout)
    return {n: a.hlo for n, a in zip(names, answers)}


def memory_agrees(cases, timeout: float = 600.0) -> list[dict[str, bool]]:
    """For each case ``(src, dst, readings)`` -- two untiled shape texts and
    reading names (``"reshape"``, ``"trt"``, ``"transpose 1,0"``) -- whether
    each reading keeps every byte in place in the device's memory."""
    requests = [BytesInPlaceRequest(_labelled(s), _labelled(d), tuple(r)) for s, d, r in cases]
    # 8-byte labels stay 8 bytes
    answers = _answers(requests, BytesInPlaceResponse, timeout, x64=True)
    return [dict(a.agrees) for a in answers]


#: numpy dtypes of each byte width, for the labels the memory check places.
_LABELS = {1: "uint8", 2: "uint16", 4: "uint32", 8: "uint64"}


def _labelled(text: str) -> ArrayLayout:
    """An untiled shape text as the array of labels the device places."""
    shape = parse_array_shape(text)
    return ArrayLayout(tuple(concrete_dims(shape)), _LABELS[shape.element_bits // 8],
                       tuple(reversed(shape.layout.minor_to_major)))


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
    sys.exit(main())
