"""``tilespec bitcast``, ``check-rule``, ``normalize`` and ``equivalent``.

Exit status: 0 proved (a bitcast; the rule agrees with the spec; the layouts
are equivalent; the normal form is proved equivalent), 1 refuted, 2 bad
input, 3 unknown.
"""

from __future__ import annotations

from ..prover.bitcast import (
    DECOMPOSE_BITCAST,
    GET_BITCAST_MAP,
    decompose,
    describe,
    describe_decomposition,
    is_bitcast,
)
from ..prover.names import DEFAULT_TIMEOUT, counted
from ..prover.result import EXIT_STATUS, counterexample_lines
from ..spec import Holds, TilespecError, format_shape, resolve_xla
from .arguments import (
    check_bounded,
    parse_shape_arg,
    seconds,
    xla_line,
    xla_version_argument,
)
from .envelope import Entry, emit


def _shape(text, int64_size: bool = True):
    shape = parse_shape_arg(text, int64_size=int64_size)
    check_bounded(shape)
    return shape


def _perm(text):
    if text is None:
        return None
    try:
        return tuple(int(x) for x in text.strip().strip("()[]{}").split(","))
    except ValueError:
        raise TilespecError(f"transpose {text!r} is not a comma-separated list "
                            "of dim numbers") from None


def _asked(args, at, depends: bool = False) -> str:
    """The XLA line of a verdict: shown where it depends on the version
    (``depends``) or when ``--xla`` asked for one (JSON names it always)."""
    return "" if args.xla is None and not depends else "\n" + xla_line(at)


def cmd_bitcast(args) -> int:
    src, dst = _shape(args.src), _shape(args.dst)
    at = resolve_xla(args.xla)
    if args.as_ == "pjrt-buffer":
        return _pjrt_buffer_bitcast(args, src, dst, at)
    # the verifier's memory-space check (8a84ad7ef7) and GetBitcastMap's
    # order (5d1dc54c5f) changed; the readings did not
    depends = (src.layout.memory_space != dst.layout.memory_space
               or args.as_ == "get-bitcast-map")
    perm = _perm(args.transpose)
    subject: dict = {"source": src, "target": dst}
    if perm is not None:
        subject["transpose"] = list(perm)
    if args.as_ == "get-bitcast-map" and (perm is not None or args.reshape):
        raise TilespecError("--as get-bitcast-map is XLA's order of readings: "
                            "no --transpose or --reshape")
    if perm is None and not args.reshape:
        # No reading asked: decided as XLA's DecomposeBitcast does (or its
        # indexing analysis, GetBitcastMap); the record of that decision says
        # which readings were tried.
        order = GET_BITCAST_MAP if args.as_ == "get-bitcast-map" else DECOMPOSE_BITCAST
        if order == GET_BITCAST_MAP:
            subject["as"] = "get-bitcast-map"
        d = decompose(src, dst, timeout=args.timeout, order=order, xla=at)
        data = {"kind": d.kind, "permutations": [list(p) for p in d.permutations],
                "xla_permutation": None if d.xla_permutation is None
                else list(d.xla_permutation),
                "trt": None if d.trt is None else d.trt.to_json(),
                "tried": [{"as": n, **r.to_json()} for n, r in d.tried],
                "xla_version": at.to_json()}
        emit(args, [Entry(subject, "bitcast", d.status, d.verdict.scope, d.seconds,
                          d.counterexample, d.reason, data=data)],
             describe_decomposition(d) + _asked(args, at, depends))
        return EXIT_STATUS[d.status]
    r = is_bitcast(src, dst, perm or "reshape", timeout=args.timeout, xla=at)
    emit(args, [Entry.of(r, subject, {"xla_version": at.to_json()})],
         describe(r) + _asked(args, at, depends))
    return EXIT_STATUS[r.status]


def _pjrt_buffer_bitcast(args, src, dst, at) -> int:
    from ..prover.models import pjrt_buffer_bitcast  # the solver boundary
    if args.transpose is not None or args.reshape:
        raise TilespecError("--as pjrt-buffer reads the target as PjRt's reader does: "
                            "no --transpose or --reshape")
    r = pjrt_buffer_bitcast(src, dst, timeout=args.timeout, xla=at)
    emit(args, [Entry.of(r, {"source": src, "target": dst, "as": "pjrt-buffer"},
                         {"xla_version": at.to_json()})],
         describe(r) + _asked(args, at))
    return EXIT_STATUS[r.status]


def _rule_list(args) -> int:
    from ..prover.models import RULES  # the solver boundary: XLA's models load z3
    entries = [Entry.answer("rule", {}, {
        "name": r.name, "xla": r.xla, "summary": r.summary, "source": r.source,
        "changed_at": [c.to_json() for c in r.changed_at],
        "shapes": r.shapes,
        "conditions": [{"text": c.text, "kind": c.kind} for c in r.conditions],
        "agree": [list(x) if isinstance(x, tuple) else x for x in r.agree],
        "disagree": [list(x) if isinstance(x, tuple) else x for x in r.disagree]})
        for r in RULES.values()]
    lines = []
    for r in RULES.values():
        shapes = "SHAPE" if r.shapes == 1 else "SRC DST"
        extra = " --transpose P" if "transpose" in r.options else ""
        lines.append(f"{r.name} {shapes}{extra}")
        lines.append(f"    {r.xla}: {r.summary}")
        lines.append(f"    source: {r.source}")
        if r.changed_at:
            lines.append("    XLA changed it at: " + ", ".join(c.label for c in r.changed_at)
                         + " (--xla chooses the version)")
        lines.append("    agrees with the spec when:")
        for c in r.conditions:
            lines.append(f"      - {c.text}" + ("  [size condition]" if c.kind == "size" else "")
                         + ("" if c.applies == Holds() else f"  [XLA {c.applies}]"))
        if not r.disagree:
            lines.append(f"    agrees on every layout tried, e.g. {r.agree[0]}")
            continue
        ex = r.disagree[0]
        ex = ex if isinstance(ex, str) else " ".join(
            x if isinstance(x, str) else "--transpose " + ",".join(map(str, x)) for x in ex)
        lines.append(f"    e.g. disagrees on: {ex}")
    emit(args, entries, "\n".join(lines))
    return 0


def _rule_data(rule, result, **extra) -> dict:
    """A rule's result's payload: the rule, what else was asked, and what
    XLA's function does where it returns no value to compare."""
    data = {"rule": rule.name, **{k: v for k, v in extra.items() if v is not None}}
    if result.xla is not None:
        data["xla_behaviour"] = result.xla.to_json()
    if result.xla_version is not None:
        data["xla_version"] = result.xla_version.to_json()
    return data


def _describe_rule(r, rule, shapes, asked_xla: bool = False) -> str:
    head = {"proved": "agrees with the spec: proved",
            "refuted": "disagrees with the spec: refuted",
            "unknown": "unknown"}[r.status]
    if r.xla is not None:
        # XLA gives no value to compare, or one only by wrap-around: a verdict
        # of its own, never "agrees" and never "not described"
        head = r.xla.describe()
    elif r.status == "proved" and r.scope.endswith("vacuous)"):
        # a vacuous implication is not agreement: say that nothing was compared
        head = "proved only vacuously (nothing compared: the size conditions hold for no dims)"
    lines = [f"rule {rule.name} ({rule.xla})", f"  {head} ({r.scope}) on {r.shape}"
             f"  [{r.seconds:.3f} s]"]
    if r.xla_version is not None and (asked_xla or rule.changed_at):
        # the verdict names the XLA where it was asked for or could differ
        lines.append(f"  {xla_line(r.xla_version)}")
    if r.xla is not None and r.xla.source:
        lines.append(f"  source: {r.xla.source}")
    for text, holds in rule.layout_conditions(shapes, r.xla_version):
        lines.append(f"  condition {'holds' if holds else 'FAILS'}: {text}")
    for c in rule.conditions_at(r.xla_version):
        if c.kind == "size":
            lines.append(f"  size condition: {c.text}")
    if r.counterexample is not None:
        lines.append("  counterexample (replayed on the concrete evaluator):")
        lines += counterexample_lines(r.counterexample, "    ")
    if r.reason:
        lines.append(f"  reason: {r.reason}")
    if r.status == "proved":
        lines.extend(f"  - {s}" for s in r.steps)
    return "\n".join(lines)


def cmd_check_rule(args) -> int:
    from ..prover.models import RULES, check  # the solver boundary: XLA's models load z3
    if args.list:
        return _rule_list(args)
    if not args.name:
        raise TilespecError("name a rule (tilespec check-rule --list shows them)")
    if args.name not in RULES:
        raise TilespecError(f"unknown rule {args.name!r}; choose from {', '.join(RULES)}")
    rule = RULES[args.name]
    if args.conditions:
        return _conditions(args, rule)
    # XLA's rules take sizes past int64: what XLA does with them is the verdict
    shapes = [_shape(t, int64_size=False) for t in args.shapes]
    if not shapes:
        raise TilespecError(f"rule {rule.name} needs {rule.shapes} shape(s)")
    if rule.shapes == 1:
        results = [check(rule.name, [s], transpose=_perm(args.transpose),
                         timeout=args.timeout, assume_conditions=args.assume_conditions,
                         xla=args.xla)
                   for s in shapes]
        groups = [[s] for s in shapes]
    else:
        if len(shapes) != 2:
            raise TilespecError(f"rule {rule.name} takes two shapes, SRC and DST")
        results = [check(rule.name, shapes, transpose=_perm(args.transpose),
                         timeout=args.timeout,
                         ignore_element_type=args.ignore_element_type, xla=args.xla)]
        groups = [shapes]
    compiled = _against_xla(args, rule, shapes) if args.against_xla else None
    entries = [Entry.of(r, {"shape": g[0]} if len(g) == 1 else {"source": g[0], "target": g[1]},
                        _rule_data(rule, r, layout_conditions=[
                            {"text": t, "holds": h}
                            for t, h in rule.layout_conditions(g, r.xla_version)],
                            xla_compiled=compiled or None))
               for r, g in zip(results, groups)]
    text = "\n\n".join(_describe_rule(r, rule, g, args.xla is not None)
                       for r, g in zip(results, groups))
    if compiled:
        text += (f"\n  real XLA (jax {compiled['versions']['jax']}, CPU) compiles it as: "
                 f"{compiled['verdict']} ({', '.join(compiled['ops']) or 'no instructions'})"
                 + (f"  -- {compiled['note']}" if compiled.get("note") else ""))
    emit(args, entries, text)
    statuses = {r.status for r in results}
    return 1 if "refuted" in statuses else 3 if "unknown" in statuses else 0


def _against_xla(args, rule, shapes) -> dict:
    """The compiler's own decision for a bitcast rule's pair (tilespec.xla.compiled)."""
    if rule.shapes != 2 or "bitcast" not in rule.name:
        raise TilespecError("--against-xla compiles a reshape or transpose: it goes with "
                            "reshape_is_bitcast and transpose_is_bitcast")
    from ..xla import compiled  # the jax boundary: real XLA compiles the pair
    t = _perm(args.transpose)
    (d,) = compiled.compiled_bitcasts([(format_shape(shapes[0]), format_shape(shapes[1]), t)])
    out = {"verdict": d.verdict, "ops": list(d.ops), "memory": d.memory,
           "versions": compiled.versions()}
    if d.detail:
        out["note"] = d.detail
    elif d.verdict == "bitcast" and d.memory == "row-major" and any(
            tl for tl in (shapes[0].layout.tiles, shapes[1].layout.tiles)):
        out["note"] = "the CPU client stores tiled arrays row-major (tiles ignored)"
    return out


def _conditions(args, rule) -> int:
    """The condition theorem over the rule's family of layouts."""
    from ..prover.models import prove_conditions  # the solver boundary (z3)
    results = prove_conditions(rule.name, timeout=args.timeout, xla=args.xla)
    required = [c.text for c in rule.conditions_at(args.xla) if c.required]
    lines = [f"rule {rule.name}: where " + "; ".join(required) + ",",
             f"it agrees with the spec for every size of the named dims, on each of "
             f"{counted(len(results), 'layout')}:"]
    if args.xla is not None or rule.changed_at:
        lines.insert(1, xla_line(resolve_xla(args.xla)))
    for r in results:
        vacuous = " (conditions never hold: vacuous)" if r.scope.endswith("vacuous)") else ""
        lines.append(f"  {r.status:8} {r.shape}{vacuous}")
        if r.reason:
            lines.append(f"           reason: {r.reason}")
    emit(args, [Entry.of(r, {"shape": r.shape}, _rule_data(rule, r)) for r in results],
         "\n".join(lines))
    statuses = {r.status for r in results}
    return 1 if "refuted" in statuses else 3 if "unknown" in statuses else 0


def cmd_normalize(args) -> int:
    from ..prover.equivalence import normalize  # the solver boundary (z3)
    shape = _shape(args.shape)
    simpler, proof = normalize(shape, timeout=args.timeout)
    lines = [format_shape(simpler),
             f"  equivalence with {format_shape(shape)}: {proof.status} ({proof.scope})"
             f"  [{proof.seconds:.3f} s]"]
    lines += [f"  - {s}" for s in proof.steps if s.startswith("rewrite")]
    if proof.reason:
        lines.append(f"  reason: {proof.reason}")
    emit(args, [Entry.of(proof, {"shape": shape}, {"normalized": format_shape(simpler)})],
         "\n".join(lines))
    return EXIT_STATUS[proof.status]


def cmd_equivalent(args) -> int:
    from ..prover.equivalence import equivalent  # the solver boundary (z3)
    a, b = _shape(args.a), _shape(args.b)
    r = equivalent(a, b, timeout=args.timeout)
    head = {"proved": "equivalent: proved", "refuted": "not equivalent: refuted",
            "unknown": "unknown"}[r.status]
    lines = [f"{head} ({r.scope}) -- {r.shape}  [{r.seconds:.3f} s]"]
    if r.counterexample is not None:
        lines += counterexample_lines(r.counterexample)
    if r.reason:
        lines.append(f"  reason: {r.reason}")
    if r.status == "proved":
        lines.extend(f"  - {s}" for s in r.steps)
    emit(args, [Entry.of(r, {"a": a, "b": b})], "\n".join(lines))
    return EXIT_STATUS[r.status]


def register(command) -> None:
    c = command("bitcast", "is a reshape (or transpose) from SRC to DST a bitcast?",
                cmd_bitcast)
    xla_version_argument(c)
    c.add_argument("src", help="source shape, e.g. 'f32[m,n]{1,0:T(8,128)}'")
    c.add_argument("dst", help="destination shape, same element count")
    c.add_argument("--transpose", metavar="P",
                   help="a transpose instead: DST dim i is SRC dim P[i], e.g. 1,0")
    c.add_argument("--reshape", action="store_true",
                   help="only the reshape (without --transpose or --reshape: the "
                   "reshape, transpose or TRT that XLA's DecomposeBitcast would take)")
    c.add_argument("--as", dest="as_", choices=("pjrt-buffer", "get-bitcast-map"),
                   help="pjrt-buffer: PjRt's Buffer::Bitcast, which checks only that the "
                   "byte sizes are equal; does every element stay where DST's reader "
                   "expects it?  get-bitcast-map: in the order of XLA's indexing analysis "
                   "(a transpose before a reshape since XLA 5d1dc54c5f)")
    c.add_argument("--timeout", type=seconds, default=DEFAULT_TIMEOUT,
                   help="seconds per solver call (default %(default)s)")

    c = command("check-rule", "compare one of XLA's layout rules with the spec",
                cmd_check_rule)
    xla_version_argument(c)
    c.add_argument("name", nargs="?", help="rule name (see --list)")
    c.add_argument("shapes", nargs="*", metavar="SHAPE")
    c.add_argument("--list", action="store_true", help="list the rules")
    c.add_argument("--transpose", metavar="P", help="for transpose_is_bitcast")
    c.add_argument("--against-xla", action="store_true",
                   help="bitcast rules: also compile the reshape/transpose with real XLA "
                   "(jaxlib, CPU) and show whether it emits a bitcast or a copy")
    c.add_argument("--ignore-element-type", action="store_true",
                   help="bitcast rules: XLA's ignore_element_type argument (f32 and s32 "
                   "may then bitcast)")
    c.add_argument("--assume-conditions", action="store_true",
                   help="prove agreement wherever the rule's size conditions hold")
    c.add_argument("--conditions", action="store_true",
                   help="prove the rule's conditions on its family of layouts "
                   "(rules of one shape)")
    c.add_argument("--timeout", type=seconds, default=DEFAULT_TIMEOUT)

    c = command("normalize", "a simpler equivalent layout, with the proof", cmd_normalize)
    c.add_argument("shape")
    c.add_argument("--timeout", type=seconds, default=DEFAULT_TIMEOUT)

    c = command("equivalent", "do two layouts of the same dims map every element alike?",
                cmd_equivalent)
    c.add_argument("a")
    c.add_argument("b")
    c.add_argument("--timeout", type=seconds, default=DEFAULT_TIMEOUT)
