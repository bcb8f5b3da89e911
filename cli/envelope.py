"""One JSON document for every ``--json`` output (docs/json.md, schema.json).

Each command keeps computing its own data; here that data is converted to
the one envelope, so the commands' code stays as it is:

    {"format": "tilespec", "format_version": 1, "tool": "tilespec",
     "version": "0.1.0", "command": "offset", "exit_status": 0,
     "results": [{"subject": {"shape": "..."}, "check": "offset",
                  "status": "ok", "scope": "concrete", "seconds": 0.0,
                  "counterexample": null, "reason": null, "steps": [],
                  "data": {...}}],
     "error": null}

A counterexample has the same keys in every command: ``dim_values`` (the
named dims' sizes), ``elements`` and ``offsets`` (each by side, e.g.
``{"source": [0, 128], "target": [128]}``) and ``details`` (everything the
command reported, as it reported it).

>>> doc = document("offset", [result({"shape": "f32[3]{0}"}, "offset", "ok")], 0)
>>> doc["format_version"], doc["results"][0]["status"], doc["error"]
(1, 'ok', None)
>>> normal_counterexample({"src_element": [0, 128], "dst_element": [128],
...                        "src_offset": 1024, "dst_offset": 128})["offsets"]
{'source': 1024, 'target': 128}
"""

from __future__ import annotations

import contextlib
import io
import json
import time
from importlib import metadata

#: The version of the JSON format (docs/json.md); a change that removes or
#: renames a field raises it.
FORMAT_VERSION = 1

STATUSES = ("proved", "refuted", "unknown", "ok")


def tool_version() -> str:
    try:
        return metadata.version("tilespec")
    except metadata.PackageNotFoundError:  # a source tree, not installed
        return "0+unknown"


def document(command: str, results: list, exit_status: int, error=None) -> dict:
    return {"format": "tilespec", "format_version": FORMAT_VERSION,
            "tool": "tilespec", "version": tool_version(),
            "command": command, "exit_status": exit_status,
            "results": results, "error": error}


def error_document(command, message: str, kind: str, exit_status: int) -> dict:
    """Bad input (or an internal error) as JSON: no results, the message."""
    return document(command, [], exit_status,
                    {"kind": kind, "message": message})


def result(subject: dict, check: str, status: str, *, scope: str = "concrete",
           seconds: float = 0.0, counterexample=None, reason=None, steps=(),
           data=None) -> dict:
    return {"subject": subject, "check": check, "status": status, "scope": scope,
            "seconds": round(float(seconds), 6),
            "counterexample": None if counterexample is None
            else normal_counterexample(counterexample, subject),
            "reason": reason, "steps": [str(s) for s in steps],
            "data": data if data is not None else {}}


# --- counterexamples ----------------------------------------------------------------

#: A command's own keys for one side, and the side's name in the envelope.
_SIDE_PREFIX = {"src": "source", "dst": "target"}
#: Keys that name a side of a comparison (an offset, an element, or sizes).
_SIDES = ("xla", "spec", "yours", "generated", "cute", "formula",
          "pad_reshape_transpose", "a", "b", "combined", "reshaped")


def normal_counterexample(ce: dict, subject: dict | None = None) -> dict:
    """The command's counterexample in the common keys; ``details`` keeps
    it whole."""
    subject = subject or {}
    dim_values = dict(ce.get("dim_values") or {})
    elements: dict = {}
    offsets: dict = {}
    for prefix, side in _SIDE_PREFIX.items():
        if f"{prefix}_element" in ce:
            elements[side] = ce[f"{prefix}_element"]
        if f"{prefix}_offset" in ce:
            offsets[side] = ce[f"{prefix}_offset"]
    if isinstance(ce.get("elements"), list) and isinstance(ce.get("offsets"), list):
        # two elements of one layout at one offset (injectivity)
        for side, e, o in zip(("first", "second"), ce["elements"], ce["offsets"]):
            elements[side], offsets[side] = e, o
    if isinstance(ce.get("offsets"), dict):
        offsets.update({k: v for k, v in ce["offsets"].items() if _offset(v)})
    for side in (s for s in _SIDES if s in ce):
        v = ce[side]
        if _offset(v):
            offsets[side] = v
        elif isinstance(v, list) and all(isinstance(x, int) for x in v):
            elements[side] = v     # a side that located an element
        elif isinstance(v, dict) and "offset" in v and _offset(v["offset"]):
            offsets[side] = v["offset"]
    if isinstance(ce.get("element"), list):
        sides = [s for s in offsets if s not in elements] or ["shape"]
        for side in sides:
            elements[side] = ce["element"]
    if "offset" in ce and _offset(ce["offset"]) and "shape" not in offsets:
        offsets["shape"] = ce["offset"]
    names = [k for k, v in ce.items() if isinstance(v, int) and not isinstance(v, bool)
             and k.isidentifier() and k not in _KNOWN]
    for name in names:   # generated code's witness spreads the dim values
        if name in _names_of(subject):
            dim_values.setdefault(name, ce[name])
    inner = ce.get("spec_counterexample")
    if isinstance(inner, dict):   # a rule's verdict against the spec's own witness
        found = normal_counterexample(inner, subject)
        for mine, theirs in ((elements, found["elements"]), (offsets, found["offsets"]),
                             (dim_values, found["dim_values"])):
            for k, v in theirs.items():
                mine.setdefault(k, v)
    details = {k: v for k, v in ce.items() if k != "dim_values"}
    return {"dim_values": dim_values, "elements": elements, "offsets": offsets,
            "details": details}


_KNOWN = {"offset", "src_offset", "dst_offset", "padded_size", "byte_size"} | set(_SIDES)


def _offset(v) -> bool:
    return v is None or (isinstance(v, int) and not isinstance(v, bool))


def _names_of(subject: dict) -> tuple:
    from tilespec.spec.text import parse_shape
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
    from tilespec.spec.text import canonical
    try:
        return canonical(text)
    except ValueError:
        return text


def _from_result(r: dict, subject: dict, data=None) -> dict:
    """A prover ``Result.to_json()`` in the envelope."""
    return result(subject, r["property"], r["status"], scope=r.get("scope", "concrete"),
                  seconds=r.get("seconds", 0.0), counterexample=r.get("counterexample"),
                  reason=r.get("reason"), steps=r.get("steps", ()), data=data)


def _pair(args, first: str, second: str, a: str, b: str) -> dict:
    return {a: _canonical(getattr(args, first)), b: _canonical(getattr(args, second))}


def convert(command: str, args, data, raw: str, seconds: float) -> list:
    """The results of one command run, from what it printed."""
    def plain(subject, check, payload):
        return [result(subject, check, "ok", scope=plain_scope(subject),
                       seconds=seconds, data=payload)]

    if command in ("explain", "offset", "locate", "draw"):
        if not isinstance(data, dict):     # e.g. draw --html without -o: the page
            return plain({"shape": _canonical(args.shape)}, command, {"content": raw})
        return plain({"shape": data.get("shape") or _canonical(args.shape)}, command, data)
    if command == "formula":
        proofs = data.pop("proofs", None) if isinstance(data, dict) else None
        subject = {"shape": data["shape"]}
        if not proofs:
            return plain(subject, "formula", data)
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
            out.append(_from_result(r, subject, payload))
        return out
    if command == "check-hlo":
        return _hlo_results(data, seconds)
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
    if command == "regress":
        payload = dict(data) if isinstance(data, dict) else {}
        if data is None or not isinstance(data, dict):
            payload["content"] = raw    # the cases themselves, without -o
        return plain({"shapes": [_canonical(t) for t in args.shapes]}, "regress", payload)
    return _generic(command, args, data, seconds)


def _generic(command, args, data, seconds) -> list:
    """A command this module does not know yet: results where it printed
    prover results, else one plain result."""
    subject = {k: _canonical(getattr(args, k)) for k in ("shape", "src", "dst")
               if isinstance(getattr(args, k, None), str)}
    items = data if isinstance(data, list) else [data]
    if all(isinstance(r, dict) and r.get("status") in STATUSES[:3] and "property" in r
           for r in items):
        return [_from_result(r, {"shape": r.get("shape", "")} if "shape" in r
                             else subject) for r in items]
    return [result(subject, command, "ok", seconds=seconds,
                   data=data if isinstance(data, dict) else {"value": data})]


#: check-hlo's findings with a verdict; every other finding is "ok" (a note).
_HLO_STATUS = {"bitcast-proved": "proved", "bitcast-refuted": "refuted",
               "bitcast-unknown": "unknown", "meant-reshape-not-bitcast": "refuted",
               "meant-transpose-not-bitcast": "refuted"}


def _hlo_results(data: dict, seconds: float) -> list:
    """check-hlo: one result for the module (its sizes and padding), then one
    per finding, each naming its instruction and HLO line."""
    module = {"module": data["module"]}
    findings = []
    for f in data["findings"]:
        subject = {**module, "instruction": f["instruction"], "line": f["line"]}
        extra = f.get("data") or {}
        verdict = extra.get("decomposition") or extra.get("result") or {}
        status = _HLO_STATUS.get(f["rule"], "ok")
        findings.append(result(subject, f["rule"], status, reason=f["message"],
                               counterexample=verdict.get("counterexample")
                               if status == "refuted" else None,
                               data={"level": f["level"], **extra}))
    overall = data["status"] if data["status"] in STATUSES else "ok"
    # The module is refuted by its first refuted finding: that one's counterexample.
    first = next((r for r in findings if r["status"] == "refuted"), None)
    summary = result(module, "check-hlo", overall, seconds=seconds,
                     data={k: data[k] for k in ("counts", "largest", "worst_padding",
                                                 "buffers")})
    if overall == "refuted" and first is not None:
        summary["counterexample"] = first["counterexample"]
    return [summary] + findings


def run(args) -> int:
    """Run a command with ``--json``: what it prints becomes the envelope."""
    buffer = io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stdout(buffer):
        status = args.func(args)
    seconds = time.perf_counter() - start
    raw = buffer.getvalue()
    try:
        data = json.loads(raw)
    except ValueError:
        data = None          # e.g. regress writing its cases to stdout
    results = convert(args.command, args, data, raw, seconds)
    print(json.dumps(document(args.command, results, status), indent=2))
    return status


def schema() -> dict:
    """The JSON Schema of the envelope (shipped with the package)."""
    from importlib import resources
    return json.loads(resources.files(__package__).joinpath("schema.json")
                      .read_text(encoding="utf-8"))
