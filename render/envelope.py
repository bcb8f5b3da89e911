"""The one JSON document of every ``--json`` output (docs/json.md,
``cli/schema.json``), written result by result.

An :class:`Entry` is one result of the envelope: what was asked about
(``subject``), which ``check``, its ``status`` and the rest.  :func:`write`
writes the document around any iterable of entries, each as soon as it is
produced, in the layout ``json.dumps(document, indent=2)`` gives; a value
shared by many entries (one decision's JSON, reused by every repeat of its
question) is encoded once.

>>> import io
>>> out = io.StringIO()
>>> write(out, "offset", 0, [Entry({"shape": "f32[3]{0}"}, "offset", "ok", data={"offset": 2})])
>>> doc = json.loads(out.getvalue())
>>> doc["format_version"], doc["results"][0]["data"], doc["error"]
(2, {'offset': 2}, None)
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace
from json.encoder import encode_basestring_ascii
from typing import IO, Any, Iterable, Mapping

from ..prover.result import Counterexample, Result, counterexample_json
from ..spec import Shape, TupleShape, format_shape

#: The version of the JSON format (docs/json.md); a change that removes or
#: renames a field, or changes its meaning, raises it (2: a check-hlo
#: finding's status is its verdict, its counterexample the result's).
FORMAT_VERSION = 2

STATUSES = ("proved", "refuted", "unknown", "ok")


def tool_version() -> str:
    """The installed package's version (package metadata: no z3, no sympy)."""
    # at use: importlib.metadata costs a cold command about a tenth of its time
    from importlib import metadata
    try:
        return metadata.version("tilespec")
    except metadata.PackageNotFoundError:  # a source tree, not installed
        return "0+unknown"


@dataclass(frozen=True)
class Entry:
    """One result of a command run, as the envelope holds it: what was
    asked about (``subject``: shapes by role, typed as
    :class:`~tilespec.spec.Shape`, or an HLO instruction), which
    ``check``, its ``status`` (``proved``/``refuted``/``unknown`` for a
    question the prover decided, ``ok`` for a plain query such as
    ``offset``), the ``counterexample`` (a typed
    :class:`~tilespec.prover.result.Counterexample`, or its JSON), the
    ``reason`` of an unknown, the ``steps`` checked and the command's own
    ``data``.  ``seconds`` None is an answer that takes the run's time
    (:func:`share_time`).

    >>> Entry({"shape": "f32[3]{0}"}, "offset", "ok", data={"offset": 2}).to_json()["data"]
    {'offset': 2}
    """

    subject: Mapping[str, Any]
    check: str
    status: str
    scope: str = "concrete"
    seconds: float | None = 0.0
    counterexample: Any = None
    reason: str | None = None
    steps: tuple = ()
    data: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self):
        if self.status not in STATUSES:
            raise ValueError(f"status {self.status!r} is not one of {STATUSES}")
        object.__setattr__(self, "steps", tuple(str(s) for s in self.steps))
        object.__setattr__(self, "data", {} if self.data is None else self.data)

    @classmethod
    def answer(cls, check: str, subject: Mapping[str, Any], data: Mapping[str, Any]) -> "Entry":
        """A plain query's answer: status ``ok``, its scope what the names
        in its shapes range over, its time the run's.

        >>> from tilespec.spec import parse_shape
        >>> e = Entry.answer("offset", {"shape": parse_shape("f32[m]{0}")}, {"offset": 2})
        >>> e.status, e.scope, e.to_json()["subject"]
        ('ok', 'all shapes: m >= 1', {'shape': 'f32[m]{0}'})
        """
        return cls(subject, check, "ok", scope_of(subject), None, data=data)

    @classmethod
    def of(cls, result: Result, subject: Mapping[str, Any],
           data: Mapping[str, Any] | None = None) -> "Entry":
        """A prover's :class:`~tilespec.prover.result.Result` about ``subject``.

        >>> r = Result("f32[3]{0}", "injective", "proved", 0.5)
        >>> Entry.of(r, {"shape": "f32[3]{0}"}).check
        'injective'
        """
        return cls(subject, result.property, result.status, result.scope, result.seconds,
                   result.counterexample, result.reason, result.steps,
                   {} if data is None else data)

    def to_json(self) -> dict:
        return {"subject": subject_json(self.subject), "check": self.check,
                "status": self.status, "scope": self.scope,
                "seconds": round(float(self.seconds or 0.0), 6),
                "counterexample": None if self.counterexample is None
                else counterexample_json(self.counterexample),
                "reason": self.reason, "steps": list(self.steps), "data": self.data}


def subject_json(subject: Mapping[str, Any]) -> dict:
    """A subject as JSON: each shape as XLA prints it.

    >>> from tilespec.spec import parse_shape
    >>> subject_json({"shapes": [parse_shape("f32[3]")], "transpose": [1, 0]})
    {'shapes': ['f32[3]{0}'], 'transpose': [1, 0]}
    """
    return {k: _subject_value(v) for k, v in subject.items()}


def _subject_value(value):
    if isinstance(value, (Shape, TupleShape)):
        return format_shape(value)
    if isinstance(value, (list, tuple)):
        return [_subject_value(v) for v in value]
    return value


def scope_of(subject: Mapping[str, Any]) -> str:
    """A plain answer's scope: ``concrete``, or every size of the names in
    its shapes (a formula), or ``none`` without a subject.

    >>> from tilespec.spec import parse_shape
    >>> scope_of({"shape": parse_shape("f32[m,n]{1,0}")}), scope_of({})
    ('all shapes: m >= 1, n >= 1', 'none')
    """
    if not subject:
        return "none"
    shapes = [s for v in subject.values()
              for s in (v if isinstance(v, (list, tuple)) else (v,)) if isinstance(s, Shape)]
    names = dict.fromkeys(n for s in shapes for n in s.names)
    if not names:
        return "concrete"
    return "all shapes: " + ", ".join(f"{n} >= 1" for n in names)


def share_time(entries: Iterable[Entry], seconds: float) -> Iterable[Entry]:
    """Entries whose time is the run's (``seconds`` None) share it equally;
    entries that come as they are produced (a generator) are left as they are.

    >>> [e.seconds for e in share_time([Entry({}, "rule", "ok", seconds=None)] * 2, 1.0)]
    [0.5, 0.5]
    """
    if not isinstance(entries, (list, tuple)):
        return entries
    untimed = sum(e.seconds is None for e in entries)
    return [replace(e, seconds=seconds / untimed) if e.seconds is None else e
            for e in entries]


def header(command: str | None, exit_status: int) -> dict:
    """The envelope's fields before its results."""
    return {"format": "tilespec", "format_version": FORMAT_VERSION, "tool": "tilespec",
            "version": tool_version(), "command": command, "exit_status": exit_status}


def error_document(command, message: str, kind: str, exit_status: int) -> dict:
    """Bad input (or an internal error) as JSON: no results, the message."""
    return {**header(command, exit_status), "results": [],
            "error": {"kind": kind, "message": message}}


#: How JSON writes each scalar type (``json.dumps`` gives the same text).
_SCALAR = {str: encode_basestring_ascii, int: int.__repr__, type(None): lambda v: "null",
           bool: lambda v: "true" if v else "false"}


def _float(value: float) -> str:
    """A float as ``json.dumps`` writes it (``NaN`` and ``Infinity`` included)."""
    return float.__repr__(value) if math.isfinite(value) else json.dumps(value)


_SCALAR[float] = _float


class _Encoder:
    """JSON text as ``json.dumps(indent=2)`` writes it at a given depth, a
    value at a time as the results come.  A container met again (the same
    object: one decision's JSON shared by every repeat of its question) is
    encoded once; the encoder keeps every container it encoded, so an id is
    never reused while its text is remembered.  Scalars are written in the
    loops over a container's items, without a call each: most of a large
    report's values are scalars."""

    def __init__(self):
        self.memo: dict[int, tuple[Any, str, str]] = {}

    def __call__(self, value, pad: str) -> str:
        scalar = _SCALAR.get(type(value))
        if scalar is not None:
            return scalar(value)
        if type(value) is not Counterexample and not isinstance(value, (dict, list, tuple)):
            return json.dumps(value)
        seen = self.memo.get(id(value))
        if seen is not None and seen[1] == pad:
            return seen[2]
        text = self.container(value.to_json() if type(value) is Counterexample else value,
                              pad)
        self.memo[id(value)] = (value, pad, text)
        return text

    def container(self, value, pad: str) -> str:
        inner = pad + "  "
        scalars = _SCALAR
        if isinstance(value, dict):
            if not value:
                return "{}"
            items = []
            for k, v in value.items():
                scalar = scalars.get(type(v))
                items.append(encode_basestring_ascii(k if type(k) is str else str(k)) + ": "
                             + (scalar(v) if scalar is not None else self(v, inner)))
            return "{\n" + inner + (",\n" + inner).join(items) + "\n" + pad + "}"
        if not value:
            return "[]"
        items = []
        for v in value:
            scalar = scalars.get(type(v))
            items.append(scalar(v) if scalar is not None else self(v, inner))
        return "[\n" + inner + (",\n" + inner).join(items) + "\n" + pad + "]"

    def entry(self, e: Entry, pad: str) -> str:
        inner = pad + "  "
        ce = e.counterexample
        reason = e.reason
        return ("{\n" + inner
                + (",\n" + inner).join((
                    '"subject": ' + self.container(subject_json(e.subject), inner),
                    '"check": ' + encode_basestring_ascii(e.check),
                    '"status": ' + encode_basestring_ascii(e.status),
                    '"scope": ' + encode_basestring_ascii(e.scope),
                    '"seconds": ' + _float(round(float(e.seconds or 0.0), 6)),
                    '"counterexample": ' + self(
                        ce if ce is None or isinstance(ce, Counterexample)
                        else counterexample_json(ce), inner),
                    '"reason": ' + ("null" if reason is None
                                    else encode_basestring_ascii(reason)),
                    '"steps": ' + self.container(list(e.steps), inner),
                    '"data": ' + self(e.data, inner)))
                + "\n" + pad + "}")


@dataclass(frozen=True)
class Rendered:
    """Entries written out already, as :func:`write` writes them among the
    results (``text``: their JSON, joined as the results are): a worker
    process renders its module's entries (:func:`rendered`), so that the
    parent writes bytes instead of encoding every module alone."""

    text: str


def rendered(entries: Iterable[Entry | Rendered]) -> Rendered:
    """``entries`` as :func:`write` would write them among the results.

    >>> import io
    >>> e = Entry({"file": "m"}, "padding", "ok", data={"bytes": 4})
    >>> out = io.StringIO()
    >>> write(out, "check-hlo", 0, [rendered([e, e])])
    >>> json.loads(out.getvalue())["results"] == [e.to_json()] * 2
    True
    """
    encode = _Encoder()
    return Rendered(",\n    ".join(e.text if isinstance(e, Rendered) else encode.entry(e, "    ")
                                   for e in entries if not isinstance(e, Rendered) or e.text))


def write(out: IO[str], command: str | None, exit_status: int,
          entries: Iterable[Entry | Rendered]) -> None:
    """The envelope on ``out``: its header, then each entry as it comes
    (:class:`Rendered` entries as they were written)."""
    head = header(command, exit_status)
    out.write("{\n" + "".join(f'  "{k}": {json.dumps(v)},\n' for k, v in head.items()))
    encode = _Encoder()
    first = True
    for e in entries:
        if isinstance(e, Rendered):
            if not e.text:
                continue
            text = e.text
        else:
            text = encode.entry(e, "    ")
        out.write(('  "results": [\n    ' if first else ",\n    ") + text)
        first = False
    out.write('  "results": [],\n' if first else "\n  ],\n")
    out.write('  "error": null\n}\n')
