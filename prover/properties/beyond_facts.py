"""Deciding a property when its per-stage facts do not settle it.

:func:`prover.properties.proof.prove` first gathers small facts per stage; when
one fails, the solver gives up, or the facts cannot be built (a custom
stage that decides on a symbolic value, :mod:`prover.properties.traced`), the question
is decided here: a concrete layout as a whole (:mod:`prover.properties.witness`), named
dims by a counterexample search at chosen sizes and then enumeration of
every size up to some limit (:mod:`prover.properties.dim_search`).  What nothing
decides is ``unknown``, with the reason and how far checking went.
"""

from __future__ import annotations

from ...spec import Shape
from ..core import first_refutation
from ..result import PROVED, REFUTED, UNKNOWN
from .dim_search import candidate_dims, instance, sweep
from .witness import FAILS, HOLDS, decide_whole


def beyond_facts_concrete(prop, shape: Shape, stages, timeout, why):
    """One concrete layout whose facts fail or are not settled: decide it
    as a whole (enumeration when small, else Z3 on the whole layout)."""
    verdict, found = decide_whole(prop, shape, stages, timeout)
    if verdict == FAILS:
        return REFUTED, {"counterexample": found}
    if verdict == HOLDS:
        return PROVED, {"steps": (f"{why}; {found}",)}
    return UNKNOWN, {"reason": f"{why}; the whole layout is not decided: {found}"}


def beyond_facts_all_shapes(prop, shape: Shape, proof, stages, ranges, model, timeout, why):
    """Named dims whose facts fail or are not settled: look for a
    counterexample at the dims the facts fail at, then at other such dims
    and a few small sizes, all inside the bounds; then enumerate every size
    up to some limit."""
    tried: tuple = ()
    reasons: list = []
    if model is not None and proof is not None:
        def refute(values):
            concrete = instance(shape, values)
            if concrete is None:   # not admitted: no shape of the family
                return None
            verdict, found = decide_whole(prop, concrete, stages, timeout)
            if verdict == FAILS:
                return found.at(values)
            reasons.append("it holds there" if verdict == HOLDS else found)
            return None

        ce, tried = first_refutation(candidate_dims(proof, model, ranges), refute,
                                     admit=lambda values: instance(shape, values) is not None)
        if ce is not None:
            return REFUTED, {"counterexample": ce}
    covered, ce = sweep(prop, shape, stages, ranges, max(timeout, QUICK_SECONDS))
    if ce is not None:
        return REFUTED, {"counterexample": ce}
    if covered is True:
        return PROVED, {"steps": (f"{why}; every size in the scope decided by "
                                  "exhaustive enumeration",)}
    searched = (f"; no counterexample at dims {list(tried)}: "
                f"{'; '.join(dict.fromkeys(map(str, reasons)))}" if tried else "")
    return UNKNOWN, {"reason": f"{why}{searched}; {covered}"}


#: How long Z3 may take on the facts of a concrete question small enough
#: to be decided by enumeration instead.
QUICK_SECONDS = 1.0
