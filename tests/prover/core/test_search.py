"""The one search driver (prover/core/search.py): facts, whole formula,
failing models' dims, probe sizes, unknown."""

import z3
from hypothesis import given, strategies as st

from tilespec.prover.core.facts import Facts
from tilespec.prover.core.search import MAX_MODELS, candidate_dims, drive
from tilespec.prover.core.solve import probe_values


def _facts(limit):
    ctx = z3.Context()
    n = z3.Int("u.n", ctx)
    F = Facts(ctx, [n >= 1], names={"n": n})
    F.fact(f"n is below {limit}", n >= limit)
    return F


def test_proved_facts_are_proved_without_replaying_anything():
    calls = []
    F = _facts(1)
    F.facts.clear()
    F.fact("n is positive", F.names["n"] < 1)
    v = drive(F, refute=lambda values: calls.append(values))
    assert v.status == "proved" and calls == []


def test_the_whole_formula_proves_what_the_sufficient_facts_do_not():
    def whole():
        F = _facts(1)
        F.facts.clear()
        return F
    v = drive(_facts(4), whole=whole, refute=lambda values: None)
    assert v.status == "proved"
    assert any("checked whole" in s for s in v.facts.steps())


@given(st.integers(2, 300))
def test_refuted_only_by_a_replayed_counterexample(limit):
    v = drive(_facts(limit), refute=lambda values: values if values["n"] >= limit else None)
    assert v.status == "refuted" and v.counterexample["n"] >= limit
    v = drive(_facts(limit), refute=lambda values: None)
    assert v.status == "unknown" and "failing facts: n is below" in v.reason
    # the reason names every dim tried: failing models first, then probes
    assert len(v.tried) > MAX_MODELS
    for t in v.tried:
        assert "n=" + str(t["n"]) in v.reason


def test_dims_out_of_scope_are_never_tried():
    # it fails at n >= 4 only, and the scope is n < 3: no counterexample in scope
    v = drive(_facts(4), refute=lambda values: values if values["n"] >= 4 else None,
              admit=lambda values: values["n"] < 3)
    assert v.status == "unknown" and v.tried and all(t["n"] < 3 for t in v.tried)


def test_failing_models_avoid_the_dims_already_tried():
    F = _facts(4)
    status, (_, model) = F.check()
    got = list(candidate_dims(F.names, lambda avoid: F.check(avoid=avoid),
                              F.dim_values, model))
    models = got[:MAX_MODELS]
    assert all(m["n"] >= 4 for m in models) and len({m["n"] for m in models}) == MAX_MODELS
    assert len(got) == len({tuple(g.items()) for g in got})
    assert {tuple(p.items()) for p in probe_values(["n"])} <= {tuple(g.items()) for g in got}


def test_a_question_without_names_is_replayed_once():
    assert list(candidate_dims([], None, None)) == [{}]
