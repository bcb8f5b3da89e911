"""The range each named dim of an all-shapes question ranges over.

A proof about ``f32[m,n]`` covers every ``m, n >= 1``; bounds narrow that to
``lo <= m <= hi``.  A bound that names no dim of the shape, an empty range
(``m=0``, ``lo > hi``) or a name bounded twice would make a proof vacuous or
silently ignore what was asked, so each is bad input: one
:class:`~spec.errors.TilespecError` naming the bound.  Every place that reads
bounds (the encodings, the scope words, the counterexample search, the
exhaustive checks) goes through :func:`dim_ranges`, and ``tilespec prove
--bound`` relies on it too.

Bounds are a mapping ``{name: hi}`` or ``{name: (lo, hi)}``, or a sequence
of ``(name, value)`` pairs or ``"NAME=N"`` strings (where a repeat can be
seen).

>>> from tilespec.spec.text import parse_array_shape as shape
>>> dim_ranges(shape("f32[m,n]"), {"n": 16})
{'m': (1, None), 'n': (1, 16)}
>>> dim_ranges(shape("f32[m,n]"), ["m=4", ("n", (2, 8))])
{'m': (1, 4), 'n': (2, 8)}
>>> dim_ranges(shape("f32[m,n]"), {"m": 0})
Traceback (most recent call last):
...
tilespec.prover.core.bounds.BoundError: bound m=0 is an empty range: m >= 1 always
>>> dim_ranges(shape("f32[m,n]"), {"k": 4})
Traceback (most recent call last):
...
tilespec.prover.core.bounds.BoundError: bound k=4 names no dim of f32[m,n]{1,0} (its named dims: m, n)
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ...spec import Shape, TilespecError

Range = tuple[int, "int | None"]


class BoundError(TilespecError):
    """A bound that names no dim, is empty, repeated or not a number."""


def _int(v) -> int | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, str) and v.strip().lstrip("-").isdigit():
        return int(v.strip())
    try:
        if isinstance(v, np.integer):
            return int(v)
    except ImportError:  # pragma: no cover - numpy is a dependency
        pass
    return None


def _pairs(bounds):
    if bounds is None:
        return []
    if isinstance(bounds, Mapping):
        return list(bounds.items())
    if isinstance(bounds, (str, bytes)):
        bounds = [bounds]
    try:
        items = list(bounds)
    except TypeError:
        raise BoundError(f"bounds {bounds!r} are not a mapping or a list of NAME=N") from None
    out = []
    for item in items:
        if isinstance(item, str):
            name, sep, value = item.partition("=")
            if not sep:
                raise BoundError(f"bound {item!r} is not NAME=N")
            out.append((name.strip(), value.strip()))
        elif isinstance(item, tuple) and len(item) == 2:
            out.append(item)
        else:
            raise BoundError(f"bound {item!r} is not NAME=N or (name, N)")
    return out


def _range(name, value) -> Range:
    shown = f"{name}={value}" if not isinstance(value, tuple) else \
        f"{name}={value[0]}..{value[1]}" if len(value) == 2 else f"{name}={value}"
    if isinstance(value, tuple):
        if len(value) != 2:
            raise BoundError(f"bound {shown} is not (lo, hi)")
        lo, hi = _int(value[0]), _int(value[1])
    else:
        lo, hi = 1, _int(value)
    if lo is None or hi is None:
        raise BoundError(f"bound {shown} is not a whole number")
    if hi < 1:
        raise BoundError(f"bound {shown} is an empty range: {name} >= 1 always")
    if lo > hi:
        raise BoundError(f"bound {shown} is an empty range: {lo} > {hi}")
    return max(lo, 1), hi


def dim_ranges(shape: Shape, bounds=None) -> dict[str, Range]:
    """Every named dim of ``shape`` with its range ``(lo, hi)`` (``hi`` None:
    unbounded), after checking ``bounds``."""
    names = shape.names
    out: dict[str, Range] = {n: (1, None) for n in names}
    seen = set()
    for name, value in _pairs(bounds):
        if not isinstance(name, str) or not name.isidentifier():
            raise BoundError(f"bound {name!r}={value!r}: the name is not a dim name")
        if name not in out:
            have = f"its named dims: {', '.join(names)}" if names else "it has no named dims"
            raise BoundError(f"bound {name}={value} names no dim of {shape} ({have})")
        if name in seen:
            raise BoundError(f"bound {name} is given twice")
        seen.add(name)
        out[name] = _range(name, value)
    return out


def describe_ranges(ranges: dict[str, Range]) -> str:
    """``"m >= 1, 1 <= n <= 16"``."""
    return ", ".join(f"{n} >= {lo}" if hi is None else f"{lo} <= {n} <= {hi}"
                     for n, (lo, hi) in ranges.items())


def within(values: dict, ranges: dict[str, Range]) -> bool:
    """Do the dim ``values`` lie inside ``ranges``?"""
    for n, (lo, hi) in ranges.items():
        v = values.get(n, 1)
        if v < lo or (hi is not None and v > hi):
            return False
    return True
