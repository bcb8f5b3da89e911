"""``tilespec pallas OPERAND... --chip v5e``: will a Pallas TPU kernel
compile, and if not which check fails, why, and the nearest block shapes
that do; with ``--hlo FILE`` (a module with the kernel's
``tpu_custom_call``) or ``--error FILE`` (Mosaic's or XLA's message), the
layout Mosaic expects for each operand against XLA's, the bytes of the copy
XLA inserts, and the layouts that make them one (each proved).

An OPERAND is ``TYPE[DIMS]@BLOCK``: ``f32[16,3072]@8,128``; ``-`` is a
squeezed block dim (``f32[2,16,256]@-,16,256``).  ``--kernel`` says what the
body does (``copy`` by default; with ``--error``, ``blocks``: only the block
checks, since the message comes from a kernel whose body is not given).
A verdict about a body the model does not cover is ``unknown``, never
``compiles``.

Exit status: 0 when the kernel compiles and every layout matches, 1 when
not or not known, 2 on bad input.
"""

from __future__ import annotations

import re

from ..mosaic import (
    GENERATIONS,
    KINDS,
    MEANING,
    Kernel,
    Operand,
    kernel_operands,
    layouts_in_module,
    pallas_report,
    read_message,
)
from ..prover.hlo import read_text
from ..spec import TilespecError, concrete_dims, parse_array_shape
from .envelope import Entry, emit

EXIT_OK, EXIT_NO = 0, 1


class OperandSyntax(TilespecError):
    """An OPERAND that is not ``TYPE[DIMS]@BLOCK``."""


def parse_operand(text: str) -> Operand:
    """``f32[16,3072]@8,128`` as an :class:`Operand` (no block: the whole
    array).

    >>> parse_operand("bf16[2,16,256]@-,16,128").block
    (None, 16, 128)
    """
    shape_text, _, block_text = text.partition("@")
    shape = parse_array_shape(shape_text.strip())
    dims = concrete_dims(shape)
    if not block_text.strip():
        return Operand(dims, shape.element_type, dims)
    parts = block_text.strip().strip("()").split(",")
    if not all(re.fullmatch(r"\s*(\d+|-)\s*", p) for p in parts):
        raise OperandSyntax(f"block {block_text!r} of {text!r} is not sizes or '-' "
                            f"separated by commas, e.g. 8,128")
    return Operand(dims, shape.element_type,
                   tuple(None if p.strip() == "-" else int(p) for p in parts))


def _operand_from_message(message) -> Operand | None:
    if message is None or not message.shape:
        return None
    return parse_operand(message.shape)


def cmd_pallas(args) -> int:
    error = read_text(args.error) if args.error else None
    hlo_layouts = layouts_in_module(read_text(args.hlo)) if args.hlo else []
    operands = [parse_operand(t) for t in args.operands]
    from_message = False
    if not operands and error:
        op = _operand_from_message(read_message(error))
        operands, from_message = ([op], True) if op else ([], False)
    if not operands:
        raise TilespecError("give the kernel's operands (TYPE[DIMS]@BLOCK), or --error with a "
                            "message naming one")
    kind = args.kernel or ("blocks" if error else "copy")
    kernel = Kernel(kind, tuple(operands), args.chip)
    report = pallas_report(kernel, hlo_layouts, error)
    v = report.verdict
    lines = [f"kernel     {kernel.kind} on {kernel.chip} (TPU generation "
             f"{GENERATIONS[kernel.chip]})"]
    lines += [f"operand    {o.text} block ({','.join('-' if b is None else str(b) for b in o.block)})"
              + (" (read from the message; no block given: the whole array)"
                 if from_message else "") for o in operands]
    if report.outcome == "unknown":
        lines.append(f"verdict    unknown: {report.unknown}; its blocks pass the block checks "
                     f"(a model; no compiler runs)")
    elif v.accepted:
        lines.append("verdict    compiles: passes the block and body checks (a model; no compiler runs)")
    else:
        lines.append(f"verdict    does not compile: {v.check}")
        lines.append(f"why        {v.reason}")
        lines.append(f"meaning    {MEANING.get(v.check, '')}")
        if report.nearest_blocks:
            lines.append("nearest    " + "  ".join(
                "(" + ",".join(map(str, b)) + ")" for b in report.nearest_blocks))
    ins, outs = kernel_operands(kernel)
    roles = [f"in {i}" for i in range(len(ins))] + [f"out {i}" for i in range(len(outs))]
    lines += [f"{'Mosaic' if i == 0 else '':<11}{role:<7}{t}"
              for i, (role, t) in enumerate(zip(roles, v.layouts)) if t]
    if report.message is not None:
        lines.append(f"message    {report.message.check or 'not recognised'}: "
                     f"{report.message.meaning}")
        if report.message.suggested_block is not None:
            lines.append(f"suggests   block ({','.join(map(str, report.message.suggested_block))})"
                         " (the compiler's suggestion, as it wrote it)")
    if report.case is not None:
        lines.append(f"reported   {report.case.report}: {report.case.what} "
                     f"({report.case.kernel}, tools/pallas_corpus.py)")
        lines += [f"recorded   {r}" for r in report.recorded]
    lines += [f"note       {n}" for n in report.notes]
    unknown = report.outcome == "unknown"
    entries = [Entry({"shapes": [o.text for o in operands]}, "pallas-compiles",
                     "unknown" if unknown else "ok", seconds=None,
                     reason=report.unknown or None,
                     data={"chip": kernel.chip, "kernel": kernel.kind,
                           "blocks": [list(o.block) for o in operands],
                           "outcome": report.outcome,
                           "compiles": None if unknown else v.accepted,
                           "check": v.check, "reason": v.reason,
                           "operand": v.operand, "mosaic_layouts": [t for t in v.layouts if t],
                           "nearest_blocks": [list(b) for b in report.nearest_blocks],
                           "message_check": report.message.check if report.message else None,
                           "reported": report.case.report if report.case else None,
                           "recorded": list(report.recorded),
                           "notes": list(report.notes)})]
    ok = report.outcome == "compiles"
    for m in report.layouts:
        ok = ok and m.same_order.status == "proved"
        lines.append(f"layout     XLA {m.xla}")
        lines.append(f"           Mosaic {m.mosaic}")
        lines.append(f"           {m.sentence}")
        for f in m.fixes:
            lines.append(f"fix        {f.what}: {f.shape} ({f.status}{', ' + f.evidence if f.evidence else ''})")
        entries.append(Entry({"source": m.xla, "target": m.mosaic}, "mosaic-layout",
                             m.same_order.status, m.same_order.scope, m.same_order.seconds,
                             m.same_order.counterexample, m.same_order.reason,
                             data={"equal": m.equal, "sentence": m.sentence,
                                   "copy_bytes": m.copy_bytes,
                                   "fixes": [{"what": f.what, "shape": f.shape,
                                              "status": f.status, "evidence": f.evidence}
                                             for f in m.fixes]}))
    emit(args, entries, "\n".join(lines))
    return EXIT_OK if ok else EXIT_NO


def register(command) -> None:
    c = command("pallas", "will a Pallas TPU kernel compile: which check fails and why, the "
                "nearest block shapes that do, and XLA's layouts against Mosaic's", cmd_pallas)
    c.add_argument("operands", nargs="*", metavar="OPERAND",
                   help="TYPE[DIMS]@BLOCK, e.g. 'f32[16,3072]@8,128' ('-': a squeezed dim)")
    c.add_argument("--chip", default="v5e", choices=sorted(GENERATIONS),
                   help="the TPU generation (default v5e)")
    c.add_argument("--kernel", choices=KINDS + ("blocks",),
                   help="what the body does (default copy; with --error, blocks: only the "
                   "block checks)")
    c.add_argument("--hlo", metavar="FILE", help="a module with the kernel's tpu_custom_call: "
                   "XLA's layouts of its operands")
    c.add_argument("--error", metavar="FILE", help="Mosaic's or XLA's error text ('-': stdin)")
