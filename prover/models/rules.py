"""XLA's own layout rules, as openxla/xla's public code states them, against the spec.

The catalogue (:data:`RULES`) and :func:`check`.  Each rule is written once
over an :class:`~spec.arith.Arithmetic` (so it runs on ints, numpy arrays and
Z3 terms) after the behaviour the public source shows (no code is copied),
checked against the XLA in jaxlib where it can answer, and compared with the
spec for one shape (or pair), concrete or with named dims:

``array_size`` -- ``ShapeUtil::ArraySize`` (openxla/xla ``xla/shape_util.cc``),
    :mod:`prover.models.array_size`.  Untiled: the elements (no ``L``); tiled: the
    *first* tile only, then ``L(n)``; every dim its ``LayoutUtil::MaxSplitSize``
    (``xla/layout_util.cc``); a ``*`` entry makes it 0.  Spec:
    :func:`spec.size.aligned_elements`.
``linear_index`` -- ``LayoutUtil::LinearIndex`` (``xla/layout_util.cc``),
    :mod:`prover.models.linear_index`.  Rank 0: 0; rank 1: the index unchanged;
    otherwise the first tile only.  Spec: :func:`spec.index.offset`.
``linear_index_nested``, ``delinearize_nested`` --
    ``LayoutUtil::LinearIndexForNestedTiling`` and
    ``DelinearizeIndexForNestedTiling`` (``xla/layout_util.cc``, 2026),
    :mod:`prover.models.nested_tiling`: modelled from their description (neither the
    stored source nor jaxlib 0.10.2 has them).  Every tile in turn.
``reshape_is_bitcast`` -- ``ShapeUtil::ReshapeIsBitcast`` (``xla/shape_util.cc``),
    :mod:`prover.models.bitcast_rules`.  Element types, element counts, no elements,
    then unit indices in both directions compared by ``minor_to_major``
    strides only: tiles, ``L`` and ``E`` ignored.  Spec:
    :func:`prover.bitcast.is_bitcast`, on every return of the rule.
``transpose_is_bitcast`` -- ``ShapeUtil::TransposeIsBitcast``.  Element
    types, then the permutation composed with the output's ``minor_to_major``
    must be the input's; tiles ignored.

A check returns a :class:`~prover.result.Result`: ``proved`` (the rule gives
the spec's answer for this shape, or for every size of its named dims),
``refuted`` (a counterexample computed by both the rule and the spec on
concrete ints), or ``unknown``.  Offsets and sizes are proved the way
:mod:`prover.core.linform` compares two row-major linearisations: XLA's loop is
first shown (as a polynomial identity over free atoms, :func:`loop_identity`)
to be ``lin(V, W)`` for an explicit vector and dims, then ``(V, W)`` is
matched with the spec's pipeline.

Each rule lists the *conditions* under which it agrees with the spec: layout
conditions (checked on the text) and size conditions (a Z3 formula over the
dims; ``assume_conditions=True`` proves agreement wherever they hold).
:func:`prove_conditions` proves that theorem layout by layout over a family
(ranks 0-3, two dim orders, ten tilings, with and without ``L``), each for
every size of its named dims; the bitcast rules' conditions are checked pair
by pair (and, for untiled layouts, exhaustively on small shapes in the tests).

>>> from tilespec.spec.text import parse_array_shape as shape
>>> check("linear_index", [shape("f32[m,n]{1,0:T(8,128)}")]).status
'proved'
>>> r = check("linear_index", [shape("bf16[16,256]{1,0:T(8,128)(2,1)}")])
>>> r.status, r.counterexample.side("xla").offset != r.counterexample.side("spec").offset
('refuted', True)
>>> check("array_size", [shape("bf16[m,n]{1,0:T(8,128)(2,1)}")]).status
'proved'
>>> check("array_size", [shape("f32[3]{0:L(4)}")]).counterexample.details["elements"]["spec"]
4
"""

from __future__ import annotations

import dataclasses

from ...spec import Layout, Shape, Tile, TilespecError, format_shape
from ..bitcast import memory_space_violation
from ..core import DEFAULT_TIMEOUT
from ..result import Result
from . import (
    array_size,
    bitcast_rules,
    bitcast_tiling,
    data_size,
    decomposable,
    linear_index,
    nested_tiling,
    untiled,
)
from .array_size import (
    SOURCE as ARRAY_SIZE_SOURCE,
    check_array_size,
    size_loop_identity,
    xla_array_bytes,
    xla_array_size,
)
from .bitcast_rules import (
    check_bitcast_rule,
    xla_reshape_is_bitcast,
    xla_reshape_unit_checks,
    xla_transpose_is_bitcast,
)
from .bitcast_tiling import (
    SOURCE as BITCAST_TILING_SOURCE,
    check_validate_tiling,
    compute_bitcast_dim_map,
)
from .data_size import check_array_data_size
from .decomposable import SOURCE as DECOMPOSABLE_SOURCE, check_is_decomposable_bitcast
from .linear_index import (
    check_linear_index,
    index_loop_identity,
    xla_linear_index,
)
from .nested_check import check_nested_delinearize, check_nested_linear_index
from .nested_tiling import (
    SOURCE as NESTED_SOURCE,
    later_tiles_fit,
    tile_ranks_fit,
    xla_nested_delinearize,
    xla_nested_linear_index,
)
from .rule_check import Condition, Rule, RuleNotApplicable, level_conditions
from .untiled import check_is_untiled_layout
from .versions import ABORTS_ON_LONG_TILES, NESTED_PADDING, PADS_NESTED_TILES, XlaCommit, resolve

#: The catalogue's models: those of every module a rule checks.
XLA_MODELS = tuple(m for module in (array_size, bitcast_rules, bitcast_tiling, data_size,
                                    decomposable, linear_index, nested_tiling, untiled)
                   for m in module.XLA_MODELS)

# XLA's functions are reached through this catalogue as well as their own modules.
__all__ = ["RULES", "Condition", "Rule", "RuleNotApplicable", "check", "condition_family",
           "level_conditions", "loop_identity", "prove_conditions", "xla_array_bytes",
           "xla_array_size", "xla_linear_index", "xla_nested_delinearize",
           "xla_nested_linear_index", "xla_reshape_is_bitcast", "xla_reshape_unit_checks",
           "xla_transpose_is_bitcast"]


def loop_identity(kind: str, layout, rank: int, element_type: str = "f32"):
    """XLA's ``kind`` loop ('array_size' or 'linear_index') proved to be a
    row-major linearisation, for every size and index."""
    if kind == "linear_index":
        return index_loop_identity(layout, rank, element_type)
    return size_loop_identity(layout, rank, element_type)


# --- the catalogue ---------------------------------------------------------------------

def _no_combine_any(s: Shape) -> bool:
    return not any(t.combines for t in s.layout.tiles)


def _untiled_ranks_fit(s: Shape) -> bool:
    n = s.rank
    for t in s.layout.tiles:
        if len(t.sizes) > n:
            return False
        n += len(t.sizes)
    return True


def _no_combine_first(s: Shape) -> bool:
    return not (s.layout.tiles and s.layout.tiles[0].combines)


#: SameElementType: XLA's bitcast rules say no when the element types differ,
#: even where both are as wide (f32, s32) and the spec's memory is the same.
def _same_type_of(a: Shape, b: Shape, *_) -> str:
    """The SameElementType condition, naming the two shapes' own types.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> _same_type_of(shape("f32[m]{0}"), shape("bf16[m]{0}"))
    "the same element type (XLA's SameElementType; f32 and bf16 differ), or --ignore-element-type"
    >>> _same_type_of(shape("f32[4]{0}"), shape("f32[2,2]{1,0}"))
    "the same element type (XLA's SameElementType; both f32), or --ignore-element-type"
    """
    types = (f"both {a.element_type}" if a.element_type == b.element_type
             else f"{a.element_type} and {b.element_type} differ")
    return f"the same element type (XLA's SameElementType; {types}), or --ignore-element-type"


#: The text of :data:`_MEMORY_SPACES`.
MEMORY_SPACES = ("host memory S(5) on both sides or neither (XLA's verifier rejects a "
                 "bitcast across it; the rule reads no memory space)")

#: XLA's bitcast rules read no memory space; the spec's bitcast is the one
#: XLA's verifier accepts (:func:`~tilespec.prover.bitcast.memory_space_violation`).
_MEMORY_SPACES = Condition(MEMORY_SPACES, "layout",
                           lambda a, b, *_: memory_space_violation(a, b) is None)


_SAME_TYPE = Condition("the same element type (XLA's SameElementType; f32 and s32 "
                       "differ), or --ignore-element-type", "layout",
                       lambda a, b, *_: a.element_type == b.element_type,
                       said_of=_same_type_of)


RULES: dict[str, Rule] = {
    "array_size": Rule(
        "array_size",
        "ShapeUtil::ArraySize (openxla/xla xla/shape_util.cc; checked against jaxlib "
        "0.10.2, wrapped values included)",
        "padded elements from the first tile only; L(n) only when tiled; each dim "
        "its LayoutUtil::MaxSplitSize; int64 products (XLA wraps where they overflow)",
        1,
        (Condition("tiled, or L(1): XLA applies L(n) only to tiled layouts", "layout",
                   lambda s: bool(s.layout.tiles) or
                   s.layout.tail_padding_alignment_in_elements == 1),
         Condition("no '*' in the first tile: RoundUpTo(d, INT64_MIN) is 0, so "
                   "ArraySize is 0 (jaxlib rejects such a layout first)",
                   "layout", _no_combine_first),
         Condition("no split config (SC): XLA sizes the largest split "
                   "(LayoutUtil::MaxSplitSize), the document has no splits", "layout",
                   lambda s: not s.layout.split_configs),
         Condition("levels after the first add no padding", "size"),
         Condition("the byte size fits in int64 (XLA's products overflow past 2^63-1: "
                   "undefined behaviour; the binary wraps)", "size")),
        agree=("f32[m,n]{1,0:T(8,128)}", "bf16[m,n]{1,0:T(8,128)(2,1)}",
               "f32[]{:T(128)}", "f32[m]{0}"),
        disagree=("f32[3]{0:L(4)}", "f32[8,128]{1,0:T(8,128)(2,1,1,1)}",
                  "f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}",
                  "bf16[16,128]{1,0:T(8,128)(3,1)}",
                  "f32[10,6]{1,0:T(2,2)SC(0:3,5)}",
                  "f32[2]{0:T(2)L(4611686018427387904)}",
                  "f32[2]{0:T(2)L(9223372036854775807)}",
                  "f32[4294967296]{0:T(2)SC(0:3000000000)}"),
        source=ARRAY_SIZE_SOURCE),
    "linear_index": Rule(
        "linear_index",
        "LayoutUtil::LinearIndex (openxla/xla xla/layout_util.cc)",
        "offset from the first tile only; rank 1 unchanged, rank 0 zero",
        1,
        (Condition("no '*' in the first tile (INT64_MIN: the tile multiplier's product "
                   "overflows, undefined behaviour)", "layout", _no_combine_first),
         Condition("a single tiling level (or later levels that change nothing: "
                   "the size condition)", "layout", lambda s: len(s.layout.tiles) <= 1,
                   required=False),
         Condition("levels after the first add no padding and keep the order "
                   "(rank 1: every level keeps the order)", "size")),
        agree=("f32[m,n]{1,0:T(8,128)}", "f32[a,m,n]{0,2,1:T(8,128)}",
               "f32[m,n]{1,0:T(2,8,128)}", "f32[5]{0:T(128)}", "s32[]{:T(128)}",
               "f32[m,n]{1,0:T(8,128)(1,1)}"),
        disagree=("bf16[16,256]{1,0:T(8,128)(2,1)}", "f32[200]{0:T(8,128)}",
                  "bf16[256]{0:T(128)(2,1)}", "f32[3,5]{1,0:T(*,2)}"),
        source="openxla/xla xla/layout_util.cc LayoutUtil::LinearIndex, commit 22eee29e01 "
               "(2026-05-20)"),
    "linear_index_nested": Rule(
        "linear_index_nested",
        "LayoutUtil::LinearIndexForNestedTiling (openxla/xla xla/layout_util.cc)",
        "offset from every tile in turn, each splitting the previous tile's dims; "
        "a tile longer than the dims: CHECK_LE(tile_rank, current_shape.size()) fails "
        "before 1f375f52d4, unit dims pad it since; int64",
        1,
        (Condition("every tile no longer than the dims it splits (else XLA aborts: "
                   "CHECK_LE(tile_rank, current_shape.size()))", "layout", tile_ranks_fit,
                   applies=ABORTS_ON_LONG_TILES),
         Condition("no '*' in any tile (INT64_MIN: the linearisation's products "
                   "overflow, undefined behaviour)", "layout", _no_combine_any)),
        agree=("bf16[m,n]{1,0:T(8,128)(2,1)}", "f32[m,n]{1,0:T(8,128)}",
               "bf16[256]{0:T(128)(2,1)}", "f32[a,m,n]{0,2,1:T(2,8,128)(2,1,1)}",
               "s8[m,n]{1,0:T(8,128)(4,1)}", "f32[]{:T(128)}", "f32[200]{0:T(8,128)}",
               "bf16[16]{0:T(8,128)(2,1)}", "u8[1000]{0:T(32,128)(4,1)}"),
        disagree=("f32[3,5]{1,0:T(*,2)}",),
        source=NESTED_SOURCE, changed_at=(NESTED_PADDING,)),
    "delinearize_nested": Rule(
        "delinearize_nested",
        "LayoutUtil::DelinearizeIndexForNestedTiling (openxla/xla xla/layout_util.cc)",
        "the element at an offset: digits in the final dims, each tile's split undone; "
        "no CHECK on the tile rank (before 1f375f52d4 a longer tile reads out of bounds, "
        "since unit dims pad it)",
        1,
        (Condition("every tile no longer than the dims it splits (else an out-of-bounds "
                   "read: undefined behaviour)", "layout", tile_ranks_fit,
                   applies=ABORTS_ON_LONG_TILES),
         Condition("no tile after the first longer than the dims before it (since "
                   "1f375f52d4 its unit dims shift the indices an earlier tile's split "
                   "is undone from)", "layout", later_tiles_fit, applies=PADS_NESTED_TILES),
         Condition("no '*' in any tile (a final dim of 0: remaining_index % 0, "
                   "undefined behaviour)", "layout", _no_combine_any),
         Condition("offsets of elements only: a padding offset gives indices outside "
                   "the dims and an offset past the padded size wraps around, "
                   "without a word", "layout", lambda s: True, required=False)),
        agree=("bf16[m,n]{1,0:T(8,128)(2,1)}", "f32[m,n]{1,0:T(8,128)}",
               "bf16[256]{0:T(128)(2,1)}", "f32[3,5]{1,0:T(2,2)}", "f32[200]{0:T(8,128)}"),
        disagree=("f32[8,8]{1,0:T(2,2)(2,2,2,2,2)}", "f32[3,5]{1,0:T(*,2)}"),
        source=NESTED_SOURCE, changed_at=(NESTED_PADDING,)),
    "array_data_size": Rule(
        "array_data_size",
        "ShapeUtil::ArrayDataSize (openxla/xla xla/shape_util.cc)",
        "LinearIndex (first tile only; rank 1: the index) of the last element, plus "
        "one, in bytes; int64",
        1,
        (Condition("a single tiling level, or later levels that move no element past "
                   "the last one", "layout", lambda s: len(s.layout.tiles) <= 1,
                   required=False),
         Condition("rank 1: no tile longer than 1 entry (LinearIndex returns the index, "
                   "the spec prepends unit dims)", "layout",
                   lambda s: s.rank != 1 or all(len(t.sizes) <= 1 for t in s.layout.tiles)),
         Condition("at least one element (with none, the last index is -1 in every dim "
                   "and LinearIndex of it is not 0)", "size")),
        agree=("f32[28,1,1]{2,1,0:T(2,128)}", "f32[3,200]{1,0:T(2,128)}",
               "bf16[16,256]{1,0:T(8,128)(2,1)}", "s4[7]{0:E(4)}"),
        disagree=("f32[200]{0:T(8,128)}", "f32[0,5]{1,0:T(8,128)}", "f32[3,5]{1,0:T(*,2)}"),
        source="openxla/xla xla/shape_util.cc ShapeUtil::ArrayDataSize and "
               "xla/layout_util.cc LayoutUtil::LinearIndex, commit 22eee29e01 (2026-05-20)"),
    "is_untiled_layout": Rule(
        "is_untiled_layout",
        "LayoutUtil::IsUntiledLayout (openxla/xla xla/layout_util.cc)",
        "each tile divides its dims, and after an entry other than 1 every tile count "
        "is 1; CHECK_LE(tile_ndims, dims), CHECK_GT(entry, 0)",
        1,
        (Condition("every tile no longer than the dims it splits (else XLA aborts: "
                   "CHECK_LE(tile_ndims, current_shape.size()))", "layout",
                   lambda s: _untiled_ranks_fit(s)),
         Condition("no '*' in any tile (d % INT64_MIN is d: no for a nonzero dim, "
                   "CHECK_GT aborts for a zero one)", "layout", _no_combine_any)),
        agree=("f32[24,128]{1,0:T(8,128)}", "f32[4,256]{1,0:T(1,128)}",
               "f32[2,3,4]{2,1,0:T(8,128)}", "bf16[16,128]{1,0:T(8,128)(2,1)}"),
        disagree=("s32[]{:T(256)}", "f32[4,128]{1,0:T(*,128)}", "f32[0,128]{1,0:T(*,128)}"),
        source="openxla/xla xla/layout_util.cc LayoutUtil::IsUntiledLayout, commit "
               "22eee29e01 (2026-05-20)"),
    "is_decomposable_bitcast": Rule(
        "is_decomposable_bitcast",
        "ShapeUtil::IsDecomposableBitcast (openxla/xla xla/shape_util.cc)",
        "both shapes have layouts and the same element count (DecomposeBitcast returns "
        "nothing otherwise); element types not compared",
        2,
        (Condition("the same element width (XLA decomposes f32[4] to bf16[4]: equal "
                   "counts, different elements)", "layout",
                   lambda a, b: a.element_bits == b.element_bits),),
        agree=(("s4[3,2]{1,0}", "s8[3]{0}"), ("s4[3,2]{1,0}", "s4[6]{0}"),
               ("f32[16,17,3]{2,1,0}", "s32[51,16]{0,1}")),
        disagree=(("f32[4]{0}", "bf16[4]{0}"), ("s4[3,2]{1,0:E(4)}", "s8[3,2]{1,0}")),
        source=DECOMPOSABLE_SOURCE),
    "validate_tiling_of_bitcast": Rule(
        "validate_tiling_of_bitcast",
        "ComputeBitcastDimMap + ValidateTilingOfBitcast (openxla/xla "
        "xla/hlo/transforms/simplifiers/algebraic_simplifier.cc)",
        "a physical dim map (splits and combinations only), then the first tiles' "
        "entries compared dim by dim; yes at once if either side is untiled",
        2,
        (Condition("both sides tiled, or both untiled (with one side untiled the "
                   "validation says yes without looking)", "layout",
                   lambda a, b: bool(a.layout.tiles) == bool(b.layout.tiles)),
         Condition("the dims split or combine, never re-partition ({4,4} to {2,8} has "
                   "no map)", "layout",
                   lambda a, b: compute_bitcast_dim_map(b, a) is not None)),
        agree=(("f32[16,256]{1,0:T(8,128)}", "f32[2,8,256]{2,1,0:T(8,128)}"),
               ("f32[16,256]{1,0:T(8,128)}", "f32[4,4,256]{2,1,0:T(8,128)}"),
               ("f32[6,128]{1,0:T(2,128)}", "f32[3,2,128]{2,1,0:T(2,128)}")),
        disagree=(("f32[4,4]{1,0}", "f32[2,8]{1,0}"),
                  ("f32[8,2]{0,1:T(2,2)}", "f32[16]{0}"),
                  ("f32[8,128]{1,0:T(8,128)}", "f32[1024]{0:T(1024)}")),
        source=BITCAST_TILING_SOURCE),
    "reshape_is_bitcast": Rule(
        "reshape_is_bitcast",
        "ShapeUtil::ReshapeIsBitcast (openxla/xla xla/shape_util.cc)",
        "unit indices compared by minor_to_major strides: tiles, L and E ignored",
        2,
        (_SAME_TYPE, _MEMORY_SPACES,
         Condition("both layouts untiled with the same L", "layout",
                   lambda a, b: not a.layout.tiles and not b.layout.tiles and
                   a.layout.tail_padding_alignment_in_elements ==
                   b.layout.tail_padding_alignment_in_elements),
         Condition("same tiles and L on both sides, and the dims the tiles reach "
                   "are the same minor dims", "layout", lambda a, b: _same_tiled_tail(a, b))),
        agree=(("f32[m,4,32]{2,1,0}", "f32[m,128]{1,0}"),
               ("f32[6,m,n]{2,1,0:T(8,128)}", "f32[2,3,m,n]{3,2,1,0:T(8,128)}"),
               ("f32[2,m]{1,0}", "f32[m,2]{1,0}")),
        disagree=(("f32[16,256]{1,0:T(8,128)}", "f32[4096]{0}"),
                  ("f32[3,128]{1,0:T(8,128)}", "f32[384]{0}"),
                  ("f32[m,n]{1,0:T(8,128)}", "f32[m,n,1]{2,1,0:T(8,128)}")),
        source="openxla/xla xla/shape_util.cc ShapeUtil::ReshapeIsBitcast, commit "
               "22eee29e01 (2026-05-20)"),
    "transpose_is_bitcast": Rule(
        "transpose_is_bitcast",
        "ShapeUtil::TransposeIsBitcast (openxla/xla xla/shape_util.cc)",
        "minor_to_major composed with the permutation: tiles ignored",
        2,
        (_SAME_TYPE, _MEMORY_SPACES,
         Condition("same tiles and L on both sides", "layout",
                   lambda a, b: a.layout.tiles == b.layout.tiles and
                   a.layout.tail_padding_alignment_in_elements ==
                   b.layout.tail_padding_alignment_in_elements),
         Condition("no dim of size 1 (a unit dim may sit anywhere in memory)", "layout",
                   lambda a, b: all(d != 1 for d in a.dims))),
        agree=(("f32[m,n]{1,0:T(8,128)}", "f32[n,m]{0,1:T(8,128)}", (1, 0)),
               ("f32[m,n]{1,0}", "f32[n,m]{0,1}", (1, 0))),
        disagree=(("f32[8,256]{1,0:T(8,128)}", "f32[256,8]{0,1:T(2,128)}", (1, 0)),
                  ("f32[1,n]{1,0}", "f32[n,1]{1,0}", (1, 0))),
        options=("transpose",),
        source="openxla/xla xla/shape_util.cc ShapeUtil::TransposeIsBitcast, commit "
               "22eee29e01 (2026-05-20)"),
}


#: Tilings for the condition theorems: one level, longer than the rank,
#: later levels that do or do not pad or reorder, with and without L(n).
_FAMILY_TILES = (
    (), ((128,),), ((8, 128),), ((2, 8, 128),), ((8, 128), (2, 1)),
    ((8, 128), (1, 1)), ((8, 128), (1, 128)), ((8, 128), (2, 1, 1, 1)),
    ((4,), (2,)), ((8, 128), (3, 1)),
)


def condition_family(name: str, xla: XlaCommit | str | None = None) -> list[Shape]:
    """Shapes with named dims (ranks 0 to 3, row-major and reversed, the
    tilings above, L(1) and L(1024)) whose layout conditions for rule
    ``name`` hold: the layouts a condition theorem is proved on."""
    rule = RULES[name]
    if rule.shapes != 1:
        raise TilespecError(f"rule {name} compares two shapes; its conditions are "
                            "checked pair by pair")
    out = []
    for rank in range(4):
        dims = tuple("abc"[3 - rank:]) if rank else ()
        orders = {tuple(range(rank - 1, -1, -1)), tuple(range(rank))}
        for m2m in sorted(orders):
            for tiles in _FAMILY_TILES:
                for L in (1, 1024):
                    s = Shape("bf16", dims, Layout(m2m, tiles=tuple(Tile(t) for t in tiles),
                                                   tail_padding_alignment_in_elements=L))
                    if all(c.holds_for(s) for c in rule.conditions_at(xla)
                           if c.kind == "layout" and c.required):
                        out.append(s)
    return out


def prove_conditions(name: str, *, timeout: float = DEFAULT_TIMEOUT,
                     xla: XlaCommit | str | None = None) -> list[Result]:
    """The condition theorem of a single-shape rule, layout by layout: on
    every shape of :func:`condition_family`, for every size of its dims
    where the size conditions hold, the rule agrees with the spec."""
    return [check(name, [s], timeout=timeout, assume_conditions=True, xla=xla)
            for s in condition_family(name, xla)]


def _same_tiled_tail(a: Shape, b: Shape) -> bool:
    la, lb = a.layout, b.layout
    if la.tiles != lb.tiles or (la.tail_padding_alignment_in_elements !=
                                lb.tail_padding_alignment_in_elements):
        return False
    reach = max([len(t) for t in la.tiles] or [0])
    pa, pb = a.physical_dims, b.physical_dims
    if reach > min(len(pa), len(pb)):
        return False
    oa = a.physical_order[len(pa) - reach:]
    ob = b.physical_order[len(pb) - reach:]
    # the tiled dims are the same sizes and the trailing logical dims
    return (pa[len(pa) - reach:] == pb[len(pb) - reach:]
            and list(oa) == list(range(a.rank - reach, a.rank))
            and list(ob) == list(range(b.rank - reach, b.rank)))


def check(name: str, shapes, *, transpose=None, timeout: float = DEFAULT_TIMEOUT,
          assume_conditions: bool = False, ignore_element_type: bool = False,
          xla: XlaCommit | str | None = None) -> Result:
    """Check rule ``name`` against the spec on ``shapes`` (one or two), with
    XLA as it is at ``xla`` (a commit prefix, a date, ``jaxlib-X.Y.Z``;
    default the newest modelled); the result names that version
    (:attr:`Result.xla_version`).

    ``ignore_element_type`` is the bitcast rules' argument of that name in
    XLA (default false: element types must be the same, not only as wide)."""
    at = resolve(xla)
    return dataclasses.replace(
        _check(name, shapes, transpose=transpose, timeout=timeout,
               assume_conditions=assume_conditions,
               ignore_element_type=ignore_element_type, xla=at), xla_version=at)


def _check(name: str, shapes, *, transpose, timeout: float, assume_conditions: bool,
           ignore_element_type: bool, xla: XlaCommit) -> Result:
    if name not in RULES:
        raise TilespecError(f"unknown rule {name!r}; choose from {', '.join(RULES)}")
    rule = RULES[name]
    shapes = list(shapes)
    if len(shapes) != rule.shapes:
        raise TilespecError(f"rule {name} takes {rule.shapes} shape"
                            f"{'s' if rule.shapes > 1 else ''}, not {len(shapes)}")
    for s in shapes:
        if not isinstance(s, Shape):
            raise TilespecError(f"rule {name} needs array shapes, not a tuple")
        if any(d is None for d in s.dims):
            raise TilespecError(f"{format_shape(s)} has an unbounded dim ('?')")
    if name == "array_size":
        return check_array_size(shapes[0], timeout=timeout, assume_conditions=assume_conditions)
    if name == "linear_index":
        return check_linear_index(shapes[0], timeout=timeout,
                                  assume_conditions=assume_conditions)
    if name == "linear_index_nested":
        return check_nested_linear_index(shapes[0], timeout=timeout, xla=xla)
    if name == "delinearize_nested":
        return check_nested_delinearize(shapes[0], timeout=timeout, xla=xla)
    if name == "array_data_size":
        return check_array_data_size(shapes[0])
    if name == "is_untiled_layout":
        return check_is_untiled_layout(shapes[0])
    if name == "is_decomposable_bitcast":
        return check_is_decomposable_bitcast(shapes[0], shapes[1])
    if name == "validate_tiling_of_bitcast":
        return check_validate_tiling(shapes[0], shapes[1], timeout=timeout)
    if name == "transpose_is_bitcast":
        if transpose is None:
            raise TilespecError("rule transpose_is_bitcast needs --transpose P")
        return check_bitcast_rule(shapes[0], shapes[1], tuple(transpose), timeout=timeout,
                                  ignore_element_type=ignore_element_type)
    if transpose is not None:
        raise TilespecError(f"rule {name} takes no transpose")
    return check_bitcast_rule(shapes[0], shapes[1], None, timeout=timeout,
                              ignore_element_type=ignore_element_type)
