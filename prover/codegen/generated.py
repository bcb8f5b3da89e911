"""Generated code proved equal to the spec, with 64-bit integers for C.

:mod:`codegen.symbolic` writes ``offset`` and ``locate`` as Python and as C
source, from the spec's stage pipeline, simplifying expressions on the way.
Here Z3 proves each generated function equal to the spec's own evaluator,
so a simplification that is wrong is caught by a proof, not by luck:

- ``offset``: for every element e, generated offset(e) = spec offset(e);
- ``locate``: for every o in [0, P), the generated function says "padding"
  exactly when the spec does, and otherwise returns the spec's element.

The source text itself is read (with Python's ``ast``; the C expressions are
in the common subset) and interpreted as Z3 terms
(:mod:`prover.codegen.interpret`, :mod:`prover.codegen.terms`).  What that reading does not see
(declarations, keywords, C's preprocessor) the language checks: each
function is compiled first (:mod:`prover.codegen.compile_check`: gcc when there is
one), and a proof of a function the compiler rejects is a bug, never
"proved".  Names come from :mod:`spec.naming`, so a dim named ``e0``,
``int`` or ``INT64_MAX`` is never taken for tilespec's own.  Python's ``//`` and ``%``
floor, C's ``/`` and ``%`` truncate toward zero; the two agree with Z3's
``div``/``mod`` when the divisor is positive and (for C) the dividend is not
negative, so those conditions join the claim.

Machine integers.  The C code computes in ``int64_t``, where a result beyond
[-2^63, 2^63) is undefined behaviour.  So for C the claim also says that
every subexpression the code evaluates (every literal, parameter, sum,
product, quotient and remainder) lies in int64.  A concrete shape is proved
with no hypothesis: if some intermediate overflows for some element of a
shape XLA accepts, the result is refuted and the witness names the
subexpression and its value.  Named dims range over every size, and the C
code overflows for sizes whose offsets do not fit int64 whatever it does;
so the proof assumes *padded elements < 2^63* (the scope says so) -- unless
no size satisfies that (a vacuous premise proves anything), and then only
what XLA requires of a shape, *dense bytes < 2^63*.  That
holds whenever the padded array's bytes fit int64, as XLA needs to address
it, and an element takes at least one byte.  The generated Python runs on
Python's unbounded integers, so it is proved with no bound and no overflow
to speak of; ``int64=True`` checks it as C is checked (for a port to int64
numpy code, say).  (The examples give the solver two minutes, not the
default five seconds, so that a loaded machine still proves them.)

>>> from tilespec.spec.text import parse_array_shape as shape
>>> [r.status for r in prove_generated(shape("f32[3,5]{1,0:T(2,2)}"), "c", timeout=120)]
['proved', 'proved']
>>> r = prove_generated(shape("bf16[m,n]{1,0:T(8,128)(2,1)}"), "python", timeout=120)[0]
>>> r.property, r.status, r.scope
('generated python offset', 'proved', 'all shapes: m >= 1, n >= 1')
>>> r = prove_generated(shape("bf16[m,n]{1,0:T(8,128)(2,1)}"), "c", timeout=120)[0]
>>> r.status, r.scope
('proved', 'all shapes: m >= 1, n >= 1, padded elements < 2^63')
>>> r = prove_generated(shape("s8[144115188075855872,1]{1,0:T(1,128)}"), "c")[0]
>>> r.status, r.counterexample.details["overflow"]
('refuted', '(e0 + e1 / 128) * 128')
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import z3

from ...codegen import c_source, python_source
from ...spec import (
    Names,
    Shape,
    TilespecError,
    dims_through,
    evaluate,
    format_shape,
    names,
    padded_count,
    product,
    shape_pipeline,
    storage_bits,
    unevaluate,
)
from ..core import DEFAULT_TIMEOUT, Encoding, scope, search
from ..properties import QUICK_SECONDS, prove as prove_property
from ..result import PROVED, REFUTED, UNKNOWN, Counterexample, ProverBug, Result, Side
from . import exhaustive
from .compile_check import compiles
from .interpret import INT64_MAX, Exact, code_functions, interpret, locate
from .terms import Terms, distinct_ranges, no_overflow


def prove_generated(shape: Shape, language: str = "python", *,
                    timeout: float = DEFAULT_TIMEOUT,
                    int64: bool | None = None,
                    functions: tuple[str, ...] = ("offset", "locate")) -> list[Result]:
    """Prove the generated ``offset`` and ``locate`` of ``shape`` equal to
    the spec; named dims become parameters and are proved for every size
    (with 64-bit integers, every size whose padded elements fit int64).

    ``int64`` (default: True for C, False for Python) adds the claim that
    no subexpression leaves int64; ``functions`` says which of the two to
    prove.
    """
    if language not in ("python", "c"):
        raise TilespecError(f"language {language!r} is not 'python' or 'c'")
    if 0 in shape.dims:
        # no element to place: the code would only divide by the 0 dim
        raise TilespecError(f"{format_shape(shape)} has no elements: there is no "
                            "offset or locate to generate code for")
    if int64 is None:
        int64 = language == "c"
    # The code for the shape as written: named dims are parameters, sizes
    # are literals (``symbolic=True`` would name the sizes too).
    source = (python_source if language == "python" else c_source)(shape, False)
    named = names(shape, language)
    compiled = compiles(source, language)
    code = code_functions(source, language, named.out)
    claim = _Claim(shape, language, source, int64, timeout, named, compiled)
    out = []
    if "offset" in functions:
        out.append(_prove_offset(claim, code.offset_params, code.offset))
    if "locate" in functions:
        out.append(_prove_locate(claim, code.locate_params, code.is_element, code.element))
    return out


@dataclass(frozen=True)
class _Claim:
    """What is being proved: the code, its language and its integers."""

    shape: Shape
    language: str
    source: str
    int64: bool
    timeout: float
    named: Names
    compiled: dict

    @property
    def bounded(self) -> bool:
        """Whether the proof assumes padded elements < 2^63: with int64 and
        named dims, unless no size at all satisfies it (the padded size
        grows with every dim, so all names = 1 is the smallest).  A premise
        nothing satisfies would make any claim true: then there is none."""
        if not (self.int64 and self.shape.is_symbolic):
            return False
        ones = tuple(1 if isinstance(d, str) else d for d in self.shape.dims)
        return product(dims_through(shape_pipeline(self.shape), ones)[-1]) <= INT64_MAX

    def hypothesis(self, enc: Encoding, size):
        """The premise on named dims: padded elements < 2^63 if bounded;
        else, with int64, only shapes XLA accepts (its byte width times
        the dims below 2^63, which also keeps each dim in int64_t)."""
        if self.bounded:
            return enc.term(size) <= INT64_MAX
        if self.int64 and self.shape.is_symbolic:
            width = storage_bits(self.shape.element_type) // 8
            dense = enc.term(product(enc.dims, enc.ar)) * width
            return z3.And(dense <= INT64_MAX,
                          *(v <= INT64_MAX for v in enc.names.values()))
        return z3.BoolVal(True, enc.ctx)

    def scope(self) -> str:
        where = scope(self.shape)
        if self.bounded:
            where += ", padded elements < 2^63"
        elif self.int64 and self.shape.is_symbolic:
            where += ", dense bytes < 2^63 (as XLA requires)"
        return where

    def steps(self, fn: str) -> tuple:
        compiled = self.compiled[fn][1]
        out = [*([compiled] if compiled else []),
               "Z3: the generated function equals the spec's evaluator"]
        if self.int64:
            out.append("Z3: every subexpression of the code lies in int64 "
                       "[-2^63, 2^63)" + (" when the padded elements are below 2^63"
                                          if self.bounded else ""))
        elif self.language == "python":
            out.append("Python integers are unbounded: the code cannot overflow")
        return tuple(out)


def _env(enc: Encoding, named: Names, params, first: dict):
    env = dict(first)
    for p in params:
        if p not in env:
            user = named.user(p)
            env[p] = enc.names[user] if user in enc.names else None
    missing = [p for p, v in env.items() if v is None]
    if missing:
        raise TilespecError(f"generated code has parameters {missing} tilespec cannot bind")
    return env


def _all(ctx, conditions):
    return z3.And(z3.BoolVal(True, ctx), *conditions)


def _prove_offset(claim: _Claim, params, expr) -> Result:
    start = time.perf_counter()
    shape = claim.shape
    ctx = z3.Context()
    enc = Encoding(shape, ctx)
    e = enc.fresh("e", shape.rank)
    named = claim.named
    env = _env(enc, named, params, dict(zip(named.indices, e)))
    tr = Terms(env, ctx, claim.language, claim.int64)
    theirs = interpret(expr, tr)
    ours = enc.term(evaluate(shape_pipeline(shape), e, enc.dims, enc.ar))
    size = enc.term(padded_count(shape, enc.dims, enc.ar))
    premises = [*enc.assumptions, claim.hypothesis(enc, size), enc.box(e, enc.dims)]

    def in_bounds():
        return z3.And(0 <= ours, ours < size)

    def witness(m):
        return {**enc.dim_values(m), "element": [enc.value(m, x) for x in e]}

    def replay(ce):
        values = {**_dim_values(named, ce), **dict(zip(named.indices, ce["element"]))}
        return _replay(claim, values, "offset", expr)
    return _verdict(claim, f"generated {claim.language} offset", ctx, start,
                    (witness, replay, (expr,)),
                    premises, z3.Or(theirs != ours, z3.Not(_all(ctx, tr.conditions))),
                    theirs == ours, tr, in_bounds)


def _prove_locate(claim: _Claim, params, is_element, element) -> Result:
    start = time.perf_counter()
    shape = claim.shape
    ctx = z3.Context()
    enc = Encoding(shape, ctx)
    o = enc.internal("o")
    env = _env(enc, claim.named, params, {claim.named.offset: o})
    tr = Terms(env, ctx, claim.language, claim.int64)
    their_ok, their_e = locate(tr, is_element, element)
    stages = shape_pipeline(shape)
    our_e, our_ok = unevaluate(stages, o, enc.dims, enc.ar)
    size = enc.term(padded_count(shape, enc.dims, enc.ar))
    our_ok = enc.term(our_ok)
    wrong = z3.Or(their_ok != our_ok, z3.And(our_ok, z3.Not(enc.equal(their_e, our_e))))
    premises = [*enc.assumptions, claim.hypothesis(enc, size), 0 <= o, o < size]

    def witness(m):
        return {**enc.dim_values(m), "offset": m.eval(o, model_completion=True).as_long()}

    def replay(ce):
        values = {**_dim_values(claim.named, ce), claim.named.offset: ce["offset"]}
        return _replay(claim, values, "locate", is_element, element)
    return _verdict(claim, f"generated {claim.language} locate", ctx, start,
                    (witness, replay, (is_element, element)),
                    premises, z3.Or(wrong, z3.Not(_all(ctx, tr.conditions))),
                    z3.Not(wrong), tr, None)


def _verdict(claim: _Claim, name, ctx, start, witness, premises, wrong, same, tr,
             in_bounds) -> Result:
    """Two questions, each a search for a counterexample under ``premises``:
    does the code differ from the spec (or divide other than as floor), and,
    with int64, does some subexpression leave int64?  The second may assume
    the first's answer (the code equals the spec), and, if Z3 needs it, the
    spec's own offset range, proved for the layout by :mod:`prover.properties.proof`.
    A small concrete shape Z3 does not decide is decided by running the
    code on every index (:mod:`prover.codegen.exhaustive`).

    ``witness`` is (a Z3 model as a counterexample dict, that dict replayed
    on the generated code as (value, fault), the function's expressions).
    """
    shape = claim.shape
    text, where = format_shape(shape), claim.scope()
    fn = name.split()[-1]
    rejected = claim.compiled[fn][0]
    steps = list(claim.steps(fn))
    to_ce, replay, nodes = witness
    small = exhaustive.enumerable(shape)
    # a question enumeration settles gets a short try with Z3 first
    timeout = min(claim.timeout, QUICK_SECONDS) if small else claim.timeout

    def finish(status, **kw):
        return Result(text, name, status, time.perf_counter() - start, where, **kw, shapes=(shape,))

    answer, detail = search(z3.And(*premises, wrong), ctx, timeout)
    if answer == "unsat" and tr.ranges:
        checks = distinct_ranges(tr.ranges)
        answer, detail, left = no_overflow(z3.And(*premises, same), checks, ctx,
                                            timeout)
        if answer == "unknown" and in_bounds is not None and not small:
            cited = prove_property(shape, "in_bounds", timeout=timeout)
            if cited.proved:
                steps.append("cited: the spec's offset lies in [0, P) (tilespec prove "
                             "in_bounds: proved)")
                answer, detail, _ = no_overflow(z3.And(*premises, same, in_bounds()),
                                                 left, ctx, timeout)
            else:
                detail = f"{detail}; in_bounds is {cited.status}"
    if answer == "unknown" and small:
        found = exhaustive.counterexample(shape, claim.language, claim.int64, claim.source,
                                          claim.named, fn, nodes)
        if found is None:
            steps = [s for s in steps if not s.startswith(("Z3", "cited"))]
            steps += [f"Z3 did not decide it ({detail})",
                      exhaustive.step(shape, claim.language, claim.int64, fn)]
            answer = "unsat"
        else:
            answer, ce = "sat", found
    elif answer == "sat":
        ce = to_ce(detail)
    if answer == "unsat":
        if rejected:
            raise ProverBug(f"{name} proved, but {rejected}")
        return finish(PROVED, steps=tuple(steps))
    if answer == "unknown":
        return finish(UNKNOWN, reason=f"{detail}; {rejected}" if rejected else detail)
    generated, fault = replay(ce)
    spec_value = _spec_value(shape, ce)
    if fault is None and generated == spec_value:
        raise ProverBug(f"{name} counterexample {ce} does not replay: both give {spec_value}")
    return finish(REFUTED, counterexample=_counterexample(ce, generated, spec_value, fault))


def _counterexample(ce: dict, generated, spec_value, fault) -> Counterexample:
    """A replayed witness (the dims' sizes and an ``element`` or ``offset``)
    as the generated code's side and the spec's.  With a fault (replayed on
    Python ints, the named subexpression really leaves int64, or divides
    as C would not, whatever the final value) the generated code's answer
    is not shown; the fault is in ``details``."""
    ce = dict(ce)
    if "element" in ce:
        element = tuple(ce.pop("element"))
        sides = (Side("generated", element=element,
                      offset=generated if fault is None else None),
                 Side("spec", element=element, offset=spec_value))
    else:
        o = ce.pop("offset")
        sides = (Side("generated", offset=o, element=generated if fault is None else None),
                 Side("spec", offset=o, element=spec_value))
    if fault is None:
        what = f"the generated code gives {generated}, the spec {spec_value}"
    elif "overflow" in fault:
        what = f"{fault['overflow']} leaves int64 ({fault['value']})"
    else:
        what = f"{fault['division']} divides as C does, not as floor"
    return Counterexample(ce, sides, what=what, details=fault or {})


def _dim_values(named: Names, ce: dict) -> dict:
    """A witness's dim sizes by the names the code writes."""
    return {w: ce[u] for u, w in named.spelling}


def _spec_value(shape: Shape, ce: dict):
    """The spec's answer at a witness, on Python ints.  The stage pipeline
    is run directly: a witness's sizes may lie beyond what a Shape accepts
    (that is what an overflow witness is about)."""
    dims = tuple(ce.get(d, 1) if isinstance(d, str) else d for d in shape.dims)
    stages = shape_pipeline(shape)
    if "element" in ce:
        return evaluate(stages, tuple(ce["element"]), dims)
    e, ok = unevaluate(stages, ce["offset"], dims)
    return tuple(int(x) for x in e) if ok else None


def _replay(claim: _Claim, values: dict, fn: str, *nodes):
    """The generated ``fn`` run at a witness on Python ints, independently
    of Z3: (value, fault).  Python's source is executed as it is (unless
    checked as int64); C's expressions run with C's division and ``&&``,
    watching every subexpression for int64 overflow (:class:`~prover.codegen.interpret.Exact`)."""
    if claim.language == "python" and not claim.int64:
        namespace: dict = {}
        exec(compile(claim.source, "<generated>", "exec"), namespace)
        named = claim.named
        dims = {n: values[n] for n in named.parameters}
        args = ([values[x] for x in named.indices] if fn == "offset"
                else [values[named.offset]])
        return namespace[fn](*args, **dims), None
    run = Exact(claim.language, values, claim.int64)
    if fn == "offset":
        return interpret(nodes[0], run), run.fault
    ok, e = locate(run, *nodes)
    return (tuple(e) if ok else None), run.fault
