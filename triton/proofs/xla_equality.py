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
"""

from __future__ import annotations

from typing import Any

import z3

from ...cute.proofs import BitVectorArithmetic
from ...prover.names import DEFAULT_TIMEOUT
from ...prover.result import Result
from ...spec import (
    INT,
    DimValues,
    ShapeLike,
    as_shape,
    concrete_dims,
    evaluate,
    format_shape,
    padded_elements,
    shape_pipeline,
)
from .. import LinearLayout, TritonLayoutError, basis_layout
from .claims import Variable, apply, decide

NAME = "linear layout equals the spec"


def prove_from_xla(shape: ShapeLike, layout: LinearLayout | None = None, *,
                   dims: DimValues | None = None, timeout: float = DEFAULT_TIMEOUT) -> Result:
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
        raise TritonLayoutError("symbolic", f"{format_shape(s)} has named dims; the proof is "
                                "for given sizes")
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
