"""One question, one function: what tilespec says of a Pallas TPU kernel
before it runs (:func:`pallas_report`; ``tilespec pallas`` prints it).
Whether it compiles and, if not, which check fails and why
(:func:`.kernels.predict`); the nearest block shapes that do; and, given
XLA's layouts (from a module, or read from a compiler message), which layout
Mosaic expects for each operand and whether XLA's matches
(:func:`.compare.compare_layouts`).

>>> r = pallas_report(Kernel("copy", (Operand((16, 3072), "f32", (4, 128)),), "v5e"))
>>> r.verdict.check, r.nearest_blocks[:2]
('pallas-block-shape', ((8, 128), (8, 256)))
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from ..spec import Shape, concrete_dims, format_shape, parse_array_shape
from .blocks import block_sizes
from .cases import ReportedCase, reported_case
from .compare import LayoutMatch, compare_layouts
from .kernels import Kernel, Operand, Verdict, kernel_operands, predict  # noqa: F401 (Operand: the doctests)
from .memref import memref_bitwidth, memref_tiling, xla_layout_text
from .messages import BODY_CHECKS, Message, layout_note, read_message

__all__ = ["PallasReport", "compiler_change", "layouts_in_module", "message_differs",
           "nearest_blocks", "pallas_report", "unmodelled_body"]


@dataclass(frozen=True)
class PallasReport:
    """The answer of :func:`pallas_report`."""

    kernel: Kernel
    verdict: Verdict
    nearest_blocks: tuple[tuple[int, ...], ...]
    message: Message | None
    layouts: tuple[LayoutMatch, ...]
    notes: tuple[str, ...] = ()
    #: why the verdict does not cover the kernel's body ("" when it does):
    #: then a kernel the block checks pass is not said to compile
    unknown: str = ""
    #: the reported case whose message was given, and what the recorded
    #: compilers said of its kernel (:mod:`.cases`)
    case: ReportedCase | None = None
    recorded: tuple[str, ...] = ()

    @property
    def outcome(self) -> str:
        """``compiles``, ``does not compile`` or ``unknown`` (the body is not
        the one modelled, and the block checks pass)."""
        if not self.verdict.accepted:
            return "does not compile"
        return "unknown" if self.unknown else "compiles"


def _candidates(dim: int, block: int, steps) -> list[int]:
    out = {dim}
    for step in steps:
        below = (block // step) * step
        out.update(x for x in (below, below + step, below + 2 * step, below - step)
                   if 0 < x <= dim)
    return sorted(out)


def nearest_blocks(kernel: Kernel, most: int = 4) -> tuple[tuple[int, ...], ...]:
    """Block shapes for the first input, nearest to its block first (by the
    relative change of each dim), with which the model accepts the kernel
    (the other dims kept)."""
    x = kernel.inputs[0]
    if len(x.block) < 1 or 0 in x.shape:
        return ()
    lead = x.block[:-2] if len(x.block) >= 2 else ()
    grid: list[tuple[int, ...]]
    if len(x.shape) == 1:
        grid = [(b,) for b in _candidates(x.shape[0], x.block[0] or 1, (128, 256, 512, 1024))]
    else:
        rows = _candidates(x.shape[-2], x.block[-2] or 1, (8, 16, 32, 64))
        cols = _candidates(x.shape[-1], x.block[-1] or 1, (128,))
        grid = [(r, c) for r in rows for c in cols]
    found = []
    for tail in grid:
        block = (*lead, *tail)
        if tuple(block) == tuple(x.block):
            continue
        # the tiling XLA gave the operand stays: only the block changes
        trial = replace(kernel, inputs=(replace(x, block=block), *kernel.inputs[1:]))
        if predict(trial).accepted:
            cost = sum(abs((b or 1) - (o or 1)) / max(o or 1, 1)
                       for b, o in zip(block, x.block))
            found.append((cost, tuple(b for b in tail)))
    found.sort()
    return tuple(b for _, b in found[:most])


_CALL = re.compile(r"custom-call\(([^)]*)\)[^\n]*custom_call_target=\"tpu_custom_call\"")


def layouts_in_module(hlo: str) -> list[Shape]:
    """XLA's layouts of the operands of the module's first
    ``tpu_custom_call`` (the instructions it names, as the module declares
    them)."""
    shapes: dict[str, str] = {}
    for line in hlo.splitlines():
        m = re.match(r"\s*(?:ROOT )?%?([\w.\-]+) = (\w+\[[\d,]*\]\{[^}]*\})", line)
        if m:
            shapes[m.group(1)] = m.group(2)
        call = _CALL.search(line)
        if call:
            names = [a.strip().lstrip("%") for a in call.group(1).split(",") if a.strip()]
            # an operand written with its shape: "f32[8,128]{1,0} %x"
            return [parse_array_shape(shapes.get(n.split()[-1].lstrip("%"), n.split()[0]))
                    for n in names]
    return []


def pallas_report(kernel: Kernel, xla_layouts=(), error: str | None = None) -> PallasReport:
    """What tilespec says of ``kernel``: the model's verdict, the nearest
    block shapes that compile, and each given XLA layout (a
    :class:`~tilespec.spec.Shape`, or read from the compiler's ``error``
    text) against the layout Mosaic expects."""
    message = read_message(error) if error else None
    # the verdict is about the kernel the message is about: an operand laid
    # out as the message says XLA laid it, not as Mosaic's rule would
    given = list(xla_layouts)
    if message is not None and message.xla_layout:
        given.append(parse_array_shape(message.xla_layout))
    if given:
        # Mosaic takes some tilings XLA gives as they are (kernels.given_tiling)
        inputs = []
        for o in kernel.inputs:
            match = next((x for x in given if tuple(concrete_dims(x)) == o.shape
                          and x.element_type == o.element_type), None)
            tiles = (tuple(tuple(t.sizes) for t in match.layout.tiles)
                     if match is not None and match.layout and match.layout.tiles else None)
            inputs.append(replace(o, tiling=tiles))
        kernel = replace(kernel, inputs=tuple(inputs))
    verdict = predict(kernel)
    blocks = () if verdict.accepted else nearest_blocks(kernel)
    pairs = []
    expected = [parse_array_shape(t) for t in verdict.layouts if t]
    for xla in xla_layouts:
        mosaic = next((e for e in expected if e.dims == xla.dims
                       and e.element_type == xla.element_type), None)
        if mosaic is not None:
            if xla.layout and xla.layout.memory_space and mosaic.layout:
                # Mosaic's memref and XLA's operand live in one memory space
                mosaic = parse_array_shape(_with_space(format_shape(mosaic),
                                                       xla.layout.memory_space))
            pairs.append(compare_layouts(xla, mosaic))
    notes = []
    why = layout_note(error) if error else None
    if why:
        notes.append(why)
    if message is not None and message.xla_layout and message.mosaic_layout:
        xla, mosaic = (parse_array_shape(message.xla_layout),
                       parse_array_shape(message.mosaic_layout))
        preferred = next((e for e in expected if e.dims == xla.dims), None)
        note = one_d_tile_note(xla, mosaic)
        if note:
            notes.append(note)
        else:
            preferred = None
        pairs.append(compare_layouts(xla, mosaic, preferred,
                                     lambda view: _rule_gives(view, kernel.chip)))
    notes.extend(message_differs(kernel, message))
    if (message is not None and message.check and not verdict.accepted
            and verdict.check != message.check):
        notes.append(f"the message reports {message.check}, but the model, which follows "
                     f"libtpu 0.0.42.1, fails the kernel described on {verdict.check} first: "
                     f"the message comes from another compiler or another kernel")
    case = reported_case(message)
    recorded: tuple[str, ...] = ()
    if case is not None:
        recorded = case.sentences(kernel.inputs[0].shape)
        notes.extend(compiler_change(case, kernel.inputs[0].shape))
    return PallasReport(kernel, verdict, blocks, message, tuple(pairs), tuple(notes),
                        unmodelled_body(kernel, message), case, recorded)


def message_differs(kernel: Kernel, message: Message | None) -> list[str]:
    """Where ``message`` is about another kernel than the one described: an
    operand of a shape none given has, a block none given has.

    >>> m = read_message("E2002 ... Operand of shape (..., 32, 512) has tiling (32, 128), but "
    ...                  "its block shape (..., 16, 128) is not divisible")
    >>> message_differs(Kernel("blocks", (Operand((32, 512), "s8", (8, 128)),), "v5e"), m)
    ['the message is about a block (..., 16, 128), which no operand given has: the verdict is about the blocks given']
    """
    if message is None:
        return []
    ins, outs = kernel_operands(kernel)
    out = []
    if message.shape:
        named = parse_array_shape(message.shape)
        if not any(o.shape == tuple(concrete_dims(named)) and o.element_type == named.element_type
                   for o in ins + outs):
            out.append(f"the message is about an operand {message.shape}, which none given is: "
                       f"the verdict is about the operands given")
    if message.block:
        n = len(message.block)
        if not any(tuple(block_sizes(o.block))[-n:] == message.block for o in ins + outs):
            out.append(f"the message is about a block (..., {', '.join(map(str, message.block))}),"
                       f" which no operand given has: the verdict is about the blocks given")
    return out


def compiler_change(case: ReportedCase, shape) -> list[str]:
    """The difference between an older libtpu that refused the reported
    kernel of ``shape`` and a newer one that compiles it (none when the
    recorded answers do not change)."""
    answers = case.answers_for(shape)
    refused = [a for a in answers if not a.accepted]
    later = [a for a in answers if a.accepted and refused
             and _after(a.libtpu, refused[-1].libtpu)]
    if not refused or not later:
        return []
    return [f"the compiler changed: {refused[-1].compiler} refused {case.report}'s kernel of "
            f"{shape_text(shape)}, {later[0].compiler} compiles it; the model follows "
            f"libtpu 0.0.42.1, and the message is the older compiler's"]


def _after(a: str, b: str) -> bool:
    return tuple(map(int, a.split("."))) > tuple(map(int, b.split(".")))


def shape_text(shape) -> str:
    """``(128,256)``."""
    return "(" + ",".join(map(str, shape)) + ")"


def unmodelled_body(kernel: Kernel, message: Message | None) -> str:
    """Why the model's verdict on ``kernel`` is not about the body of the
    kernel in question ("" when it is): a ``blocks`` kernel has no body
    modelled, and a compiler message about lowering a body (an operation,
    an unsupported cast, a CHECK) is about one the modelled body does not
    have when the model lets that body pass.

    >>> unmodelled_body(Kernel("blocks", (Operand((8, 128), "f32", (8, 128)),), "v5e"), None)
    'the body is not modelled (--kernel blocks, the default with --error)'
    >>> m = read_message('Invalid input layout ... The MLIR operation involved: %1 = "tpu.dynamic_gather"(%0)')
    >>> unmodelled_body(Kernel("copy", (Operand((128,), "f32", (128,)),), "v5e"), m)
    "the message is about lowering the kernel's body (tpu.dynamic_gather: invalid-input-layout), which is not a copy: the model does not cover that body"
    """
    if kernel.kind == "blocks":
        return "the body is not modelled (--kernel blocks, the default with --error)"
    if message is None or message.check not in BODY_CHECKS:
        return ""
    verdict = predict(kernel)
    if not verdict.accepted and verdict.check == message.check:
        return ""
    what = ": ".join(x for x in (message.operation, message.check or "not recognised") if x)
    return (f"the message is about lowering the kernel's body ({what}), which is not a "
            f"{kernel.kind}: the model does not cover that body")


def _rule_gives(view: Shape, chip: str) -> bool:
    """Mosaic's tiling rule gives ``view`` (a rank-1 shape) its own tiles."""
    expected = parse_array_shape(xla_layout_text(
        concrete_dims(view), view.element_type,
        memref_tiling(concrete_dims(view), memref_bitwidth(view.element_type), chip)))
    tiles = lambda s: s.layout.tiles if s.layout else ()  # noqa: E731
    return tiles(expected) == tiles(view)


def one_d_tile_note(xla: Shape, mosaic: Shape) -> str | None:
    """The difference between libtpu 0.0.42.1 and the last open source when
    XLA gives a rank-2 operand a 1-d tile ``T(k)``: the compiler reads it as
    the tile ``(k, 128)`` (its message names ``T(k,128)``; with a whole-array
    block it aborts in ``tilesPerVreg``), where the open ``inferLayout``
    keeps a tiling XLA gave as it is.  No block shape helps then."""
    xt = xla.layout.tiles if xla.layout else ()
    mt = mosaic.layout.tiles if mosaic.layout else ()
    if len(xla.dims) < 2 or not xt or not mt or len(xt[0].sizes) != 1:
        return None
    (k,) = xt[0].sizes
    if tuple(mt[0].sizes) != (k, 128):
        return None
    return (f"libtpu reads XLA's 1-d tile T({k}) of a rank-{len(xla.dims)} operand as the tile "
            f"({k},128), which is not Mosaic's tiling rule for it: no block shape makes them "
            f"equal; give the operand a 2-d tiling")


def _with_space(text: str, space: int) -> str:
    return text[:-1] + f"S({space})}}" if "S(" not in text else text
