"""The generated tile/untile code proved exact, and for which sizes.

:mod:`codegen.tile_code` writes ``tile`` and ``untile`` around the ``offset``
that ``formula`` writes, and sizes their buffers with two expressions.  So
what must hold for the code to be exact is:

- the file holds ``formula``'s ``offset``, verbatim (checked here on the
  text; else a :class:`~tilespec.prover.result.ProverBug`), and the loops
  reach every element once, in row-major order (they are one ``for`` per
  dim, from 0 to the dim);
- ``offset`` equals the spec, with every subexpression in int64
  (:func:`prover.codegen.generated.prove_generated`; the numpy code runs
  ``offset`` on int64 arrays, so Python is checked as int64 too);
- the image's element count and bytes equal the spec's
  :func:`~tilespec.spec.size.aligned_elements` and
  :func:`~tilespec.spec.size.byte_size`, with (in C) every subexpression in
  int64.  Python computes the sizes on its own unbounded ints.

Named dims range over every size for which the image is addressable: its
padded elements and its bytes below 2^63 (the scope says so).

>>> from tilespec.spec.text import parse_array_shape as shape
>>> [(r.property, r.status) for r in prove_tiling(shape("u4[3,5]{1,0:T(2,2)E(4)}"), "c")]
[('generated c offset', 'proved'), ('generated c image elements', 'proved'), \
('generated c tile_bytes', 'proved')]
>>> prove_tiling(shape("u4[m]{0:T(8)E(4)}"), "c")[-1].scope
'all shapes: m >= 1, padded elements < 2^63, bytes < 2^63'
"""

from __future__ import annotations

import time

import z3

from ...codegen import Code, CodeArithmetic, CodegenError, symbolic, tile_code
from ...spec import (
    Shape,
    aligned_elements,
    byte_size,
    dims_through,
    format_shape,
    names,
    shape_pipeline,
)
from ..core import DEFAULT_TIMEOUT, Encoding, scope, search
from ..result import PROVED, REFUTED, UNKNOWN, Counterexample, ProverBug, Result, Side
from .compile_check import c_compiles
from .generated import prove_generated
from .interpret import INT64_MAX, Exact, expression, interpret
from .terms import Terms, distinct_ranges, no_overflow

#: The premise on the image's elements when L(n) rounds them up.
WITH_TAIL = "padded elements with L(n)'s < 2^63"

#: What the two size expressions must equal, by the name they are proved under.
SIZES = {"image elements": aligned_elements, "tile_bytes": byte_size}


def source(shape: Shape, language: str) -> str:
    """The generated tile/untile file of ``shape`` in ``language``."""
    if language not in ("python", "c"):
        raise CodegenError(f"language {language!r} is not 'python' or 'c'")
    return tile_code.c_source(shape) if language == "c" else tile_code.python_source(shape)


def prove_tiling(shape: Shape, language: str = "c", *,
                 timeout: float = DEFAULT_TIMEOUT) -> list[Result]:
    """Prove the generated tile/untile code of ``shape`` exact: its
    ``offset`` and its two sizes, each a :class:`Result`."""
    text = source(shape, language)
    c = language == "c"
    offset = (symbolic.c_offset_function if c else symbolic.python_offset_function)(shape)
    formula = (symbolic.c_source if c else symbolic.python_source)(shape)
    if offset not in text or offset not in formula:
        raise ProverBug("the tile/untile code does not hold formula's offset verbatim")
    whole = c_compiles(text, "the whole tile/untile file") if c else _python_compiles(text)
    results = prove_generated(shape, language, timeout=timeout, int64=True,
                              functions=("offset",))
    return results + _prove_sizes(shape, language, whole, timeout)


def joint_scope(results) -> str:
    """The sizes every result covers: each result's conditions, once each,
    in order (the offset's and the sizes' premises together).

    >>> from tilespec.prover.result import Result
    >>> joint_scope([Result("s", "a", "proved", 0, "all shapes: m >= 1, x < 2"),
    ...              Result("s", "b", "proved", 0, "all shapes: m >= 1, y < 3")])
    'all shapes: m >= 1, x < 2, y < 3'
    """
    parts: list[str] = []
    for r in results:
        for part in r.scope.split(", "):
            if part not in parts:
                parts.append(part)
    if WITH_TAIL in parts:      # the elements with L(n)'s tail are at least as many
        parts = [p for p in parts if p != "padded elements < 2^63"]
    return ", ".join(parts)


def _python_compiles(text: str) -> tuple[None, str]:
    try:
        compile(text, "<generated>", "exec")
    except SyntaxError as e:
        raise ProverBug(f"the generated Python does not compile: {e}") from e
    return None, "Python: the whole tile/untile file compiles"


def _prove_sizes(shape: Shape, language: str, compiled, timeout: float) -> list[Result]:
    """The image's elements and bytes as the code computes them equal the
    spec's for every size in scope, and, in C, no subexpression leaves int64.

    Z3 does not see by itself that two products of the same ceilings are
    equal, so the equality is shown in two steps: each of the tiled
    array's final dims, as the code writes it, equals the spec's (a linear
    question); the spec's size with those dims replaced by the code's
    (equals for equals) then simplifies to the code's size term for term,
    or else Z3 is asked.
    """
    start = time.perf_counter()
    c = language == "c"
    ctx = z3.Context()
    enc = Encoding(shape, ctx)
    named = names(shape, language)
    env = {w: enc.names[u] for u, w in named.spelling}
    texts = tile_code.image_sizes(shape, language)
    nodes = [expression(t, language) for t in texts]
    tr = Terms(env, ctx, language, int64=c)
    theirs = [interpret(nodes[0], tr)]
    mark = len(tr.ranges)
    theirs.append(interpret(nodes[1], tr))
    ranges = [tr.ranges[:mark], tr.ranges]
    conditions = z3.And(z3.BoolVal(True, ctx), *tr.conditions)
    dims_ok = z3.And(z3.BoolVal(True, ctx), *enc.assumptions)
    rejected, compiled_step = compiled
    where = _scope(shape)
    answer, detail, pairs = _same_final_dims(shape, language, enc, env, dims_ok, timeout)
    out = []
    for (name, spec), term, node, checks in zip(SIZES.items(), theirs, nodes, ranges):
        prop = f"generated {language} {name}"
        steps = [s for s in (compiled_step,) if s]
        if answer == "unsat":
            ours = enc.term(spec(shape, enc.dims, enc.ar))
            answer_here, detail_here = _equal(term, z3.substitute(ours, *pairs) if pairs
                                              else ours, dims_ok, conditions, ctx, timeout)
            steps.append(f"Z3: the generated {name} equals the spec's {spec.__name__} "
                         "(the tiled dims first, one by one)")
        else:
            answer_here, detail_here = answer, detail
        if answer_here == "unsat" and c:
            premise = z3.And(dims_ok, *_addressable(shape, theirs))
            answer_here, detail_here, _ = no_overflow(premise, distinct_ranges(checks),
                                                      ctx, timeout)
            steps.append("Z3: every subexpression of it lies in int64 [-2^63, 2^63)"
                         + (" when the padded elements and the bytes are below 2^63"
                            if _bounded(shape) else ""))
        seconds = time.perf_counter() - start
        text = format_shape(shape)
        if answer_here == "unsat":
            if rejected:
                raise ProverBug(f"{prop} proved, but {rejected}")
            out.append(Result(text, prop, PROVED, seconds, where, steps=tuple(steps), shapes=(shape,)))
        elif answer_here == "unknown":
            out.append(Result(text, prop, UNKNOWN, seconds, where, reason=str(detail_here), shapes=(shape,)))
        else:
            out.append(Result(text, prop, REFUTED, seconds, where,
                              counterexample=_witness(shape, named, enc, detail_here, node,
                                                      spec, language), shapes=(shape,)))
    return out


def _same_final_dims(shape: Shape, language: str, enc: Encoding, env: dict, dims_ok,
                     timeout: float):
    """(answer, detail, pairs): whether each dim of the fully tiled array,
    written by the code's arithmetic, equals the spec's ('unsat' when no
    dim differs), and the (spec term, code term) pairs."""
    ctx = enc.ctx
    stages = shape_pipeline(shape)
    ar = CodeArithmetic(language)
    code_dims = tuple(d if w is None else Code(w)
                      for d, w in zip(shape.dims, names(shape, language).dims))
    pairs = []
    for ours, code in zip(dims_through(stages, enc.dims, enc.ar)[-1],
                          dims_through(stages, code_dims, ar)[-1]):
        if isinstance(ours, int) and isinstance(code, int):
            if ours != code:
                raise ProverBug(f"the code's tiled dim {code} is not the spec's {ours}")
            continue
        tr = Terms(env, ctx, language)
        term = interpret(expression(str(code), language), tr)
        ours = enc.term(ours)
        answer, detail = search(z3.And(dims_ok, z3.Or(term != ours, z3.Not(
            z3.And(z3.BoolVal(True, ctx), *tr.conditions)))), ctx, timeout)
        if answer != "unsat":
            return answer, detail, []
        pairs.append((ours, term))
    return "unsat", None, pairs


def _equal(theirs, ours, premise, conditions, ctx, timeout):
    """('unsat', None) when the two terms are equal under ``premise`` (and
    the code divides as floor): identical once simplified, or so by Z3."""
    if z3.simplify(theirs).eq(z3.simplify(ours)):
        answer, detail = search(z3.And(premise, z3.Not(conditions)), ctx, timeout)
    else:
        answer, detail = search(z3.And(premise, z3.Or(theirs != ours, z3.Not(conditions))),
                                ctx, timeout)
    return answer, detail


def _witness(shape: Shape, named, enc: Encoding, model, node, spec,
             language: str) -> Counterexample:
    """A model's sizes replayed on the generated expression (exact integers,
    watching int64 in C) beside the spec's value."""
    dims = enc.dim_values(model)
    run = Exact(language, {w: dims[u] for u, w in named.spelling}, int64=language == "c")
    generated = interpret(node, run)
    wanted = spec(shape, tuple(dims[d] if isinstance(d, str) else d for d in shape.dims))
    if run.fault is None and generated == wanted:
        raise ProverBug(f"the size counterexample {dims} does not replay")
    fault = run.fault or {}
    what = (f"{fault['overflow']} leaves int64 ({fault['value']})" if "overflow" in fault
            else f"the generated code gives {generated}, the spec {wanted}")
    return Counterexample(dims, (Side("generated", value=None if fault else generated),
                                 Side("spec", value=wanted)), what=what, details=fault)


def _addressable(shape: Shape, sizes) -> list:
    """Named dims' premise on the image's (elements, bytes), as the code
    computes them (proved equal to the spec's first): both below 2^63,
    unless no size satisfies that (all names 1 is the smallest image),
    which would make any claim true: then there is none."""
    if not _bounded(shape):
        return []
    return [x <= INT64_MAX for x in sizes]


def _bounded(shape: Shape) -> bool:
    if not shape.is_symbolic:
        return False
    ones = tuple(1 if isinstance(d, str) else d for d in shape.dims)
    return max(aligned_elements(shape, ones), byte_size(shape, ones)) <= INT64_MAX


def _scope(shape: Shape) -> str:
    where = scope(shape)
    if not _bounded(shape):
        return where
    padded = ("padded elements < 2^63"
              if shape.layout.tail_padding_alignment_in_elements == 1 else WITH_TAIL)
    return f"{where}, {padded}, bytes < 2^63"
