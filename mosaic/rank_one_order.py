"""XLA's layout of a rank-1 Pallas operand against Mosaic's, for every
length: ``TYPE[n]`` that XLA tiles ``T(k)`` (below 32 bits ``T(k)(128)(p,1)``
with ``p = 32/bits``, as Mosaic does) against Mosaic's rank-1 rule for a
kernel argument, ``T(t*128)`` with ``t`` = ``getTilingFactor`` of the
``ceil(n/128)`` rows, 1-d (:func:`.memref.memref_tiling`).

A 1-d tile of a rank-1 array pads its end and moves no element, so for
32 bits every ``T(k)`` is in Mosaic's order; below 32 bits the ``(p,1)``
tile interleaves ``p`` rows of 128, which lands alike only when XLA's
``k`` holds whole groups of ``p`` rows.  The claim "for every n" is the
``unsat`` of "some ``n >= 1`` and ``j < n`` with ``j`` at two offsets"
(the spec's pipeline on solver terms, Mosaic's tile chosen by
:func:`.memref.tiling_factor_in`); a model is replayed on the concrete
evaluator before it is called refuted.

>>> c = RankOneOrder("bf16", "T(128)(128)(2,1)", "v5e")
>>> c.name
"XLA's bf16[n]{0:T(128)(128)(2,1)} is in Mosaic's order on v5e for every n"
>>> r = prove_rank_one_order(c)
>>> r.status, r.counterexample.dim_values["n"] > 128
('refuted', True)
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from ..prover.core import DEFAULT_TIMEOUT, Encoding, search
from ..prover.result import PROVED, REFUTED, UNKNOWN, Counterexample, ProverBug, Result
from ..spec import (
    all_offsets,
    bit_width,
    evaluate,
    format_shape,
    parse_array_shape,
    shape_pipeline,
)
from .memref import (
    KERNEL_ARGUMENT_FLAGS,
    LANES,
    SUBLANES,
    generation,
    memref_bitwidth,
    memref_tiling,
    tiling_factor_in,
    xla_layout_text,
)
from .operand_order import NotInFamily, offset_by_rows, order_side
from .vector_layout import SolverOps

__all__ = ["RANK_ONE_CLAIMS", "RankOneOrder", "prove_rank_one_order", "rank_one_witness"]


@dataclass(frozen=True)
class RankOneOrder:
    """The claim: XLA's ``tiling`` of ``element_type[n]`` puts every element
    where Mosaic's rank-1 memref layout on ``chip`` does, for every ``n``."""

    element_type: str
    tiling: str
    chip: str

    def __post_init__(self):
        generation(self.chip)
        tiles = [tuple(t.sizes) for t in self.xla_shape().layout.tiles]
        bits = memref_bitwidth(self.element_type)
        rest = [] if bits == 32 else [(LANES,), (32 // bits, 1)]
        if not tiles or len(tiles[0]) != 1 or tiles[1:] != rest:
            want = "T(k)" + ("" if bits == 32 else f"(128)({32 // bits},1)")
            raise NotInFamily(f"XLA tiling {self.tiling} of {self.element_type}[n]: the claims "
                              f"cover {want}")

    def xla_shape_text(self) -> str:
        return f"{self.element_type}[n]{{0:{self.tiling}}}"

    def xla_shape(self):
        return parse_array_shape(self.xla_shape_text())

    @property
    def subject(self) -> str:
        return f"{self.xla_shape_text()} on {self.chip}"

    @property
    def name(self) -> str:
        return f"XLA's {self.xla_shape_text()} is in Mosaic's order on {self.chip} for every n"

    @property
    def scope(self) -> str:
        return (f"all n >= 1: a rank-1 {self.element_type} kernel argument, XLA's tiling "
                f"{self.tiling} against Mosaic's memref rule on {self.chip}; the order of the "
                f"elements, not the buffer's size")


def rank_one_witness(claim: RankOneOrder, n: int) -> tuple[int, int, int, str] | None:
    """The first element the two layouts of ``TYPE[n]`` place apart: (index,
    XLA's offset, Mosaic's offset, Mosaic's layout), or None."""
    xla = parse_array_shape(f"{claim.element_type}[{n}]{{0:{claim.tiling}}}")
    mosaic = parse_array_shape(xla_layout_text(
        (n,), claim.element_type, memref_tiling((n,), memref_bitwidth(claim.element_type),
                                                claim.chip)))
    a, b = all_offsets(xla), all_offsets(mosaic)
    differ = (a != b).nonzero()[0]
    if not len(differ):
        return None
    j = int(differ[0])
    return j, int(a[j]), int(b[j]), format_shape(mosaic)


def prove_rank_one_order(claim: RankOneOrder, timeout: float = DEFAULT_TIMEOUT) -> Result:
    """Prove ``claim`` for every ``n >= 1``, or refute it at a replayed element."""
    import z3

    start = time.perf_counter()
    ctx = z3.Context()
    xla = claim.xla_shape()
    enc = Encoding(xla, ctx)
    n: Any = enc.dims[0]
    bits = memref_bitwidth(claim.element_type)
    rows = tiling_factor_in(SolverOps(z3), (n + LANES - 1) / LANES, generation(claim.chip), bits,
                            KERNEL_ARGUMENT_FLAGS, True, True, SUBLANES)
    rest = () if bits == 32 else ((LANES,), (32 // bits, 1))
    j = enc.internal("j")

    def off(shape):
        return enc.ar.term(evaluate(shape_pipeline(shape), (j,), enc.dims, enc.ar))

    mosaic = offset_by_rows(z3, ctx, rows, [
        (v, off(parse_array_shape(xla_layout_text(("n",), claim.element_type,
                                                  ((v * LANES,), *rest)))))
        for v in (2 ** k for k in range(9))])
    answer, detail = search(z3.And(*enc.assumptions, j >= 0, j < n, off(xla) != mosaic),
                            ctx, timeout)
    seconds = time.perf_counter() - start
    if answer == "unsat":
        return Result(claim.subject, claim.name, PROVED, seconds, scope=claim.scope)
    if answer == "unknown":
        return Result(claim.subject, claim.name, UNKNOWN, seconds, scope=claim.scope,
                      reason=str(detail))
    size = detail.eval(n, model_completion=True).as_long()
    w = rank_one_witness(claim, size)
    if w is None:
        raise ProverBug(f"{claim.name!r} at n={size}: every element agrees on replay")
    e, xo, mo, mosaic_text = w
    b = bit_width(claim.element_type)
    ce = Counterexample({"n": size},
                        (order_side("source", f"{claim.element_type}[{size}]{{0:{claim.tiling}}}",
                                    (e,), xo, b),
                         order_side("target", mosaic_text, (e,), mo, b)),
                        what="the orders differ")
    return Result(claim.subject, claim.name, REFUTED, seconds, scope=claim.scope,
                  counterexample=ce)


#: The rank-1 claims shipped: XLA's 1-d tiles of f32, and bf16 and s8 tiled
#: as Mosaic tiles them.
RANK_ONE_CLAIMS = (
    RankOneOrder("f32", "T(128)", "v5e"),
    RankOneOrder("f32", "T(1024)", "v5e"),
    RankOneOrder("bf16", "T(1024)(128)(2,1)", "v5e"),
    RankOneOrder("s8", "T(1024)(128)(4,1)", "v5e"),
)
