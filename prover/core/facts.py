"""A set of facts checked in one solver query, with the lemmas they cite.

Each fact is recorded as the formula that holds exactly when it *fails* (its
violation).  :meth:`Facts.check` asks Z3 for a model of "some fact fails"
under the assumptions: ``unsat`` proves every fact at once, ``sat`` names the
failing facts and the dims they fail at, ``unknown`` is reported as such.
Lemmas (the mixed-radix lemma, proved once per rank) must be proved before
anything that cites them counts.

>>> import z3
>>> ctx = z3.Context()
>>> x = z3.Int("x", ctx)
>>> f = Facts(ctx, [x >= 0], timeout=5)
>>> f.fact("x // 8 * 8 + x % 8 is x", (x / 8) * 8 + x % 8 != x)
>>> f.check()[0]
'proved'
>>> f.fact("x is below 100", x >= 100)
>>> status, (failed, model) = f.check()
>>> status, failed
('failed', ['x is below 100'])
"""

from __future__ import annotations

import z3

from .lemma import Lemma
from .solve import DEFAULT_TIMEOUT, check_facts, lemma_gap
from .theorems import cited_lemma


class Facts:
    """Facts about one question, in one ``z3.Context``."""

    def __init__(self, ctx: z3.Context, assumptions=(), timeout: float = DEFAULT_TIMEOUT,
                 names=None):
        self.ctx = ctx
        #: the user's dims: name -> Z3 constant (a counterexample's dims)
        self.names = dict(names or {})
        self.assumptions = list(assumptions)
        self.timeout = timeout
        self.facts: list[tuple[str, object]] = []
        self.lemmas: dict[str, Lemma] = {}
        self.notes: list[str] = []

    def fact(self, label: str, violation) -> None:
        if isinstance(violation, bool):
            violation = z3.BoolVal(violation, self.ctx)
        self.facts.append((label, violation))

    def assume(self, formula) -> None:
        self.assumptions.append(formula)

    def cite(self, rank: int) -> None:
        """The mixed-radix lemma at ``rank`` backs a step of the argument."""
        self.cite_lemma(cited_lemma(max(int(rank), 2)))   # proved once, cached

    def cite_lemma(self, lemma) -> None:
        """Any proved-once result with ``name``, ``status``, ``proved``."""
        self.lemmas[lemma.name] = lemma

    def note(self, text: str) -> None:
        """A step that needs no solver (e.g. equal monomials, by inspection)."""
        if text not in self.notes:
            self.notes.append(text)

    def check(self, avoid=(), names=None):
        """('proved', None) | ('failed', (labels, model)) | ('unknown', reason).

        ``avoid`` lists dim values (dicts name -> int) a failing model must
        differ from; ``names`` maps names to their Z3 constants (the facts'
        own by default).
        """
        names = self.names if names is None else names
        gap = self.lemma_gap()
        if gap:
            return "unknown", gap
        facts, parts = self.formulas(avoid, names)
        return check_facts(facts, parts, self.ctx, self.timeout)

    def lemma_gap(self) -> str | None:
        """Why the cited lemmas are not all proved, or None."""
        return lemma_gap(v for _, v in sorted(self.lemmas.items()))

    def formulas(self, avoid, names):
        """(labelled violations, assumptions) as Z3 terms, the assumptions
        with "the dims differ from each of ``avoid``"."""
        parts = list(self.assumptions)
        for values in avoid:
            if values and names:
                parts.append(z3.Or([names[n] != v for n, v in values.items()]))
        return self.facts, parts

    def dim_values(self, model) -> dict:
        """The user's dims in a model of these facts, by their names."""
        return {n: model.eval(v, model_completion=True).as_long()
                for n, v in self.names.items()}

    def steps(self) -> tuple:
        lemmas = [f"{l.name}: {l.status}" for _, l in sorted(self.lemmas.items())]
        return tuple(lemmas) + tuple(self.notes) + tuple(label for label, _ in self.facts)
