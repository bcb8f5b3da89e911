"""The one JSON document of every ``--json`` output (docs/json.md,
``cli/schema.json``), written result by result.

An :class:`Entry` is one result of the envelope: what was asked about
(``subject``), which ``check``, its ``status`` and the rest.  :func:`write`
writes the document around any iterable of entries, each as soon as it is
produced: the header one field per line, then each result on a line of
its own as compact JSON (``json.dumps``'s C encoder, the one Python uses
without ``indent``), so that line tools (``grep``, ``jq -c``, a JSON Lines
reader of the ``results`` lines) work on it and a large report is written
at the encoder's speed.

>>> import io
>>> out = io.StringIO()
>>> write(out, "offset", 0, [Entry({"shape": "f32[3]{0}"}, "offset", "ok", data={"offset": 2})])
>>> print(out.getvalue())  # doctest: +ELLIPSIS
{
  "format": "tilespec",
  ...
  "exit_status": 0,
  "results": [
    {"subject": {"shape": "f32[3]{0}"}, "check": "offset", ..., "data": {"offset": 2}}
  ],
  "error": null
}
<BLANKLINE>
>>> doc = json.loads(out.getvalue())
>>> doc["format_version"], doc["results"][0]["data"], doc["error"]
(2, {'offset': 2}, None)
"""

from __future__ import annotations

import json
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
        if self.steps or type(self.steps) is not tuple:
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
    # most subjects are names and line numbers: written as they are
    return {k: v if type(v) in _PLAIN else _subject_value(v) for k, v in subject.items()}


_PLAIN = (str, int)


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


def result_line(entry: Entry) -> str:
    """One result as the envelope holds it: its JSON on one line, compact
    (``json.dumps``'s separators and ``ensure_ascii``), indented under
    ``results``; a typed counterexample anywhere in it is written as its JSON.

    >>> print(result_line(Entry({}, "rule", "ok", steps=("a",))))
        {"subject": {}, "check": "rule", "status": "ok", "scope": "concrete", "seconds": 0.0, \
"counterexample": null, "reason": null, "steps": ["a"], "data": {}}
    """
    return "    " + _encode(entry.to_json())


def plain_result_line(subject_json_text: str, check: str, status: str, reason: str | None,
                      data: Mapping[str, Any]) -> str:
    """:func:`result_line` of ``Entry(subject, check, status, reason=reason,
    data=data)`` (no counterexample, no steps, scope concrete, no time of
    its own), its subject's JSON given as text: the many notes of a large
    report are written from pieces made once per module.

    >>> e = Entry({"file": "m", "line": 3}, "padding", "ok", reason="r", data={"bytes": 4})
    >>> plain_result_line('{"file": "m", "line": 3}', "padding", "ok", "r", {"bytes": 4}) \\
    ...     == result_line(e)
    True
    """
    if status not in STATUSES:
        raise ValueError(f"status {status!r} is not one of {STATUSES}")
    return ('    {"subject": ' + subject_json_text + ', "check": ' + encode_basestring_ascii(check)
            + ', "status": ' + encode_basestring_ascii(status)
            + ', "scope": "concrete", "seconds": 0.0, "counterexample": null, "reason": '
            + ("null" if reason is None else encode_basestring_ascii(reason))
            + ', "steps": [], "data": ' + _encode(data) + "}")


def _typed_json(value) -> dict:
    """The JSON of a typed value the encoder does not know (``default`` of
    ``json.dumps``): a counterexample inside a result's data."""
    if isinstance(value, Counterexample):
        return value.to_json()
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


#: ``json.dumps`` with :func:`_typed_json`, its encoder made once (results
#: are trees built from typed values: no cycle to look for).
_encode = json.JSONEncoder(default=_typed_json, check_circular=False).encode


@dataclass(frozen=True)
class Rendered:
    """Entries written out already, as :func:`write` writes them among the
    results (``text``: their lines, joined as the results are): a worker
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
    return Rendered(",\n".join(e.text if isinstance(e, Rendered) else result_line(e)
                                for e in entries if not isinstance(e, Rendered) or e.text))


def write(out: IO[str], command: str | None, exit_status: int,
          entries: Iterable[Entry | Rendered], error: Mapping[str, str] | None = None) -> None:
    """The envelope on ``out``: its header one field per line, then each
    entry as it comes, a result per line (:class:`Rendered` entries as
    they were written), then the ``error`` (None, or its ``kind`` and
    ``message``: :func:`write_error`).  It parses to the document
    ``json.dumps`` would write of the same values.

    >>> import io
    >>> out = io.StringIO()
    >>> write(out, "explain", 2, [], error={"kind": "bad input", "message": "bad shape"})
    >>> for line in out.getvalue().splitlines()[-3:]: print(line)
      "results": [],
      "error": {"kind": "bad input", "message": "bad shape"}
    }
    """
    head = header(command, exit_status)
    out.write("{\n" + "".join(f'  "{k}": {json.dumps(v)},\n' for k, v in head.items()))
    first = True
    for e in entries:
        text = e.text if isinstance(e, Rendered) else result_line(e)
        if not text:
            continue
        out.write(('  "results": [\n' if first else ",\n") + text)
        first = False
    out.write('  "results": [],\n' if first else "\n  ],\n")
    out.write(f'  "error": {json.dumps(None if error is None else dict(error))}\n}}\n')


def write_error(out: IO[str], command: str | None, message: str, kind: str,
                exit_status: int) -> None:
    """Bad input (or an internal error) as the envelope: no results, the
    error's ``kind`` and one-line ``message``.

    >>> import io
    >>> out = io.StringIO()
    >>> write_error(out, "explain", "bad shape", "bad input", 2)
    >>> json.loads(out.getvalue())["error"]
    {'kind': 'bad input', 'message': 'bad shape'}
    """
    write(out, command, exit_status, (), error={"kind": kind, "message": message})
