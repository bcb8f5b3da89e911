"""The shapes to advise on: from XLA's out-of-memory report, or an HLO dump.

XLA's out-of-memory error lists its largest allocations, each as lines
``Size: 32.00G``, ``Shape: s32[8388608,8,4]{2,1,0:T(8,128)}``, ``Unpadded
size: 1.00G``, ``Extra memory due to padding: 31.00G (32.0x expansion)`` and
``XLA label: ...``, and where the allocation comes from, ``Operator:
op_name="..." source_file="..." source_line=N`` (a log prefix before each
line is ignored).  Sizes are printed as :func:`human_bytes` prints them;
:func:`disagreements` says where the printed sizes are not the computed ones.

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
    operator: str | None = None

    @property
    def source(self) -> str | None:
        """``file:line`` of the ``Operator:`` line's ``source_file`` and
        ``source_line``, or None.

        >>> ReportEntry("f32[8]{0}", operator='op_name="jit(f)/mul" '
        ...             'source_file="/w/model.py" source_line=42').source
        '/w/model.py:42'
        """
        m = re.search(r'source_file="([^"]*)"', self.operator or "")
        if m is None:
            return None
        line = re.search(r"source_line=(\d+)", self.operator or "")
        return m.group(1) + (f":{line.group(1)}" if line else "")


def parse_bytes(text: str) -> float | None:
    """Bytes of a size as :func:`human_bytes` prints it (to the digits
    printed), or None where it is no such size.

    >>> parse_bytes("16.00G"), parse_bytes("1.5K"), parse_bytes("12B"), parse_bytes("?")
    (17179869184.0, 1536.0, 12.0, None)
    """
    m = re.fullmatch(r"([\d.]+)\s*([KMGTPE]?)B?", text.strip())
    if m is None:
        return None
    return float(m.group(1)) * 1024 ** " KMGTPE".index(m.group(2) or " ")


def disagreements(entry: ReportEntry, xla_bytes: int, unpadded: int) -> tuple[str, ...]:
    """Where the report's printed ``Size:`` and ``Unpadded size:`` are not
    the sizes computed for its ``Shape:`` (XLA's ``ArraySize`` and the
    unpadded bytes), nor its expansion their ratio, each as one sentence
    with the factor.

    >>> disagreements(ReportEntry("s32[4]{0}", size="32.00G", unpadded="16B"), 16 * 2**30, 16)
    ('the report prints Size: 32.00G, the shape computes 16.00G: 2x',)
    """
    out = []
    for name, printed, computed in (("Size", entry.size, xla_bytes),
                                    ("Unpadded size", entry.unpadded, unpadded)):
        value = parse_bytes(printed or "")
        if value is None or printed == human_bytes(computed):
            continue
        ratio = value / computed if computed else float("inf")
        out.append(f"the report prints {name}: {printed}, the shape computes "
                   f"{human_bytes(computed)}: "
                   + (f"{ratio:.3g}x" if ratio >= 1 else f"1/{1 / ratio:.3g}x"))
    factor = xla_bytes / unpadded if unpadded else 1.0
    if entry.expansion is not None and round(factor, 1) != entry.expansion:
        ratio = entry.expansion / factor
        out.append(f"the report prints {entry.expansion:g}x expansion, the shape computes "
                   f"{factor:.3g}x: " + (f"{ratio:.3g}x" if ratio >= 1 else f"1/{1 / ratio:.3g}x"))
    return tuple(out)


_FIELD = re.compile(r"(?:^|\s|\d\.\s)(Size|Shape|Unpadded size|Extra memory due to padding|"
                    r"XLA label|Operator):\s*(.*?)\s*$")


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
                                       fields.get("XLA label"), fields.get("Operator")))
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
