"""``tilespec xla SHAPE...``: what real XLA says next to what tilespec says.

For each shape: XLA's parse and print, its layout validator's verdict (or
"XLA aborts on this input"), its ArraySize on the CPU device and the layout
the compiler kept; tilespec's parse and print, the spec's padded size and
tilespec's model of XLA's ArraySize; then every difference, named as a
documented divergence (docs/xla.md) or reported as a bug.

Exit status: 0 when every difference is a documented divergence, 1 when
some difference is unexplained, 2 on bad usage or without the ``xla`` extra.
"""

from __future__ import annotations

import sys

from ..prover.names import counted
from .arguments import seconds
from .envelope import Entry, emit

EXIT_AGREE, EXIT_BUG, EXIT_UNKNOWN = 0, 1, 3


def _version_line(versions: dict) -> str:
    return f"jax {versions['jax']}, jaxlib {versions['jaxlib']}"


def format_comparison(c) -> str:
    a = c.xla
    lines = [f"shape            {c.text}",
             f"XLA              {a.verdict[4:] if a.verdict.startswith('XLA ') else a.verdict}"]
    if c.tilespec_error is None:
        lines.append(f"tilespec         accepts it and prints {c.tilespec_printed}")
    else:
        lines.append(f"tilespec         rejects it: {c.tilespec_error}")
    if a.note:
        lines.append(f"note             {a.note}")
    if a.array_size is not None:
        lines.append(f"XLA ArraySize    {counted(a.array_size, 'byte')} (the CPU compiler's "
                     f"layout {a.device_layout})")
    if c.model_bytes is not None or c.model_note:
        lines.append("tilespec model   " + (f"{counted(c.model_bytes, 'byte')} (XLA's ArraySize "
                     "as prover/models/rules.py models it, for the layout as written)"
                     if c.model_bytes is not None
                     else f"none: {c.model_note}"))
    if c.spec_bytes is not None:
        lines.append(f"spec size        {counted(c.spec_bytes, 'byte')} (padded, spec/size.py)")
    if not c.differences:
        lines.append("difference       none")
    for d in c.differences:
        label = f"divergence {d.name}" if d.kind == "divergence" else "BUG"
        lines.append(f"difference       {d.aspect}: {label}: {d.explanation}")
    return "\n".join(lines)


def cmd_xla(args) -> int:
    # the jax boundary: real XLA, through its one worker
    from ..xla import compare as cmp, real
    real.require()
    versions = real.versions()
    try:
        results = cmp.compare(args.shapes, timeout=args.timeout)
    except real.XlaWorkerError as e:
        # XLA gave no answer (e.g. within a tiny --timeout): nothing is known
        print(f"tilespec: xla: unknown: {e}", file=sys.stderr)
        emit(args, [Entry({"shape": s}, "xla", "unknown", seconds=None,
                          reason="real XLA gave no answer (see the error line)")
                    for s in args.shapes])
        return EXIT_UNKNOWN
    bugs = sum(len(c.bugs) for c in results)
    # One entry per text: "ok" when XLA and tilespec agree up to the
    # documented divergences, "refuted" when an unexplained one remains.
    entries = [Entry({"shape": c.text}, "xla", "refuted" if c.bugs else "ok", seconds=None,
                     data={**c.to_json(), "xla_versions": versions,
                           "divergences": {d.name: _divergence(cmp, d.name)
                                           for d in c.differences if d.kind == "divergence"}})
               for c in results]
    emit(args, entries, "\n".join([f"real XLA: {_version_line(versions)} (CPU)"]
                                   + ["\n" + format_comparison(c) for c in results]))
    return EXIT_BUG if bugs else EXIT_AGREE


def _divergence(cmp, name: str | None) -> dict | None:
    """A documented divergence of tilespec from XLA: its title and where."""
    if name not in cmp.DIVERGENCES:
        return None
    title, where = cmp.DIVERGENCES[name]
    return {"title": title, "where": where}


def register(command) -> None:
    c = command("xla", "what real XLA (from jaxlib) says about shapes, next to "
                "what tilespec says; needs jax: pip install -e '.[xla]' in "
                "a clone of tilespec, or pip install jax jaxlib", cmd_xla)
    c.add_argument("shapes", nargs="+", metavar="SHAPE",
                   help="shape text, e.g. 'bf16[3,5]{1,0:T(8,128)(2,1)}'")
    c.add_argument("--timeout", default=300.0, type=seconds,
                   help="seconds the XLA subprocess may take (default 300)")
