"""cvc5 re-checks Z3's answers: a second opinion.

A sample of the differential suite's layouts (concrete, some with broken
pipelines) and of all-shapes questions is decided with every sat/unsat
answer re-checked by cvc5 on the same SMT-LIB text; the verdicts must also
match enumeration.  A deliberately wrong answer fed through the test hooks
of :mod:`prover.core.solve` must be reported as a disagreement: a ProverBug in
Python, exit 4 on the command line.
"""

from collections import Counter

import numpy as np
import pytest
from enumeration import brute
from hypothesis import HealthCheck, given, settings, strategies as st
from mutants import mutate

from tilespec.cli.main import main
from tilespec.prover.bitcast import prove_reading
from tilespec.prover.core import crosscheck, solve
from tilespec.prover.core.crosscheck import SolverDisagreement, cross_checking
from tilespec.prover.properties.proof import PROPERTIES, prove
from tilespec.prover.result import ProverBug
from tilespec.prover.userfn import check_offset_function
from tilespec.spec.index import shape_pipeline
from tilespec.spec.text import parse_array_shape as shape
from tilespec.testing import shapes_with_layout


def test_sampled_differential_verdicts_are_confirmed_by_cvc5():
    """Every answer cvc5 re-checks agrees, the verdicts match enumeration,
    and over the sample cvc5 did re-check answers (30 more, -m slow)."""
    _cross_checked_sample(12)


@pytest.mark.slow
def test_a_larger_sample_of_differential_verdicts_is_confirmed_by_cvc5():
    _cross_checked_sample(30)


def _cross_checked_sample(examples: int) -> None:
    seen: Counter = Counter()

    @settings(max_examples=examples, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(s=shapes_with_layout(max_rank=3, max_dim=7, max_tiles=2, max_elements=256),
           kind=st.sampled_from([None, "off_by_one", "floor", "swap"]),
           prop=st.sampled_from(sorted(PROPERTIES)))
    def sample(s, kind, prop):
        stages = mutate(s, kind) if kind else None
        with cross_checking() as record:
            r = prove(s, prop, stages=stages, timeout=10)
        seen.update(checked=record.checked, agreed=record.agreed)
        assert record.disagreements == 0
        assert record.agreed + len(record.unknown) == record.checked
        with np.errstate(all="ignore"):
            holds = brute(s, stages or shape_pipeline(s), prop)
        if r.status != "unknown":
            assert (r.status == "proved") == holds, (str(s), kind, prop, r)

    sample()
    assert seen["agreed"] > 0, seen


@pytest.mark.parametrize("src, dst, transpose, status", [
    ("f32[m,n]{1,0:T(8,128)}", "f32[1,m,n]{2,1,0:T(8,128)}", None, "proved"),
    ("f32[m,n]{1,0:T(8,128)}", "f32[m,n,1]{2,1,0:T(8,128)}", None, "refuted"),
    ("f32[m,6]{1,0}", "f32[m,2,3]{2,1,0}", None, "proved"),
    ("f32[8,256]{1,0}", "f32[256,8]{0,1}", (1, 0), "proved"),
])
def test_all_shapes_bitcasts_are_confirmed_by_cvc5(src, dst, transpose, status):
    with cross_checking() as record:
        r = prove_reading(shape(src), shape(dst), transpose)
    assert r.status == status and record.disagreements == 0
    if "m" in src:
        # named dims always leave facts for the solver (a concrete question
        # may fold to constants, and lemmas may be cached from earlier tests)
        assert record.checked > 0


def test_user_function_proof_is_confirmed_by_cvc5():
    def mine(i, j, m, n):
        return ((i // 8) * (((n + 127) // 128) * 1024) + (j // 128) * 1024
                + (i % 8) * 128 + j % 128)
    with cross_checking() as record:
        r = check_offset_function(mine, shape("f32[m,n]{1,0:T(8,128)}"))
    assert r.status == "proved" and record.agreed > 0


# --- a disagreement is a bug, never a verdict ------------------------------------

def _flip(answer):
    return {"sat": "unsat", "unsat": "sat"}.get(answer, answer)


@pytest.fixture
def lying_z3(monkeypatch):
    """Z3 answers the opposite of what it finds, in both query paths."""
    real_check, real_eval = solve.z3_check, solve.z3_eval
    monkeypatch.setattr(solve, "z3_check", lambda s: _flip(real_check(s)))
    monkeypatch.setattr(solve, "z3_eval", lambda ctx, text: " ".join(
        _flip(a) for a in real_eval(ctx, text).split()))


def test_a_wrong_unsat_is_reported_as_a_disagreement(lying_z3):
    import z3
    ctx = z3.Context()
    x = z3.Int("i.x", ctx)
    with cross_checking() as record:
        with pytest.raises(SolverDisagreement, match="Z3 says unsat and cvc5 says sat"):
            solve.search(x > 2, ctx)
    assert record.disagreements == 1
    assert issubclass(SolverDisagreement, ProverBug)


def test_a_wrong_script_answer_is_reported_as_a_disagreement(lying_z3):
    import z3
    with cross_checking():
        with pytest.raises(SolverDisagreement, match="Z3 says sat and cvc5 says unsat"):
            solve.all_unsat("(assert (> i.x 2))", "(declare-const i.x Int)",
                            ["(< i.x 1)"], z3.Context())


def test_without_cross_check_a_lying_z3_goes_unnoticed(lying_z3, monkeypatch):
    """The hook really changes the answer, and cvc5 runs only when asked."""
    import z3
    monkeypatch.setattr(crosscheck, "cvc5_answers", lambda *a: pytest.fail("cvc5 ran"))
    ctx = z3.Context()
    assert solve.search(z3.Int("i.x", ctx) > 2, ctx)[0] == "unsat"


@pytest.mark.parametrize("argv", [
    ["bitcast", "f32[m,4]{1,0}", "f32[m,4]{0,1}"],
    ["prove", "--property", "injective", "f32[m,n]{1,0:T(8,128)}"],
    ["equivalent", "f32[m,n]{1,0:T(1,1)}", "f32[m,n]{1,0}"],
    ["formula", "--python", "--prove", "f32[3,5]{1,0:T(2,2)}"],
])
def test_cli_disagreement_exits_4_with_one_line(argv, lying_z3, capsys):
    assert main(argv + ["--cross-check"]) == 4
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Z3 says" in err[0] and "cvc5 says" in err[0], err


def test_cli_cross_check_reports_a_summary(capsys):
    assert main(["bitcast", "--cross-check", "--reshape", "f32[m,4]{1,0}",
                 "f32[m,4]{0,1}"]) == 1
    err = capsys.readouterr().err
    assert "re-checked by cvc5" in err and "0 disagree" in err


def test_cvc5_unknown_is_reported_not_a_disagreement(monkeypatch):
    import z3
    monkeypatch.setattr(crosscheck, "cvc5_answers", lambda text, t: ["unknown (timeout)"])
    ctx = z3.Context()
    with cross_checking() as record:
        assert solve.search(z3.Int("i.x", ctx) > 2, ctx)[0] == "sat"
    assert record.checked == 1 and record.agreed == 0
    assert record.unknown == ["unknown (timeout)"]
    assert "1 unknown to cvc5 (unknown (timeout))" in record.summary()


def test_cross_check_without_cvc5_is_a_clear_error(monkeypatch, capsys):
    import importlib.util
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "cvc5" else real(name, *a))
    assert main(["bitcast", "--cross-check", "f32[4]{0}", "f32[4]{0}"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cvc5" in err[0] and "pip install" in err[0], err


def test_cvc5_reads_the_texts_tilespec_writes():
    answers = crosscheck.cvc5_answers(
        "(declare-const u.m Int)(declare-const i.e1_0 Int)"
        "(assert (and (>= u.m 1) (<= 0 i.e1_0) (< i.e1_0 u.m)))"
        "(push)(assert (distinct (+ (* (div i.e1_0 8) 8) (mod i.e1_0 8)) i.e1_0))(check-sat)(pop)"
        "(push)(assert (>= i.e1_0 u.m))(check-sat)(pop)(check-sat)", 5)
    assert answers == ["unsat", "unsat", "sat"]


def test_no_stored_proof_is_cited_inside_a_cross_check(monkeypatch):
    # The facts of injective cite the mixed-radix lemma: outside the block a
    # stored proof of it; inside, none, so it is proved again and re-checked.
    from tilespec.prover.core import cache
    s = shape("bf16[m,n]{1,0:T(8,128)(2,1)}")
    assert prove(s, "injective").status == "proved"
    found = []
    real = cache.lookup

    def looking(*a, **k):
        found.append(real(*a, **k))
        return found[-1]

    monkeypatch.setattr(cache, "lookup", looking)
    with cross_checking() as record:
        r = prove(s, "injective")
    assert r.status == "proved" and record.checked > 0 and record.disagreements == 0
    assert found and all(rec is None for rec in found)
