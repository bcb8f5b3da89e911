"""What a proof attempt returns: proved, refuted (with a replayed
counterexample) or unknown (with the reason).  Nothing else is a verdict.
"""

from __future__ import annotations

import builtins
from dataclasses import asdict, dataclass, field
from typing import Any, Mapping

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
class Side:
    """What one side of a comparison says at a counterexample.

    ``name`` says which side: ``"source"``/``"target"`` (a bitcast, a
    conversion), ``"spec"`` against ``"xla"``, ``"yours"``, ``"generated"``,
    ``"cute"`` or ``"pad_reshape_transpose"``, ``"first"``/``"second"`` (two
    elements of one layout).  ``element`` is a logical index (None where the
    side holds no element there, e.g. padding); ``offset`` counts elements,
    ``byte_offset`` and ``bit_offset`` locate it in memory (a sub-byte element
    has a bit offset inside its byte); ``value`` is any other number the side
    computed (a size in bytes, a bit width).

    >>> Side("source", element=(0, 128), offset=1024, byte_offset=4096).to_json()["offset"]
    1024
    """

    name: str
    element: tuple[int, ...] | None = None
    offset: int | None = None
    byte_offset: int | None = None
    bit_offset: int | None = None
    shape: str | None = None
    value: int | None = None

    def to_json(self) -> dict:
        d = asdict(self)
        if self.element is not None:
            d["element"] = list(self.element)
        return d


@dataclass(frozen=True)
class Counterexample:
    """Where a claim fails, the same for every question: the named dims'
    sizes, what each side says, the reading of the question that was tried
    (``"reshape"``, ``"transpose (1,0)"``, ``"transpose-reshape-transpose"``;
    None where a question has one reading), and one line saying what differs.

    >>> ce = Counterexample({"m": 2}, (Side("source", offset=3), Side("target", offset=5)),
    ...                     what="the offsets differ")
    >>> ce.side("target").offset, ce.to_json()["dim_values"]
    (5, {'m': 2})
    """

    dim_values: Mapping[str, int]
    sides: tuple[Side, ...]
    reading: str | None = None
    what: str = ""
    details: Mapping[str, Any] = field(default_factory=dict)

    def side(self, name: str) -> Side:
        for s in self.sides:
            if s.name == name:
                return s
        raise KeyError(f"no side {name!r} in this counterexample")

    def to_json(self) -> dict:
        return {"dim_values": dict(self.dim_values),
                "sides": [s.to_json() for s in self.sides],
                "reading": self.reading, "what": self.what,
                "details": dict(self.details)}


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

    # the field ``property`` names the builtin decorator in this class body
    @builtins.property
    def proved(self) -> bool:
        return self.status == PROVED

    def to_json(self) -> dict:
        d = asdict(self)
        d["seconds"] = round(self.seconds, 6)
        d["steps"] = list(self.steps)
        return d
