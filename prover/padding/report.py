"""The shapes to advise on: from XLA's out-of-memory report, or an HLO dump.

XLA's out-of-memory error lists its largest allocations, each as lines
``Size: 32.00G``, ``Shape: s32[8388608,8,4]{2,1,0:T(8,128)}``, ``Unpadded
size: 1.00G``, ``Extra memory due to padding: 31.00G (32.0x expansion)`` and
``XLA label: ...`` (a log prefix before each line is ignored).  Sizes are
printed as :func:`human_bytes` prints them.

>>> text = '''  1. Size: 6.00G
...      Shape: u32[12582912,1]{1,0:T(8,128)}
...      Unpadded size: 48.00M
...      Extra memory due to padding: 5.95G (128.0x expansion)
...      XLA label: %fusion.1 = u32[12582912,1]{1,0:T(8,128)} fusion(...)'''
>>> (entry,) = read_report(text)
>>> entry.shape, entry.size, entry.unpadded, entry.expansion
('u32[12582912,1]{1,0:T(8,128)}', '6.00G', '48.00M', 128.0)
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from ...spec import Shape, TilespecError, format_shape
from ..hlo import parse_hlo
from ..models import xla_array_bytes


def human_bytes(n: int) -> str:
    """Bytes as XLA's out-of-memory reports print them: whole bytes under
    1K, one decimal for K, two above, truncated (the report of
    salesforce/ctrl#38 prints 1262254080 bytes as 1.17G, not 1.18G).

    >>> human_bytes(1536), human_bytes(6 * 2**30), human_bytes(0), human_bytes(1262254080)
    ('1.5K', '6.00G', '0B', '1.17G')
    """
    if n < 1024:
        return f"{n}B"
    value, power = float(n), 0
    while value >= 1024 and power < 6:
        value, power = value / 1024, power + 1
    unit = " KMGTPE"[power]
    decimals = 1 if unit == "K" else 2
    return f"{math.floor(value * 10**decimals) / 10**decimals:.{decimals}f}{unit}"


@dataclass(frozen=True)
class ReportEntry:
    """One allocation of an out-of-memory report, as printed."""

    shape: str
    size: str | None = None
    unpadded: str | None = None
    extra: str | None = None
    expansion: float | None = None
    label: str | None = None


_FIELD = re.compile(r"(?:^|\s|\d\.\s)(Size|Shape|Unpadded size|Extra memory due to padding|"
                    r"XLA label):\s*(.*?)\s*$")


def read_report(text: str) -> tuple[ReportEntry, ...]:
    """Every allocation of an out-of-memory report with an array ``Shape:``
    (tuples and allocations without a shape are left out)."""
    entries: list[ReportEntry] = []
    fields: dict[str, str] = {}

    def close():
        shape = fields.get("Shape")
        if shape and not shape.startswith("("):
            extra = fields.get("Extra memory due to padding", "")
            m = re.match(r"(\S+)\s*\(([\d.]+)x expansion\)", extra)
            entries.append(ReportEntry(shape, fields.get("Size"), fields.get("Unpadded size"),
                                       m.group(1) if m else (extra or None),
                                       float(m.group(2)) if m else None,
                                       fields.get("XLA label")))
        fields.clear()

    for line in text.splitlines():
        m = _FIELD.search(line)
        if not m:
            continue
        key, value = m.groups()
        if key == "Size":
            close()
        fields.setdefault(key, value)
    close()
    if not entries:
        raise TilespecError("the report has no 'Shape:' line of an array "
                            "(the text XLA prints for an out-of-memory error)")
    return tuple(entries)


def largest_buffers(hlo_text: str, count: int = 5) -> tuple[Shape, ...]:
    """The ``count`` largest array results of an HLO dump by XLA's bytes,
    each shape once.

    >>> hlo = '''HloModule m
    ... ENTRY e {
    ...   p = f32[8,8]{1,0:T(8,128)} parameter(0)
    ...   ROOT c = f32[64]{0:T(1024)} reshape(p)
    ... }'''
    >>> [format_shape(s) for s in largest_buffers(hlo)]
    ['f32[8,8]{1,0:T(8,128)}', 'f32[64]{0:T(1024)}']
    """
    shapes: dict[str, tuple[int, Shape]] = {}
    for inst in parse_hlo(hlo_text).instructions:
        s = inst.shape
        if not isinstance(s, Shape) or s.element_type in ("token", "opaque") \
                or not all(isinstance(d, int) for d in s.dims) \
                or any(t.combines for t in s.layout.tiles):
            continue
        text = format_shape(s)
        if text not in shapes:
            shapes[text] = (xla_array_bytes(s), s)
    ranked = sorted(shapes.values(), key=lambda v: -v[0])
    return tuple(s for _, s in ranked[:count])
