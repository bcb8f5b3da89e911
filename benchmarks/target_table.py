"""How a run of benchmarks/bench_speed.py reports its targets: which
depend on the number of cores, standard output kept as it is printed, and
the targets' lines as the Markdown table the docs' speed section shows
(``bench_speed.py --targets-only --markdown``)."""

from __future__ import annotations

import os
import re

#: Which targets' figures depend on the number of cores.
CORES = {**{f"T{n}": "no: one process" for n in range(1, 8)},
         "T8": "yes: `--jobs 2`", "T9": "yes: 2 processes against 1",
         "T10": "no: pinned to one core"}


class Tee:
    """Standard output, also kept (the targets' lines for ``--markdown``)."""

    def __init__(self, out):
        self.out, self.lines = out, []

    def write(self, text: str) -> int:
        self.lines.append(text)
        return self.out.write(text)

    def flush(self) -> None:
        self.out.flush()


def markdown(printed: str) -> str:
    """The targets' lines of a run as a Markdown table: each target, what
    this run measured, its verdict, and whether it depends on the number of
    cores."""
    rows = ["| target | measured in this run | verdict | depends on the number of cores |",
            "|---|---|---|---|"]
    for line in printed.splitlines():
        found = re.match(r"(T\d+(?:/T\d+)?) +(.*?) *(NOT MET|NOT MEASURED|met)$", line)
        if found:
            name, figure, met = found.groups()
            cores = "; ".join(CORES.get(t if t.startswith("T") else f"T{t}", "?")
                              for t in name.split("/"))
            figure = " ".join(figure.split()).replace("|", "\\|")
            rows.append(f"| {name} | {figure} | {met if met == 'met' else '**' + met + '**'} "
                        f"| {cores} |")
    return "\n".join(rows) + f"\n\nMeasured on {os.cpu_count()} cores.\n"
