"""A reshape between shapes with bounded dynamic dims (``<=N``), decided for
every runtime size of those dims from 0 up to the bound.

What memory a dynamic array takes, from XLA (ROCm/xla, commit
183fa00cb5d82384463a1a7aed1ab06bc9026974): its buffer is the array at the
bound, and element ``e`` sits where it sits at the bound; the elements past
a dim's runtime size are padding.  ``xla/service/dynamic_padder.cc``,
``RewriteDynamicReshapeCombineInput``, draws ``[2, <=3]`` at runtime size 2
as ``[[a,b,P],[c,d,P]]``, i.e. ``[a,b,P,c,d,P]`` in memory.  A reshape still
pairs elements by their row-major position among the *runtime* dims, so a
plain reshape moves data where a dynamic dim that is not the most major of
its group has a runtime size below its bound: ``GenerateBinaryMask`` ("Skip
index 0 since there is no need to rewrite a major output dimension") and
``RewriteDynamicReshape`` rewrite exactly those reshapes.

The runtime sizes of DST's dims follow from SRC's as XLA's dynamic dimension
inference has them: group by group of the reshape (``CommonFactors`` at the
bounds, :func:`~.reshape_groups.reshape_groups`), a group keeps its element
count.  A runtime size at which no DST sizes keep the counts is not one the
reshape can have: the verdict does not cover it, and its steps name the first.

Decided two ways:

* the theorem :func:`runtime_pairing_is_bound_pairing`: when every dynamic dim
  (of bound above 1) is the first dim above 1 of its group on its side, the
  reshape pairs each element that exists at a runtime size with the element
  it pairs with at the bound (a group's row-major position never multiplies
  its most major size; the groups' counts agree on both sides, so the whole
  position splits into the groups' positions by Horner's rule).  The offsets
  are the bound's, so the question at the bound, decided by
  :func:`~.reading.prove_reading`, decides every runtime size;
* otherwise every runtime size is enumerated (at most
  :data:`MAX_RUNTIME_SIZES`), each by a numpy scan that is exhaustive (a
  proof) when the elements are few; a size too large for that is searched
  for a counterexample only, and without one the answer is ``unknown``.

>>> from tilespec.spec.text import parse_array_shape as shape
>>> r = prove_dynamic_reshape(shape("f32[4,<=4]{1,0}"), shape("f32[<=16]{0}"))
>>> r.status, r.counterexample.details["runtime_dims"]
('refuted', {'source': [4, 3], 'target': [12]})
>>> prove_dynamic_reshape(shape("f32[<=4,4]{1,0}"), shape("f32[<=16]{0}")).status
'proved'
"""

from __future__ import annotations

import dataclasses
import itertools
import time
from typing import cast

import numpy as np

from ...spec import (
    Shape,
    delinearise,
    linear_index,
    offsets,
    padded_elements,
    product,
)
from ..core import DEFAULT_TIMEOUT, EXHAUSTIVE, sample_elements, scope
from ..result import PROVED, REFUTED, UNKNOWN, ProverBug, Result
from .reading import (
    moved_element,
    prove_reading,
    question,
    size_counterexample,
    width_counterexample,
)
from .reshape_groups import reshape_groups

#: Runtime sizes (SRC's, each with DST's that keep the counts) enumerated at
#: most, beyond the theorem.
MAX_RUNTIME_SIZES = 4096
#: Elements scanned at most over all the runtime sizes enumerated.
MAX_SCANNED = 1 << 24


def varying(shape: Shape) -> tuple[int, ...]:
    """The dims whose runtime size can differ from the bound other than by
    emptying the array: dynamic, with a bound above 1.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> varying(shape("f32[<=1,4,<=8]{2,1,0}"))
    (2,)
    """
    return tuple(i for i, (d, f) in enumerate(zip(shape.dims, shape.dynamic))
                 if f and isinstance(d, int) and d > 1)


def is_dynamic_pair(src: Shape, dst: Shape) -> bool:
    """Whether a runtime size of SRC or DST can differ from the bound."""
    return bool(varying(src) or varying(dst))


def runtime_scope(src: Shape, dst: Shape) -> str:
    """Words for what a verdict on SRC -> DST covers.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> runtime_scope(shape("f32[4,<=4]{1,0}"), shape("f32[<=16]{0}")).split(": ")[1]
    'SRC dim 1 <= 4, DST dim 0 <= 16'
    """
    dims = [f"{name} dim {i} <= {s.dims[i]}" for name, s in (("SRC", src), ("DST", dst))
            for i in varying(s)]
    return "every runtime size of the dynamic dims up to the bound: " + ", ".join(dims)


def _ints(shape: Shape) -> tuple[int, ...]:
    """The dims of a shape known to have no names and no '?' (checked)."""
    if not all(isinstance(d, int) for d in shape.dims):
        raise ProverBug(f"{shape} has a dim that is not a size here")
    return cast(tuple[int, ...], shape.dims)


def _first_above_one(dims, lo: int, hi: int) -> int | None:
    return next((k for k in range(lo, hi) if dims[k] != 1), None)


def runtime_pairing_is_bound_pairing(src: Shape, dst: Shape) -> bool:
    """Whether every dim of SRC and DST that varies at runtime is the first
    dim above 1 of its reshape group on its side: then the reshape pairs
    the elements of every runtime size as it pairs them at the bound.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> runtime_pairing_is_bound_pairing(shape("f32[<=4,4]{1,0}"), shape("f32[<=16]{0}"))
    True
    >>> runtime_pairing_is_bound_pairing(shape("f32[4,<=4]{1,0}"), shape("f32[<=16]{0}"))
    False
    """
    vs, vd = set(varying(src)), set(varying(dst))
    for g in reshape_groups(src.dims, dst.dims):
        for v, dims, (lo, hi) in ((vs, src.dims, g.src), (vd, dst.dims, g.dst)):
            first = _first_above_one(dims, lo, hi)
            if any(lo <= i < hi and i != first for i in v):
                return False
    return True


def static_destination(src: Shape, dst: Shape) -> int | None:
    """A dim of SRC that varies at runtime in a reshape group whose DST dims
    are all static, or None: below its bound the group's elements are fewer
    than any DST array of that group holds.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> static_destination(shape("f32[4,<=4]{1,0}"), shape("f32[16]{0}"))
    1
    >>> static_destination(shape("f32[4,<=4]{1,0}"), shape("f32[<=16]{0}")) is None
    True
    """
    vs, vd = set(varying(src)), set(varying(dst))
    for g in reshape_groups(src.dims, dst.dims):
        held = [i for i in range(*g.src) if i in vs]
        if held and not any(j in vd for j in range(*g.dst)):
            return held[0]
    return None


def undefined_size(src: Shape, dst: Shape) -> tuple | None:
    """Under :func:`runtime_pairing_is_bound_pairing`: SRC runtime dims at
    which no DST runtime dims keep every group's element count, or None.

    A group whose first SRC dim varies needs a varying first DST dim, and
    the rest of its DST dims must divide the rest of its SRC dims (the count
    at SRC size 1 of that dim); then every SRC size has its DST size.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> undefined_size(shape("f32[<=4,4]{1,0}"), shape("f32[16]{0}"))
    (3, 4)
    >>> undefined_size(shape("f32[<=4,4]{1,0}"), shape("f32[<=2,8]{1,0}"))
    (1, 4)
    >>> undefined_size(shape("f32[<=4,4]{1,0}"), shape("f32[<=16]{0}")) is None
    True
    """
    vs, vd = set(varying(src)), set(varying(dst))
    for g in reshape_groups(src.dims, dst.dims):
        s = _first_above_one(src.dims, *g.src)
        if s is None or s not in vs:
            continue
        t = _first_above_one(dst.dims, *g.dst)
        rest_s = product(src.dims[k] for k in range(*g.src) if k != s)
        rest_d = product(dst.dims[k] for k in range(*g.dst) if k != t)
        at = None
        if t is None or t not in vd:
            at = cast(int, src.dims[s]) - 1
        elif rest_s % rest_d:
            at = 1
        if at is not None:
            return tuple(at if k == s else d for k, d in enumerate(src.dims))
    return None


def _group_options(src: Shape, dst: Shape, rs: tuple[int, ...]):
    """DST's runtime dims for SRC's runtime dims ``rs``: each choice that
    keeps every group's element count (several where a group of DST has
    several dynamic dims)."""
    per_group = []
    dd = _ints(dst)
    for g in reshape_groups(src.dims, dst.dims):
        count = product(rs[g.src[0]:g.src[1]])
        free = [j for j in range(*g.dst) if dst.dynamic[j]]
        fixed = product(dd[j] for j in range(*g.dst) if not dst.dynamic[j])
        choices = []
        # every free dim but the last is tried; the last is what the count leaves
        for head in itertools.product(*(range(dd[j], -1, -1) for j in free[:-1])):
            sizes = _last_size(fixed * product(head), count, head,
                               dd[free[-1]] if free else None)
            if sizes is None:
                continue
            d = list(dd[g.dst[0]:g.dst[1]])
            for j, x in zip(free, sizes):
                d[j - g.dst[0]] = x
            choices.append(tuple(d))
        per_group.append(choices)
    for parts in itertools.product(*per_group):
        yield tuple(x for part in parts for x in part)


def _last_size(part: int, count: int, head: tuple[int, ...],
               bound: int | None) -> tuple[int, ...] | None:
    """``head`` with the last free dim's size that makes ``part`` times it
    ``count`` (within ``bound``); ``head`` itself when no dim is free
    (``bound`` None) and ``part`` is already ``count``; None if none does.

    >>> _last_size(2, 6, (), 4), _last_size(2, 6, (), 2), _last_size(6, 6, (), None)
    ((3,), None, ())
    """
    if bound is None:
        return head if part == count else None
    if part == 0 or count % part or count // part > bound:
        return None
    return (*head, count // part)


def _runtime_sizes(src: Shape):
    """SRC's runtime dims, the bound first, then downwards; never a zero
    (an empty array pairs nothing)."""
    ranges = [range(d, 0, -1) if f else (d,) for d, f in zip(_ints(src), src.dynamic)]
    return itertools.product(*ranges)


def _check_size(src: Shape, dst: Shape, rs, rd, seed: int):
    """(counterexample or None, whether every element was scanned) for
    runtime dims ``rs`` -> ``rd``; offsets at the bound."""
    n = product(rs)
    exhaustive = n <= EXHAUSTIVE
    if exhaustive:
        E = np.indices(rs, dtype=np.int64).reshape(len(rs), n).T
    else:
        E = sample_elements((Shape(src.element_type, rs), src, dst),
                            np.random.default_rng(seed))
    cols = tuple(E[:, i] for i in range(E.shape[1]))
    f = delinearise(linear_index(cols, rs), rd)
    F = (np.stack([np.broadcast_to(np.asarray(x, dtype=np.int64), E.shape[:1]) for x in f],
                  axis=-1) if f else np.zeros((len(E), 0), np.int64))
    bad = np.flatnonzero(offsets(src, E) != offsets(dst, F))
    if bad.size == 0:
        return None, exhaustive
    ce = moved_element(src, dst, E[bad[0]], F[bad[0]])
    return ce.with_details(runtime_dims={"source": list(rs), "target": list(rd)}), exhaustive


def prove_dynamic_reshape(src: Shape, dst: Shape, *,
                          timeout: float = DEFAULT_TIMEOUT) -> Result:
    """Is the reshape SRC -> DST a bitcast at every runtime size of their
    dynamic dims?  ``scope`` names the dims and bounds covered; a
    counterexample's ``details["runtime_dims"]`` gives the runtime dims of
    each side where an element moves."""
    start = time.perf_counter()
    q = question(src, dst)
    where = runtime_scope(src, dst)
    if q.is_symbolic:
        where = f"{scope(src) if src.is_symbolic else scope(dst)}; {where}"

    def done(status, **kw) -> Result:
        return Result(q.text, q.what, status, time.perf_counter() - start, where,
                      shapes=(src, dst), **kw)

    if q.empty:
        # a zero dim that is not dynamic: no elements at any runtime size
        bound = prove_reading(src, dst, timeout=timeout)
        return dataclasses.replace(bound, scope=where, steps=(
            "SRC has no elements at any runtime size; at the bound:", *bound.steps))
    held = static_destination(src, dst)
    if held is not None or runtime_pairing_is_bound_pairing(src, dst):
        if held is None and q.is_symbolic and any(
                isinstance(d, str) for g in reshape_groups(src.dims, dst.dims)
                for v, dims, span in ((varying(src), src.dims, g.src),
                                      (varying(dst), dst.dims, g.dst))
                if any(span[0] <= i < span[1] for i in v)
                for d in src.dims[slice(*g.src)] + dst.dims[slice(*g.dst)]):
            return done(UNKNOWN, reason="a dynamic dim in a reshape group with named dims: "
                        "its runtime sizes are not decided")
        bound = prove_reading(src, dst, timeout=timeout)
        ce = bound.counterexample
        if ce is not None and ce.sides and ce.sides[0].element is not None:
            ce = ce.with_details(runtime_dims={  # the bound: the sizes the reading had
                "source": list(src.instantiate(ce.dim_values).dims),
                "target": list(dst.instantiate(ce.dim_values).dims)})
        if held is not None:
            why = (f"SRC dim {held} is dynamic but the DST dims of its reshape group are "
                   "static: below the bound no DST array holds the elements")
            if bound.status != REFUTED:
                return done(UNKNOWN, reason=f"{why}; at the bound: {bound.status}")
            step = f"{why}; the bound, where every array is full, is one runtime size:"
        else:
            at = undefined_size(src, dst)
            step = ("every dynamic dim is the most major of its reshape group on its side, so "
                    "the reshape pairs the elements of every runtime size as at the bound "
                    "(XLA's dynamic_padder leaves such reshapes as they are); at the bound:")
        skipped = () if held is not None or at is None else (_undefined(at),)
        return dataclasses.replace(
            bound, scope=_excluding(where, at if held is None else None),
            steps=(step, *bound.steps, *skipped), counterexample=ce,
            seconds=time.perf_counter() - start)
    if q.is_symbolic:
        return done(UNKNOWN, reason="a dynamic dim inside a reshape group beside named dims: "
                    "its runtime sizes are not decided")
    if src.element_bits != dst.element_bits:
        return done(REFUTED, counterexample=width_counterexample(src, dst))
    size = size_counterexample(src, dst)
    if size is not None:
        return done(REFUTED, counterexample=size)
    if q.empty:
        return done(PROVED, steps=("no elements at the bound, none at any runtime size; "
                                   "the buffers take the same bytes",))
    exact = all(padded_elements(s) < 2**62 for s in (src, dst))
    sizes = scanned = 0
    sampled: list[str] = []
    undefined = None
    for tried, rs in enumerate(_runtime_sizes(src)):
        if tried > MAX_RUNTIME_SIZES:
            return done(UNKNOWN, reason=(
                f"more than {MAX_RUNTIME_SIZES:,} runtime sizes to enumerate and a dynamic "
                "dim is not the most major of its reshape group; no counterexample at the "
                "sizes scanned"))
        options = list(_group_options(src, dst, rs))
        if not options:
            undefined = undefined or rs
            continue
        moved = []
        for rd in options:
            sizes += 1
            if sizes > MAX_RUNTIME_SIZES or scanned > MAX_SCANNED:
                return done(UNKNOWN, reason=(
                    f"more than {MAX_RUNTIME_SIZES:,} runtime sizes or {MAX_SCANNED:,} elements "
                    "to enumerate and a dynamic dim is not the most major of its reshape "
                    "group; no counterexample at the sizes scanned"))
            ce, exhaustive = _check_size(src, dst, rs, rd, seed=sizes)
            scanned += min(product(rs), EXHAUSTIVE)
            if ce is not None:
                moved.append(ce)
            elif not (exhaustive and exact):
                sampled.append(f"{list(rs)} -> {list(rd)}")
        if len(moved) == len(options):
            # every DST size that keeps the counts moves an element
            return done(REFUTED, counterexample=moved[0], steps=(
                f"numpy scan at SRC runtime dims {list(rs)}, each of DST's "
                f"{len(options)} runtime dims that keep the counts; offsets at the bound",))
        if moved:
            sampled.append(f"{list(rs)}: {len(moved)} of DST's {len(options)} runtime dims "
                           "move an element")
    skipped = () if undefined is None else (_undefined(undefined),)
    if sampled:
        return done(UNKNOWN, reason=(
            "a dynamic dim is not the most major of its reshape group; every runtime size "
            f"scanned without a counterexample, but at {len(sampled)} of them "
            f"(first {sampled[0]}) not decided"))
    where = _excluding(where, undefined)
    return done(PROVED, steps=(
        f"enumeration: at each of the {sizes:,} runtime sizes (SRC's dims with DST's that "
        "keep every reshape group's element count) every element keeps its offset, the "
        "offsets at the bound (exhaustive: a proof for these bounds); the buffers take "
        "the same bytes at the bound", *skipped))


#: How a scope names the runtime sizes a verdict does not cover.
NOT_COVERED = "; not covered: "


def _excluding(where: str, rs) -> str:
    """``where``, naming the first SRC runtime dims ``rs`` no reshape can
    have (if any): a verdict says what it leaves out."""
    if rs is None:
        return where
    return (f"{where}{NOT_COVERED}sizes no reshape can have, first SRC runtime dims "
            f"{list(rs)}")


def _undefined(rs) -> str:
    return (f"not a size the reshape can have, so not covered: SRC runtime dims {list(rs)} "
            "(no runtime dims of DST keep every reshape group's element count)")
