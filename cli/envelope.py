"""Every ``--json`` output: a command's results in the one envelope
(docs/json.md, schema.json), written by :mod:`tilespec.render.envelope`.

A command hands its typed results to :func:`emit_entries` (``check-hlo``),
or its data to :func:`emit`, which :func:`convert` turns into results;
under ``--json`` nothing else is printed, and :func:`run` writes the
envelope as the results come.

>>> result({"shape": "f32[3]{0}"}, "offset", "ok").status
'ok'
"""

from __future__ import annotations

import contextlib
import json
import sys
import time
from importlib import resources
from typing import IO, Iterable, Iterator

from ..render import FORMAT_VERSION, Entry, error_document, tool_version, write
from ..spec import TilespecError, canonical, parse_shape

__all__ = ["FORMAT_VERSION", "Entry", "convert", "emit", "emit_entries", "error_document",
           "output", "result", "run", "schema", "tool_version"]


def result(subject: dict, check: str, status: str, *, scope: str = "concrete",
           seconds: float = 0.0, counterexample=None, reason=None, steps=(),
           data=None) -> Entry:
    """One result of the envelope."""
    return Entry(subject, check, status, scope, seconds, counterexample, reason,
                 tuple(steps), data)


def _names_of(subject: dict) -> tuple:
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
    try:
        return canonical(text)
    except ValueError:
        return text


def _from_result(r: dict, subject: dict, data=None) -> Entry:
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


def emit(args, data, text: str | None = None) -> None:
    """A command's output: its ``text`` printed, or under ``--json`` its
    ``data`` kept for :func:`run` (nothing printed)."""
    if getattr(args, "json", False):
        args.emitted = data
    elif text is not None:
        print(text)


def emit_entries(args, entries: Iterable[Entry]) -> None:
    """A command's typed results, for :func:`run` to write under ``--json``
    (as they come: ``entries`` may be a generator)."""
    args.entries = entries


@contextlib.contextmanager
def output(args) -> Iterator[IO[str]]:
    """Where a report goes: stdout, or ``-o FILE`` (check-hlo)."""
    path = getattr(args, "report_output", None)
    if path is None:
        yield sys.stdout
        return
    try:
        f = open(path, "w", encoding="utf-8")
    except (OSError, ValueError) as e:
        raise TilespecError(f"cannot write {path}: "
                            f"{getattr(e, 'strerror', None) or e}") from None
    with f:
        yield f


def run(args) -> int:
    """Run a command with ``--json``: its results, or the data it emitted,
    become the envelope."""
    args.emitted = args.entries = None
    start = time.perf_counter()
    status = args.func(args)
    seconds = time.perf_counter() - start
    entries = args.entries
    if entries is None:
        entries = convert(args.command, args, args.emitted, seconds)
    with output(args) as out:
        write(out, args.command, status, entries)
    return status


def schema() -> dict:
    """The JSON Schema of the envelope (shipped with the package)."""
    return json.loads(resources.files(__package__).joinpath("schema.json")
                      .read_text(encoding="utf-8"))
