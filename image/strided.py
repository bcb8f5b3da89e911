"""Pad-reshape-transpose run as strided views: a plan per layout.

:func:`spec.prt.prt_levels` describes a layout as a chain of numpy
operations (pad, reshape, transpose) per tiling level.  Run literally, each
level pads into a new array and copies it once more to transpose it.  Here the
same chain is grouped into *segments*, so that most of it is views and the
data moves once per segment:

* a reshape that splits a dim and a transpose are views of any array; so is
  a reshape that adds unit dims or merges dims (``*``) when the strides allow
  it (checked when the plan is made, on the strides the input will have);
* a level that pads ends its segment: its output is written piece by piece,
  one strided copy for the full tiles and one for the last, partial tile of
  each padded dim (and each combination of them), and the padding positions
  are filled;
* after a segment the data is contiguous again, in the order of that level's
  output, and the next segment starts from it.

So a layout whose dims are multiples of its tiles is one copy from the
logical array to the image (or back), whatever the number of levels, and no
array of per-element indices is ever made.

>>> from tilespec.spec.prt import prt_levels
>>> from tilespec.spec.text import parse_array_shape
>>> p = plan((3, 5), (1, 0), prt_levels(parse_array_shape("f32[3,5]{1,0:T(2,2)}")))
>>> [(len(s.pieces), len(s.pads)) for s in p.segments]
[(4, 2)]
>>> import numpy as np
>>> out = np.empty(24, np.int64)
>>> forward(p, np.arange(15).reshape(3, 5), out, -1)[:8].tolist()
[0, 1, 5, 6, 2, 3, 7, 8]
>>> back = np.empty((3, 5), np.int64)
>>> bool((backward(p, out, back) == np.arange(15).reshape(3, 5)).all())
True
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from ..spec import PrtLevel, Shape, logical_dims, prt_levels
from .blocks import copy

#: Beyond this many padded dims in one level (2^k pieces), the level pads
#: into a temporary array first and copies from it in one piece.
MAX_PIECE_DIMS = 6

#: One view operation: ("reshape", shape) or ("transpose", axes).
Op = tuple[str, tuple[int, ...]]


@dataclass(frozen=True)
class Piece:
    """One strided copy: ``source`` slices the segment's input (in the last
    level's merged dims), reshaped to ``split``; ``target`` slices the
    output (in the last level's split dims)."""

    source: tuple[slice, ...]
    split: tuple[int, ...]
    target: tuple[slice, ...]


@dataclass(frozen=True)
class Segment:
    """Levels that move the data once: views, then one level written."""

    views: tuple[Op, ...]           # the input -> the last level's merged dims
    merged: tuple[int, ...]         # dims after the views
    padded: tuple[int, ...]         # merged dims padded to whole tiles
    prepad: bool                    # pad into a temporary array first
    pieces: tuple[Piece, ...]
    pads: tuple[tuple[slice, ...], ...]   # padding positions, in split dims
    split: tuple[int, ...]
    order: tuple[int, ...]          # split dims -> output dims
    final: tuple[int, ...]          # the output's dims (it is contiguous)

    @property
    def is_copy(self) -> bool:
        """One full piece and no padding: a plain strided copy."""
        return not self.pads and not self.prepad and len(self.pieces) == 1


@dataclass(frozen=True)
class Plan:
    """A layout's pad-reshape-transpose as segments, for concrete dims."""

    logical: tuple[int, ...]
    physical_order: tuple[int, ...]     # logical dims, most major first
    segments: tuple[Segment, ...]

    @property
    def final(self) -> tuple[int, ...]:
        return self.segments[-1].final

    @property
    def size(self) -> int:
        """Elements of the image, padding included."""
        return int(np.prod(self.final, dtype=np.int64))


def c_strides(dims: Sequence[int]) -> tuple[int, ...]:
    """Row-major strides in elements.

    >>> c_strides((3, 4, 5))
    (20, 5, 1)
    """
    out, step = [], 1
    for d in reversed(dims):
        out.append(step)
        step *= max(int(d), 1)
    return tuple(reversed(out))


def view_reshape(a: np.ndarray, dims: Sequence[int]) -> np.ndarray | None:
    """``a`` reshaped without a copy, or None when the strides do not allow it.

    >>> a = np.zeros((2, 3)).T
    >>> view_reshape(a, (6,)) is None, view_reshape(a, (3, 2, 1)).shape
    (True, (3, 2, 1))
    """
    try:
        out: np.ndarray = np.reshape(a, tuple(dims), copy=False)
        return out
    except ValueError:
        return None
    except TypeError:  # numpy < 2.1 has no copy=; the attribute refuses a copy
        v: np.ndarray = a.view()
        try:
            v.shape = tuple(dims)
        except AttributeError:
            return None
        return v


def _fake(dims: Sequence[int], strides: Sequence[int]) -> np.ndarray:
    """An array with these dims and strides (in elements of one byte), only
    to ask numpy which reshapes are views; its memory is never read."""
    return np.lib.stride_tricks.as_strided(np.zeros(1, np.uint8), tuple(dims),
                                           tuple(strides), writeable=False)


def _pieces(level: PrtLevel) -> tuple[tuple[Piece, ...], tuple[tuple[slice, ...], ...]]:
    """The copies and padding regions that write one padded level."""
    h, k = len(level.merged) - len(level.tile), len(level.tile)
    head = tuple(slice(0, int(d)) for d in level.merged[:h])
    options: list[list[tuple[slice, tuple[int, int], slice, slice]]] = []
    pads = []
    for j in range(k):
        d, t = int(level.merged[h + j]), level.tile[j]
        full, rem = divmod(d, t)
        choice = []
        if full:
            choice.append((slice(0, full * t), (full, t), slice(0, full), slice(0, t)))
        if rem:
            choice.append((slice(full * t, d), (1, rem), slice(full, full + 1), slice(0, rem)))
            region = [slice(None)] * len(level.split)
            region[h + 2 * j], region[h + 2 * j + 1] = slice(full, full + 1), slice(rem, t)
            pads.append(tuple(region))
        options.append(choice)
    pieces = []
    for combo in itertools.product(*options):
        split = tuple(int(d) for d in level.merged[:h])
        target: tuple[slice, ...] = head
        for _, shape, n, r in combo:
            split += shape
            target += (n, r)
        pieces.append(Piece(head + tuple(c[0] for c in combo), split, target))
    return tuple(pieces), tuple(pads)


def _copy_segment(views: list[Op], dims: tuple[int, ...]) -> Segment:
    whole = tuple(slice(0, d) for d in dims)
    identity = tuple(range(len(dims)))
    return Segment(tuple(views), dims, dims, False, (Piece(whole, dims, whole),), (),
                   dims, identity, dims)


def _padded_segment(views: list[Op], level: PrtLevel) -> Segment:
    merged = tuple(int(d) for d in level.merged)
    padded = tuple(int(d) for d in level.padded)
    split = tuple(int(d) for d in level.split)
    final = tuple(int(d) for d in level.final)
    h = len(merged) - len(level.tile)
    uneven = sum(1 for m, t in zip(merged[h:], level.tile) if m % t and m >= t)
    if uneven > MAX_PIECE_DIMS:
        whole = tuple(slice(0, d) for d in padded)
        return Segment(tuple(views), merged, padded, True,
                       (Piece(whole, split, tuple(slice(0, d) for d in split)),), (),
                       split, level.order, final)
    pieces, pads = _pieces(level)
    return Segment(tuple(views), merged, padded, False, pieces, pads, split,
                   level.order, final)


def plan(logical: Sequence[int], minor_to_major: Sequence[int],
         levels: Sequence[PrtLevel]) -> Plan:
    """The segments for an array of dims ``logical`` (C-contiguous) laid
    out with ``minor_to_major`` and the tiling ``levels``."""
    logical = tuple(int(d) for d in logical)
    order = tuple(reversed(tuple(minor_to_major)))
    dims = tuple(logical[i] for i in order)
    strides = c_strides(logical)
    x = _fake(dims, tuple(strides[i] for i in order))
    segments: list[Segment] = []
    views: list[Op] = []
    for lv in levels:
        merged = tuple(int(d) for d in lv.merged)
        y = view_reshape(x, merged)
        if y is None:  # the strides do not merge: make the data contiguous first
            segments.append(_copy_segment(views, dims))
            views, x = [], _fake(dims, c_strides(dims))
            y = view_reshape(x, merged)
            assert y is not None
        views.append(("reshape", merged))
        if lv.padded != lv.merged:
            segments.append(_padded_segment(views, lv))
            dims = tuple(int(d) for d in lv.final)
            views, x = [], _fake(dims, c_strides(dims))
            continue
        split = tuple(int(d) for d in lv.split)
        views += [("reshape", split), ("transpose", lv.order)]
        x = y.reshape(split).transpose(lv.order)
        dims = tuple(int(d) for d in lv.final)
    if views or not segments:
        segments.append(_copy_segment(views, dims))
    return Plan(logical, order, tuple(segments))


def layout_plan(shape: Shape) -> Plan:
    """The plan of a concrete ``shape``, kept for the shapes used last."""
    return _layout_plan(shape)


@functools.lru_cache(maxsize=256)
def _layout_plan(shape: Shape) -> Plan:
    dims = logical_dims(shape)
    return plan(dims, shape.layout.minor_to_major, prt_levels(shape, dims))


@dataclass(frozen=True)
class PadFirst:
    """A layout whose only padding is its first tiling level's, on the
    logical dims themselves: the array padded to ``dims`` first (with the
    pad), laid out by ``plan``, which pads nothing, gives the same image."""

    dims: tuple[int, ...]
    plan: Plan


def pad_first(shape: Shape) -> PadFirst | None:
    """The :class:`PadFirst` of ``shape``, when its plan pads into a
    temporary that a later level then copies (two passes; padding the
    array first leaves one strided pass, which the C kernel runs), else None.

    >>> from tilespec.spec.text import parse_array_shape
    >>> pad_first(parse_array_shape("s8[33,130]{1,0:T(32,128)(4,1)}")).dims
    (64, 256)
    >>> pad_first(parse_array_shape("f32[9,130]{1,0:T(8,128)}")) is None   # one pass already
    True
    """
    return _pad_first(shape)


@functools.lru_cache(maxsize=256)
def _pad_first(shape: Shape) -> PadFirst | None:
    p = layout_plan(shape)
    if len(p.segments) < 2:
        return None
    dims = logical_dims(shape)
    first = prt_levels(shape, dims)[0]
    physical = tuple(dims[i] for i in p.physical_order)
    if first.unit_dims or tuple(first.merged) != physical or first.padded == first.merged:
        return None
    padded = [0] * len(dims)
    for i, d in zip(p.physical_order, first.padded):
        padded[i] = int(d)
    whole = plan(padded, shape.layout.minor_to_major, prt_levels(shape, padded))
    if len(whole.segments) != 1 or not whole.segments[0].is_copy or whole.size != p.size:
        return None
    return PadFirst(tuple(padded), whole)


def apply_views(a: np.ndarray, views: Sequence[Op]) -> np.ndarray:
    """``a`` through the view operations; each is a view by construction."""
    for op, arg in views:
        if op == "transpose":
            a = a.transpose(arg)
        else:
            v = view_reshape(a, arg)
            if v is None:
                raise AssertionError(f"reshape to {arg} is not a view")  # a bug in plan()
            a = v
    return a


def _box(dims: Sequence[int]) -> tuple[Any, ...]:
    """The index of the leading ``dims`` of an array; ``...`` keeps a
    0-d result an array (an empty tuple would give a scalar)."""
    return tuple(slice(0, d) for d in dims) + (...,)


def inverse(order: Sequence[int]) -> tuple[int, ...]:
    """The permutation that undoes ``order``.

    >>> inverse((2, 0, 1))
    (1, 2, 0)
    """
    out = [0] * len(order)
    for i, o in enumerate(order):
        out[o] = i
    return tuple(out)


#: What the last segment may hand over instead of copying: it receives the
#: logical side seen in the image's dims (a strided view).
Hook = Callable[[np.ndarray], None]


def forward(p: Plan, array: np.ndarray, out: np.ndarray, pad: Any,
            last: Hook | None = None) -> np.ndarray:
    """Lay ``array`` (C-contiguous, dims ``p.logical``) out into ``out``
    (contiguous, ``p.size`` elements); padding positions get ``pad``.

    With ``last``, a last segment that is a plain copy calls it with the
    array seen in the image's dims instead of copying (for packing).
    """
    x = array.transpose(p.physical_order)
    for k, seg in enumerate(p.segments):
        is_last = k == len(p.segments) - 1
        v = apply_views(x, seg.views)
        if is_last and last is not None and seg.is_copy:
            last(v.reshape(seg.split).transpose(seg.order))
            return out
        target = out if is_last else np.empty(seg.final, array.dtype)
        split = target.reshape(seg.final).transpose(inverse(seg.order))
        if seg.prepad:
            padded = np.empty(seg.padded, array.dtype)
            padded[...] = pad
            padded[_box(seg.merged)] = v
            v = padded
        for region in seg.pads:
            split[region + (...,)] = pad
        for piece in seg.pieces:
            copy(split[piece.target + (...,)], v[piece.source + (...,)].reshape(piece.split))
        x = target.reshape(seg.final)
    return out


def backward(p: Plan, image: np.ndarray, out: np.ndarray,
             first: Hook | None = None) -> np.ndarray:
    """Read the array held in ``image`` (``p.size`` elements) into ``out``
    (C-contiguous, dims ``p.logical``); padding is skipped.

    With ``first``, a last segment that is a plain copy calls it with ``out``
    seen in the image's dims (a view it must fill) instead of copying.
    """
    inputs = [out.transpose(p.physical_order)]
    inputs += [np.empty(seg.final, out.dtype) for seg in p.segments[:-1]]
    for k in reversed(range(len(p.segments))):
        seg = p.segments[k]
        dst = apply_views(inputs[k], seg.views)
        if k == len(p.segments) - 1 and first is not None and seg.is_copy:
            first(dst.reshape(seg.split).transpose(seg.order))
            continue
        src = image if k == len(p.segments) - 1 else inputs[k + 1]
        split = src.reshape(seg.final).transpose(inverse(seg.order))
        target = np.empty(seg.padded, out.dtype) if seg.prepad else dst
        for piece in seg.pieces:
            copy(target[piece.source + (...,)].reshape(piece.split), split[piece.target + (...,)])
        if seg.prepad:
            np.copyto(dst, target[_box(seg.merged)])
    return out
