"""One JSON document for every ``--json`` output (docs/json.md, schema.json).

A command hands its data to :func:`emit` (under ``--json`` nothing is
printed); :func:`run` turns that data into the one envelope:

    {"format": "tilespec", "format_version": 1, "tool": "tilespec",
     "version": "0.1.0", "command": "offset", "exit_status": 0,
     "results": [{"subject": {"shape": "..."}, "check": "offset",
                  "status": "ok", "scope": "concrete", "seconds": 0.0,
                  "counterexample": null, "reason": null, "steps": [],
                  "data": {...}}],
     "error": null}

A counterexample is rendered once, by the prover's typed
:class:`~tilespec.prover.result.Counterexample` (``Result.to_json``): the
named dims' sizes, its ``sides`` (each with its name, element and offsets),
``elements`` and ``offsets`` by side, what differs and the details.  The
envelope passes it on as rendered.

>>> doc = document("offset", [result({"shape": "f32[3]{0}"}, "offset", "ok")], 0)
>>> doc["format_version"], doc["results"][0]["status"], doc["error"]
(1, 'ok', None)
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any, Mapping

from ..prover.result import counterexample_json
from ..spec.errors import TilespecError

#: The version of the JSON format (docs/json.md); a change that removes or
#: renames a field raises it.
FORMAT_VERSION = 1

STATUSES = ("proved", "refuted", "unknown", "ok")


def tool_version() -> str:
    from importlib import metadata  # on use: its import costs a cold command ~10%
    try:
        return metadata.version("tilespec")
    except metadata.PackageNotFoundError:  # a source tree, not installed
        return "0+unknown"


def document(command: str, results: list, exit_status: int, error=None) -> dict:
    return {"format": "tilespec", "format_version": FORMAT_VERSION,
            "tool": "tilespec", "version": tool_version(),
            "command": command, "exit_status": exit_status,
            "results": [r.to_json() for r in results], "error": error}


def error_document(command, message: str, kind: str, exit_status: int) -> dict:
    """Bad input (or an internal error) as JSON: no results, the message."""
    return document(command, [], exit_status,
                    {"kind": kind, "message": message})


@dataclass(frozen=True)
class Finding:
    """One result of a command run, as the envelope holds it: what was
    asked about (``subject``: shapes by role, or an HLO instruction), which
    ``check``, its ``status`` (``proved``/``refuted``/``unknown`` for a
    question the prover decided, ``ok`` for a plain query such as
    ``offset``), the ``counterexample`` (a typed
    :class:`~tilespec.prover.result.Counterexample`, or its JSON), the
    ``reason`` of an unknown, the ``steps`` checked and the command's own
    ``data``.

    >>> Finding({"shape": "f32[3]{0}"}, "offset", "ok", data={"offset": 2}).to_json()["data"]
    {'offset': 2}
    """

    subject: Mapping[str, Any]
    check: str
    status: str
    scope: str = "concrete"
    seconds: float = 0.0
    counterexample: Any = None
    reason: str | None = None
    steps: tuple = ()
    data: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self):
        if self.status not in STATUSES:
            raise ValueError(f"status {self.status!r} is not one of {STATUSES}")
        object.__setattr__(self, "steps", tuple(str(s) for s in self.steps))
        object.__setattr__(self, "data", {} if self.data is None else self.data)

    def to_json(self) -> dict:
        return {"subject": dict(self.subject), "check": self.check, "status": self.status,
                "scope": self.scope, "seconds": round(float(self.seconds), 6),
                "counterexample": None if self.counterexample is None
                else counterexample_json(self.counterexample),
                "reason": self.reason, "steps": list(self.steps), "data": self.data}


def result(subject: dict, check: str, status: str, *, scope: str = "concrete",
           seconds: float = 0.0, counterexample=None, reason=None, steps=(),
           data=None) -> Finding:
    """One finding of the envelope."""
    return Finding(subject, check, status, scope, seconds, counterexample, reason,
                   tuple(steps), data)


def _names_of(subject: dict) -> tuple:
    from ..spec.text import parse_shape
    names: list = []
    texts = [t for v in subject.values() for t in (v if isinstance(v, list) else [v])]
    for text in texts:
        if isinstance(text, str):
            try:
                s = parse_shape(text)
            except ValueError:
                continue
            names += list(getattr(s, "names", ()))
    return tuple(names)


# --- each command's data ---------------------------------------------------------

def plain_scope(subject: dict) -> str:
    """A plain query's scope: ``concrete``, or every size of the names in
    its shapes (a formula), or ``none`` without a shape.

    >>> plain_scope({"shape": "f32[m,n]{1,0}"}), plain_scope({"shape": "f32[3]{0}"})
    ('all shapes: m >= 1, n >= 1', 'concrete')
    """
    if not subject:
        return "none"
    names = list(dict.fromkeys(_names_of(subject)))
    if not names:
        return "concrete"
    return "all shapes: " + ", ".join(f"{n} >= 1" for n in names)


def _canonical(text):
    from ..spec.text import canonical
    try:
        return canonical(text)
    except ValueError:
        return text


def _from_result(r: dict, subject: dict, data=None) -> Finding:
    """A prover ``Result.to_json()`` in the envelope."""
    return result(subject, r["property"], r["status"], scope=r.get("scope", "concrete"),
                  seconds=r.get("seconds", 0.0), counterexample=r.get("counterexample"),
                  reason=r.get("reason"), steps=r.get("steps", ()), data=data)


def _pair(args, first: str, second: str, a: str, b: str) -> dict:
    return {a: _canonical(getattr(args, first)), b: _canonical(getattr(args, second))}


def convert(command: str, args, data, seconds: float) -> list:
    """The results of one command run, from the data it emitted."""
    def plain(subject, check, payload):
        return [result(subject, check, "ok", scope=plain_scope(subject),
                       seconds=seconds, data=payload)]

    if command in ("explain", "offset", "locate", "draw"):
        return plain({"shape": data.get("shape") or _canonical(args.shape)}, command, data)
    if command in ("formula", "codegen"):
        proofs = data.pop("proofs", None) if isinstance(data, dict) else None
        subject = {"shape": data["shape"]}
        if not proofs:
            return plain(subject, command, data)
        return [_from_result(p, subject, data) for p in proofs]
    if command == "prove":
        return [_from_result(r, {"shape": r["shape"]}) for r in data]
    if command == "bitcast":
        subject = _pair(args, "src", "dst", "source", "target")
        if args.transpose:
            subject["transpose"] = [int(x) for x in
                                    args.transpose.strip().strip("()[]{}").split(",")]
        if "property" in data:          # --reshape or --transpose: one interpretation
            return [_from_result(data, subject)]
        # no option: decomposed as XLA's DecomposeBitcast, each reading tried
        tried = data.get("tried") or []
        return [result(subject, "bitcast", data["status"],
                       scope=tried[-1].get("scope", "concrete") if tried else "concrete",
                       seconds=data["seconds"], counterexample=data.get("counterexample"),
                       reason=data.get("reason"),
                       data={k: data[k] for k in ("kind", "permutations", "xla_permutation",
                                                  "trt", "tried")})]
    if command == "equivalent":
        return [_from_result(data, _pair(args, "a", "b", "a", "b"))]
    if command == "normalize":
        subject = {"shape": data["shape"]}
        return [_from_result(data["proof"], subject, {"normalized": data["normalized"]})]
    if command == "check-rule":
        if getattr(args, "list", False):
            return [result({}, "rule", "ok", scope="none", seconds=seconds, data=r)
                    for r in data]
        out = []
        two = len(getattr(args, "shapes", ()) or ()) == 2 and not args.conditions
        for r in data:
            conditions = r.pop("layout_conditions", None)
            compiled = r.pop("xla_compiled", None)
            behaviour = r.pop("xla_behaviour", None)
            if two:
                subject = {"source": _canonical(args.shapes[0]),
                           "target": _canonical(args.shapes[1])}
            else:
                subject = {"shape": r["shape"]}
            payload = {"rule": args.name}
            if conditions is not None:
                payload["layout_conditions"] = conditions
            if compiled is not None:    # --against-xla: the compiler's decision
                payload["xla_compiled"] = compiled
            if behaviour is not None:   # XLA aborts, is undefined or wraps here
                payload["xla_behaviour"] = behaviour
            out.append(_from_result(r, subject, payload))
        return out
    if command == "check-hlo":      # one module's results after another, in input order
        return [r for module in data["files"] for r in _hlo_results(module)]
    if command == "convert":
        return [_from_result(data["proof"], {"source": data["a"], "target": data["b"]},
                             {k: data[k] for k in ("closed_form", "holds_element",
                                                    "numpy_source")})]
    if command == "xla" and data is None:        # XLA gave no answer
        return [result({"shape": s}, "xla", "unknown", seconds=seconds,
                       reason="real XLA gave no answer (see the error line)")
                for s in args.shapes]
    if command == "xla":
        # One result per text: "ok" when XLA and tilespec agree up to the
        # documented divergences, "refuted" when an unexplained one remains.
        return [result({"shape": c["text"]}, "xla",
                       "refuted" if any(d["kind"] == "bug" for d in c["differences"]) else "ok",
                       seconds=seconds / max(1, len(data["shapes"])),
                       data={**c, "xla_versions": data["xla"],
                             "divergences": {d["name"]: data["divergences"].get(d["name"])
                                             for d in c["differences"]
                                             if d["kind"] == "divergence"}})
                for c in data["shapes"]]
    if command == "padding":
        return [result({"shape": d["shape"]}, "padding", "ok", seconds=seconds / len(data),
                       data=d) for d in data]
    if command == "cute":       # the export, --compare or --from: one proof
        r = data["result"]
        return [_from_result(r, {"shape": r["shape"], "cute": data["cute"]},
                             {k: v for k, v in data.items() if k != "result"})]
    if command in ("tile", "untile"):
        return plain({"shape": data["shape"]}, command, data)
    if command == "regress":
        return plain({"shapes": [_canonical(t) for t in args.shapes]}, "regress", data)
    raise AssertionError(f"no JSON results for command {command!r}")


#: check-hlo's findings with a verdict; every other finding is "ok" (a note).
_HLO_STATUS = {"bitcast-proved": "proved", "bitcast-refuted": "refuted",
               "bitcast-unknown": "unknown", "meant-reshape-not-bitcast": "refuted",
               "meant-transpose-not-bitcast": "refuted", "bitcast-size-mismatch": "refuted",
               "bitcast-convert-layout": "refuted", "invalid-layout": "refuted",
               "bitcast-memory-space": "refuted"}


def _hlo_counterexample(finding: dict) -> dict | None:
    """A check-hlo finding's counterexample: the rule it breaks, else its
    proof's replayed counterexample."""
    extra = finding.get("data") or {}
    verdict = extra.get("decomposition") or extra.get("result") or {}
    return extra.get("counterexample") or verdict.get("counterexample")


def _hlo_results(data: dict) -> list:
    """check-hlo: one result for the module (its sizes and padding), then one
    per finding, each naming its file, instruction and HLO line; a file not
    read is one unknown result that says why."""
    if "error" in data:
        return [result({"file": data["file"]}, "check-hlo", "unknown",
                       reason=f"not checked: {data['error']}")]
    module = {"file": data["file"], "module": data["module"]}
    seconds = data["seconds"]
    findings = []
    for f in data["findings"]:
        subject = {**module, "instruction": f["instruction"], "line": f["line"]}
        extra = f.get("data") or {}
        status = _HLO_STATUS.get(f["rule"], "ok")
        if status == "refuted" and not f.get("decided", True):
            status = "unknown"      # a question not decided is never refuted
        findings.append(result(subject, f["rule"], status, reason=f["message"],
                               counterexample=_hlo_counterexample(f)
                               if status == "refuted" else None,
                               data={"level": f["level"],
                                     "decided": f.get("decided", True), **extra}))
    overall = data["status"] if data["status"] in STATUSES else "ok"
    # The module is refuted by its first refuted finding, reported or
    # suppressed by the options or a baseline: that one's counterexample;
    # unknown for its first question not decided.
    suppressed = data.get("suppressed") or {}
    every = [*data["findings"], *suppressed.get("options", ()), *suppressed.get("baseline", ())]
    first = next((ce for f in every if f["level"] == "error"
                  for ce in [_hlo_counterexample(f)] if ce), None)
    open_question = next((f["message"] for f in every if not f.get("decided", True)),
                         "a question not decided")
    summary = result(module, "check-hlo", overall, seconds=seconds,
                     counterexample=first if overall == "refuted" else None,
                     reason=open_question if overall == "unknown" else None,
                     data={k: data[k] for k in ("reported_status", "counts", "largest",
                                                 "worst_padding", "buffers")
                           if k in data}
                     | {"suppressed_errors": {
                         k: sum(f["level"] == "error" for f in suppressed.get(k, ()))
                         for k in ("options", "baseline")}})
    return [summary] + findings


def emit(args, data, text: str | None = None) -> None:
    """A command's output: its ``text`` printed, or under ``--json`` its
    ``data`` kept for :func:`run` (nothing printed)."""
    if getattr(args, "json", False):
        args.emitted = data
    elif text is not None:
        print(text)


def run(args) -> int:
    """Run a command with ``--json``: the data it emitted becomes the envelope."""
    args.emitted = None
    start = time.perf_counter()
    status = args.func(args)
    seconds = time.perf_counter() - start
    results = convert(args.command, args, args.emitted, seconds)
    rendered = json.dumps(document(args.command, results, status), indent=2)
    if getattr(args, "report_output", None) is None:
        print(rendered)
        return status
    try:                    # -o FILE (check-hlo)
        with open(args.report_output, "w", encoding="utf-8") as f:
            f.write(rendered + "\n")
    except (OSError, ValueError) as e:
        raise TilespecError(f"cannot write {args.report_output}: "
                            f"{getattr(e, 'strerror', None) or e}") from None
    return status


def schema() -> dict:
    """The JSON Schema of the envelope (shipped with the package)."""
    from importlib import resources
    return json.loads(resources.files(__package__).joinpath("schema.json")
                      .read_text(encoding="utf-8"))
