"""The one search for an answer: facts first, then the whole formula, then
the failing models' dims, then probe sizes, then ``unknown``.

A question is first put as a set of :class:`~prover.core.facts.Facts`
(small facts that suffice).  ``unsat`` of their violation proves it.  If
they do not all hold, the question may be put again *whole* (one formula
that is needed as well as sufficient): a failed sufficient fact is not yet
a counterexample.  What is still not proved is searched for a
counterexample at dim values, each replayed on the concrete evaluator by
the caller's ``refute``: the failing models' dims (:data:`MAX_MODELS` of
them, each new one avoiding those tried), then the staggered probe sizes
(:func:`prover.core.solve.probe_values`).  Nothing found is ``unknown``,
with the reason and the dims tried, never ``proved``.  Every search for a
counterexample at candidate dims, here or in a question that builds its
own candidates, is the one loop :func:`first_refutation`.

>>> import z3
>>> ctx = z3.Context()
>>> n = z3.Int("u.n", ctx)
>>> F = Facts(ctx, [n >= 1], names={"n": n})
>>> F.fact("n is below 4", n >= 4)
>>> v = drive(F, refute=lambda values: {"n": values["n"]} if values["n"] >= 4 else None)
>>> v.status, v.counterexample
('refuted', {'n': 4})
>>> v = drive(F, refute=lambda values: None)
>>> v.status, v.reason.split(";")[0]
('unknown', 'not proved (failing facts: n is below 4)')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

from ..result import PROVED, REFUTED, UNKNOWN
from .facts import Facts
from .solve import probe_values

#: Failing models whose dims are tried before the probe sizes.
MAX_MODELS = 4


def candidate_dims(names, check: Callable, dim_values: Callable, model=None,
                   fit: Callable | None = None) -> Iterator[dict]:
    """Dim values to look for a counterexample at: ``model``'s, then other
    failing models' (``check(avoid)`` gives ('failed', (labels, model)) for
    a model whose dims differ from every dict in ``avoid``), then probe
    sizes for ``names``, each passed through ``fit`` (into the question's
    scope; None drops it).  Each dict is yielded once.

    >>> list(candidate_dims(["m"], None, None, fit=lambda v: v if v["m"] < 5 else None))
    [{'m': 1}, {'m': 2}, {'m': 3}]
    >>> list(candidate_dims([], None, None))
    [{}]
    """
    seen: list[dict] = []
    for _ in range(MAX_MODELS):
        if model is None:
            break
        values = dim_values(model)
        if values in seen:
            break
        seen.append(values)
        yield values
        if not names:
            return
        status, detail = check(seen)
        model = detail[1] if status == "failed" else None
    for values in probe_values(list(names)):
        values = fit(values) if fit is not None else values
        if values is not None and values not in seen:
            seen.append(values)
            yield values


def first_refutation(candidates: Iterable[dict], refute: Callable[[dict], Any], *,
                     admit: Callable[[dict], bool] | None = None,
                     limit: int | None = None) -> tuple[Any, tuple[dict, ...]]:
    """The one loop over candidate dims: ``refute(values)`` at each dict of
    ``candidates`` once, in order, where ``admit`` lets it in, at most
    ``limit`` of them; (the first counterexample, or None; the dims tried).

    >>> first_refutation([{"n": 1}, {"n": 1}, {"n": 4}, {"n": 5}],
    ...                  lambda v: v if v["n"] >= 4 else None)
    ({'n': 4}, ({'n': 1}, {'n': 4}))
    >>> first_refutation([{"n": 1}, {"n": 2}, {"n": 3}], lambda v: None, limit=2)
    (None, ({'n': 1}, {'n': 2}))
    """
    tried: list[dict] = []
    for values in candidates:
        if values in tried or (admit is not None and not admit(values)):
            continue
        if limit is not None and len(tried) >= limit:
            break
        tried.append(values)
        ce = refute(values)
        if ce is not None:
            return ce, tuple(tried)
    return None, tuple(tried)


@dataclass(frozen=True)
class Verdict:
    """The answer :func:`drive` found: ``facts`` are those it rests on (their
    steps are the proof's), ``fact_status`` their own answer."""

    status: str
    facts: Facts
    fact_status: str
    counterexample: Any = None
    reason: str | None = None
    tried: tuple = field(default=())


def drive(facts: Facts, *, whole: Callable[[], Facts] | None = None,
          refute: Callable[[dict], dict | None],
          admit: Callable[[dict], bool] | None = None) -> Verdict:
    """Answer the question ``facts`` state (their ``names`` are the dims).

    ``whole()`` builds the question as one formula, tried when the facts are
    not all proved: its proof counts, and its failing models are used when
    the facts were not decided.  ``refute(values)`` replays the question at
    those dims (a counterexample dict, or None); ``admit(values)`` says
    which dims are in scope (e.g. where assumed size conditions hold).
    """
    status, detail = facts.check()
    if status != "proved" and whole is not None:
        W = whole()
        st, det = W.check()
        if st == "proved" or status != "failed":
            W.note("the step-by-step facts do not all hold (they suffice, "
                   "they are not needed): the agreement is checked whole")
            facts, status, detail = W, st, det
    if status == "proved":
        return Verdict(PROVED, facts, status)
    model = detail[1] if status == "failed" else None
    ce, tried = first_refutation(
        candidate_dims(facts.names, lambda avoid: facts.check(avoid=avoid),
                       facts.dim_values, model), refute, admit=admit)
    if ce is not None:
        return Verdict(REFUTED, facts, status, counterexample=ce, tried=tried)
    why = (f"failing facts: {'; '.join(detail[0])}" if status == "failed" else str(detail))
    at = ", ".join("{" + ", ".join(f"{k}={v}" for k, v in t.items()) + "}" for t in tried)
    return Verdict(UNKNOWN, facts, status, tried=tried,
                   reason=f"not proved ({why}); no counterexample at dims {at or 'none'}")
