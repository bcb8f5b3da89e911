"""The prover's verdicts against brute-force enumeration of every index.

For small generated layouts, each property is decided twice: by the prover
(Z3) and by enumerating every element and every offset with numpy, using
only the concrete evaluator and the numpy pad-reshape-transpose path.  The
verdicts must match in both directions: proved => holds, refuted => fails.
Broken pipelines (tests/mutants.py) supply the refutations; an
over-padding one is a correct layout of the wrong size, which in_bounds,
packing and formula_equals_prt must judge against the spec's sizes.

Verdicts never depend on the solver's speed (a small question Z3 does not
settle in time is decided by enumeration), and under the default settings
the examples are the same every run.  The 350-example campaign runs with
``pytest -m slow tests/prover/properties/test_differential.py``.
"""

from collections import Counter

import numpy as np
import pytest
from enumeration import brute
from hypothesis import HealthCheck, given, settings, strategies as st
from mutants import mutate

from tilespec.prover.properties.proof import PROPERTIES, prove
from tilespec.spec.index import shape_pipeline
from tilespec.testing import shapes_with_layout

SHAPES = shapes_with_layout(max_rank=4, max_dim=9, max_tiles=3, max_elements=512)
KINDS = st.sampled_from([None, "off_by_one", "floor", "swap", "over_pad"])


def check_against_enumeration(shape, kind, timeout) -> Counter:
    """The prover's verdict on every property equals enumeration's; returns
    how many verdicts of each status were compared.

    A verdict never depends on the solver's speed: a small concrete
    question the solver does not settle within its time is decided by
    enumeration, so ``unknown`` is only acceptable where enumeration cannot
    decide either (a pipeline that divides by zero, or past the limit).
    """
    stages = mutate(shape, kind) if kind else None
    counts: Counter = Counter()
    for prop in PROPERTIES:
        result = prove(shape, prop, stages=stages, timeout=timeout)
        counts[result.status] += 1
        if result.status == "unknown":
            assert "divides by zero" in result.reason or "limit" in result.reason, (
                str(shape), kind, prop, result.reason)
            continue
        with np.errstate(all="ignore"):  # broken pipelines may divide by 0
            holds = brute(shape, stages or shape_pipeline(shape), prop)
        assert (result.status == "proved") == holds, (str(shape), kind, prop, result)
    return counts


@settings(max_examples=20, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(shape=SHAPES, kind=KINDS)
def test_prover_matches_enumeration(shape, kind):
    """A bounded sample (a few seconds); the campaign is below, -m slow."""
    check_against_enumeration(shape, kind, timeout=1.0)


@pytest.mark.slow
def test_prover_matches_enumeration_on_thousands_of_verdicts_of_both_kinds():
    """The campaign: every verdict matches enumeration, and there are a few
    thousand of them, proofs and refutations both."""
    counts: Counter = Counter()

    @settings(max_examples=350, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(shape=SHAPES, kind=KINDS)
    def campaign(shape, kind):
        counts.update(check_against_enumeration(shape, kind, timeout=10.0))

    campaign()
    assert sum(counts.values()) >= 2000, counts
    assert counts["proved"] > 0 and counts["refuted"] > 0, counts
