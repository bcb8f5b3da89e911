"""Where the bytes go, as a figure (SVG or PNG, by the file's suffix).

One bar per array: its data, then the waste of each source of padding (its
share of the waste, :class:`~tilespec.prover.padding.advice.Part`); below
it, the bytes of each alternative.
"""

from __future__ import annotations

from typing import Any

from tilespec.prover.padding.advice import Advice
from tilespec.spec.errors import TilespecError


def plot(advices: list[Advice], path: str) -> None:
    """Write the figure of ``advices`` to ``path`` (``.svg`` or ``.png``)."""
    if not path.lower().endswith((".svg", ".png")):
        raise TilespecError(f"--plot {path}: the file must end in .svg or .png")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows: list[tuple[str, list[tuple[str, float]]]] = []
    for a in advices:
        waste = a.spec_bytes - a.unpadded_bytes
        segments = [("data", float(a.unpadded_bytes))]
        for p in a.breakdown:
            if p.share > 0:
                segments.append((p.sentence(), waste * p.share))
        rows.append((a.shape, segments))
        for alt in a.alternatives[:3]:
            rows.append((f"  -> {alt.shape}", [("alternative", float(alt.xla_bytes))]))
    fig, ax = plt.subplots(figsize=(10, 0.6 * len(rows) + 1.5))
    colours = [f"C{k}" for k in range(10)]
    seen: dict[str, Any] = {}
    for y, (_, segments) in enumerate(reversed(rows)):
        left = 0.0
        for k, (label, width) in enumerate(segments):
            colour = "0.6" if label == "data" else ("tab:green" if label == "alternative"
                                                    else colours[(k + 1) % len(colours)])
            bar = ax.barh(y, width / 2**20, left=left / 2**20, color=colour)
            seen.setdefault(label, bar)
            left += width
    ax.set_yticks(range(len(rows)), [r[0] for r in reversed(rows)], fontsize=8)
    ax.set_xlabel("MiB")
    ax.set_title("where the bytes go")
    ax.legend(list(seen.values()), list(seen), fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
