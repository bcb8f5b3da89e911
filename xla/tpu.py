"""The TPU compiler as an oracle, on a machine without TPUs: libtpu (the
``tpu`` extra, ``pip install -e '.[tpu]'``) compiles a jax program for a
described topology (``jax.experimental.topologies.get_topology_desc``) and
answers the optimised module XLA would run on that chip, with its memory
figures (``compiled.memory_analysis()``).

:data:`CHIPS` names the chip generations and the topology each is described
by (a one-chip topology name is refused by libtpu; a one-device mesh on a
2x2 topology is the one-chip program).  :data:`PROGRAMS` names the programs
of :mod:`.tpu_programs`.  :func:`compile_tpu` compiles in the real-XLA worker
(:mod:`.worker`): an abort of the TPU compiler is an answer there, not the
end of the caller.

>>> CHIPS["v5e"]
'v5e:2x2'
>>> TpuModule("p", "v5e", "HloModule m", 8192, 4096, 0, 0, 0).figures["argument"]
8192
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass

from ..spec import TilespecError
from .client import WorkerSetup, available as xla_available, run
from .protocol import TpuCompileRequest, TpuCompileResponse, TpuLayoutRequest

__all__ = ["CHIPS", "DTYPES", "PROGRAMS", "TpuModule", "TpuNoAnswer", "TpuUnavailable",
           "available",
           "compile_tpu", "parameter_module"]

#: Chip generation -> the topology whose devices its programs are compiled for.
CHIPS = {"v4": "v4:2x2x1", "v5e": "v5e:2x2", "v5p": "v5p:2x2x1", "v6e": "v6e:2x2",
         "tpu7x": "tpu7x:2x2x1"}

#: XLA's element type -> the numpy (ml_dtypes) name jax takes.
DTYPES = {"pred": "bool", "s4": "int4", "u4": "uint4", "s8": "int8", "u8": "uint8",
          "s16": "int16", "u16": "uint16", "s32": "int32", "u32": "uint32",
          "f16": "float16", "bf16": "bfloat16", "f32": "float32", "f8e4m3fn": "float8_e4m3fn",
          "f8e5m2": "float8_e5m2"}

#: Program name -> what it is (built in the worker by :mod:`.tpu_programs`).
PROGRAMS = {
    "matmul_129x257_bf16": "bf16 matmul of odd shapes (129x257 @ 257x65)",
    "matmul_odd_f32": "f32 matmul 33x17 @ 17x1000 and its transpose",
    "reshape_1000": "f32[10,100] reshaped to f32[1000], doubled, cumsum",
    "cumsum_2d": "bf16 cumsum along the major dim of a 37x300 array",
    "int8_matmul": "int8 x int8 -> int32 matmul",
    "int4_matmul": "int4 weights widened to bf16 and multiplied",
    "fp8_matmul": "f8e4m3fn x f8e4m3fn -> f32 matmul",
    "bool_mask": "a pred mask: where, sum, logical not and reshape",
    "attention_heads": "f32 attention, 4 heads split and merged by reshape and transpose",
    "attention_bf16": "bf16 attention, 8 heads of 32",
    "conv_nhwc": "a 3x3 NHWC convolution, relu, flatten",
    "layer_norm": "bf16 layer norm over 384 features",
    "scan_rnn": "an RNN over 12 steps with lax.scan",
    "gather_scatter": "rows gathered by index and scatter-added back",
    "sort_topk": "sort and top_k along a row of 333",
    "pad_slice_concat": "pad, slice, concatenate and a strided slice, bf16",
    "transformer_block": "a pre-norm bf16 transformer block: attention and a gelu MLP",
    "quantized_matmul": "per-row int8 quantisation, int8 matmul, dequantisation",
    "transpose_3d": "a bf16 3-d transpose and reshape",
    "s16_u8_mix": "s16 and u8 widened to s32, added, reshaped",
    "max_pool": "3x3 max pooling with stride 2 over NHWC f32",
    "sharded_mlp": "an MLP over a 2x2 mesh (data x model)",
    "sharded_attention": "bf16 attention with batch and heads sharded over a 2x2 mesh",
    "sharded_train": "value_and_grad of a sharded layer and its update",
    "sharded_reshape": "a reshape and reduction of a row-sharded bf16 array",
}

#: Programs compiled for four devices (the others for one).
SHARDED = tuple(n for n in PROGRAMS if n.startswith("sharded_"))

INSTALL_HINT = ("the TPU compiler (libtpu) is not installed: pip install -e '.[tpu]' in a "
                "clone of tilespec, or pip install 'jax[tpu]'")


class TpuUnavailable(TilespecError):
    """libtpu is not installed, so the TPU compiler cannot be asked."""


class TpuNoAnswer(RuntimeError):
    """The TPU compiler gave no answer: it aborted (``Aborted``), took longer
    than the timeout (``Hung``) or raised (``Crashed``); ``failure`` says which."""

    def __init__(self, program: str, chip: str, failure):
        super().__init__(f"the TPU compiler gave no answer on {program} for {chip}: "
                         f"{failure}")
        self.failure = failure


def available() -> bool:
    """True when jax and libtpu can be imported (neither is imported here)."""
    return xla_available() and importlib.util.find_spec("libtpu") is not None


@dataclass(frozen=True)
class TpuModule:
    """What the TPU compiler made of one program for one chip: the optimised
    module's text and the figures of ``memory_analysis()`` in bytes."""

    program: str
    chip: str
    hlo: str
    argument: int
    output: int
    alias: int
    temp: int
    generated_code: int

    @property
    def figures(self) -> dict[str, int]:
        """The memory figures by short name."""
        return {"argument": self.argument, "output": self.output, "alias": self.alias,
                "temp": self.temp, "generated_code": self.generated_code}


def _module(program: str, chip: str, answer) -> TpuModule:
    if not isinstance(answer, TpuCompileResponse):
        raise TpuNoAnswer(program, chip, answer)
    f = dict(answer.figures)
    return TpuModule(program, chip, answer.hlo, f["argument_size_in_bytes"],
                     f["output_size_in_bytes"], f["alias_size_in_bytes"],
                     f["temp_size_in_bytes"], f["generated_code_size_in_bytes"])


def compile_tpu(programs, chips, timeout: float = 600.0) -> list[TpuModule]:
    """Each program compiled for each chip (program-major), in one worker."""
    if not available():
        raise TpuUnavailable(INSTALL_HINT)
    unknown = [p for p in programs if p not in PROGRAMS] + [c for c in chips if c not in CHIPS]
    if unknown:
        raise ValueError(f"no such program or chip: {', '.join(unknown)}")
    pairs = [(p, c) for p in programs for c in chips]
    answers = run([TpuCompileRequest(p, CHIPS[c]) for p, c in pairs],
                  WorkerSetup(timeout=timeout))
    return [_module(p, c, a) for (p, c), a in zip(pairs, answers)]


def parameter_module(dims, element_type: str, chip: str, timeout: float = 600.0) -> TpuModule:
    """The module of ``a + 1`` compiled for ``chip`` with one parameter of
    ``dims`` and ``element_type`` (XLA's name): its entry parameter carries
    the layout the TPU compiler picks for such an array."""
    if not available():
        raise TpuUnavailable(INSTALL_HINT)
    if element_type not in DTYPES:
        raise TpuUnavailable(f"the TPU compiler is not asked about {element_type}: one of "
                             f"{', '.join(DTYPES)}")
    (a,) = run([TpuLayoutRequest(tuple(dims), DTYPES[element_type], CHIPS[chip])],
               WorkerSetup(timeout=timeout))
    return _module("parameter", chip, a)
