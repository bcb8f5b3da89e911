"""When XLA's layout of a Pallas operand puts its elements in the order
Mosaic's memref layout does, for every shape.

A rank-2 row-major operand ``TYPE[m,n]`` that XLA tiles ``T(a,128)`` (and,
below 32 bits, then by the packing tile ``(32/bits,1)``, as Mosaic does;
``T(128)``, a 1-d tile of the minor dim, orders like ``T(1,128)``) meets the
tiling Mosaic's rule infers for a kernel argument, ``T(r,128)`` with ``r``
:func:`.memref.tiling_factor_in` of ``m`` and ``n`` (``getTilingFactor``,
``infer_memref_layout.cc`` at jax 43d14afad3^).  The lemma
(:func:`prove_order_lemma`): every element lies at the same offset in both
layouts exactly when ``a == r or n <= 128``, proved for all ``m, n >= 1``
both ways -- ``unsat`` of "the condition holds and some element differs",
and of "it fails and element (0, 128) is at one offset in both" (that
element exists once ``n > 128``, at ``128 * a`` in XLA's layout and
``128 * r`` in Mosaic's).  A claim (:class:`OperandOrder`) names the
condition in ``m`` and ``n`` alone, e.g. ``m >= 5 or n <= 128`` for XLA's
``T(8,128)`` of f32 on v5e; :func:`prove_operand_order` proves the lemma
and that the condition is the lemma's for every ``m, n``.  A refutation
is a shape, an element and its two offsets, replayed on the concrete
evaluator (:func:`tilespec.spec.offset`) before it is reported.

The offsets are the spec's pipeline (:func:`tilespec.spec.evaluate`) on
solver terms; ``r`` is the rule the model runs, on solver terms.  The
claims compare element order, not size: where ``n <= 128`` and ``a != r``
the orders agree and one buffer has more padding rows at its end.

>>> c = OperandOrder("f32", "T(128)", "v5e", "m == 1 or n <= 128")
>>> c.name
"XLA's f32[m,n]{1,0:T(128)} is in Mosaic's order on v5e exactly when m == 1 or n <= 128"
>>> c.holds(16, 3072), c.holds(1, 3072), c.holds(16, 100)
(False, True, True)
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Any

from ..prover.core import DEFAULT_TIMEOUT, Encoding, search
from ..prover.result import PROVED, REFUTED, UNKNOWN, Counterexample, ProverBug, Result, Side
from ..spec import (
    Shape,
    TilespecError,
    all_offsets,
    bit_width,
    evaluate,
    format_shape,
    parse_array_shape,
    shape_pipeline,
)
from .memref import (
    KERNEL_ARGUMENT_FLAGS,
    LANES,
    SUBLANES,
    generation,
    memref_bitwidth,
    memref_tiling,
    tiling_factor_in,
    xla_layout_text,
)
from .vector_layout import PLAIN, SolverOps

__all__ = ["OPERAND_CLAIMS", "NotInFamily", "OperandOrder", "OrderWitness",
           "mosaic_layout", "offset_by_rows", "order_side", "prove_operand_order",
           "prove_order_lemma", "witness"]


class NotInFamily(TilespecError):
    """An XLA tiling or a condition the operand-order claims do not cover."""


_ATOM = re.compile(r"\s*([mn])(?:\s*%\s*(\d+))?\s*(>=|<=|==|!=|>|<)\s*(\d+)\s*$")
_COMPARE = {">=": lambda a, b: a >= b, "<=": lambda a, b: a <= b, "==": lambda a, b: a == b,
            "!=": lambda a, b: a != b, ">": lambda a, b: a > b, "<": lambda a, b: a < b}


def _condition(text: str):
    """``text`` (atoms ``m >= 5``, ``n % 32 == 0`` joined by ``and``, then
    ``or``) as a list of conjunctions of (dim, modulus, op, value)."""
    out = []
    for part in re.split(r"\bor\b", text):
        atoms = []
        for atom in re.split(r"\band\b", part):
            a = _ATOM.match(atom)
            if a is None:
                raise NotInFamily(f"condition {text!r}: {atom.strip()!r} is not like 'm >= 5' or "
                                  f"'n % 32 == 0'")
            atoms.append((a.group(1), int(a.group(2)) if a.group(2) else None, a.group(3),
                          int(a.group(4))))
        out.append(tuple(atoms))
    return tuple(out)


def _rows(xla: Shape) -> int:
    """The rows ``a`` of XLA's ``T(a,128)`` (``T(128)``: 1), checking that
    the tiling is of the family the claims cover."""
    tiles = [tuple(t.sizes) for t in xla.layout.tiles] if xla.layout else []
    bits = memref_bitwidth(xla.element_type)
    packing = 32 // bits
    rest = [] if bits == 32 else [(packing, 1)]
    ok = bool(tiles) and tiles[0] in ((LANES,), (tiles[0][0], LANES)) and tiles[1:] == rest
    a = 1 if ok and len(tiles[0]) == 1 else tiles[0][0] if ok else 0
    if not ok or a < 1 or (bits < 32 and (len(tiles[0]) == 1 or a % packing)):
        want = "T(a,128)" + ("" if bits == 32 else f"({packing},1) with a a multiple of {packing}")
        text = format_shape(xla)
        raise NotInFamily(f"XLA tiling {text[text.index(':') + 1:text.rindex('}')]} of "
                          f"{xla.element_type}: the claims cover "
                          f"{want}" + (" or T(128)" if bits == 32 else ""))
    return a


def _row_count(a: int) -> str:
    return f"{a} row" + ("" if a == 1 else "s")


def mosaic_layout(element_type: str, dims, chip: str) -> Shape:
    """The layout Mosaic's rule gives a kernel argument of ``dims``.

    >>> from tilespec.spec import format_shape
    >>> format_shape(mosaic_layout("bf16", (3, 256), "v5e"))
    'bf16[3,256]{1,0:T(4,128)(2,1)}'
    """
    tiles = memref_tiling(tuple(dims), memref_bitwidth(element_type), chip)
    return parse_array_shape(xla_layout_text(tuple(dims), element_type, tiles))


@dataclass(frozen=True)
class OrderWitness:
    """One element of ``TYPE[m,n]`` and its offset in each layout."""

    dims: tuple[int, ...]
    element: tuple[int, ...]
    xla_offset: int
    mosaic_offset: int
    xla: str
    mosaic: str


def witness(element_type: str, tiling: str, chip: str, dims) -> OrderWitness | None:
    """An element that XLA's ``tiling`` and Mosaic's rule put at different
    offsets in an array of ``dims`` (the first in row-major order), or None
    when every element is at one offset in both -- run on the concrete
    evaluator.

    >>> w = witness("f32", "T(128)", "v5e", (16, 3072))
    >>> w.element, w.xla_offset, w.mosaic_offset
    ((0, 128), 128, 1024)
    """
    m, n = (int(d) for d in dims)
    xla = parse_array_shape(f"{element_type}[{m},{n}]{{1,0:{tiling}}}")
    mosaic = mosaic_layout(element_type, (m, n), chip)
    a, b = all_offsets(xla).ravel(), all_offsets(mosaic).ravel()
    differ = (a != b).nonzero()[0]
    if not len(differ):
        return None
    k = int(differ[0])
    e = (k // n, k % n)
    return OrderWitness((m, n), e, int(a[k]), int(b[k]), format_shape(xla), format_shape(mosaic))


@dataclass(frozen=True)
class OperandOrder:
    """The claim: XLA's ``tiling`` of ``element_type[m,n]`` puts every
    element where Mosaic's memref layout on ``chip`` does exactly when
    ``condition`` (in ``m`` and ``n``) holds."""

    element_type: str
    tiling: str
    chip: str
    condition: str

    def __post_init__(self):
        generation(self.chip)
        _rows(self.xla_shape())
        _condition(self.condition)

    @property
    def subject(self) -> str:
        return f"{self.element_type}[m,n]{{1,0:{self.tiling}}} on {self.chip}"

    @property
    def lemma(self) -> str:
        return (f"XLA's {self.tiling} is in Mosaic's order exactly when Mosaic's rule tiles "
                f"{_row_count(_rows(self.xla_shape()))} or n <= 128")

    @property
    def name(self) -> str:
        return (f"XLA's {self.element_type}[m,n]{{1,0:{self.tiling}}} is in Mosaic's order on "
                f"{self.chip} exactly when {self.condition}")

    def xla_shape_text(self) -> str:
        return f"{self.element_type}[m,n]{{1,0:{self.tiling}}}"

    def xla_shape(self) -> Shape:
        return parse_array_shape(self.xla_shape_text())

    def holds(self, m, n, ops=PLAIN):
        """The condition at ``m``, ``n`` (ints, or solver terms with ``ops``)."""
        value = {"m": m, "n": n}
        return ops.or_(*(ops.and_(*(_COMPARE[op](value[d] % k if k else value[d], v)
                                    for d, k, op, v in conj))
                         for conj in _condition(self.condition)))

    @property
    def scope(self) -> str:
        return (f"all m, n >= 1: a rank-2 row-major {self.element_type} kernel argument, "
                f"XLA's tiling {self.tiling} against Mosaic's memref rule on {self.chip}; "
                f"the order of the elements, not the buffer's size")


def agrees(ops, a: int, m, n, element_type: str, chip: str):
    """The lemma's condition: ``a == getTilingFactor(m, n) or n <= 128``."""
    r = tiling_factor_in(ops, m, generation(chip), memref_bitwidth(element_type),
                         KERNEL_ARGUMENT_FLAGS, True, False, SUBLANES, n)
    return ops.or_(r == a, n <= LANES)


class _Terms:
    """The claim's offsets over solver terms: XLA's and Mosaic's, the
    latter chosen by the rule's rows among the powers of 2 it can give."""

    def __init__(self, claim: OperandOrder, z3, ctx):
        self.z3, self.ctx = z3, ctx
        xla = claim.xla_shape()
        self.enc = Encoding(xla, ctx)
        self.m: Any = self.enc.dims[0]
        self.n: Any = self.enc.dims[1]
        self.a = _rows(xla)
        self.ops = SolverOps(z3)
        self.claim = claim
        bits = memref_bitwidth(claim.element_type)
        self.rows = tiling_factor_in(self.ops, self.m, generation(claim.chip), bits,
                                     KERNEL_ARGUMENT_FLAGS, True, False, SUBLANES, self.n)
        self.candidates = [2 ** k for k in range(9)]
        rest = () if bits == 32 else ((32 // bits, 1),)
        self.mosaic = [parse_array_shape(xla_layout_text(("m", "n"), claim.element_type,
                                                         ((v, LANES), *rest)))
                       for v in self.candidates]
        self.xla = xla

    def offset(self, shape: Shape, i, j):
        return self.enc.ar.term(evaluate(shape_pipeline(shape), (i, j), self.enc.dims,
                                         self.enc.ar))

    def mosaic_offset(self, i, j):
        return offset_by_rows(self.z3, self.ctx, self.rows,
                              [(v, self.offset(shape, i, j))
                               for v, shape in zip(self.candidates, self.mosaic)])

    def agrees(self):
        return agrees(self.ops, self.a, self.m, self.n, self.claim.element_type, self.claim.chip)


def offset_by_rows(z3, ctx, rows, offsets) -> Any:
    """The offset of the Mosaic layout whose row count the rule gives:
    ``offsets`` pairs each candidate row count with its layout's offset
    term.  A row count outside the candidates is a free value, so no proof
    rests on it."""
    out = z3.Int("i.unmodelled", ctx)
    for v, offset in reversed(offsets):
        out = z3.If(rows == v, offset, out)
    return out


def order_side(name: str, shape: str, element, off: int, bits: int) -> Side:
    """One layout's side of a counterexample: the element, its offset and byte."""
    return Side(name, tuple(element), off, off * bits // 8, shape=shape)


def _refuted(claim: OperandOrder, w: OrderWitness, what: str, seconds: float, scope: str,
             prop: str) -> Result:
    bits = bit_width(claim.element_type)
    ce = Counterexample({"m": w.dims[0], "n": w.dims[1]},
                        (order_side("source", w.xla, w.element, w.xla_offset, bits),
                         order_side("target", w.mosaic, w.element, w.mosaic_offset, bits)),
                        what=what)
    return Result(claim.subject, prop, REFUTED, seconds, scope=scope, counterexample=ce)


def _dims(model, terms) -> tuple[int, int]:
    return tuple(model.eval(d, model_completion=True).as_long() for d in (terms.m, terms.n))


def prove_order_lemma(claim: OperandOrder, timeout: float = DEFAULT_TIMEOUT) -> Result:
    """Prove, for all ``m, n >= 1``, that XLA's tiling of ``claim`` and
    Mosaic's rule put every element at one offset exactly when ``a == r or
    n <= 128`` (:func:`agrees`); the claim's own condition is not asked."""
    import z3

    start = time.perf_counter()
    ctx = z3.Context()
    t = _Terms(claim, z3, ctx)
    i, j = t.enc.internal("i"), t.enc.internal("j")
    dims_ok = z3.And(*t.enc.assumptions)
    differs = z3.And(dims_ok, t.agrees(), t.enc.box((i, j), (t.m, t.n)),
                     t.offset(t.xla, i, j) != t.mosaic_offset(i, j))
    same_at_witness = z3.And(dims_ok, z3.Not(t.agrees()),
                             t.offset(t.xla, 0, LANES) == t.mosaic_offset(0, LANES))
    scope = claim.scope
    for formula, holds in ((differs, True), (same_at_witness, False)):
        answer, detail = search(formula, ctx, timeout)
        what = (f"the condition (Mosaic's rule tiles {_row_count(t.a)} or n <= 128) "
                + ("holds" if holds else "fails"))
        if answer == "unknown":
            return Result(claim.subject, claim.lemma, UNKNOWN, time.perf_counter() - start,
                          scope=scope, reason=f"{what}: {detail}")
        if answer == "sat":
            dims = _dims(detail, t)
            w = witness(claim.element_type, claim.tiling, claim.chip, dims)
            seconds = time.perf_counter() - start
            if holds:
                if w is None:
                    raise ProverBug(f"the lemma's counterexample {dims} for {claim.name!r} does "
                                    f"not replay: every element is at one offset")
                return _refuted(claim, w, f"{what}, yet the orders differ", seconds, scope,
                                claim.lemma)
            if w is None:
                return _agreeing(claim, dims, f"{what}, yet every element is at one offset in "
                                 f"both layouts (replayed on every element)", seconds,
                                 claim.lemma)
            return Result(claim.subject, claim.lemma, UNKNOWN, seconds, scope=scope,
                          reason=f"{what} at m={dims[0]}, n={dims[1]} and element (0, 128) "
                                 f"is at one offset in both: it is not the witness there")
    return Result(claim.subject, claim.lemma, PROVED, time.perf_counter() - start, scope=scope)


def _agreeing(claim: OperandOrder, dims, what: str, seconds: float, prop: str) -> Result:
    m, n = dims
    xla = parse_array_shape(f"{claim.element_type}[{m},{n}]{{1,0:{claim.tiling}}}")
    mosaic = mosaic_layout(claim.element_type, (m, n), claim.chip)
    ce = Counterexample({"m": m, "n": n}, (), what=what,
                        details={"xla": format_shape(xla), "mosaic": format_shape(mosaic)})
    return Result(claim.subject, prop, REFUTED, seconds, scope=claim.scope, counterexample=ce)


#: Sizes a refutation of a claim's condition is first looked for below:
#: small enough that its every element is replayed.
_SEARCH_BOUNDS = (64, 1024)


def prove_operand_order(claim: OperandOrder, timeout: float = DEFAULT_TIMEOUT) -> Result:
    """Prove ``claim`` for all ``m, n >= 1``: the lemma, then that its
    condition is the claim's at every ``m, n``.  A shape where they differ
    is replayed: where the claim's condition holds and the orders differ, the
    element that differs; where it fails and they agree, every element at
    one offset in both (then the result names no element)."""
    import z3

    lemma = prove_order_lemma(claim, timeout)
    if lemma.status != PROVED:
        return lemma
    start = time.perf_counter()
    ctx = z3.Context()
    t = _Terms(claim, z3, ctx)
    differ = z3.And(*t.enc.assumptions, claim.holds(t.m, t.n, t.ops) != t.agrees())
    answer, detail = "unknown", ""
    for bound in (*_SEARCH_BOUNDS, None):
        small = z3.BoolVal(True, ctx) if bound is None else z3.And(t.m <= bound, t.n <= bound)
        answer, detail = search(z3.And(differ, small), ctx, timeout)
        if answer != "unsat":
            break
    seconds = lemma.seconds + time.perf_counter() - start
    if answer == "unsat":
        return Result(claim.subject, claim.name, PROVED, seconds, scope=claim.scope)
    if answer == "unknown":
        return Result(claim.subject, claim.name, UNKNOWN, seconds, scope=claim.scope,
                      reason=str(detail))
    m, n = _dims(detail, t)
    w = witness(claim.element_type, claim.tiling, claim.chip, (m, n))
    if claim.holds(m, n):
        if w is None:
            raise ProverBug(f"{claim.name!r} at m={m}, n={n}: the orders agree on replay")
        return _refuted(claim, w, "the condition holds, yet the orders differ", seconds,
                        claim.scope, claim.name)
    if w is not None:
        raise ProverBug(f"{claim.name!r} at m={m}, n={n}: the orders differ on replay")
    return _agreeing(claim, (m, n), "the condition fails, yet every element is at one offset "
                     "in both layouts (replayed on every element)", seconds, claim.name)


#: The claims shipped: XLA's default tilings of f32, bf16 and s8 on v5e,
#: f32 on v3 (two rows at least before v4), and pytorch/xla#8732's 1-d tile.
OPERAND_CLAIMS = (
    OperandOrder("f32", "T(8,128)", "v5e", "m >= 5 or n <= 128"),
    OperandOrder("bf16", "T(8,128)(2,1)", "v5e", "m >= 5 or n <= 128"),
    OperandOrder("s8", "T(32,128)(4,1)", "v5e",
                 "m % 32 == 0 or n <= 128"),
    OperandOrder("f32", "T(8,128)", "v3", "m >= 5 or n <= 128"),
    OperandOrder("f32", "T(128)", "v5e", "m == 1 or n <= 128"),
)
