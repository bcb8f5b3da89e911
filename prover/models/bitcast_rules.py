"""``ShapeUtil::ReshapeIsBitcast`` and ``ShapeUtil::TransposeIsBitcast``
against the spec's bitcast decision.

Transcribed from openxla/xla ``xla/shape_util.cc`` at commit 22eee29e01
(2026-05-20), facts carried over: both CHECK that the shapes are arrays with
layouts; no if the element types differ (``SameElementType``, unless
``ignore_element_type``); ReshapeIsBitcast then says no if the element
counts differ, yes if there are none, and otherwise compares the physical
position of every unit index in both directions; TransposeIsBitcast compares
``ComposePermutations(mapping, output minor_to_major)`` with the input's
``minor_to_major``.  Tiles, ``L`` and ``E`` are not read.  Compared with the
spec's bitcast decision
(:func:`prover.bitcast.is_bitcast`, asked for the rule's reading).  A
rule's "bitcast" branch is proved with the rule's verdict as an assumption,
on the per-reading facts (:class:`prover.bitcast.ReadingFacts`)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import z3

from ...spec import (
    INT,
    Arithmetic,
    Shape,
    concrete_dims,
    delinearise,
    format_shape,
    linear_index,
    product,
    storage_bits,
)
from ..bitcast import (
    Question,
    ReadingFacts,
    group_pair,
    is_bitcast,
    is_dynamic_pair,
    memory_space_violation,
    prove_reading,
    question,
)
from ..core import DEFAULT_TIMEOUT, first_refutation, probe_values, scope, search, spec_form
from ..result import (
    PROVED,
    REFUTED,
    UNKNOWN,
    Counterexample,
    ProverBug,
    Result,
    Side,
)
from .versions import ABSL_MACROS, EVERY_VERSION, XlaModel

#: The C++ transcribed here, and the XLA versions it holds for: the
#: functions' text is the same at every modelled commit (tools/xla_model_history.py).
XLA_MODELS = (
    XlaModel("ShapeUtil::ReshapeIsBitcast", "xla/shape_util.cc", ABSL_MACROS, EVERY_VERSION),
    XlaModel("ShapeUtil::TransposeIsBitcast", "xla/shape_util.cc", ABSL_MACROS, EVERY_VERSION),
    XlaModel("ShapeUtil::ByteSizeOf", "xla/shape_util.cc", ABSL_MACROS, EVERY_VERSION),
)


def xla_untiled_index(shape: Shape, index, dims=None, ar: Arithmetic = INT):
    """IndexUtil::MultidimensionalIndexToLinearIndex: minor_to_major strides."""
    dims = concrete_dims(shape) if dims is None else tuple(dims)
    order = shape.physical_order
    return linear_index([index[i] for i in order], [dims[i] for i in order], ar)


def _unit(rank: int, i: int) -> tuple:
    return tuple(1 if k == i else 0 for k in range(rank))


def xla_reshape_unit_checks(a: Shape, b: Shape, dims_a=None, dims_b=None, ar=INT):
    """ReshapeIsBitcast's checks: for each dim of size > 1 (each direction),
    the unit index, its partner by row-major position, and the two untiled
    linear indices.  Yields (direction, dim, unit, partner, li_from, li_to,
    applies) where ``applies`` is the size > 1 condition."""
    dims_a = concrete_dims(a) if dims_a is None else tuple(dims_a)
    dims_b = concrete_dims(b) if dims_b is None else tuple(dims_b)
    for direction, x, y, dx, dy in (("SRC->DST", a, b, dims_a, dims_b),
                                    ("DST->SRC", b, a, dims_b, dims_a)):
        for i in range(x.rank):
            u = _unit(x.rank, i)
            v = delinearise_via(u, dx, dy, ar)
            yield (direction, i, u, v, xla_untiled_index(x, u, dx, ar),
                   xla_untiled_index(y, v, dy, ar), ar.lt(1, dx[i]))


def delinearise_via(u, dx, dy, ar):
    return tuple(delinearise(linear_index(u, dx, ar), dy, ar))


# --- the verifier's size precondition -----------------------------------------------------

def byte_size_of(shape: Shape) -> int:
    """``ShapeUtil::ByteSizeOf`` of an array (``xla/shape_util.cc``): its
    ``ByteSizeOfElements``, the element count times
    ``ByteSizeOfPrimitiveType``, or ``CeilOfRatio(count * E, 8)`` with
    ``E(n)``.  Tiles and ``L(n)`` are not read (``ShapeUtil::ArraySize``
    reads them; the verifier does not call it).

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> byte_size_of(shape("f32[8]{0:L(16)}")), byte_size_of(shape("f32[8]{0:T(8)L(16)}"))
    (32, 32)
    >>> byte_size_of(shape("s4[5]{0:E(4)}")), byte_size_of(shape("s4[5]{0}"))
    (3, 5)
    """
    n = product(concrete_dims(shape))
    bits = shape.layout.element_size_in_bits
    if bits:
        return -(-n * bits // 8)
    return n * (storage_bits(shape.element_type) // 8)


def same_byte_size(src: Shape, dst: Shape) -> bool:
    """XLA's size precondition for a bitcast: ``ShapeVerifier::HandleBitcast``
    (``xla/service/hlo_verifier.cc``) rejects a layout-sensitive bitcast
    whose operand and result differ in ``opts_.shape_size``, by default
    ``ShapeUtil::ByteSizeOf`` (:func:`byte_size_of`).  A backend may pass
    its own size function; this is the one XLA ships.

    Whether the bytes stay in place is the spec's question
    (:func:`prover.bitcast.is_bitcast`); a bitcast needs both.  Between
    equal element counts and equal element bits (what ``is_bitcast``
    proves) the precondition holds.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> same_byte_size(shape("f32[8]{0:L(16)}"), shape("f32[8]{0:T(8)L(16)}"))
    True
    >>> same_byte_size(shape("s4[8]{0:E(4)}"), shape("s4[8]{0}"))
    False
    """
    return byte_size_of(src) == byte_size_of(dst)


@dataclass(frozen=True)
class Verdict:
    """What XLA's function returns and which of its returns gave it: every
    early return is a branch of its own, compared with the spec on its own
    (a rule that says "no" for a reason the spec does not share disagrees,
    however its other branches fare)."""

    bitcast: bool
    branch: str                 # 'element types', 'no elements', 'unit index', ...
    detail: dict = field(default_factory=dict)


def _types_differ(a: Shape, b: Shape, ignore_element_type: bool) -> Verdict | None:
    # SameElementType compares the primitive types, not their widths: f32 and
    # s32 differ for XLA although their elements take the same 32 bits.
    if not ignore_element_type and a.element_type != b.element_type:
        return Verdict(False, "element types",
                       {"element_types": [a.element_type, b.element_type]})
    return None


def reshape_verdict(a: Shape, b: Shape, ignore_element_type: bool = False) -> Verdict:
    """ShapeUtil::ReshapeIsBitcast(a, b, ignore_element_type), return by return.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> reshape_verdict(shape("f32[4]{0}"), shape("s32[4]{0}")).branch
    'element types'
    >>> reshape_verdict(shape("f32[4]{0}"), shape("s32[4]{0}"), True).bitcast
    True
    """
    differ = _types_differ(a, b, ignore_element_type)
    if differ:
        return differ
    na, nb = product(concrete_dims(a)), product(concrete_dims(b))
    if na != nb:
        return Verdict(False, "element counts", {"element_counts": [na, nb]})
    if na == 0:
        return Verdict(True, "no elements")
    for direction, dim, u, v, li_x, li_y, applies in xla_reshape_unit_checks(a, b):
        if applies and li_x != li_y:
            return Verdict(False, "unit index", {
                "direction": direction, "dim": dim, "unit_index": list(u),
                "partner": list(v), "untiled_indices": [li_x, li_y]})
    return Verdict(True, "unit indices")


def transpose_verdict(a: Shape, b: Shape, mapping,
                      ignore_element_type: bool = False) -> Verdict:
    """ShapeUtil::TransposeIsBitcast(a, b, mapping, ignore_element_type)."""
    differ = _types_differ(a, b, ignore_element_type)
    if differ:
        return differ
    composed = [mapping[i] for i in b.layout.minor_to_major]
    if tuple(composed) == tuple(a.layout.minor_to_major):
        return Verdict(True, "minor_to_major")
    return Verdict(False, "minor_to_major", {
        "composed_minor_to_major": composed,
        "src_minor_to_major": list(a.layout.minor_to_major)})


def xla_reshape_is_bitcast(a: Shape, b: Shape, ignore_element_type: bool = False) -> bool:
    """ShapeUtil::ReshapeIsBitcast on concrete shapes.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> xla_reshape_is_bitcast(shape("f32[16,256]{1,0:T(8,128)}"), shape("f32[4096]{0}"))
    True
    """
    return reshape_verdict(a, b, ignore_element_type).bitcast


def xla_transpose_is_bitcast(a: Shape, b: Shape, mapping,
                             ignore_element_type: bool = False) -> bool:
    """ShapeUtil::TransposeIsBitcast: ComposePermutations(mapping,
    b.minor_to_major) == a.minor_to_major; tiles ignored.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> xla_transpose_is_bitcast(shape("f32[1,8]{1,0}"), shape("f32[8,1]{1,0}"), (1, 0))
    False
    """
    return transpose_verdict(a, b, mapping, ignore_element_type).bitcast


def verdict(a: Shape, b: Shape, transpose=None, ignore_element_type=False) -> Verdict:
    if transpose is None:
        return reshape_verdict(a, b, ignore_element_type)
    return transpose_verdict(a, b, transpose, ignore_element_type)


# reshape_is_bitcast --------------------------------------------------------------------

def spec_verdict(a: Shape, b: Shape, transpose, timeout) -> Result:
    """The spec's answer to the rule's question: :func:`is_bitcast` asked
    for the rule's reading (the reshape, or the transpose ``transpose``)."""
    return is_bitcast(a, b, "reshape" if transpose is None else tuple(transpose),
                      timeout=timeout)


def _bitcast_disagreement(a: Shape, b: Shape, transpose, timeout,
                          ignore_element_type: bool = False) -> Counterexample | None:
    """Concrete: the rule's verdict against the spec's; a replayed
    counterexample where they differ, else None.  The counterexample names
    the return of XLA's function that gave its verdict (``xla_branch``)."""
    v = verdict(a, b, transpose, ignore_element_type)
    spec = spec_verdict(a, b, transpose, timeout)
    if spec.status == UNKNOWN:
        return None
    if v.bitcast == (spec.status == PROVED):
        return None
    # the sides are the spec's replayed counterexample where it refutes the
    # bitcast, else the two shapes; XLA's verdict has no field: details
    said = {"xla_says_bitcast": v.bitcast, "spec_says_bitcast": spec.status == PROVED,
            "xla_branch": v.branch}
    if v.detail:
        said["xla_failing_check"] = v.detail
    what = (f"XLA says {'bitcast' if v.bitcast else 'not a bitcast'}, "
            f"the spec {spec.status} it")
    if spec.status == REFUTED:
        sc = _refuting(spec)
        return Counterexample({}, sc.sides, sc.reading, f"{what}: {sc.what}",
                              {**said, **sc.details})
    return Counterexample({}, (Side("source", shape=format_shape(a)),
                               Side("target", shape=format_shape(b))),
                          what=what, details={**said, "spec_proof": list(spec.steps)})


def check_bitcast_rule(a: Shape, b: Shape, transpose=None, *, timeout=DEFAULT_TIMEOUT,
                       ignore_element_type: bool = False):
    """Compare ReshapeIsBitcast (or TransposeIsBitcast) with the spec, on
    every return of XLA's function.

    Concrete shapes: both verdicts, compared.  Named dims: a verdict XLA
    reaches from the text alone (element types differ; a literal 0 dim;
    every TransposeIsBitcast verdict) holds for every size, and the spec must
    give it for every size.  Otherwise, where the rule says "bitcast" the
    spec must prove it (one all-shapes proof with the rule's verdict as an
    assumption); where it says "no", the spec must refute it at the rule's
    own failing unit index.  Both proved: the rule is right for every size.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> r = check_bitcast_rule(shape("f32[m]{0}"), shape("s32[m]{0}"))
    >>> r.status, r.counterexample.details["xla_branch"]
    ('refuted', 'element types')
    """
    start = time.perf_counter()
    name = "reshape_is_bitcast" if transpose is None else "transpose_is_bitcast"
    q = question(a, b, transpose)
    text = f"{format_shape(a)} -> {format_shape(b)}"
    if not q.is_symbolic:
        v = verdict(a, b, transpose, ignore_element_type)
        ce = _bitcast_disagreement(a, b, transpose, timeout, ignore_element_type)
        spec = None
        if ce is None:
            spec = spec_verdict(a, b, transpose, timeout)
            if spec.status == UNKNOWN:
                return Result(text, f"rule {name}", UNKNOWN,
                              time.perf_counter() - start, "concrete",
                              reason=f"the spec's verdict is unknown: {spec.reason}", shapes=(a, b))
        steps = (f"XLA says {'bitcast' if v.bitcast else 'not a bitcast'} "
                 f"(decided by: {v.branch})",
                 f"spec: {spec.status if spec else 'differs'}") + tuple(
                     spec.steps if spec else ())
        return Result(text, f"rule {name}", REFUTED if ce else PROVED,
                      time.perf_counter() - start, "concrete",
                      counterexample=ce, steps=steps, shapes=(a, b))
    return _symbolic_bitcast_rule(q, name, timeout, start, ignore_element_type)


def _text_verdict(q, ignore_element_type: bool) -> Verdict | None:
    """The rule's verdict where the text alone decides it (so it is the same
    for every size of the names), else None."""
    differ = _types_differ(q.src, q.dst, ignore_element_type)
    if differ:
        return differ
    if q.transpose is not None:
        return transpose_verdict(q.src, q.dst, q.transpose, ignore_element_type)
    if any(d == 0 for d in q.src.dims):
        return Verdict(True, "no elements")
    return None


def _refuting(r: Result) -> Counterexample:
    """The counterexample of a refuted result (a refutation always has one)."""
    if r.counterexample is None:
        raise ProverBug(f"{r.property} refuted without a counterexample")
    return r.counterexample


def _rule_verdict(b: ReadingFacts):
    """ReshapeIsBitcast's unit checks on the symbolic dims, as a Z3 formula
    (the element types were compared before, on the text)."""
    ar = b.ar
    parts = []
    for _direction, x, y, dx, dy, i, u, v, defs in _unit_partners(b):
        same = ar.eq(xla_untiled_index(x, u, dx, ar), xla_untiled_index(y, v, dy, ar))
        # XLA checks only dims of size > 1, where u is inside the box
        parts.append(z3.Implies(ar.term(ar.lt(1, dx[i])),
                                z3.And(*defs, ar.term(same))))
    return z3.And(parts) if parts else z3.BoolVal(True, b.ctx)


def _unit_partners(b: ReadingFacts):
    """For both directions of a reshape and each dim i: the unit index u
    along i and its partner v by row-major position, with the definitions
    that pin v down.  The partner is shown to be the reshape, group by group,
    for every index in the box (so for each unit index)."""
    q, ar = b.q, b.ar
    ds, dd = b.enc.dims, b.dd
    for direction, x, y, dx, dy in (("SRC->DST", q.src, q.dst, ds, dd),
                                    ("DST->SRC", q.dst, q.src, dd, ds)):
        sub = Question(x, y)
        anyone = b.enc.fresh("u", x.rank)
        _, group_parts, defs = group_pair(sub, anyone, dx, dy, ar, b.enc.fresh)
        b.group_facts(sub, group_parts, dx, dy, defs)
        for i in range(x.rank):
            u = _unit(x.rank, i)
            v, _, defs = group_pair(sub, u, dx, dy, ar, b.enc.fresh)
            yield direction, x, y, dx, dy, i, u, v, defs


def _symbolic_bitcast_rule(q, name, timeout, start, ignore_element_type=False) -> Result:
    text = q.text
    where = scope(q.src) if q.src.is_symbolic else scope(q.dst)
    steps: list[str] = []

    def done(status, **kw):
        return Result(text, f"rule {name}", status, time.perf_counter() - start, where,
                      steps=tuple(steps), **kw, shapes=(q.src, q.dst))

    def disagreement(values):
        inst = q.instantiate(values)
        ce = _bitcast_disagreement(inst.src, inst.dst, q.transpose, timeout,
                                   ignore_element_type)
        return None if ce is None else ce.at(values)

    def first_disagreement(extra=()):
        return first_refutation(list(extra) + list(probe_values(q.names)), disagreement)[0]

    fixed = _text_verdict(q, ignore_element_type)
    rejected = memory_space_violation(q.src, q.dst)
    if rejected is not None:
        # the text decides the spec's side: no bitcast at any size
        steps.append(f"the spec says no for every size: {rejected.what}")
        if fixed is not None and not fixed.bitcast:
            steps.append(f"XLA says no for every size (decided by: {fixed.branch})")
            return done(PROVED)
        ce = first_disagreement()
        if ce:
            return done(REFUTED, counterexample=ce)
        return done(UNKNOWN, reason="the spec says no for every size (memory spaces); "
                    "XLA says no at every probe size, not shown for every size")
    if fixed is not None:
        # One branch of XLA's function answers for every size; the other
        # branch is empty, and its vacuous agreement is not counted.
        steps.append(f"XLA says {'bitcast' if fixed.bitcast else 'no'} for every size "
                     f"(decided by: {fixed.branch}); XLA's other verdict never happens")
        if fixed.bitcast:
            spec = spec_verdict(q.src, q.dst, q.transpose, timeout)
            steps.extend(f"  {s}" for s in spec.steps)
            if spec.status == PROVED:
                return done(PROVED)
            ce = first_disagreement([dict(_refuting(spec).dim_values)]
                                    if spec.status == REFUTED else [])
            if ce:
                return done(REFUTED, counterexample=ce)
            return done(UNKNOWN, reason=f"XLA says bitcast for every size; the spec: "
                        f"{spec.status}{' (' + spec.reason + ')' if spec.reason else ''}")
        if q.src.element_bits != q.dst.element_bits:
            steps.append(f"the spec says no for every size: its bitcast keeps the bits "
                         f"of every element ({q.src.element_bits} vs {q.dst.element_bits})")
            return done(PROVED)
        ce = first_disagreement()
        if ce:
            return done(REFUTED, counterexample=ce)
        return done(UNKNOWN, reason=f"XLA says no for every size ({fixed.branch}); "
                    "the spec was not shown to say no for every size, and says no "
                    "at every probe size")
    if is_dynamic_pair(q.src, q.dst):
        # the proof below is about the bound; below it the runtime dims pair
        # elements otherwise, which only the concrete decision sees
        ce = first_disagreement()
        if ce:
            return done(REFUTED, counterexample=ce)
        return done(UNKNOWN, reason="dynamic dims beside named dims: the spec is decided "
                    "at every runtime size only at concrete sizes; no disagreement at "
                    "the probe sizes")
    # 1. Where the rule says reading, the spec proves it.
    yes = prove_reading(q.src, q.dst, q.transpose, timeout=timeout, assume=_rule_verdict)
    steps.append("where XLA says bitcast: " + yes.status + _vacuity(q, timeout))
    steps.extend(f"  {s}" for s in yes.steps)
    if yes.status == REFUTED:
        ce = disagreement(dict(_refuting(yes).dim_values))
        if ce:
            return done(REFUTED, counterexample=ce)
    # 2. Where the rule says no, the spec refutes it at the rule's witness.
    no = _rule_no_is_right(q, timeout)
    steps.append("where XLA says no, the spec differs at XLA's failing unit index: "
                 + no[0])
    if yes.status == PROVED and no[0] == PROVED:
        return done(PROVED)
    ce = first_disagreement([no[1]] if no[0] == REFUTED and no[1] else [])
    if ce:
        return done(REFUTED, counterexample=ce)
    return done(UNKNOWN, reason=f"bitcast where XLA says so: {yes.status}"
                f"{' (' + yes.reason + ')' if yes.reason else ''}; "
                f"not a bitcast where XLA says no: {no[0]}; no disagreement at the probe sizes")


def _vacuity(q, timeout) -> str:
    """' (XLA says bitcast for no size: nothing compared there)' when the
    rule's "bitcast" branch is empty, so that its proof is not read as agreement."""
    b = ReadingFacts(q, timeout, assume=_rule_verdict)
    F = b.facts
    answer, _ = search(z3.And(F.assumptions + [z3.BoolVal(True, F.ctx)]), F.ctx, F.timeout)
    return {"unsat": " (XLA says bitcast for no size: nothing compared there)",
            "sat": ""}.get(answer, " (whether XLA says bitcast for some size is unknown)")


def _rule_no_is_right(q, timeout):
    """(status, dims): for every size where the rule says no, the spec's
    offsets differ at the rule's failing unit index (or the sizes differ)."""
    b = ReadingFacts(q, timeout)
    ar, F = b.ar, b.facts
    ds, dd = b.enc.dims, b.dd
    la = q.src.layout.tail_padding_alignment_in_elements
    lb = q.dst.layout.tail_padding_alignment_in_elements
    size_a = ar.mul(ar.ceildiv(product(spec_form(q.src, (0,) * q.src.rank, ds, ar).dims, ar), la), la)
    size_b = ar.mul(ar.ceildiv(product(spec_form(q.dst, (0,) * q.dst.rank, dd, ar).dims, ar), lb), lb)
    same_size = ar.term(ar.eq(size_a, size_b))
    for direction, x, y, dx, dy, i, u, v, defs in _unit_partners(b):
        fails = ar.term(ar.lt(1, dx[i]))
        for d in defs:
            F.assume(z3.Implies(fails, d))
        xla_same = ar.term(ar.eq(xla_untiled_index(x, u, dx, ar),
                                  xla_untiled_index(y, v, dy, ar)))
        spec_same = ar.term(ar.eq(spec_form(x, u, dx, ar).offset(ar),
                                   spec_form(y, v, dy, ar).offset(ar)))
        F.fact(f"{direction} dim {i}: where XLA's check fails, the spec's "
               "offsets or sizes differ",
               z3.And(fails, z3.Not(xla_same), spec_same, same_size))
    status, detail = F.check()
    if status == "proved":
        # premises that never hold would prove anything: check they can hold
        answer, _ = search(z3.And(F.assumptions + [z3.BoolVal(True, F.ctx)]),
                           F.ctx, F.timeout)
        return (PROVED, None) if answer == "sat" else (UNKNOWN, None)
    if status == "failed":
        return REFUTED, {n: b.enc.value(detail[1], b.names[n]) for n in q.names}
    return UNKNOWN, None

