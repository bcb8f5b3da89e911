"""XLA -> CuTe -> Triton -> XLA, each step proved or refuted by Z3.

:func:`three_way` takes a tiled XLA shape and returns three steps, each an
answer and the :class:`~tilespec.prover.result.Result` about it:

1. the CuTe layout of the shape (:func:`tilespec.cute.cute_layout`),
   proved equal to the spec's offsets by :func:`tilespec.cute.proofs.prove_cute`;
2. the linear layout of that CuTe layout: basis ``i`` of ``dimk`` is the
   CuTe offset of the coordinate ``2**i`` in mode ``k``; proved equal to
   the CuTe layout on every logical element (refuted, with a replayed
   element, where the CuTe layout is not F2-linear there);
3. the XLA layout of that linear layout (:func:`tilespec.triton.to_xla`),
   proved equal to it on every element by
   :func:`tilespec.triton.proofs.prove_from_xla`.

A step that fails stops the chain; no exact CuTe layout, or no XLA layout
of the linear layout, is a ``LayoutError`` with the reason.

>>> [(s.name, s.result.status) for s in three_way("f32[8,256]{1,0:T(8,128)}")]
[('XLA -> CuTe', 'proved'), ('CuTe -> Triton', 'proved'), ('Triton -> XLA', 'proved')]
>>> three_way("f32[8,256]{1,0:T(8,128)}")[2].answer
'f32[8,256]{1,0:T(8,128)}'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import z3

from ...cute import Layout, cute_layout, dim_modes
from ...cute.proofs import BitVectorArithmetic, prove_cute
from ...prover.names import DEFAULT_TIMEOUT
from ...prover.result import Result
from ...spec import INT, Shape, ShapeLike, as_shape, concrete_dims, format_shape
from .. import LinearLayout, TritonLayoutError, in_dim, to_xla
from .claims import Variable, apply, decide, width_for
from .xla_equality import prove_from_xla


@dataclass(frozen=True)
class Step:
    """One conversion: its ``name``, the ``answer`` as text, and the proof
    (or refutation) that the answer keeps the offsets."""

    name: str
    answer: str
    result: Result


def linear_of_cute(layout: Layout, dims: tuple[int, ...]) -> LinearLayout:
    """The linear layout whose basis ``i`` of ``dimk`` is ``layout``'s offset
    at the coordinate ``2**i`` of mode ``k`` (one mode per dim of ``dims``).

    >>> from tilespec.cute import parse_cute
    >>> linear_of_cute(parse_cute("(4,2):(2,1)"), (4, 2)).bases
    (('dim0', ((2,), (4,))), ('dim1', ((1,),)))
    """
    bases = []
    for k, d in enumerate(dims):
        vs = []
        for i in range(max(d - 1, 0).bit_length()):
            coords = [0] * len(dims)
            coords[k] = 1 << i
            vs.append([int(layout(*coords)) if len(dims) > 1 else int(layout(coords[0]))])
        bases.append((in_dim(k), vs))
    top = max((v[0] for _, vs in bases for v in vs), default=0)
    return LinearLayout(bases, [("offset", 1 << top.bit_length())])


def prove_cute_linear(layout: Layout, linear: LinearLayout, dims: tuple[int, ...],
                      timeout: float = DEFAULT_TIMEOUT) -> Result:
    """Prove the linear layout equal to the CuTe layout at every coordinate
    below ``dims``."""
    names = [in_dim(k) for k in range(len(dims))]
    modes = dim_modes(layout, len(dims))
    cosize = max(layout.cosize, 2)

    def sides(v: dict[str, Any]):
        coords = [v[n] for n in names]
        first = coords[0] if coords else None
        ar = BitVectorArithmetic(first.ctx, first.size()) \
            if isinstance(first, z3.ExprRef) else INT
        cute: Any = 0
        for mode, c in zip(modes, coords):
            cute = ar.add(cute, mode(c, ar=ar))
        return [("linear layout == CuTe layout at offset", apply(linear, dict(zip(names, coords)))
                 ["offset"], cute)]
    width = max(width_for(linear), 2 * cosize.bit_length() + 2)
    return decide(f"{layout.cute_text()} as a linear layout", "linear layout equals the CuTe "
                  "layout", [Variable(n, d) for n, d in zip(names, dims)], sides, width, timeout,
                  scope="concrete dims, every element")


def three_way(shape: ShapeLike, *, timeout: float = DEFAULT_TIMEOUT) -> list[Step]:
    """The three conversions of ``shape`` and their proofs (fewer where a
    step is refuted or unknown)."""
    s = as_shape(shape)
    if not isinstance(s, Shape) or s.is_symbolic:
        raise TritonLayoutError("dims", f"{shape}: an array shape of given sizes is needed")
    dims = concrete_dims(s)
    cute = cute_layout(s)
    steps = [Step("XLA -> CuTe", cute.cute_text(), prove_cute(s, timeout=timeout))]
    if steps[-1].result.status != "proved":
        return steps
    linear = linear_of_cute(cute, dims)
    steps.append(Step("CuTe -> Triton", linear.to_python(),
                      prove_cute_linear(cute, linear, dims, timeout)))
    if steps[-1].result.status != "proved":
        return steps
    back = to_xla(linear, s.element_type, dims)
    steps.append(Step("Triton -> XLA", format_shape(back),
                      prove_from_xla(back, linear, timeout=timeout)))
    return steps
