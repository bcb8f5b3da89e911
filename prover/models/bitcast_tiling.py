"""The algebraic simplifier's ``ValidateTilingOfBitcast`` against the spec.

Transcribed from openxla/xla ``xla/hlo/transforms/simplifiers/algebraic_simplifier.cc``
(``AlgebraicSimplifierVisitor::ComputeBitcastDimMap`` and the free function
``ValidateTilingOfBitcast``), commit b09bf132e8 (2026-05-21), facts carried
over.  The simplifier uses them to move a bitcast across copies
(``SwapCopyBitcastCopy``): it keeps the bitcast only where a dim map exists
and the tiling validates.

``ComputeBitcastDimMap(bitcast, operand)`` walks both shapes' physical dims
(``minor_to_major``) from the most minor, multiplying sizes, and maps each
operand dim of size > 1 to the bitcast dims it is split into or combined
from; it gives up (no map) on a re-partition (neither a split nor a
combination) or when the bitcast's dims are larger.

``ValidateTilingOfBitcast(bitcast, op, map)``: yes if either side is
untiled; no if the first tiles have different ranks; then for each op dim
from the most minor, as long as tile entries remain (from the last): no if
the two first tiles' entries differ there; a dim the map does not reach must
have tile entry 1; a mapped dim whose bitcast dim is smaller must be split
in the most major tiled position only, with the bitcast dim a multiple of the
tile entry dividing the op dim; a larger one must be combined in the most
major tiled position only, divisible both ways.  Later tiles are not read.

The spec's answer to the same question: is the bitcast from ``op`` to
``bitcast`` one (:func:`prover.bitcast.is_bitcast`, in XLA's order of
readings)?  They disagree both ways: ``f32[4,4]{1,0} -> f32[2,8]{1,0}`` is a
bitcast the dim map refuses (a re-partition); ``f32[8,2]{0,1:T(2,2)} ->
f32[16]{0}`` is not one, yet the validation says yes, because it returns yes
as soon as either side is untiled (whether the simplifier then rewrites such
a pair also depends on ``ReshapeLayoutDimensions`` and ``IsValidLayout``,
which are not modelled).

>>> from tilespec.spec.text import parse_array_shape as shape
>>> compute_bitcast_dim_map(shape("f32[4,256]{1,0}"), shape("f32[1024]{0}"))
[[1, 0]]
>>> simplifier_keeps(shape("f32[16,256]{1,0:T(8,128)}"), shape("f32[2,8,256]{2,1,0:T(8,128)}"))
True
"""

from __future__ import annotations

import time

from ...spec import Shape, concrete_dims, format_shape
from ..bitcast import is_bitcast
from ..core import DEFAULT_TIMEOUT
from ..result import PROVED, UNKNOWN, Result
from .cpp import check
from .rule_check import require_concrete, yes_no_verdict
from .versions import ABSL_MACROS_SIMPLIFIER, EVERY_VERSION, XlaModel

#: The C++ transcribed here, and the XLA versions it holds for: the
#: functions' text is the same at every modelled commit (tools/xla_model_history.py).
XLA_MODELS = (
    XlaModel("AlgebraicSimplifierVisitor::ComputeBitcastDimMap",
             "xla/hlo/transforms/simplifiers/algebraic_simplifier.cc", ABSL_MACROS_SIMPLIFIER, EVERY_VERSION),
    XlaModel("ValidateTilingOfBitcast",
             "xla/hlo/transforms/simplifiers/algebraic_simplifier.cc", ABSL_MACROS_SIMPLIFIER, EVERY_VERSION),
)

SOURCE = ("openxla/xla xla/hlo/transforms/simplifiers/algebraic_simplifier.cc "
          "ComputeBitcastDimMap and ValidateTilingOfBitcast, commit b09bf132e8 (2026-05-21)")
FUNCTION = "AlgebraicSimplifierVisitor::ComputeBitcastDimMap"


def compute_bitcast_dim_map(bitcast: Shape, operand: Shape) -> list[list[int]] | None:
    """ComputeBitcastDimMap: for each operand dim, the bitcast dims it maps
    to (None: no map)."""
    bd, od = concrete_dims(bitcast), concrete_dims(operand)
    b_m2m, o_m2m = bitcast.layout.minor_to_major, operand.layout.minor_to_major
    dim_map: list[list[int]] = [[] for _ in od]
    b_rank, o_rank = len(bd), len(od)
    cur_b = cur_o = 1
    o_pos = o_dim = -1
    for b_pos in range(b_rank):
        b_dim = b_m2m[b_pos]
        if o_pos >= o_rank:
            if bd[b_dim] != 1:
                return None
            continue
        b_size = bd[b_dim]
        prev_b = cur_b
        cur_b *= b_size
        if cur_o < cur_b and prev_b < cur_o:
            return None                           # a re-partition
        while o_pos < o_rank:
            if o_pos < 0 or cur_o < cur_b:
                o_pos += 1
                if o_pos >= o_rank:
                    return None                   # bitcast size > operand size
                o_dim = o_m2m[o_pos]
                o_size = od[o_dim]
                cur_o *= o_size
                if cur_o > cur_b and o_size < b_size and o_pos > 0:
                    return None                   # a re-partition
            check(o_dim >= 0, FUNCTION, "CHECK_GE(operand_dim, 0)", SOURCE)
            if od[o_dim] > 1:
                dim_map[o_dim].append(b_dim)
            if cur_o >= cur_b:
                if od[o_dim] == 1:
                    o_pos += 1
                break
    return dim_map


def validate_tiling_of_bitcast(bitcast: Shape, op: Shape, operand_map) -> bool:
    """ValidateTilingOfBitcast(bitcast_shape, op_shape, operand_map)."""
    if not op.layout.tiles or not bitcast.layout.tiles:
        return True
    op_tile, b_tile = op.layout.tiles[0].sizes, bitcast.layout.tiles[0].sizes
    if len(b_tile) != len(op_tile):
        return False
    bd, od = concrete_dims(bitcast), concrete_dims(op)
    idx = len(op_tile) - 1
    for op_dim in op.layout.minor_to_major:
        t = op_tile[idx]
        if t != b_tile[idx]:
            return False
        mapped = operand_map[op_dim] if op_dim < len(operand_map) else []
        if not mapped:
            if t != 1:
                return False
        elif mapped[0] >= len(bd):
            return False
        elif bd[mapped[0]] < od[op_dim]:
            if len(mapped) == 1 or idx > 0:
                return False
            if bd[mapped[0]] % t != 0 or od[op_dim] % bd[mapped[0]] != 0:
                return False
        elif bd[mapped[0]] > od[op_dim]:
            if idx > 0:
                return False
            if bd[mapped[0]] % od[op_dim] != 0 or od[op_dim] % t != 0:
                return False
        idx -= 1
        if idx < 0:
            break
    return True


def simplifier_keeps(op: Shape, bitcast: Shape) -> bool:
    """Whether the simplifier takes ``op -> bitcast`` as a bitcast whose
    tiling is valid: a dim map exists and the tiling validates."""
    m = compute_bitcast_dim_map(bitcast, op)
    return m is not None and validate_tiling_of_bitcast(bitcast, op, m)


def check_validate_tiling(op: Shape, bitcast: Shape, *, timeout=DEFAULT_TIMEOUT,
                          **_) -> Result:
    """The simplifier's yes/no against the spec's bitcast verdict, on
    concrete shapes."""
    start = time.perf_counter()
    require_concrete("validate_tiling_of_bitcast", op, bitcast)
    text = f"{format_shape(op)} -> {format_shape(bitcast)}"
    xla = simplifier_keeps(op, bitcast)
    spec = is_bitcast(op, bitcast, timeout=timeout)
    seconds = time.perf_counter() - start
    if spec.status == UNKNOWN:
        return Result(text, "rule validate_tiling_of_bitcast", UNKNOWN, seconds, "concrete",
                      reason=f"the spec's bitcast question is undecided: {spec.reason}", shapes=(op, bitcast))
    said = spec.status == PROVED
    what = ("ComputeBitcastDimMap finds a map and ValidateTilingOfBitcast says the tiling "
            "keeps the shapes equivalent; the spec refutes the bitcast" if xla
            else "the simplifier finds no map or no valid tiling; the spec proves it a bitcast "
            "(a missed simplification, not a wrong one)")
    return yes_no_verdict("validate_tiling_of_bitcast", text, start, xla, said,
                          f"the simplifier and the spec both say {'bitcast' if xla else 'no'}",
                          what, shapes=(op, bitcast))
