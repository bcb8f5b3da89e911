"""Deciding a property of one concrete layout by enumerating every index.

A concrete question over a small domain (every element, every offset, and
for ``bijective`` every index of every stage's box: at most
:data:`EXHAUSTIVE_LIMIT` in all) is decided by evaluating the pipeline on
all of it at once with numpy: the answer is exact, both ways, so such a
question never has to be ``unknown``.  A candidate witness found here is
replayed on plain Python ints (:mod:`prover.properties.witness`) like Z3's.

Evaluation is in int64; the domain limit keeps every value far below 2^63.
A pipeline that divides by zero somewhere is not decided here (numpy would
make up a value): the caller falls back to Z3.

A stage that is not one of the spec's classes (prover/properties/traced.py) may use
Python itself, so it runs on arrays of Python ints (exact, no int64
wrap-around), and, if it cannot run on arrays at all (``if e[0] == e[1]``),
on one index at a time, which is what it means on ints (at most
:data:`CUSTOM_LIMIT` indices).

>>> from tilespec.spec.text import parse_array_shape as shape
>>> from tilespec.spec.index import shape_pipeline
>>> s = shape("f32[3,5]{1,0:T(2,2)}")
>>> enumerate_witness("injective", s, shape_pipeline(s)) is None
True
"""

from __future__ import annotations

import numpy as np

from ...spec import (
    INT,
    Pad,
    byte_size,
    dims_through,
    evaluate,
    product,
    prt_offset,
    reshape_index,
    unevaluate,
)
from .stages_check import combine_stages
from .traced import is_custom

#: Largest domain (elements + offsets, or all the stage boxes) decided by
#: enumeration: 2^20 int64 values per array, a few MB.
EXHAUSTIVE_LIMIT = 1 << 20
#: Largest domain of a custom pipeline evaluated one index at a time.
CUSTOM_LIMIT = 1 << 16


class Undecided(Exception):
    """The enumeration cannot decide this question (too large, or the
    pipeline divides by zero)."""


def domain_size(kind: str, dims, stages) -> int:
    """How many indices deciding ``kind`` by enumeration evaluates."""
    through = dims_through(stages, dims)
    if kind == "bijective":
        return sum(product(d_in) + product(d_out)
                   for s, d_in, d_out in zip(stages, through, through[1:])
                   if type(s) is not Pad)
    return product(dims) + max(product(through[-1]), 0)


def enumerate_witness(kind: str, shape, stages, size: int | None = None) -> dict | None:
    """A candidate witness (``{"e", "f", "o"}`` or a stage witness), or None
    when ``kind`` holds for every index.  ``size`` is the padded size the
    offsets must lie below (default: the pipeline's).  Raises
    :class:`Undecided`."""
    dims = tuple(shape.dims)
    through = dims_through(stages, dims)
    count = domain_size(kind, dims, stages)
    if any(d < 0 for level in through for d in level) or count > EXHAUSTIVE_LIMIT:
        raise Undecided(f"{count} indices to enumerate (limit {EXHAUSTIVE_LIMIT})")
    # A zero dim can make P small while the other dims multiply past int64
    # in a linear index: then numpy's values would wrap, so do not decide.
    if any(product(max(d, 1) for d in level) >= 1 << 62 for level in through):
        raise Undecided("an index of the pipeline may not fit in int64")
    custom = is_custom(stages)
    run = _custom_map if custom else _map
    try:
        with np.errstate(divide="raise", invalid="raise", over="raise"):
            if kind == "bijective":
                return _stage_witness(stages, through, run)
            return _element_witness(kind, shape, stages, dims,
                                    product(through[-1]) if size is None else size, run)
    except (FloatingPointError, ZeroDivisionError) as e:
        raise Undecided(f"the pipeline divides by zero ({e})") from None
    except (OverflowError, TypeError, ValueError) as e:
        if not custom:
            raise
        raise Undecided(f"a custom stage's values are not int64 integers ({e})") from None


def _map(fn, cols, n):
    """``fn`` on index columns, all at once (the spec's stages)."""
    return fn(cols)


def _custom_map(fn, cols, n):
    """``fn`` on index columns of a custom pipeline: on arrays of Python
    ints, else one index at a time."""
    cols = tuple(np.asarray(c).astype(object) for c in cols)
    try:
        return fn(cols)
    except (ZeroDivisionError, FloatingPointError):
        raise
    except Exception as err:   # e.g. `if` on an array: ask each index alone
        if n > CUSTOM_LIMIT:
            raise Undecided(f"a custom stage does not run on arrays ({type(err).__name__}) "
                            f"and {n} indices are too many one at a time "
                            f"(limit {CUSTOM_LIMIT})") from None
    cols = tuple(np.broadcast_to(c, (n,)) for c in cols)
    return _stack([fn(tuple(int(c[k]) for c in cols)) for k in range(n)])


def _stack(results):
    if results and isinstance(results[0], tuple):
        return tuple(_stack([r[i] for r in results]) for i in range(len(results[0])))
    return np.array(results, dtype=object)


def _col(v, n):
    return np.broadcast_to(np.asarray(v, dtype=np.int64), (n,))


def _grid(d):
    n = product(d)
    if not d:
        return (), 1
    g = np.indices(d, dtype=np.int64).reshape(len(d), -1)
    return tuple(g[i] for i in range(len(d))), n


def _element_witness(kind, shape, stages, dims, P, run=_map):
    cols, n = _grid(dims)
    if n == 0:
        return None

    def element(i):
        return [int(c[i]) for c in cols]
    offs = _col(run(lambda c: evaluate(stages, c, dims, INT), cols, n), n)
    outside = np.flatnonzero((offs < 0) | (offs >= P))
    if kind == "in_bounds":
        return {"e": element(outside[0])} if outside.size else None
    if kind in ("injective", "packing"):
        order = np.argsort(offs, kind="stable")
        same = np.flatnonzero(offs[order][1:] == offs[order][:-1])
        if same.size:
            i, j = order[same[0]], order[same[0] + 1]
            return {"e": element(i), "f": element(j)}
        if kind == "packing":
            # the spec's size, from the shape: never from the stages judged
            over = np.flatnonzero((offs + 1) * shape.element_bits > 8 * byte_size(shape))
            if over.size:
                return {"e": element(over[0]), "f": element(over[0])}
        return None
    if kind == "inverse":
        if outside.size:
            return {"e": element(outside[0])}
        back, ok = run(lambda c: unevaluate(stages, c[0], dims, INT), (offs,), n)
        wrong = ~np.broadcast_to(np.asarray(ok, dtype=bool), (n,))
        for b, c in zip(back, cols):
            wrong = wrong | (_col(b, n) != c)
        if wrong.any():
            return {"e": element(np.flatnonzero(wrong)[0])}
        o = np.arange(P, dtype=np.int64)
        back, ok = run(lambda c: unevaluate(stages, c[0], dims, INT), (o,), P)
        back = tuple(_col(b, P) for b in back)
        again = _col(run(lambda c: evaluate(stages, c, dims, INT), back, P), P)
        bad = np.flatnonzero(np.broadcast_to(np.asarray(ok, dtype=bool), (P,)) & (again != o))
        return {"e": element(0), "o": int(bad[0])} if bad.size else None
    if kind == "formula_equals_prt":
        theirs = _col(prt_offset(shape, cols, dims, INT), n)
        bad = np.flatnonzero(offs != theirs)
        return {"e": element(bad[0])} if bad.size else None
    if kind == "combine_equals_reshape":
        found, missing = combine_stages(shape, stages)
        if missing:
            raise Undecided(f"the shape combines dims ('*') at level {missing[0]}, but "
                            "no stage there is a combine")
        x, d = cols, dims
        for i, s in enumerate(stages):
            if i in found:
                merged = s.dims(d, INT)
                pts = [_col(v, n) for v in x]
                inside = np.ones(n, bool)
                for v, m in zip(pts, d):
                    inside &= (v >= 0) & (v < m)
                got = [_col(v, n) for v in run(lambda c, s=s, d=d: tuple(s.forward(c, d, INT)),
                                                tuple(pts), n)]
                want = [_col(v, n) for v in reshape_index(tuple(pts), d, merged, INT)]
                bad = inside.copy() & False
                for a, b in zip(got, want):
                    bad |= inside & (a != b)
                if bad.any():
                    return {"e": element(np.flatnonzero(bad)[0])}
            x, d = run(lambda c, s=s, d=d: tuple(s.forward(c, d, INT)), x, n), s.dims(d, INT)
        return None
    raise ValueError(kind)


def _stage_witness(stages, through, run=_map):
    """Every stage but the pads, on its whole box, both ways."""
    def inside(v, d, n):
        ok = np.ones(n, bool)
        for x, m in zip(v, d):
            ok &= (x >= 0) & (x < m)
        return ok
    for i, (s, d_in, d_out) in enumerate(zip(stages, through, through[1:])):
        if type(s) is Pad:
            continue
        e, n = _grid(d_in)
        if n:
            fe = tuple(_col(v, n) for v in run(
                lambda c, s=s, d_in=d_in: tuple(s.forward(c, d_in, INT)), e, n))
            be = tuple(_col(v, n) for v in run(
                lambda c, s=s, d_in=d_in: tuple(s.backward(c, d_in, INT)[0]), fe, n))
            bad = ~inside(fe, d_out, n)
            for a, b in zip(be, e):
                bad |= a != b
            if bad.any():
                k = int(np.flatnonzero(bad)[0])
                return {"stage": i, "which": "e", "index": [int(c[k]) for c in e]}
        g, n = _grid(d_out)
        if n:
            bg = tuple(_col(v, n) for v in run(
                lambda c, s=s, d_in=d_in: tuple(s.backward(c, d_in, INT)[0]), g, n))
            fb = tuple(_col(v, n) for v in run(
                lambda c, s=s, d_in=d_in: tuple(s.forward(c, d_in, INT)), bg, n))
            bad = ~inside(bg, d_in, n)
            for a, b in zip(fb, g):
                bad |= a != b
            if bad.any():
                k = int(np.flatnonzero(bad)[0])
                return {"stage": i, "which": "g", "index": [int(c[k]) for c in g]}
    return None
