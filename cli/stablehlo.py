"""``tilespec stablehlo-tiling``: a StableHLO ``custom_call``'s
``result_layouts`` and ``result_tilings`` (XLA 1f1d2e8769) as XLA shapes,
and back.

``tilespec stablehlo-tiling TEXT``: TEXT is the custom call as MLIR prints
it (its ``result_layouts``, ``result_tilings`` and ``-> tensor<...>``); the
answer is each result's XLA shape, and the attributes printed again from
those shapes, with whether they equal the input.  ``--shape SHAPE``: the
attributes of an XLA shape.  Each is an ``ok`` answer; bad text is bad input
(exit 2).
"""

from __future__ import annotations

from ..spec import (
    TilespecError,
    custom_call_attribute,
    custom_call_attributes,
    format_shape,
    parse_array_shape,
    read_custom_call,
)
from .envelope import Entry, emit


def cmd_stablehlo_tiling(args) -> int:
    if (args.text is None) == (args.shape is None):
        raise TilespecError("stablehlo-tiling: give the custom call's TEXT or --shape SHAPE")
    if args.shape is not None:
        shape = parse_array_shape(args.shape)
        layouts, tilings = custom_call_attributes([shape])
        emit(args, [Entry.answer("stablehlo-tiling", {"shape": shape},
                                 {"result_layouts": layouts, "result_tilings": tilings})],
             f"result_layouts = {layouts}\nresult_tilings = {tilings}")
        return 0
    shapes = read_custom_call(args.text)
    layouts, tilings = custom_call_attributes(shapes)
    given_tilings = custom_call_attribute(args.text, "result_tilings")
    # a missing result_tilings sets no tiles; MLIR omits an empty one
    same = (given_tilings or "[]") == tilings or (
        given_tilings is None and all(not s.layout.tiles for s in shapes))
    text = "\n".join([*(f"result {i}       {format_shape(s)}" for i, s in enumerate(shapes)),
                      f"result_layouts = {layouts}", f"result_tilings = {tilings}",
                      "round trip       " + ("the printed result_tilings equal the input"
                                             if same else "the printed result_tilings "
                                             "differ from the input (MLIR prints a tensor of "
                                             "equal entries as a splat)")])
    emit(args, [Entry.answer("stablehlo-tiling", {"shapes": list(shapes)},
                             {"result_layouts": layouts, "result_tilings": tilings,
                              "round_trip": same})], text)
    return 0


def register(command) -> None:
    c = command("stablehlo-tiling", "a StableHLO custom_call's result_layouts and "
                "result_tilings as XLA shapes, and back", cmd_stablehlo_tiling)
    c.add_argument("text", nargs="?", metavar="TEXT",
                   help="the custom call as MLIR prints it, e.g. '... {result_layouts = "
                   "[dense<[1, 0]> : tensor<2xindex>], result_tilings = [[dense<[8, 128]> "
                   ": tensor<2xindex>]]} : (tensor<8x128xf32>) -> tensor<8x128xf32>'")
    c.add_argument("--shape", metavar="SHAPE",
                   help="an XLA shape instead: print its result_layouts and result_tilings")
