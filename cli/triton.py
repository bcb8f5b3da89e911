"""``tilespec triton``: an XLA layout as Triton's linear layout, and back.

- ``tilespec triton SHAPE``: the bases of SHAPE's offsets (in elements), as
  ``LinearLayout.from_bases`` takes them, proved equal to the spec's offset
  on every element (:func:`tilespec.triton.proofs.prove_from_xla`), and a
  table of which offset bit each input bit sets; where the offsets are not
  F2-linear, the two elements whose XOR breaks linearity, replayed (exit 1).
- ``tilespec triton --from FILE``: the XLA layout of a linear layout given
  as JSON (``{"bases": [[in_dim, [[offset], ...]], ...], "out_dims":
  [["offset", size]]}``, the ``data`` of ``--json``, or that whole
  document), proved; where XLA cannot write it, the reason (exit 2).
- ``--cute``: the three-way conversion XLA -> CuTe -> Triton -> XLA with
  each step proved (:func:`tilespec.triton.proofs.three_way`).
- ``--compare``: SHAPE's linear layout (or FILE's) set beside the real
  Triton's answers to the same bases (:func:`tilespec.triton.real.compare`:
  the layout Triton builds, apply at every input, injective/surjective/
  invertible), asked in a worker process; exit 1 where an answer differs,
  2 where Triton is not installed (the ``triton`` extra).
"""

from __future__ import annotations

import json
from pathlib import Path

from ..prover.hlo import refuse_endless
from ..prover.names import DEFAULT_TIMEOUT
from ..prover.result import Counterexample, Result, Side
from ..spec import TilespecError, format_shape
from ..triton import LinearLayout, Refutation, linear_or_refutation, real, to_xla
from .arguments import check_bounded, parse_shape_arg, seconds
from .envelope import Entry, emit

EXIT_STATUS = {"proved": 0, "refuted": 1, "unknown": 3}


def cmd_triton(args) -> int:
    if args.compare:
        real.require()                      # not installed: one line, exit 2
    if args.source:
        if args.shape is not None:
            raise TilespecError("triton --from FILE takes no SHAPE (the element type: "
                                "--element-type)")
        if args.compare:
            return _compare(args, read_layout(Path(args.source)), {})
        return _import(args, Path(args.source))
    if args.shape is None:
        raise TilespecError("triton: give SHAPE, or --from FILE")
    shape = parse_shape_arg(args.shape)
    check_bounded(shape)
    if shape.is_symbolic:
        raise TilespecError(f"triton: a linear layout has fixed sizes; give "
                            f"{shape.names[0]!r} a size with --dims")
    if args.cute:
        return _three_way(args, shape)
    if args.compare:
        found = linear_or_refutation(shape)
        if isinstance(found, Refutation):
            r = refutation_result(found)
            emit(args, [Entry.of(r, {"shape": shape})], str(found))
            return EXIT_STATUS[r.status]
        return _compare(args, found, {"shape": shape})
    return _export(args, shape)


def _compare(args, layout: LinearLayout, subject: dict) -> int:
    """Each question asked of tilespec and of the real Triton: ``ok``
    where the answers are equal, ``refuted`` (exit 1) where they differ."""
    agreements = real.compare(layout)
    version = real.version()
    entries = [Entry(subject, f"{a.question} equals the real Triton's",
                     "ok" if a.agree else "refuted", f"triton {version}",
                     counterexample=None if a.agree else Counterexample(
                         {}, (Side("tilespec"), Side("triton")), what=a.line(),
                         details={"tilespec": a.tilespec, "triton": real.to_json(a.triton)}),
                     data={"tilespec": a.tilespec, "triton": real.to_json(a.triton)})
               for a in agreements]
    lines = [f"the real Triton {version}, asked the same bases:",
             *(a.line() for a in agreements)]
    emit(args, entries, "\n".join(lines))
    return 0 if all(a.agree for a in agreements) else 1


def _export(args, shape) -> int:
    from ..triton.proofs import prove_from_xla  # the solver boundary: the proofs load z3
    found = linear_or_refutation(shape)
    if isinstance(found, Refutation):
        r = refutation_result(found)
        emit(args, [Entry.of(r, {"shape": shape})], str(found))
        return EXIT_STATUS[r.status]
    r = prove_from_xla(shape, found, timeout=args.timeout)
    lines = [found.to_python(), f"{r.status}: {_verdict(r)}", "", *bit_table(found)]
    emit(args, [Entry.of(r, {"shape": shape}, layout_data(found))], "\n".join(lines))
    return EXIT_STATUS[r.status]


def _verdict(r: Result) -> str:
    if r.status == "proved":
        return f"{r.property}, on every element (Z3)"
    if r.status == "refuted" and r.counterexample is not None:
        return r.counterexample.what
    return r.reason or ""


def refutation_result(found: Refutation) -> Result:
    """A refutation of linearity as the prover's verdict: three elements and
    their offsets, replayed on the spec."""
    sides = (Side("a", element=found.a, offset=found.offset_a),
             Side("b", element=found.b, offset=found.offset_b),
             Side("a_xor_b", element=found.xor, offset=found.offset_ab))
    ce = Counterexample({}, sides, what="offset(a ^ b) != offset(a) ^ offset(b)",
                        details={"offset_a_xor_offset_b": found.offset_a ^ found.offset_b})
    return Result(found.shape, "linear layout equals the spec", "refuted", 0.0,
                  "concrete dims, every element", counterexample=ce,
                  steps=("every element's offset against the XOR of the bases",))


def layout_data(layout: LinearLayout) -> dict:
    """The layout as ``--json`` gives it: ``bases`` as ``[in_dim, [[offset],
    ...]]`` pairs and ``out_dims`` as ``[name, size]`` pairs, and the Python
    call that builds it.

    >>> layout_data(LinearLayout.identity_1d(2, "dim0", "offset"))["bases"]
    [['dim0', [[1]]]]
    """
    return {"bases": [[d, [list(b) for b in vs]] for d, vs in layout.bases],
            "out_dims": [[n, s] for n, s in layout.out_dims],
            "python": layout.to_python()}


def bit_table(layout: LinearLayout) -> list[str]:
    """Which output bit each input bit sets: one row per basis, one column
    per bit of the stacked output (most significant first), ``1`` or ``.``.

    >>> print("\\n".join(bit_table(LinearLayout.from_bases([("i", [[2], [1]])], ["o"]))))
    o bit  1 0
    i=1    1 .
    i=2    . 1
    """
    one = len(layout.out_dims) == 1
    heads = [str(j) if one else f"{n}{j}" for n, size in layout.out_dims
             for j in range(size.bit_length() - 1)]
    heads.reverse()
    labels = [f"{d}={1 << i}" for d, vs in layout.bases for i in range(len(vs))]
    left = max([len(x) for x in labels] + [3]) + 2
    width = max([len(h) for h in heads] + [1])
    corner = f"{layout.out_dims[0][0]} bit" if one else "bit"
    left = max(left, len(corner) + 2)
    rows = [corner.ljust(left) + " ".join(h.rjust(width) for h in heads)]
    for label, column in zip(labels, layout.columns()):
        bits = ["1" if column >> j & 1 else "." for j in range(len(heads))]
        rows.append(label.ljust(left) + " ".join(b.rjust(width) for b in reversed(bits)))
    return rows


def read_layout(path: Path) -> LinearLayout:
    """A linear layout from a JSON file: ``{"bases": ..., "out_dims": ...}``,
    or a ``--json`` document holding one (its first result's data)."""
    if "\0" in str(path):  # open() raises ValueError, not OSError, on these
        raise TilespecError(f"triton --from: {str(path)!r} holds a NUL character")
    refuse_endless(str(path))
    try:
        doc = json.loads(path.read_text())
    except OSError as e:
        raise TilespecError(f"triton --from: cannot read {path}: {e.strerror}") from None
    except json.JSONDecodeError as e:
        raise TilespecError(f"triton --from: {path} is not JSON ({e.msg}, line {e.lineno})") \
            from None
    if isinstance(doc, dict) and isinstance(doc.get("results"), list) and doc["results"]:
        doc = doc["results"][0].get("data", {})
    if not isinstance(doc, dict) or not isinstance(doc.get("bases"), list):
        raise TilespecError(f"triton --from: {path} holds no \"bases\": give "
                            '{"bases": [["dim0", [[1], [2]]], ...], "out_dims": [["offset", 4]]}')
    try:
        bases = [(d, vs) for d, vs in doc["bases"]]
        outs = doc.get("out_dims")
        if outs is None:
            return LinearLayout.from_bases(bases, ["offset"], require_surjective=False)
        return LinearLayout(bases, [(n, s) for n, s in outs])
    except (TypeError, ValueError) as e:
        if isinstance(e, TilespecError):
            raise
        raise TilespecError(f"triton --from: {path}: bases are [in_dim, [[value, ...], ...]] "
                            "pairs and out_dims [name, size] pairs") from None


def _import(args, path: Path) -> int:
    from ..triton.proofs import prove_from_xla  # the solver boundary: z3
    layout = read_layout(path)
    shape = to_xla(layout, args.element_type)      # no XLA layout: the reason, exit 2
    r = prove_from_xla(shape, layout, timeout=args.timeout)
    text = format_shape(shape)
    if r.status != "proved":
        text += f"\n{r.status}: {_verdict(r)}"
    emit(args, [Entry.of(r, {"shape": shape}, {**layout_data(layout), "xla": text})], text)
    return EXIT_STATUS[r.status]


def _three_way(args, shape) -> int:
    from ..triton.proofs import three_way  # the solver boundary: z3
    steps = three_way(shape, timeout=args.timeout)
    lines = [f"{s.name}: {s.answer}\n  {s.result.status}: {_verdict(s.result)}" for s in steps]
    emit(args, [Entry.of(s.result, {"shape": shape}, {"step": s.name, "answer": s.answer})
                for s in steps], "\n".join(lines))
    worst = max((s.result for s in steps), key=lambda r: EXIT_STATUS[r.status])
    return EXIT_STATUS[worst.status]


def register(command) -> None:
    c = command("triton", "an XLA layout as Triton's linear layout over F2 (its bases, "
                "proved), or a linear layout's XLA layout; with --cute, XLA -> CuTe -> "
                "Triton -> XLA, each step proved", cmd_triton)
    c.add_argument("shape", nargs="?", help="shape with layout, e.g. "
                   "'f32[8,128]{1,0:T(8,128)}'")
    c.add_argument("--from", dest="source", metavar="FILE",
                   help="a linear layout as JSON ({\"bases\": [[\"dim0\", [[1], [2]]], ...], "
                   "\"out_dims\": [[\"offset\", 4]]}): its XLA layout, proved")
    c.add_argument("--element-type", default="f32",
                   help="with --from: the XLA element type (default %(default)s)")
    c.add_argument("--cute", action="store_true",
                   help="the three-way conversion XLA -> CuTe -> Triton -> XLA, each step "
                   "proved or refuted")
    c.add_argument("--compare", action="store_true",
                   help="set SHAPE's linear layout beside the real Triton's answers "
                   "(needs the triton extra)")
    c.add_argument("--timeout", type=seconds, default=DEFAULT_TIMEOUT,
                   help="seconds per solver call (default %(default)s)")
