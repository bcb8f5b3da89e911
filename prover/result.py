"""What a proof attempt returns: proved, refuted (with a replayed
counterexample) or unknown (with the reason).  Nothing else is a verdict.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

PROVED = "proved"
REFUTED = "refuted"
UNKNOWN = "unknown"

#: Exit statuses of ``tilespec prove`` and friends.
EXIT_STATUS = {PROVED: 0, REFUTED: 1, UNKNOWN: 3}


class ProverBug(AssertionError):
    """A counterexample that does not replay on the concrete evaluator, or a
    solver answer the prover cannot explain: a bug in tilespec, never a
    verdict about the layout."""


@dataclass(frozen=True)
class Result:
    """The outcome of proving one property of one shape (or shape family).

    ``scope`` says what a proof covers: ``"concrete"`` for the given sizes, or
    the names and their range for all shapes.  ``counterexample`` holds the
    dim values, element(s) and the offsets each side computed; ``reason``
    says why a result is unknown.  ``steps`` lists what was checked.
    """

    shape: str
    property: str
    status: str
    seconds: float
    scope: str = "concrete"
    counterexample: dict | None = None
    reason: str | None = None
    steps: tuple = field(default=())

    @property
    def proved(self) -> bool:
        return self.status == PROVED

    def to_json(self) -> dict:
        d = asdict(self)
        d["seconds"] = round(self.seconds, 6)
        d["steps"] = list(self.steps)
        return d
