"""Where the bytes go, as a figure (SVG or PNG, by the file's suffix).

One panel per array, on its own scale: a bar of its data followed by the
waste of each source of padding (its share of the waste,
:class:`~tilespec.prover.padding.advice.Part`), and below it a bar for each
of the cheapest alternatives.
"""

from __future__ import annotations

from typing import Any

from ...spec import TilespecError
from .advice import Advice
from .report import human_bytes

#: Colours for the sources of padding (the data is grey, alternatives blue).
PART_COLOURS = ("tab:red", "tab:orange", "tab:purple", "tab:brown", "tab:pink", "tab:olive")


def _unit(n: int) -> tuple[float, str]:
    for power, name in ((3, "GiB"), (2, "MiB"), (1, "KiB")):
        if n >= 1024 ** power:
            return 1024.0 ** power, name
    return 1.0, "bytes"


def plot(advices: list[Advice], path: str, alternatives: int = 3) -> None:
    """Write the figure of ``advices`` to ``path`` (``.svg`` or ``.png``)."""
    if not path.lower().endswith((".svg", ".png")):
        raise TilespecError(f"--plot {path}: the file must end in .svg or .png")
    if not advices:
        raise TilespecError("--plot: no shape to draw")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    heights = [1 + min(alternatives, len(a.alternatives)) for a in advices]
    fig, axes = plt.subplots(len(advices), 1, squeeze=False,
                             figsize=(10, 0.55 * sum(heights) + 1.2 * len(advices)),
                             gridspec_kw={"height_ratios": heights})
    for ax, a in zip(axes[:, 0], advices):
        scale, unit = _unit(max(a.xla_bytes, a.spec_bytes))
        waste = a.spec_bytes - a.unpadded_bytes
        rows = [a.shape] + [f"-> {alt.shape}" for alt in a.alternatives[:alternatives]]
        y = len(rows) - 1
        handles: dict[str, Any] = {"data": ax.barh(y, a.unpadded_bytes / scale, color="0.6")}
        left = float(a.unpadded_bytes)
        for k, p in enumerate(q for q in a.breakdown if q.share > 0):
            width = waste * p.share
            handles[p.sentence()] = ax.barh(y, width / scale, left=left / scale,
                                            color=PART_COLOURS[k % len(PART_COLOURS)])
            left += width
        for i, alt in enumerate(a.alternatives[:alternatives]):
            bar = ax.barh(y - 1 - i, alt.xla_bytes / scale, color="tab:blue")
            handles.setdefault("an alternative (XLA's bytes)", bar)
            ax.text(alt.xla_bytes / scale, y - 1 - i, " " + human_bytes(alt.xla_bytes),
                    va="center", fontsize=7)
        ax.set_yticks(range(len(rows)), list(reversed(rows)), fontsize=8)
        ax.set_xlabel(unit, fontsize=8)
        ax.set_title(f"{a.shape}: {human_bytes(a.xla_bytes)} for "
                     f"{human_bytes(a.unpadded_bytes)} of data ({a.factor:.3g}x)", fontsize=9)
        ax.legend(list(handles.values()), list(handles), fontsize=7, loc="best")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
