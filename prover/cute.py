"""The CuTe export proved equal to the spec, by Z3.

:func:`tilespec.interop.cute.cute_layout` reads a layout's pipeline and writes
nested shape:stride modes.  Z3 checks, in a fresh context with a time limit
per call, the spec's pipeline (the same code that computes offsets on ints,
here on Z3 terms) against the CuTe layout:

- concrete dims: on every element ``e`` the CuTe offset equals the spec's
  offset, and the CuTe domain has the spec's padded element count;
- dims written as names (for every size): for each entry of the tiled
  array's final index vector, its value equals the number its CuTe digits'
  coordinates make (minor first), and its size equals their product.  The
  offsets are then equal by algebra: the spec's offset is the row-major
  linear index of that vector, ``sum_k entry_k * S_k`` with ``S_k`` the
  product of the sizes after entry k, and the CuTe stride of a digit is
  by construction ``S_k`` times the digits before it in its entry.  The
  per-entry facts are linear (division by tile sizes only), where a whole
  offset compared at once is not.

>>> from tilespec.spec.text import parse_array_shape as shape
>>> r = prove_cute(shape("bf16[m,n]{1,0:T(8,128)(2,1)}"))
>>> r.property, r.status, r.scope
('cute layout equals the spec', 'proved', 'all shapes: m >= 1, n >= 1')
>>> prove_cute(shape("f32[3,5]{1,0:T(2,2)}")).status
'proved'
"""

from __future__ import annotations

import time

import z3

from tilespec.interop.cute import cute_layout, cute_size, digit_coordinate, digits
from tilespec.prover.core.encode import Encoding, scope
from tilespec.prover.core.solve import DEFAULT_TIMEOUT, search
from tilespec.prover.result import PROVED, REFUTED, UNKNOWN, Counterexample, ProverBug, Result, Side
from tilespec.spec.index import evaluate, padded_elements, shape_pipeline
from tilespec.spec.index import offset as spec_offset
from tilespec.spec.layout import Shape
from tilespec.spec.text import format_shape

NAME = "cute layout equals the spec"


def prove_cute(shape: Shape, *, timeout: float = DEFAULT_TIMEOUT) -> Result:
    """Prove that ``cute_layout(shape)`` gives the spec's offsets (for every
    size of the named dims); ``LayoutError`` where no CuTe layout is exact."""
    start = time.perf_counter()
    if not shape.is_symbolic:
        layout = cute_layout(shape)   # refuses with the reason before Z3 starts
    ctx = z3.Context()
    enc = Encoding(shape, ctx)
    e = enc.fresh("e", shape.rank)
    stages = shape_pipeline(shape)
    if shape.is_symbolic:
        query, steps = _per_entry(shape, enc, e, stages)
    else:
        query, steps = _whole_offset(shape, enc, e, stages, layout)
    answer, detail = search(query, ctx, timeout)
    text, where = format_shape(shape), scope(shape)
    seconds = time.perf_counter() - start
    if answer == "unsat":
        return Result(text, NAME, PROVED, seconds, where, steps=steps)
    if answer == "unknown":
        return Result(text, NAME, UNKNOWN, seconds, where, reason=detail)
    return Result(text, NAME, REFUTED, seconds, where,
                  counterexample=_replay(shape, enc, detail, e))


def _whole_offset(shape, enc, e, stages, layout):
    ar = enc.ar
    ours = ar._term(evaluate(stages, e, enc.dims, ar))
    theirs = ar._term(layout(e, ar))
    size_spec = padded_elements(shape)
    query = z3.Or(z3.And(enc.box(e, enc.dims), theirs != ours),
                  z3.BoolVal(size_spec != cute_size(layout), enc.ctx))
    return query, (f"CuTe layout {layout}",
                   "Z3: the CuTe offset equals the spec's on every element",
                   "the CuTe domain has the spec's padded element count")


def _per_entry(shape, enc, e, stages):
    ar = enc.ar
    per_dim, entries = digits(shape, enc.dims, ar)
    x, d = tuple(e), tuple(enc.dims)
    for s in stages:
        x, d = s.forward(x, d, ar), s.dims(d, ar)
    wrong_value, wrong_size = [], []
    for value, size, entry in zip(x, d, entries):
        number, weight = 0, 1
        for digit in entry:
            number = ar.add(number, ar.mul(digit_coordinate(per_dim, digit, e, ar), weight))
            weight = ar.mul(weight, digit.size)
        wrong_value.append(ar._term(value) != ar._term(number))
        wrong_size.append(ar._term(size) != ar._term(weight))
    query = z3.And(*enc.assumptions, z3.Or(
        z3.And(enc.box(e, enc.dims), z3.Or(wrong_value)), z3.Or(wrong_size)))
    return query, (
        "Z3: each entry of the tiled index vector equals the number its CuTe "
        "digits make, and its size their product",
        "hence the offsets are equal: row-major linear index = sum of "
        "digit coordinate times CuTe stride (distributivity)")


def _replay(shape, enc, model, e) -> Counterexample:
    """The witness on plain ints; a ProverBug if it shows no difference."""
    values = enc.dim_values(model)
    concrete = shape.instantiate(values)
    layout = cute_layout(concrete)
    element = [enc.value(model, x) for x in e]
    details = {"cute": str(layout)}
    if all(0 <= x < d for x, d in zip(element, concrete.dims)):
        ours, theirs = spec_offset(concrete, element), layout(element)
        if ours != theirs:
            return Counterexample(values, (Side("spec", element=tuple(element), offset=ours),
                                           Side("cute", element=tuple(element), offset=theirs)),
                                  what="the offsets differ", details=details)
    sizes = padded_elements(concrete), cute_size(layout)
    if sizes[0] != sizes[1]:
        return Counterexample(values, (Side("spec", value=sizes[0]),
                                       Side("cute", value=sizes[1])),
                              what="the padded element counts differ", details=details)
    raise ProverBug(f"CuTe counterexample at {values} and element {element} do not replay")
