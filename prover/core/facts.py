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

from tilespec.prover.core.lemma import Lemma, mixed_radix
from tilespec.prover.core.solve import DEFAULT_TIMEOUT, decide, lemma_gap


class Facts:
    """Facts about one question, in one ``z3.Context``."""

    def __init__(self, ctx: z3.Context, assumptions=(), timeout: float = DEFAULT_TIMEOUT):
        self.ctx = ctx
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
        rank = max(int(rank), 2)
        self.lemmas[f"mixed-radix rank {rank}"] = mixed_radix(rank)

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
        differ from; ``names`` maps names to their Z3 constants.
        """
        gap = lemma_gap(v for _, v in sorted(self.lemmas.items()))
        if gap:
            return "unknown", gap
        parts = list(self.assumptions)
        for values in avoid:
            if values and names:
                parts.append(z3.Or([names[n] != v for n, v in values.items()]))
        return decide(self.facts, parts, self.ctx, self.timeout)

    def steps(self) -> tuple:
        lemmas = [f"{l.name}: {l.status}" for _, l in sorted(self.lemmas.items())]
        return tuple(lemmas) + tuple(self.notes) + tuple(label for label, _ in self.facts)
