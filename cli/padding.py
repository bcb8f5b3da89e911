"""``tilespec padding``: why a buffer is bigger than its data, and what
layout or reshape would not be.

``tilespec padding SHAPE...``, ``--report FILE`` (the text XLA prints for an
out-of-memory error), ``--hlo FILE`` (the largest buffers of a dump);
``--plot FILE`` draws where the bytes go.  Each shape is answered by
:func:`tilespec.prover.padding.advice.advise`; the text and ``--json`` are
renderings of its :class:`~tilespec.prover.padding.advice.Advice`.
"""

from __future__ import annotations

import argparse

from ..prover.hlo import read_text
from ..spec import Shape, TilespecError, parse_array_shape, resolve_xla, storage_sizes
from .arguments import parse_shape_arg, seconds, xla_line, xla_version_argument
from .envelope import Entry, emit


def _bytes(n: int) -> str:
    from ..prover.padding import human_bytes  # the solver boundary: the advisor loads z3
    return f"{n} bytes ({human_bytes(n)})"


def format_advice(a, entry=None, xla=None) -> str:
    """The advice in plain text (``xla``: the XLA whose storage sizes it names)."""
    lines = [f"shape          {a.shape}"]
    if entry is not None:
        lines.append(f"XLA printed    Size: {entry.size}, Unpadded size: {entry.unpadded}"
                     + (f" ({entry.expansion:g}x)" if entry.expansion else ""))
    lines += [f"XLA size       {_bytes(a.xla_bytes)} (ArraySize, first tile)",
              f"spec size      {_bytes(a.spec_bytes)} (padded, spec/size.py)",
              f"unpadded       {_bytes(a.unpadded_bytes)} (elements x bits stored each)",
              *(f"storage        {line}" for line in storage_sizes(parse_array_shape(a.shape), xla)),
              f"factor         {a.factor:.3g}x",
              f"why            {a.sentence}"]
    for p in a.breakdown:
        if p.factor != 1:
            lines.append(f"  {p.share:6.1%} of the waste: {p.sentence()}")
    if a.alternatives:
        lines.append("alternatives (by XLA's bytes):")
    for alt in a.alternatives:
        how = ("a bitcast (proved)" if alt.bitcast else
               f"a copy moving {_bytes(alt.copy_bytes)}" if alt.proved else
               "bitcast unknown (the solver did not decide): a copy to be safe")
        lines.append(f"  {alt.shape}  {_bytes(alt.xla_bytes)}, "
                     f"{alt.xla_bytes / a.unpadded_bytes if a.unpadded_bytes else 1:.3g}x; "
                     f"{alt.why}; {how}")
    return "\n".join(lines)


def cmd_padding(args) -> int:
    # the solver boundary: the advisor decides bitcasts with z3
    from ..prover.padding import ReportEntry, advise, largest_buffers, read_report
    if not (args.shapes or args.report or args.hlo):
        raise TilespecError("padding: give shapes, --report FILE or --hlo FILE")
    items: list[tuple[Shape, ReportEntry | None]] = [
        (parse_shape_arg(s), None) for s in args.shapes]
    if args.report:
        for entry in read_report(read_text(args.report)):
            items.append((parse_array_shape(entry.shape), entry))
    if args.hlo:
        items += [(s, None) for s in largest_buffers(read_text(args.hlo), args.top)]
    # ArraySize, ByteSizeOf and the bitcast rules the advice asks read the
    # same at every modelled commit (tools/xla_model_history.py)
    at = resolve_xla(args.xla)
    advices = [(advise(s, args.limit, timeout=args.timeout), e) for s, e in items]
    shapes = [s for s, _ in items]
    if args.plot:
        from ..prover.padding import plot  # matplotlib, past the solver boundary
        try:
            plot([a for a, _ in advices], args.plot)
        except OSError as err:
            raise TilespecError(f"cannot write {args.plot}: {err.strerror or err}") from None
    entries = []
    for shape, (a, e) in zip(shapes, advices):
        d = a.to_json()
        d["xla_version"] = at.to_json()
        if storage_sizes(shape, at):
            d["storage_sizes"] = list(storage_sizes(shape, at))
        if e is not None:
            d["report"] = {"size": e.size, "unpadded": e.unpadded, "extra": e.extra,
                           "expansion": e.expansion, "label": e.label}
        entries.append(Entry.answer("padding", {"shape": shape}, d))
    emit(args, entries, "\n\n".join(format_advice(a, e, at) for a, e in advices)
         + ("" if args.xla is None else "\n" + xla_line(at)))
    return 0


def count(text: str) -> int:
    """An argparse type for ``--top`` and ``--limit``: an int >= 0.

    >>> count("3")
    3
    """
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text} is negative")
    return value


def register(command) -> None:
    c = command("padding", "why a buffer is bigger than its data: XLA's and the "
                "spec's bytes, where the padding comes from, and smaller layouts "
                "or reshapes (bitcast proved, or a copy)", cmd_padding)
    xla_version_argument(c)
    c.add_argument("shapes", nargs="*", metavar="SHAPE",
                   help="shape text, e.g. 's32[8388608,8,4]{2,1,0:T(8,128)}'")
    c.add_argument("--report", metavar="FILE",
                   help="the text XLA printed for an out-of-memory error ('-': stdin)")
    c.add_argument("--hlo", metavar="FILE", help="an HLO dump: its largest buffers")
    c.add_argument("--top", type=count, default=5, help="--hlo: how many buffers (default 5)")
    c.add_argument("--limit", type=count, default=6,
                   help="alternatives per shape (default 6)")
    c.add_argument("--timeout", type=seconds, default=2.0,
                   help="seconds for each bitcast question (default 2)")
    c.add_argument("--plot", metavar="FILE", help="draw where the bytes go (.svg or .png)")
