"""CuTe layouts and XLA layouts proved equal, by Z3: the export, a
comparison, and the import.

:func:`compare_cute` answers "is this CuTe layout equal to this XLA layout
on every element?"; :func:`from_cute` finds the XLA layout of a CuTe
layout and proves it with :func:`compare_cute`; :func:`prove_cute` proves
the export.

:func:`tilespec.cute.xla.cute_layout` reads a layout's pipeline and writes
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
>>> compare_cute(shape("f32[24,256]{1,0:T(8,128)}"), "((8,3),(128,2)):((128,2048),(1,1024))").status
'proved'
>>> r = compare_cute(shape("f32[24,256]{1,0}"), "((8,3),(128,2)):((128,2048),(1,1024))")
>>> r.status, r.counterexample.side("spec").element, r.counterexample.side("cute").offset
('refuted', (0, 128), 1024)
>>> print(from_cute("((8,3),(128,2)):((128,2048),(1,1024))", like=shape("f32[24,256]")))
f32[24,256]{1,0:T(8,128)}
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

import z3

from ...prover.core import DEFAULT_TIMEOUT, Encoding, scope, search
from ...prover.result import (
    PROVED,
    REFUTED,
    UNKNOWN,
    Counterexample,
    ProverBug,
    Result,
    Side,
)
from ...spec import (
    INT,
    DimValues,
    LayoutError,
    Shape,
    ShapeError,
    as_shape,
    evaluate,
    format_shape,
    offset as spec_offset,
    padded_elements,
    shape_pipeline,
)
from .. import Layout, as_layout, cute_layout, digit_coordinate, digits, dim_modes, xla_tilings

NAME = "cute layout equals the spec"
COMPARED = "cute layout equals the XLA layout"


def prove_cute(shape: Shape, *, timeout: float = DEFAULT_TIMEOUT) -> Result:
    """Prove that ``cute_layout(shape)`` gives the spec's offsets (for every
    size of the named dims); ``LayoutError`` where no CuTe layout is exact.

    With concrete dims this is :func:`compare_cute` on the export, and the
    CuTe domain's size checked against the padded element count."""
    if not shape.is_symbolic:
        return _prove_export(shape, timeout)
    start = time.perf_counter()
    ctx = z3.Context()
    enc = Encoding(shape, ctx)
    e = enc.fresh("e", shape.rank)
    query, steps = _per_entry(shape, enc, e, shape_pipeline(shape))
    answer, detail = search(query, ctx, timeout)
    text, where = format_shape(shape), scope(shape)
    seconds = time.perf_counter() - start
    if answer == "unsat":
        return Result(text, NAME, PROVED, seconds, where, steps=steps, shapes=(shape,))
    if answer == "unknown":
        return Result(text, NAME, UNKNOWN, seconds, where, reason=detail, shapes=(shape,))
    return Result(text, NAME, REFUTED, seconds, where,
                  counterexample=_replay(shape, enc, detail, e), shapes=(shape,))


def _prove_export(shape, timeout):
    exported = cute_layout(shape)   # refuses with the reason before Z3 starts
    sizes = padded_elements(shape), exported.size
    r = compare_cute(shape, exported, timeout=timeout)
    steps = r.steps + ("the CuTe domain has the spec's padded element count",)
    ce = r.counterexample
    if r.status == PROVED and sizes[0] != sizes[1]:
        ce = Counterexample({}, (Side("spec", value=sizes[0]), Side("cute", value=sizes[1])),
                            what="the padded element counts differ",
                            details={"cute": exported.cute_text()})
    return replace(r, property=NAME, status=REFUTED if ce is not None else r.status,
                   counterexample=ce, steps=steps)


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
        wrong_value.append(ar.term(value) != ar.term(number))
        wrong_size.append(ar.term(size) != ar.term(weight))
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
    details = {"cute": layout.cute_text()}
    if all(0 <= x < d for x, d in zip(element, concrete.dims)):
        ours, theirs = spec_offset(concrete, element), layout(*element)
        if ours != theirs:
            return Counterexample(values, (Side("spec", element=tuple(element), offset=ours),
                                           Side("cute", element=tuple(element), offset=theirs)),
                                  what="the offsets differ", details=details)
    sizes = padded_elements(concrete), layout.size
    if sizes[0] != sizes[1]:
        return Counterexample(values, (Side("spec", value=sizes[0]),
                                       Side("cute", value=sizes[1])),
                              what="the padded element counts differ", details=details)
    raise ProverBug(f"CuTe counterexample at {values} and element {element} do not replay")


# --- any CuTe layout against an XLA layout ---------------------------------------

def compare_cute(shape: Shape, cute: Any, *, timeout: float = DEFAULT_TIMEOUT) -> Result:
    """Is the CuTe layout ``cute`` equal to ``shape``'s layout on every element?

    ``cute`` is a :class:`tilespec.cute.Layout`, its text (nested
    ``(shape):(stride)``, as pycute or CuTe's C++ print it), or a pycute
    ``Layout``.  Its top-level modes are the logical dims (for a rank-1
    shape, the whole layout is the one mode), each at least as long as its
    dim.  Proved when Z3 finds no element whose offsets differ; refuted
    with the first such element in row-major order (the earliest Z3 could
    confirm within the time limit; ``details["first_in_row_major_order"]``
    says whether it is the first), replayed on tilespec's evaluation of both
    sides and on pycute when it is installed; unknown when Z3 gives up.
    """
    layout = as_layout(cute)
    dims = _checked_dims(shape, layout)
    start = time.perf_counter()
    ctx = z3.Context()
    enc = Encoding(shape, ctx)
    e = enc.fresh("e", shape.rank)
    ours = enc.term(evaluate(shape_pipeline(shape), e, enc.dims, enc.ar))
    theirs = enc.term(_cute_offset(layout, e, enc.ar))
    differ = z3.And(enc.box(e, enc.dims), ours != theirs)
    answer, detail = search(differ, ctx, timeout)
    text = format_shape(shape)
    steps = (f"CuTe layout {layout.cute_text()}",
             "Z3: the CuTe offset equals the XLA layout's on every element")
    if answer == "unsat":
        return Result(text, COMPARED, PROVED, time.perf_counter() - start, steps=steps, shapes=(shape,))
    if answer == "unknown":
        return Result(text, COMPARED, UNKNOWN, time.perf_counter() - start, reason=detail, shapes=(shape,))
    element, first = _earliest(enc, e, differ, detail, dims, timeout)
    return Result(text, COMPARED, REFUTED, time.perf_counter() - start, steps=steps,
                  counterexample=_replay_compare(shape, layout, element, first), shapes=(shape,))


def _checked_dims(shape: Shape, layout: Layout) -> tuple[int, ...]:
    if shape.is_symbolic or any(d is None for d in shape.dims):
        raise ShapeError(f"{format_shape(shape)}: a CuTe layout has fixed sizes; "
                         "give every dim a size")
    dims = tuple(d for d in shape.dims if isinstance(d, int))
    modes = dim_modes(layout, shape.rank)
    if len(modes) != shape.rank:
        raise LayoutError(f"the CuTe layout {layout.cute_text()} has {layout.rank} "
                          f"mode{'s' * (layout.rank != 1)}, {format_shape(shape)} has "
                          f"{shape.rank} dim{'s' * (shape.rank != 1)}: one mode per dim")
    for i, (mode, d) in enumerate(zip(modes, dims)):
        if mode.size < d:
            raise LayoutError(f"mode {i} of the CuTe layout {layout.cute_text()} holds "
                              f"{mode.size} coordinates, fewer than the {d} of dim {i}")
    return dims


def _cute_offset(layout: Layout, element, ar=INT):
    """The CuTe offset of a logical element: one coordinate per dim's mode."""
    return layout(*element, ar=ar)


def _row_major(e, dims):
    total: Any = 0
    for x, d in zip(e, dims):
        total = total * d + x
    return total


def _earliest(enc, e, differ, model, dims, timeout):
    """The first differing element in row-major order, by bisection on its
    row-major number (each step a Z3 call); whether it is surely the first."""
    best = [enc.value(model, x) for x in e]
    low, high = 0, _row_major(best, dims)
    number = _row_major(e, dims)
    while low < high:
        middle = (low + high) // 2
        answer, detail = search(z3.And(differ, number <= middle), enc.ctx, timeout)
        if answer == "sat":
            best = [enc.value(detail, x) for x in e]
            high = _row_major(best, dims)
        elif answer == "unsat":
            low = middle + 1
        else:
            return best, False
    return best, True


def _replay_compare(shape, layout, element, first) -> Counterexample:
    ours, theirs = spec_offset(shape, element), _cute_offset(layout, element)
    if ours == theirs:
        raise ProverBug(f"CuTe comparison: element {element} does not replay")
    details: dict = {"cute_layout": layout.cute_text(), "first_in_row_major_order": first}
    judge = pycute_offset(layout, element)
    if judge is not None:
        if judge != theirs:
            raise ProverBug(f"pycute gives offset {judge} for element {element} of "
                            f"{layout.cute_text()}, tilespec's CuTe evaluation {theirs}")
        details["pycute"] = judge
    return Counterexample({}, (Side("spec", element=tuple(element), offset=ours),
                               Side("cute", element=tuple(element), offset=theirs)),
                          what="the offsets differ", details=details)


def pycute_offset(layout: Layout, element) -> int | None:
    """The offset pycute (nvidia-cutlass's CuTe in Python) computes for a
    logical element, or None when pycute is not installed."""
    try:
        import pycute
    except ImportError:
        return None
    judge = pycute.Layout(layout.shape, layout.stride)
    return int(judge(element[0]) if len(element) == 1 else judge(*element))


def from_cute(cute: Any, like: Shape | str, *, dims: DimValues | None = None,
              timeout: float = DEFAULT_TIMEOUT) -> Shape:
    """The XLA layout of ``like`` (its element type and dims; its own layout
    is not read) whose offsets equal the CuTe layout ``cute``'s on every
    element, proved by :func:`compare_cute`, and whose padded size is the
    CuTe layout's cosize, as :func:`prove_cute` asks of an export: every
    coordinate of the CuTe layout, also those beyond the dims, has its place
    in XLA's buffer, whichever dim they extend.

    ``cute`` as for :func:`compare_cute`.  The layout is read off the CuTe
    digits (:func:`tilespec.cute.xla.xla_tilings`: the fewest tile
    levels); ``LayoutError`` says why none was found or, when every
    candidate was refuted, where the first one differs.  A proof Z3 does
    not decide raises ``LayoutError`` too (nothing is claimed unproved).
    ``dims`` sizes the names of ``like``, as everywhere a shape is taken.
    """
    like = as_shape(like, dims)
    layout = as_layout(cute)
    candidates = xla_tilings(layout, _checked_dims(like, layout))
    failures = []
    for candidate in candidates:
        shape = like.with_layout(candidate)
        r = compare_cute(shape, layout, timeout=timeout)
        if r.status == PROVED and padded_elements(shape) == layout.cosize:
            return shape
        if r.status == PROVED:  # extra coordinates of a major dim change no offset
            failures.append(f"{format_shape(shape)} has its offsets but "
                            f"{padded_elements(shape)} padded elements, not the "
                            f"{layout.cosize} of the CuTe layout")
            continue
        failures.append(f"{format_shape(shape)} is {r.status}" + (
            f" at element {r.counterexample.side('spec').element}" if r.counterexample
            else f" ({r.reason})"))
    raise LayoutError(f"no XLA layout of {format_shape(like)} proved equal to the CuTe "
                      f"layout {layout.cute_text()}: " + "; ".join(failures))
