"""One solver call: always with a time limit, never a verdict on ``unknown``.

Every query of tilespec is made here, by :func:`search` (one formula) or
:func:`all_unsat` (one script of checks), so a second solver sees every
answer: inside :func:`prover.core.crosscheck.cross_checking`, cvc5 re-checks
each ``sat``/``unsat`` on the query's SMT-LIB text.
"""

from __future__ import annotations

import z3

from ..names import DEFAULT_TIMEOUT
from . import crosscheck


def z3_check(solver: z3.Solver) -> str:
    """Z3's answer, as 'sat', 'unsat' or 'unknown'.  (Its own function so
    that a test can give a deliberately wrong answer.)"""
    return str(solver.check())


def z3_eval(ctx: z3.Context, text: str) -> str:
    """Z3's output for an SMT-LIB script (a test hook, like :func:`z3_check`)."""
    return z3.Z3_eval_smtlib2_string(ctx.ref(), text)


def search(formula, ctx: z3.Context, timeout: float = DEFAULT_TIMEOUT):
    """Look for a model of ``formula``: ('sat', model), ('unsat', None) or
    ('unknown', reason).  To prove P, search for a model of not P."""
    s = z3.Solver(ctx=ctx)
    s.set("timeout", max(1, int(timeout * 1000)))
    s.add(formula)
    answer = z3_check(s)
    if answer in ("sat", "unsat") and crosscheck.active() is not None:
        crosscheck.confirm(s.to_smt2(), [answer], timeout)
    if answer == "sat":
        return "sat", s.model()
    if answer == "unsat":
        return "unsat", None
    reason = s.reason_unknown()
    if reason in ("timeout", "canceled"):
        reason = f"timeout after {timeout:g} s"
    return "unknown", f"solver gave up: {reason}"


def all_unsat(script_body: str, declarations: str, formulas, ctx: z3.Context,
              timeout: float = DEFAULT_TIMEOUT) -> bool:
    """True when Z3 answers ``unsat`` for every formula, each checked on its
    own (in one SMT-LIB script, one call into Z3: checking small facts one
    by one is faster than one disjunction of them).  Any other answer, a
    ``sat``, ``unknown`` or timeout, gives False: the caller must look closer.
    """
    checks = "".join(f"(push)(assert {f})(check-sat)(pop)" for f in formulas)
    query = f"{declarations}{script_body}{checks}"
    try:
        answers = z3_eval(ctx, f"(set-option :timeout {max(1, int(timeout * 1000))})"
                          + query).split()
    except z3.Z3Exception:  # e.g. "push canceled" when the time limit hits mid-script
        return False
    complete = len(answers) == len(formulas)
    if complete and crosscheck.active() is not None:
        crosscheck.confirm(query, answers, timeout)
    return complete and all(a == "unsat" for a in answers)


#: Sizes tried for named dims when looking for a counterexample after a
#: fact fails: small, odd, and one past common tile sizes.
PROBE_SIZES = (1, 2, 3, 5, 9, 17, 129, 257)


def probe_values(names):
    """Dim values to try for ``names``: the probe sizes, staggered between
    the names so that a mix-up between two dims shows."""
    k = len(PROBE_SIZES)
    for shift in range(k):
        yield {n: PROBE_SIZES[(shift + 3 * i) % k] for i, n in enumerate(names)}


def lemma_gap(lemmas) -> str | None:
    """Why a set of cited lemmas is not all proved, or None."""
    for lemma in lemmas:
        if not lemma.proved:
            return f"{lemma.name} not proved: {lemma.status}"
    return None


def check_facts(facts, parts, ctx: z3.Context, timeout: float = DEFAULT_TIMEOUT):
    """Check labelled facts (each given as its violation) in one query under
    ``parts`` (assumptions): ('proved', None), ('failed', (labels, model))
    or ('unknown', reason)."""
    if not facts:
        return "proved", None
    answer, detail = search(z3.And(list(parts) + [z3.Or([v for _, v in facts])]),
                            ctx, timeout)
    if answer == "unsat":
        return "proved", None
    if answer == "sat":
        failed = [label for label, v in facts
                  if z3.is_true(detail.eval(v, model_completion=True))]
        return "failed", (failed, detail)
    return "unknown", detail
