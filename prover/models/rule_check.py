"""What every check of one of XLA's rules shares: the rule catalogue's
types (:class:`Rule`, :class:`Condition`), size conditions on tiling levels,
the identities that turn XLA's loops into row-major linearisations (proved
over free atoms, :func:`prove_loop_identity`), and the driver that checks
facts and replays counterexamples (:func:`run`).

The rules themselves live in :mod:`prover.models.array_size` (``ShapeUtil::ArraySize``,
``LayoutUtil::MaxSplitSize``), :mod:`prover.models.linear_index` (``LayoutUtil::LinearIndex``
and the nested-tiling index functions) and :mod:`prover.models.bitcast_rules`
(``ShapeUtil::ReshapeIsBitcast``, ``ShapeUtil::TransposeIsBitcast``);
:mod:`prover.models.rules` is the catalogue.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable

import z3

from ...spec import (
    Pad,
    Shape,
    Split,
    TilespecError,
    concrete_dims,
    dims_through,
    format_shape,
    offset,
    product,
    shape_pipeline,
)
from ..core import (
    Facts,
    Lemma,
    Z3Arithmetic,
    drive,
    element_grid,
    internal_symbol,
    scope,
    search,
    user_symbol,
)
from ..result import PROVED, REFUTED, UNKNOWN, Counterexample, ProverBug, Result, Side
from .versions import Holds, XlaCommit, resolve

#: The shared driver transcribes no XLA function of its own: each rule's
#: module declares the C++ it models and the versions it holds for.
XLA_MODELS: tuple = ()


class RuleNotApplicable(TilespecError):
    """XLA's code does not handle this layout (it would compute garbage or
    CHECK-fail), so there is nothing to compare."""


# --- the rules on any arithmetic ------------------------------------------------

def physical(shape: Shape, dims):
    """P(i) = dims[minor_to_major[i]]: i = 0 is the most minor."""
    return [dims[d] for d in shape.layout.minor_to_major]


def no_split_configs(shape: Shape):
    if shape.layout.split_configs:
        raise RuleNotApplicable("split configs (SC) are not modelled by these rules")

# --- identities: XLA's loop is lin(V, W) ----------------------------------------

class AtomArithmetic(Z3Arithmetic):
    """Z3 terms where every division, remainder and ceil division is a fresh
    free variable (one per distinct operands).  An identity proved here
    holds whatever those quotients are, so it holds for the real ones."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.atoms = {}

    def _atom(self, kind, a, b):
        key = (kind, _key(a), _key(b))
        if key not in self.atoms:
            self.atoms[key] = z3.Int(internal_symbol(f"{kind}{len(self.atoms)}"), self.ctx)
        return self.atoms[key]

    def floordiv(self, a, b):
        if _plain(a) and _plain(b):
            return a // b
        return self._atom("q", a, b)

    def mod(self, a, b):
        if _plain(a) and _plain(b):
            return a % b
        return self._atom("r", a, b)

    def ceildiv(self, a, b):
        if _plain(a) and _plain(b):
            return -(-a // b)
        return self._atom("c", a, b)


def _plain(v):
    return not isinstance(v, z3.ExprRef)


def _key(v):
    return ("z3", v.get_id()) if isinstance(v, z3.ExprRef) else ("int", v)

@lru_cache(maxsize=None)
def prove_loop_identity(kind: str, layout, rank: int, element_type: str,
                        loop: Callable, form: Callable) -> Lemma:
    """Prove, for every size and index (free variables), that XLA's loop
    ``loop(shape, e, dims, ar)`` equals ``form(shape, e, dims, ar)``: a
    polynomial identity over free atoms."""
    start = time.perf_counter()
    ctx = z3.Context()
    ar = AtomArithmetic(ctx)
    shape = Shape(element_type, tuple(f"d{i}" for i in range(rank)), layout)
    dims = tuple(z3.Int(user_symbol(f"d{i}"), ctx) for i in range(rank))
    e = tuple(z3.Int(internal_symbol(f"e{i}"), ctx) for i in range(rank))
    lhs, rhs = loop(shape, e, dims, ar), form(shape, e, dims, ar)
    answer, detail = search(ar.term(lhs) != ar.term(rhs), ctx, 20.0)
    status = {"unsat": "proved", "sat": "refuted"}.get(answer, f"unknown: {detail}")
    return Lemma(f"XLA's {kind} loop is a row-major linearisation (rank {rank})",
                 status, time.perf_counter() - start)


# --- conditions -----------------------------------------------------------------

def level_conditions(shape: Shape, dims, ar, levels, order: bool):
    """Size conditions for the given tiling levels: each adds no padding and,
    if ``order``, keeps the row-major order (no within-tile entry of an
    earlier dim moves past a tile count greater than 1 of a later one).

    A list of (text, formula); formulas are bools on ints, Z3 on terms.
    """
    stages = shape_pipeline(shape)
    through = dims_through(stages, dims, ar)
    out = []
    for i, s in enumerate(stages):
        if s.level not in levels:
            continue
        d = through[i]
        k = len(s.sizes) if isinstance(s, (Pad, Split)) else 0
        tail = d[len(d) - k:]
        if isinstance(s, Pad):
            for j, (x, t) in enumerate(zip(tail, s.sizes)):
                if t != 1:
                    out.append((f"level {s.level} pads no entry {j} (tile {t} divides it)",
                                ar.eq(ar.mod(x, t), 0)))
        elif isinstance(s, Split) and order:
            counts = [ar.floordiv(x, t) for x, t in zip(tail, s.sizes)]
            for j, t in enumerate(s.sizes):
                if t == 1:
                    continue
                for l in range(j + 1, k):
                    out.append((f"level {s.level} keeps the order: tile count "
                                f"{l} is 1 (entry {j}'s tile is {t})",
                                ar.eq(counts[l], 1)))
    return out


@dataclass(frozen=True)
class Condition:
    """When a rule agrees with the spec.  ``layout`` conditions are checked
    on the shape's text; ``size`` conditions hold for some dims only."""

    text: str
    kind: str                                    # 'layout' or 'size'
    holds: Callable | None = None                # layout: shapes -> bool
    required: bool = True                        # False: a hint, implied by the others
    #: the condition said of given shapes (shapes -> str), where ``text``'s
    #: general wording would name other values than theirs
    said_of: Callable | None = None
    #: the XLA versions where the condition is asked (a behaviour of one range)
    applies: Holds = Holds()

    def holds_for(self, *shapes) -> bool:
        """The layout condition on these shapes."""
        if self.holds is None:
            raise ProverBug(f"the layout condition {self.text!r} has no test")
        return bool(self.holds(*shapes))

    def text_for(self, *shapes) -> str:
        """The condition in words, about these shapes.

        >>> c = Condition("one type (f32 and s32 differ)", "layout", None,
        ...               said_of=lambda a, b: f"one type ({a} and {b} differ)")
        >>> c.text_for("f32", "bf16"), c.text
        ('one type (f32 and bf16 differ)', 'one type (f32 and s32 differ)')
        """
        return self.text if self.said_of is None else self.said_of(*shapes)


@dataclass(frozen=True)
class Rule:
    name: str
    xla: str
    summary: str
    shapes: int                                  # how many shapes it takes
    conditions: tuple[Condition, ...]
    agree: tuple = ()                            # examples (shape texts)
    disagree: tuple = ()
    options: tuple = field(default=())           # extra arguments it takes
    #: where the model was read: file, function and commit of openxla/xla
    source: str = ""
    #: the XLA commits where the function changed (so its verdict names the XLA)
    changed_at: tuple[XlaCommit, ...] = ()

    def conditions_at(self, xla: XlaCommit | str | None = None) -> tuple[Condition, ...]:
        """The conditions asked of XLA at ``xla`` (default the newest modelled)."""
        at = resolve(xla)
        return tuple(c for c in self.conditions if c.applies.holds_at(at))

    def layout_conditions(self, shapes, xla: XlaCommit | str | None = None
                          ) -> list[tuple[str, bool]]:
        return [(c.text_for(*shapes), c.holds_for(*shapes)) for c in self.conditions_at(xla)
                if c.kind == "layout"]


# --- checking a rule -------------------------------------------------------------

class Setup:
    """Z3 names for one or two shapes in a fresh context."""

    def __init__(self, shapes, timeout):
        self.shapes = shapes
        self.ctx = z3.Context()
        self.ar = Z3Arithmetic(self.ctx)
        self.names: dict = {}
        for s in shapes:
            for n in s.names:
                self.names.setdefault(n, z3.Int(user_symbol(n), self.ctx))
        self.dims = [tuple(self.names[d] if isinstance(d, str) else d for d in s.dims)
                     for s in shapes]
        self.facts = Facts(self.ctx, [v >= 1 for v in self.names.values()], timeout,
                           names=self.names)
        self.symbolic = bool(self.names)

    def box(self, e, dims):
        parts = [z3.And(self.ar.term(0) <= x, self.ar.lt(x, n)) for x, n in zip(e, dims)]
        return z3.And(parts) if parts else z3.BoolVal(True, self.ctx)

    def value(self, model, term):
        if _plain(term):
            return int(term)
        return model.eval(self.ar.term(term), model_completion=True).as_long()


#: The scope a proof for all sizes of an agreement with XLA's int64 code has.
NO_INT64_OVERFLOW = ", while XLA's int64 arithmetic does not overflow"


def _where(shapes) -> str:
    for s in shapes:
        if s.is_symbolic:
            return scope(s)
    return "concrete"


def run(rule: str, shapes, S: Setup, concrete: Callable, start: float,
        conditions=(), whole: Callable | None = None) -> Result:
    """Check the facts; on failure try the failing dims and probe sizes on
    ``concrete(shapes) -> counterexample | None`` (which replays).
    ``conditions`` (size conditions assumed by the facts) restrict the
    dims tried, and the scope says so.  ``whole()`` builds a second set of
    facts, the agreement as one equation, tried when the first set (which
    suffices but may not be needed) fails: a failed sufficient fact is not a
    disagreement."""
    text = " ; ".join(format_shape(s) for s in shapes)
    where = _where(shapes)
    if conditions:
        where += "; wherever the size conditions hold"
        answer, _ = search(z3.And(S.facts.assumptions + [z3.BoolVal(True, S.ctx)]),
                           S.ctx, S.facts.timeout)
        if answer == "unsat":
            # Say so: a proof under conditions that never hold proves nothing.
            where += " (they hold for no dims: vacuous)"
            S.facts.note("the size conditions hold for no dims: the agreement is vacuous")

    def refute(values):
        ce = concrete([s.instantiate(values) for s in shapes])
        if ce is not None and values:
            ce = ce.at(values)
        return ce

    def admit(values):
        inst = [s.instantiate(values) for s in shapes]
        return all(_holds(f, inst, values) for f in conditions)

    v = drive(S.facts, whole=None if whole is None else (lambda: whole().facts),
              refute=refute, admit=admit if conditions else None)

    def done(status, **kw):
        return Result(text, f"rule {rule}", status, time.perf_counter() - start,
                      where, steps=v.facts.steps(), **kw, shapes=tuple(shapes))

    if v.status == PROVED:
        if S.symbolic and not where.endswith("vacuous)"):
            # The facts are over unbounded integers; XLA computes in int64,
            # and past 2^63 it wraps (concrete shapes get a verdict of their
            # own), so a proof for all sizes holds only short of that.
            where += NO_INT64_OVERFLOW
        return done(PROVED)
    if v.status == REFUTED:
        return done(REFUTED, counterexample=v.counterexample)
    if not S.symbolic and v.fact_status == "failed":
        raise ProverBug(f"rule {rule}: facts fail for {text} but nothing replays ({v.reason})")
    return done(UNKNOWN, reason=v.reason)


def offsets_differ(s: Shape, element, xla: int, spec: int) -> Counterexample:
    """XLA's offset and the spec's of one element of ``s``, replayed.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> offsets_differ(shape("f32[4]{0}"), (1,), 2, 1).offsets
    {'xla': 2, 'spec': 1}
    """
    text = format_shape(s)
    return Counterexample({}, (Side("xla", element=element, offset=xla, shape=text),
                               Side("spec", element=element, offset=spec, shape=text)),
                          what=f"XLA's offset is {xla}, the spec's {spec}")


def _holds(condition_fn, shapes, values) -> bool:
    return all(bool(c) for _, c in condition_fn(shapes))


def behaviour_result(rule: str, shapes, behaviour, start: float, sides=(),
                     dim_values=None, subject: str | None = None,
                     details=None) -> Result:
    """A rule's result where XLA's function aborts, does something undefined
    or wraps (:class:`~prover.result.XlaBehaviour`): not an agreement, so
    refuted, with the behaviour as its own field and a counterexample whose
    sides say what XLA and the spec give there (XLA: nothing, or the value
    after wrap-around)."""
    text = subject or " ; ".join(format_shape(s) for s in shapes)
    where = _where(shapes)
    if dim_values:
        where = "concrete"
    ce = Counterexample(dim_values or {}, tuple(sides), what=behaviour.describe(),
                        details=details or {})
    return Result(text, f"rule {rule}", REFUTED, time.perf_counter() - start, where,
                  counterexample=ce, xla=behaviour, shapes=tuple(shapes))


def require_concrete(rule: str, *shapes: Shape) -> None:
    """A rule evaluated on concrete sizes only: named dims are not applicable."""
    if any(s.is_symbolic for s in shapes):
        raise RuleNotApplicable(f"{rule} is evaluated on concrete sizes: "
                                "give every dim a size")


def yes_no_verdict(rule: str, text: str, start: float, xla: bool, spec: bool,
                   agreed: str, what: str, shapes: tuple = ()) -> Result:
    """A yes/no function of XLA's against the spec's answer on one concrete
    question: proved where they agree (``agreed`` says what both say), else
    refuted with both answers as the sides (1 = yes) and ``what``.

    >>> r = yes_no_verdict("r", "f32[2]{0}", 0.0, True, False, "", "they differ")
    >>> r.status, [(s.name, s.value) for s in r.counterexample.sides]
    ('refuted', [('xla', 1), ('spec', 0)])
    """
    seconds = time.perf_counter() - start
    if xla == spec:
        return Result(text, f"rule {rule}", PROVED, seconds, "concrete",
                      steps=(agreed,), shapes=shapes)
    return Result(text, f"rule {rule}", REFUTED, seconds, "concrete",
                  counterexample=Counterexample(
                      {}, (Side("xla", shape=text, value=int(xla)),
                           Side("spec", shape=text, value=int(spec))), what=what), shapes=shapes)


#: sizes tried for the named dims where XLA's int64 arithmetic is evaluated
#: (all names alike): whether a product overflows depends on the sizes
PROBE_SIZES = (1, 2, 3, 5, 8, 128)


def int64_check(rule: str, shape: Shape, evaluate: Callable, start: float) -> Result:
    """An index function evaluated in int64 (``evaluate(shape, element) ->
    (value, Int64)``) on every element (or a sample) against the spec's
    offset, at the given sizes or, for named dims, at :data:`PROBE_SIZES`:
    the first overflow is undefined behaviour (with the wrapped value), a
    different value a disagreement; every element equal and no overflow is
    agreement for a concrete shape enumerated whole, else unknown."""
    text = format_shape(shape)
    if shape.is_symbolic:
        instances = [({n: v for n in shape.names},
                      shape.instantiate({n: v for n in shape.names})) for v in PROBE_SIZES]
    else:
        instances = [({}, shape)]
    complete = not shape.is_symbolic
    for values, s in instances:
        grid = element_grid(s)
        if grid is None:
            continue
        complete = complete and len(grid) == product(concrete_dims(s))
        for row in grid:
            element = tuple(int(x) for x in row)
            value, c = evaluate(s, element)
            spec = offset(s, element)
            sides = (Side("xla", element=element, offset=value, shape=format_shape(s)),
                     Side("spec", element=element, offset=spec, shape=format_shape(s)))
            ub = c.undefined(value)
            if ub is not None:
                return behaviour_result(rule, [s], ub, start, sides, values, subject=text)
            if value != spec:
                return Result(text, f"rule {rule}", REFUTED, time.perf_counter() - start,
                              "concrete",
                              counterexample=offsets_differ(s, element, value, spec).at(values), shapes=(shape,))
    if complete:
        return Result(text, f"rule {rule}", PROVED, time.perf_counter() - start, "concrete",
                      steps=("every element evaluated in int64: no overflow, the spec's "
                             "offset",), shapes=(shape,))
    return Result(text, f"rule {rule}", UNKNOWN, time.perf_counter() - start, _where([shape]),
                  reason=f"no overflow and no difference on the elements and sizes tried "
                  f"{PROBE_SIZES}; whether XLA's int64 products overflow depends on the "
                  "sizes, which were not all tried", shapes=(shape,))
