"""The linear layout of an XLA layout proved equal to the spec's offsets on
every element, by Z3.

:func:`prove_from_xla` takes a shape (concrete dims) and a linear layout
(by default :func:`tilespec.triton.from_xla`'s) and proves
``layout.apply(c)["offset"] == offset(shape, c)`` for every logical element
``c``: Z3 decides it on bit-vectors, the spec's offset computed by the
spec's own pipeline (:func:`tilespec.spec.evaluate`, the code that computes
offsets on ints, here on Z3 terms), the linear layout by XOR-ing its bases.
A model is replayed on ints.  The proof is for the given sizes (the
coordinates the power-of-two box adds beyond a dim's size are no elements
and are not claimed).

>>> prove_from_xla("f32[24,256]{1,0:T(8,128)}").status
'proved'
>>> from tilespec.triton import LinearLayout
>>> wrong = LinearLayout.from_bases([("dim0", [[2]]), ("dim1", [[1]])], ["offset"])
>>> r = prove_from_xla("f32[2,2]{0,1}", wrong)
>>> r.status, r.counterexample.what
('refuted', 'linear layout == spec offset at offset fails')

Named dims stand for every power-of-two size ``2**a`` with ``a`` in
``exponents`` (by default 0 to 12): the basis of bit ``i`` of a dim is the
spec's offset of the element ``2**i`` along it, computed on the symbolic
sizes, and Z3 proves their XOR equal to the spec's offset at every element
of every such size (refuted with the sizes and the element, replayed):

>>> r = prove_from_xla("bf16[m,n]{1,0:T(8,128)(2,1)}")
>>> r.status, r.scope
('proved', 'all sizes m = 2**a, n = 2**b with 0 <= a, b <= 12, every element')
>>> prove_from_xla("f32[m,n]{1,0:T(2,3)}", exponents=(0, 4)).status
'refuted'
"""

from __future__ import annotations

import time
from typing import Any

import z3

from ...cute.proofs import BitVectorArithmetic
from ...prover.core import search
from ...prover.names import DEFAULT_TIMEOUT
from ...prover.result import PROVED, REFUTED, UNKNOWN, Counterexample, ProverBug, Result, Side
from ...spec import (
    INT,
    DimValues,
    Shape,
    ShapeLike,
    as_shape,
    concrete_dims,
    evaluate,
    format_shape,
    offset,
    padded_elements,
    shape_pipeline,
)
from .. import LinearLayout, TritonLayoutError, basis_layout
from .claims import Variable, apply, decide

NAME = "linear layout equals the spec"


def prove_from_xla(shape: ShapeLike, layout: LinearLayout | None = None, *,
                   dims: DimValues | None = None, exponents: tuple[int, int] = (0, 12),
                   timeout: float = DEFAULT_TIMEOUT) -> Result:
    """Prove ``layout`` gives the spec's offset, in elements, at every
    element of ``shape``; by default the layout of the power-of-two
    elements' offsets (:func:`tilespec.triton.basis_layout`), so the proof
    decides linearity too, at any size: refuted where the offsets are not
    linear.

    >>> prove_from_xla("f32[3,5]{1,0:T(2,2)}").status
    'refuted'
    """
    s = as_shape(shape, dims)
    if s.is_symbolic:
        if layout is not None:
            raise TritonLayoutError("symbolic", f"{format_shape(s)} has named dims: a given "
                                    "linear layout has fixed sizes")
        return _prove_power_of_two_sizes(s, exponents, timeout)
    ll = basis_layout(s) if layout is None else layout
    sizes = concrete_dims(s)
    names = [f"dim{k}" for k in range(len(sizes))]
    if list(ll.in_dim_names) != names or ll.out_dim_names != ("offset",):
        raise TritonLayoutError("dims", f"the layout's dims {list(ll.in_dim_names)} -> "
                                f"{list(ll.out_dim_names)} are not {names} -> ['offset']")
    stages = shape_pipeline(s)
    width = 2 * max(padded_elements(s), ll.out_dim_size("offset"), *sizes).bit_length() + 2

    def sides(v: dict[str, Any]):
        coords = tuple(v[n] for n in names)
        first = coords[0] if coords else None
        ar = BitVectorArithmetic(first.ctx, first.size()) \
            if isinstance(first, z3.ExprRef) else INT
        spec = evaluate(stages, coords, sizes, ar)
        return [("linear layout == spec offset at offset", apply(ll, dict(zip(names, coords)))
                 ["offset"], spec)]
    return decide(format_shape(s), NAME, [Variable(n, d) for n, d in zip(names, sizes)], sides,
                  width, timeout, scope="concrete dims, every element")


def _prove_power_of_two_sizes(s: Shape, exponents: tuple[int, int], timeout: float) -> Result:
    """The basis layout equal to the spec at every element, for every size
    ``2**a`` (``a`` in ``exponents``) of each named dim."""
    lo, hi = exponents
    if not 0 <= lo <= hi <= 24:
        raise TritonLayoutError("exponents", f"exponents {exponents}: give 0 <= lo <= hi <= 24")
    names = s.names
    start = time.perf_counter()
    tiles = 1
    for tile in s.layout.tiles:
        for t in tile.sizes:
            tiles *= max(t, 1)
    fixed = [d for d in s.dims if isinstance(d, int)]
    width = hi * len(names) + sum(max(d, 1).bit_length() for d in fixed) + \
        2 * tiles.bit_length() + 8
    ctx = z3.Context()
    ar = BitVectorArithmetic(ctx, width)
    bv = {n: z3.BitVec(f"a_{n}", width, ctx) for n in names}
    one = z3.BitVecVal(1, width, ctx)
    dims = tuple(one << bv[d] if isinstance(d, str) else z3.BitVecVal(d, width, ctx)
                 for d in s.dims)
    bits = [hi if isinstance(d, str) else max(int(d or 0) - 1, 0).bit_length() for d in s.dims]
    coords = [z3.BitVec(f"c{k}", width, ctx) for k in range(len(dims))]
    stages = shape_pipeline(s)
    zero = z3.BitVecVal(0, width, ctx)
    xor = zero
    for k, n_bits in enumerate(bits):
        for i in range(n_bits):
            unit = [zero] * len(dims)
            unit[k] = z3.BitVecVal(1 << i, width, ctx)
            xor = xor ^ (z3.LShR(coords[k], i) & 1) * evaluate(stages, tuple(unit), dims, ar)
    inside = [z3.And(z3.UGE(bv[n], lo), z3.ULE(bv[n], hi)) for n in names] + \
        [z3.ULT(c, d) for c, d in zip(coords, dims)]
    spec = evaluate(stages, tuple(coords), dims, ar)
    answer, detail = search(z3.And(*inside, xor != spec), ctx, timeout)
    seconds = time.perf_counter() - start
    letters = "abcdefghijklmnopqrstuvwxyz"
    scope = ("all sizes " + ", ".join(f"{n} = 2**{letters[i]}" for i, n in enumerate(names))
             + f" with {lo} <= {', '.join(letters[:len(names)])} <= {hi}, every element")
    text = format_shape(s)
    steps = (f"Z3 on {width}-bit vectors: the XOR of the bases (the offsets of the "
             "power-of-two elements) == the spec's offset, for every element of every size",)
    if answer == "unsat":
        return Result(text, NAME, PROVED, seconds, scope, steps=steps)
    if answer == "unknown":
        return Result(text, NAME, UNKNOWN, seconds, scope, reason=str(detail), steps=steps)
    sizes = {n: 1 << detail.eval(bv[n], model_completion=True).as_long() for n in names}
    element = tuple(detail.eval(c, model_completion=True).as_long() for c in coords)
    concrete = as_shape(text, sizes)
    want, got = int(offset(concrete, element)), basis_layout(concrete).apply(
        {f"dim{k}": v for k, v in enumerate(element)})["offset"]
    if want == got:
        raise ProverBug(f"{text}: the solver's sizes {sizes} and element {element} do not "
                        "replay")
    ce = Counterexample(sizes, (Side("linear", element=element, offset=got),
                                Side("spec", element=element, offset=want)),
                        what="linear layout == spec offset fails")
    return Result(text, NAME, REFUTED, seconds, scope, counterexample=ce, steps=steps)
