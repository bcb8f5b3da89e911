"""What a proof attempt returns: proved, refuted (with a replayed
counterexample) or unknown (with the reason).  Nothing else is a verdict.
"""

from __future__ import annotations

import builtins
import json
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Mapping

from ..spec import XlaCommit

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

    def __post_init__(self):
        if self.element is not None:
            object.__setattr__(self, "element", tuple(int(x) for x in self.element))

    def describe(self) -> str:
        """This side in words.

        >>> Side("first", element=[0, 1], offset=3, value=8).describe()
        'element (0, 1), offset 3, value 8'
        """
        parts = []
        if self.shape is not None:
            parts.append(self.shape)
        if self.element is not None:
            parts.append(f"element {self.element}")
        for name in ("offset", "byte_offset", "bit_offset", "value"):
            v = getattr(self, name)
            if v is not None:
                parts.append(f"{name.replace('_', ' ')} {v}")
        if self.element is None and self.offset is None and self.shape is None:
            parts.append("no element")
        return ", ".join(parts)

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

    def __post_init__(self):
        object.__setattr__(self, "dim_values", dict(self.dim_values))
        object.__setattr__(self, "sides", tuple(self.sides))
        object.__setattr__(self, "details", dict(self.details))

    def at(self, dim_values: Mapping[str, int]) -> "Counterexample":
        """The same counterexample, found at these named dims' sizes.

        >>> Counterexample({}, (Side("shape", offset=9),)).at({"m": 3}).dim_values
        {'m': 3}
        """
        return replace(self, dim_values={**self.dim_values, **dim_values})

    def with_details(self, **details) -> "Counterexample":
        """The same counterexample with more details (e.g. the facts that failed).

        >>> Counterexample({}, ()).with_details(failed_facts=["a"]).details
        {'failed_facts': ['a']}
        """
        return replace(self, details={**self.details, **details})

    @property
    def elements(self) -> dict:
        """The logical index each side names, by side.

        >>> Counterexample({}, (Side("a", element=(1,)), Side("b"))).elements
        {'a': [1]}
        """
        return {s.name: list(s.element) for s in self.sides if s.element is not None}

    @property
    def offsets(self) -> dict:
        """The offset (in elements) each side computed, by side; a side with
        no offset and no element says nothing here.

        >>> Counterexample({}, (Side("a", offset=4), Side("b", element=(0,)))).offsets
        {'a': 4, 'b': None}
        """
        return {s.name: s.offset for s in self.sides
                if s.offset is not None or s.element is not None}

    def lines(self) -> list[str]:
        """The counterexample in words, one line per fact: the text every
        command prints (its JSON is :meth:`to_json`).

        >>> Counterexample({"m": 2}, (Side("spec", element=(0, 1), offset=3),),
        ...                what="the offsets differ").lines()
        ['what: the offsets differ', 'dim_values: m=2', 'spec: element (0, 1), offset 3']
        """
        out = [f"what: {self.what}"] if self.what else []
        if self.reading:
            out.append(f"reading: {self.reading}")
        if self.dim_values:
            out.append("dim_values: " + ", ".join(f"{k}={v}" for k, v in self.dim_values.items()))
        for s in self.sides:
            out.append(f"{s.name}: {s.describe()}")
        # details as their JSON, so the text shows the values --json shows
        out += [f"{k}: {json.dumps(_plain(v))}" for k, v in self.details.items()]
        return out

    def side(self, name: str) -> Side:
        for s in self.sides:
            if s.name == name:
                return s
        raise KeyError(f"no side {name!r} in this counterexample")

    def to_json(self) -> dict:
        return {"dim_values": dict(self.dim_values),
                "elements": self.elements, "offsets": self.offsets,
                "sides": [s.to_json() for s in self.sides],
                "reading": self.reading, "what": self.what,
                "details": _plain(self.details)}


def _plain(value):
    """Details as JSON: tuples become lists, other values stay."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


#: What an XLA function does beyond returning a value (:class:`XlaBehaviour`).
ABORTS = "aborts"
UNDEFINED = "undefined"
WRAPS = "wraps"


@dataclass(frozen=True)
class XlaBehaviour:
    """What a C++ function of XLA does on an input where it does not simply
    return a value: it aborts (``what`` names the failing CHECK), its
    behaviour is undefined (``what`` names the operation; ``value`` is what
    two's-complement wrap-around makes it return, where that is what happens
    in practice), or it silently wraps (``value`` is what it returns).
    ``function`` names the function and ``source`` the file and commit.

    >>> b = XlaBehaviour(ABORTS, "LayoutUtil::LinearIndexForNestedTiling",
    ...                  "CHECK_LE(tile_rank, current_shape.size())")
    >>> b.describe()
    'XLA aborts: CHECK_LE(tile_rank, current_shape.size()) fails in LayoutUtil::LinearIndexForNestedTiling'
    >>> XlaBehaviour(WRAPS, "ShapeUtil::ArraySize", "int64 product", value=0).describe()
    'XLA silently wraps: int64 product in ShapeUtil::ArraySize; it returns 0'
    """

    kind: str
    function: str
    what: str
    value: int | None = None
    source: str = ""

    def __post_init__(self):
        if self.kind not in (ABORTS, UNDEFINED, WRAPS):
            raise ValueError(f"unknown XLA behaviour {self.kind!r}")

    def describe(self) -> str:
        if self.kind == ABORTS:
            return f"XLA aborts: {self.what} fails in {self.function}"
        if self.kind == UNDEFINED:
            text = f"undefined behaviour in {self.function}: {self.what}"
            if self.value is not None:
                text += (f"; with two's-complement wrap-around (what the binary does) "
                         f"XLA wraps and returns {self.value}")
            return text
        return f"XLA silently wraps: {self.what} in {self.function}; it returns {self.value}"

    def to_json(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Result:
    """The outcome of proving one property of one shape (or shape family).

    ``scope`` says what a proof covers: ``"concrete"`` for the given sizes, or
    the names and their range for all shapes.  ``counterexample`` is a
    :class:`Counterexample` (the dim values and what each side computed);
    ``reason`` says why a result is unknown.  ``steps`` lists what was
    checked.  ``shape`` is the subject as text (one shape, or a pair such as
    ``"A -> B"``); ``shapes`` the same subject typed: the XLA shapes the
    question is about, in order (empty where the subject is no XLA shape,
    as a CuTe law's).  A counterexample is always a typed
    :class:`Counterexample`.

    >>> from tilespec.spec import parse_shape
    >>> r = Result("f32[3]{0}", "injective", PROVED, 0.0, shapes=(parse_shape("f32[3]{0}"),))
    >>> r.shapes[0].dims, r.to_json()["shape"]
    ((3,), 'f32[3]{0}')
    >>> Result("f32[3]{0}", "injective", REFUTED, 0.0, counterexample={"x": 1})
    Traceback (most recent call last):
    ...
    TypeError: a Result's counterexample is a Counterexample, not dict
    """

    shape: str
    property: str
    status: str
    seconds: float
    scope: str = "concrete"
    counterexample: Counterexample | None = None
    reason: str | None = None
    steps: tuple = field(default=())
    #: what XLA's function does where it does not return a value to compare
    #: (aborts, undefined behaviour, wrap-around); None where it returns one
    xla: XlaBehaviour | None = None
    shapes: tuple = ()
    #: the XLA commit a verdict about XLA's code is about (``xla=``); None
    #: where the verdict does not depend on XLA's version
    xla_version: XlaCommit | None = None

    def __post_init__(self):
        object.__setattr__(self, "shapes", tuple(self.shapes))
        if self.counterexample is not None and not isinstance(self.counterexample,
                                                              Counterexample):
            raise TypeError("a Result's counterexample is a Counterexample, not "
                            f"{type(self.counterexample).__name__}")

    # the field ``property`` names the builtin decorator in this class body
    @builtins.property
    def proved(self) -> bool:
        return self.status == PROVED

    def to_json(self) -> dict:
        d = {k: getattr(self, k) for k in ("shape", "property", "status", "scope",
                                           "reason")}
        d["seconds"] = round(self.seconds, 6)
        d["counterexample"] = (None if self.counterexample is None
                               else self.counterexample.to_json())
        d["steps"] = [str(s) for s in self.steps]
        d["xla_behaviour"] = None if self.xla is None else self.xla.to_json()
        d["xla_version"] = None if self.xla_version is None else self.xla_version.to_json()
        return d


def counterexample_lines(ce, indent: str = "  ") -> list[str]:
    """A counterexample as indented text lines (what the commands print).

    >>> counterexample_lines(Counterexample({}, (Side("spec", offset=3),)))
    ['  spec: offset 3']
    """
    return [indent + line for line in ce.lines()]


#: The keys of a counterexample's JSON (:meth:`Counterexample.to_json`).
JSON_KEYS = frozenset({"dim_values", "elements", "offsets", "sides", "reading", "what",
                       "details"})


def counterexample_json(ce) -> dict:
    """A counterexample as JSON; JSON already rendered stays as it is.

    >>> ce = Counterexample({}, (Side("a", offset=1),)).to_json()
    >>> counterexample_json(ce) == ce
    True
    """
    if isinstance(ce, Counterexample):
        return ce.to_json()
    if set(ce) == JSON_KEYS:
        return dict(ce)
    raise TypeError(f"not a counterexample: {sorted(ce)}")
