"""Where to look when a proof for all shapes does not go through.

When a per-stage fact fails for some dim values, :func:`candidate_dims`
yields the values to search the whole layout at: the failing model's, other
models' (avoiding those tried), then a few staggered probe sizes, each
clamped into the bounds: a counterexample outside the question's scope is no
answer to it.  When none is found, :func:`sweep` decides the property by
enumeration for every size up to some K (all named dims <= K), so an
``unknown`` says how far exhaustive checking confirmed the property, and a
bounded scope small enough is decided outright.
"""

from __future__ import annotations

import itertools
import time

from ...spec import Shape, TilespecError
from ..core import candidate_dims as failing_model_dims, within
from .exhaustive import EXHAUSTIVE_LIMIT, domain_size
from .witness import FAILS, HOLDS, decide_whole

#: Work spent checking an all-shapes question size by size when the proof
#: does not go through: at most this many sizes and indices enumerated (a
#: count, not a time, so the same question always gets the same answer),
#: and never longer than the timeout.
SWEEP_CASES = 400
SWEEP_INDICES = 1 << 21


def sweep(prop, shape: Shape, stages, ranges, seconds):
    """Decide ``prop`` by enumeration for every assignment of the named dims
    with all values <= K, for K = 1, 2, ... while the work budget lasts.

    Returns (True, None) when the whole (bounded) scope was covered, (words
    saying how far it got, None), or (None, a replayed counterexample).
    """
    names = list(ranges)
    deadline = time.perf_counter() + seconds
    done_k, k, cases, indices = 0, 0, 0, 0
    bounded = all(hi is not None for _, hi in ranges.values())
    top = max((hi for _, hi in ranges.values() if hi is not None), default=0)
    while True:
        k += 1
        if bounded and k > top:
            return True, None
        axes = [range(lo, (k if hi is None else min(k, hi)) + 1) for lo, hi in ranges.values()]
        level = []
        for combo in itertools.product(*axes):
            if k in combo:     # smaller ones were checked at a smaller K
                values = dict(zip(names, combo))
                concrete = instance(shape, values)
                if concrete is None:
                    continue
                level.append((values, concrete,
                              domain_size(prop, tuple(concrete.dims), stages)))
        if any(n > EXHAUSTIVE_LIMIT for _, _, n in level):
            return covered(ranges, done_k, f"size {k} is past the enumeration limit"), None
        cases += len(level)
        indices += sum(n for _, _, n in level)
        if cases > SWEEP_CASES or indices > SWEEP_INDICES:
            return covered(ranges, done_k, "work limit reached"), None
        for values, concrete, _ in level:
            if time.perf_counter() > deadline:
                return covered(ranges, done_k, f"time limit of {seconds:g} s reached"), None
            verdict, found = decide_whole(prop, concrete, stages, 0, z3_search=False)
            if verdict == FAILS:
                return None, found.at(values)
            if verdict != HOLDS:
                return covered(ranges, done_k, f"size {k}: {found}"), None
        done_k = k


def instance(shape: Shape, values: dict) -> Shape | None:
    """``shape`` at these dim values, or None where they make no valid
    shape (e.g. a split config's indices past a dim): such dims are no
    shape of the family, so they can hold no counterexample.

    >>> from tilespec.spec.text import parse_array_shape as parse
    >>> instance(parse("s32[m,4]{1,0:SC(0:2)}"), {"m": 1}) is None
    True
    """
    try:
        return shape.instantiate(values)
    except TilespecError:
        return None


def covered(ranges, k, why) -> str:
    if k == 0:
        return f"no size checked exhaustively ({why})"
    parts = ", ".join(ranges)
    low = {lo for lo, _ in ranges.values()}
    start = "" if low == {1} else " (from each lower bound)"
    return f"checked exhaustively for {parts} <= {k}{start} ({why})"


def candidate_dims(proof, model, ranges):
    """Dim values to look for a counterexample at, each inside the bounds:
    the failing models' (:func:`prover.core.search.candidate_dims`), then
    probe sizes clamped into the bounds, never used as they are past one."""
    def fit(values):
        values = {n: min(max(v, ranges[n][0]), ranges[n][1] or v) for n, v in values.items()}
        return values if within(values, ranges) else None
    return failing_model_dims(proof.shape.names, lambda avoid: proof.check(avoid=avoid),
                                 proof.enc.dim_values, model, fit=fit)
