"""Is XLA's layout of a Pallas operand in the order of Mosaic's memref
layout, for every shape, and at its own dims which element lands where: one
question over the rank-2 claims (:mod:`.operand_order`) and the rank-1 ones
(:mod:`.rank_one_order`); ``tilespec pallas-order`` prints the answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..prover.core import DEFAULT_TIMEOUT
from ..prover.result import Result
from ..spec import Shape, concrete_dims, format_shape, parse_array_shape
from .operand_order import (
    NotInFamily,
    OperandOrder,
    OrderWitness,
    prove_operand_order,
    prove_order_lemma,
    witness,
)
from .rank_one_order import RankOneOrder, prove_rank_one_order, rank_one_witness

__all__ = ["OrderAnswer", "pallas_order"]


@dataclass(frozen=True)
class OrderAnswer:
    """What :func:`operand_order` says of one operand layout: the lemma for
    its tiling (for every shape), the claim of ``condition`` if one was
    given, and, for concrete dims, the element the layouts place apart
    there (None: every element at one offset), run on the concrete evaluator."""

    claim: Any
    lemma: Result
    condition: Result | None
    dims: tuple[int, ...] | None
    here: OrderWitness | None


def pallas_order(operand: Shape, chip: str, condition: str | None = None,
                  timeout: float = DEFAULT_TIMEOUT) -> OrderAnswer:
    """Whether XLA's layout ``operand`` (a rank-2 row-major ``TYPE[m,n]``
    tiled ``T(a,128)``, or a rank-1 one, :mod:`.rank_one_order`; dims
    concrete or named) puts its elements in the
    order of Mosaic's memref layout on ``chip``: the lemma for every shape,
    ``condition`` (in ``m``, ``n``) proved or refuted as the exact one, and
    the answer at the operand's dims.

    >>> from tilespec.spec import parse_array_shape
    >>> a = pallas_order(parse_array_shape("f32[16,3072]{1,0:T(128)}"), "v5e")
    >>> a.lemma.status, a.here.element, a.here.xla_offset, a.here.mosaic_offset
    ('proved', (0, 128), 128, 1024)
    """
    if operand.rank not in (1, 2) or not operand.layout or tuple(
            operand.layout.minor_to_major) != tuple(reversed(range(operand.rank))):
        raise NotInFamily(f"{format_shape(operand)}: the claims cover rank-1 and rank-2 "
                          f"row-major operands ({{0:T(...)}}, {{1,0:T(...)}})")
    if not operand.layout.tiles:
        raise NotInFamily(f"{format_shape(operand)}: untiled; the claims are about an "
                          "operand XLA tiles (T(a,128), T(k))")
    text = format_shape(operand.with_layout(operand.layout.replace(memory_space=0)))
    # the memory space moves no element: the claims are about the tiling
    tiling = text[text.index(":") + 1:text.rindex("}")]
    dims = None if operand.is_symbolic else concrete_dims(operand)
    if operand.rank == 1:
        if condition:
            raise NotInFamily("a rank-1 operand's claim is for every n: it takes no condition")
        one = RankOneOrder(operand.element_type, tiling, chip)
        found = None if dims is None else rank_one_witness(one, dims[0])
        here = None if found is None or dims is None else OrderWitness(
            dims, (found[0],), found[1], found[2], format_shape(
                parse_array_shape(f"{operand.element_type}[{dims[0]}]{{0:{tiling}}}")), found[3])
        return OrderAnswer(one, prove_rank_one_order(one, timeout), None, dims, here)
    claim = OperandOrder(operand.element_type, tiling, chip, condition or "n <= 128")
    lemma = prove_order_lemma(claim, timeout)
    proved = prove_operand_order(claim, timeout) if condition else None
    here = None if dims is None else witness(claim.element_type, tiling, chip, dims)
    return OrderAnswer(claim, lemma, proved, dims, here)
