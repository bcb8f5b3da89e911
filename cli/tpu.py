"""``tilespec tpu-layout SHAPE --chip v5e``: the layout the TPU compiler
picks for a parameter of SHAPE's dims and element type (any layout written
in SHAPE is ignored), read from the module libtpu compiles for ``a + 1`` on a
described topology (no TPU needed), with tilespec's padded bytes of that
layout next to the compiler's ``argument_size_in_bytes``.

Exit status: 0 when the two sizes agree, 1 when they differ, 2 on bad input
or without libtpu (``pip install -e '.[tpu]'`` in a clone), 3 when the
compiler gave no answer (it aborted, raised, or outlasted ``--timeout``):
nothing is known then.
"""

from __future__ import annotations

import sys

from ..prover.hlo import parse_hlo
from ..prover.names import counted
from ..spec import Shape, byte_size, concrete_dims, format_shape, parse_array_shape
from .arguments import seconds
from .envelope import Entry, emit

EXIT_AGREE, EXIT_DIFFER, EXIT_UNKNOWN = 0, 1, 3


def cmd_tpu_layout(args) -> int:
    # the jax boundary: the TPU compiler, through the real-XLA worker
    from ..xla import tpu
    shape = parse_array_shape(args.shape)
    try:
        m = tpu.parameter_module(concrete_dims(shape), shape.element_type, args.chip,
                                 timeout=args.timeout)
    except tpu.TpuNoAnswer as e:
        print(f"tilespec: tpu-layout: unknown: {e}", file=sys.stderr)
        emit(args, [Entry({"shape": args.shape}, "tpu-layout", "unknown", seconds=None,
                          reason=str(e))])
        return EXIT_UNKNOWN
    (param,) = [i for c in parse_hlo(m.hlo).computations if c.is_entry
                for i in c.instructions if i.opcode == "parameter"]
    assert isinstance(param.shape, Shape)  # an array parameter was compiled
    picked = format_shape(param.shape)
    padded = byte_size(param.shape)
    agree = padded == m.argument
    text = (f"chip             {args.chip} ({tpu.CHIPS[args.chip]})\n"
            f"layout           {picked}\n"
            f"tilespec         {counted(padded, 'byte')} (padded, spec/size.py)\n"
            f"TPU compiler     {counted(m.argument, 'byte')} (argument_size_in_bytes)"
            + ("" if agree else "\ndifference       the sizes differ"))
    emit(args, [Entry({"shape": args.shape}, "tpu-layout", "ok" if agree else "refuted",
                      seconds=None, data={"chip": args.chip, "layout": picked,
                                          "padded_bytes": padded,
                                          "compiler_bytes": m.argument})], text)
    return EXIT_AGREE if agree else EXIT_DIFFER


def register(command) -> None:
    from ..xla import tpu
    c = command("tpu-layout", "the layout the TPU compiler picks for a parameter of a "
                "shape, with its padded bytes beside the compiler's; needs libtpu: "
                "pip install -e '.[tpu]' in a clone of tilespec", cmd_tpu_layout)
    c.add_argument("shape", metavar="SHAPE", help="dims and element type, e.g. "
                   "'bf16[129,257]' (a layout written here is ignored)")
    c.add_argument("--chip", default="v5e", choices=sorted(tpu.CHIPS),
                   help="the chip generation (default v5e)")
    c.add_argument("--timeout", default=600.0, type=seconds,
                   help="seconds the compiler may take (default 600)")
