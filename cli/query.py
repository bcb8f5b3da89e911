"""``tilespec explain``, ``offset`` and ``locate``: plain queries of one
layout, answered by the spec (no verdict: they exit 0, 2 or 4)."""

from __future__ import annotations

from ..spec import TilespecError, bit_range, format_shape, locate, offset, resolve_xla
from ..teach import explain, format_explain, text_map
from .arguments import (
    array_size_wrap_note,
    ints,
    parse_shape_arg,
    xla_line,
    xla_version_argument,
)
from .envelope import Entry, emit


def cmd_explain(args) -> int:
    # the solver boundary: XLA's model of ArraySize loads z3
    from ..prover.models import xla_array_bytes
    # A padded size past int64 is a valid layout whose ArraySize wraps in
    # XLA: explain answers it (the spec's size beside XLA's wrapped one).
    shape = parse_shape_arg(args.shape, int64_size=False)
    # XLA's ArraySize reads the same at every modelled commit
    # (tools/xla_model_history.py): the version is named, not chosen among
    at = resolve_xla(args.xla)
    info = explain(shape, xla_model=xla_array_bytes, xla=at)
    info["xla_version"] = at.to_json()
    wraps = array_size_wrap_note(shape)
    if wraps is not None:
        info["xla_array_size_note"] = wraps
    drawing = text_map(shape)
    info["text_map"] = drawing
    text = format_explain(info) + ("" if args.xla is None else "\n" + xla_line(at))
    if drawing:
        text += "\n\n" + drawing
    elif shape.rank <= 2:
        text += "\n\n(no text map: the array is larger than the map shows)"
    emit(args, [Entry.answer("explain", {"shape": shape}, info)], text)
    return 0


def cmd_offset(args) -> int:
    shape = parse_shape_arg(args.shape)
    element = ints(args.element, "element")
    o = offset(shape, element)
    bits = bit_range(shape, o)
    data = {"shape": format_shape(shape), "element": list(element), "offset": o,
            "bit_range": list(bits), "byte_offset": bits[0] // 8}
    emit(args, [Entry.answer("offset", {"shape": shape}, data)], f"{o}")
    return 0


def cmd_locate(args) -> int:
    shape = parse_shape_arg(args.shape)
    try:
        position = int(args.offset)
    except ValueError:
        raise TilespecError(f"offset {args.offset!r} is not an integer") from None
    element = locate(shape, position)
    data = {"shape": format_shape(shape), "offset": position,
            "element": None if element is None else list(element),
            "padding": element is None}
    text = "padding" if element is None else ",".join(map(str, element))
    emit(args, [Entry.answer("locate", {"shape": shape}, data)], text)
    return 0


def register(command) -> None:
    c = command("explain", "show how a layout places a shape in memory", cmd_explain)
    c.add_argument("shape", help="shape with layout, e.g. 'f32[3,5]{1,0:T(2,2)}'")
    xla_version_argument(c)
    c = command("offset", "the linear offset of an element", cmd_offset)
    c.add_argument("shape")
    c.add_argument("element", help="logical index, e.g. 2,3")
    c = command("locate", "the element stored at a linear offset, or padding", cmd_locate)
    c.add_argument("shape")
    c.add_argument("offset")
