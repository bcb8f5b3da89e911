"""When two layouts are the same mapping, and the simplest way to write one.

Two shapes with the same dims are *equivalent* when every element has the
same offset under both layouts, the buffers have the same size (padded
elements rounded up to ``L(n)``) and elements take the same bits.  That is a
bitcast whose element pairing is the identity, so it is decided by
:func:`prover.bitcast.prove_reading` with the identity transpose: for one shape,
or for every size of the named dims (compositionally, with the mixed-radix
lemma), with counterexamples replayed on the concrete evaluator.  Fields
that do not move an element (memory space ``S``, index types, ``M``) are
not part of the mapping; :func:`equivalent` lists them when they differ.

:func:`normalize` rewrites a layout into a simpler one and *proves* the two
equivalent before returning it; a rewrite whose proof fails is not made:

* the last tiling level goes when it changes nothing: a tile of ones, or
  (for these dims, or for all sizes of the names) a level that pads nothing
  and keeps the row-major order;
* the last level's tile loses leading ``1`` entries (``T(1,128)`` is
  ``T(128)``: a leading one splits a dim into itself and a unit);
* ``L(n)`` goes when the padded size is always a multiple of n.

Only the last level is rewritten: a level changes the vector every later
tile sees, so dropping an inner one would move the later tiles.

>>> from tilespec.spec.text import parse_array_shape as shape
>>> equivalent(shape("f32[m,n]{1,0:T(1,1)}"), shape("f32[m,n]{1,0}")).status
'proved'
>>> r = equivalent(shape("f32[1,n]{1,0:T(8,128)}"), shape("f32[1,n]{1,0:T(1,128)}"))
>>> r.status, [side.name for side in r.counterexample.sides], r.counterexample.what
('refuted', ['a', 'b'], 'the offsets and the sizes differ')
>>> simpler, proof = normalize(shape("bf16[m,n]{1,0:T(8,128)(2,1)(1,1)}"))
>>> str(simpler), proof.status
('bf16[m,n]{1,0:T(8,128)(2,1)}', 'proved')
>>> str(normalize(shape("f32[16,128]{1,0:T(8,128)}"))[0])
'f32[16,128]{1,0}'
"""

from __future__ import annotations

import dataclasses
import time

import z3

from ..spec import (
    INT,
    Shape,
    Tile,
    TilespecError,
    concrete_dims,
    dims_through,
    format_shape,
    padded_elements,
    shape_pipeline,
)
from .bitcast import prove_reading
from .core import DEFAULT_TIMEOUT, Encoding, constant, search
from .models import level_conditions
from .result import (
    PROVED,
    REFUTED,
    Counterexample,
    ProverBug,
    Result,
)

#: Layout fields that do not move any element.
_NOT_MAPPING = ("memory_space", "index_primitive_type", "pointer_primitive_type",
                "dynamic_shape_metadata_prefix_bytes", "dim_level_types")


def equivalent(a: Shape, b: Shape, *, timeout: float = DEFAULT_TIMEOUT) -> Result:
    """Do ``a`` and ``b`` (same dims) lay out every element at the same offset
    in buffers of the same size?"""
    for name, s in (("A", a), ("B", b)):
        if not isinstance(s, Shape):
            raise TilespecError(f"{name} must be an array shape, not a tuple")
    if tuple(a.dims) != tuple(b.dims):
        raise TilespecError(
            f"the layouts of {format_shape(a)} and {format_shape(b)} cannot be "
            "compared: the dims differ (use 'tilespec bitcast' for a reshape)")
    r = prove_reading(a, b, tuple(range(a.rank)), timeout=timeout)
    ce = r.counterexample
    if ce is not None:
        ce = _rename(ce)
    steps = tuple(s for s in r.steps if not s.startswith("transpose:"))
    differ = [f for f in _NOT_MAPPING if getattr(a.layout, f) != getattr(b.layout, f)]
    if differ:
        steps += (f"not part of the mapping, and different: {', '.join(differ)}",)
    if tuple(a.dynamic) != tuple(b.dynamic):
        # a bounded dim's elements are laid out at its bound on both sides;
        # its size at run time is metadata outside the layout
        steps += ("the dims' dynamic marks differ (<=N: laid out at the bound N): not part "
                  "of the mapping; the size a dynamic dim has at run time is metadata "
                  "beside the elements, not compared",)
    if a.element_type != b.element_type:
        # equal widths (else refuted above): the bytes line up, but the two
        # shapes do not hold the same values
        steps += (f"the element types differ ({a.element_type} and {b.element_type}): "
                  "the layouts are equivalent, the arrays are not the same values",)
    return dataclasses.replace(r, shape=f"{format_shape(a)} vs {format_shape(b)}",
                               property="equivalent", counterexample=ce, steps=steps)


def _rename(ce: Counterexample) -> Counterexample:
    """The bitcast reading's counterexample, its sides named after the two
    layouts compared: source is ``a``, target is ``b``, in its sides and in
    the details given by side (``sizes``), so one name means one layout.

    >>> from tilespec.prover.result import Side
    >>> ce = _rename(Counterexample({}, (Side("source", offset=1), Side("target", offset=2)),
    ...                             details={"sizes": {"source": 8, "target": 4}}))
    >>> ce.offsets, ce.details
    ({'a': 1, 'b': 2}, {'sizes': {'a': 8, 'b': 4}})
    """
    names = {"source": "a", "target": "b"}

    def by_side(value):
        if isinstance(value, dict) and names.keys() & value.keys():
            return {names.get(k, k): v for k, v in value.items()}
        return value

    return dataclasses.replace(
        ce, sides=tuple(dataclasses.replace(side, name=names.get(side.name, side.name))
                        for side in ce.sides),
        details={k: by_side(v) for k, v in ce.details.items()})


# --- normalisation ------------------------------------------------------------------

def _last_level_noop(shape: Shape, timeout: float) -> bool:
    """The last tiling level pads nothing and keeps the order, for these
    dims or (names) for every size: then it changes no offset and no size."""
    tiles = shape.layout.tiles
    if not tiles:
        return False
    if all(t == 1 for t in tiles[-1].sizes):
        return True
    level = {len(tiles)}
    if not shape.is_symbolic:
        return all(bool(c) for _, c in
                   level_conditions(shape, concrete_dims(shape), INT, level, order=True))
    ctx = z3.Context()
    enc = Encoding(shape, ctx)
    conds = level_conditions(shape, enc.dims, enc.ar, level, order=True)
    if not conds:
        return True
    claim = z3.And([enc.ar.term(c) for _, c in conds])
    answer, _ = search(z3.And(*enc.assumptions, z3.Not(claim)), ctx, timeout)
    return answer == "unsat"


def _drop_leading_ones(tile: Tile) -> Tile | None:
    sizes = list(tile.sizes)
    while len(sizes) > 1 and sizes[0] == 1:
        sizes.pop(0)
    if sizes == list(tile.sizes):
        return None
    return Tile(tuple(sizes))


def _alignment_redundant(shape: Shape, timeout: float) -> bool:
    L = shape.layout.tail_padding_alignment_in_elements
    if L == 1:
        return False
    if not shape.is_symbolic:
        return padded_elements(shape) % L == 0
    # padded size = c * (product of the non-constant dims); c % L == 0 suffices
    ctx = z3.Context()
    enc = Encoding(shape, ctx)
    T = dims_through(shape_pipeline(shape), enc.dims, enc.ar)[-1]
    c = 1
    for v in T:
        k = constant(v)
        if k is not None:
            c *= k
    return c % L == 0


def _rewrites(shape: Shape, timeout: float):
    """Candidate simpler shapes, one rewrite each, most useful first."""
    lay = shape.layout
    if lay.tiles and _last_level_noop(shape, timeout):
        yield "drop the last tiling level: it pads nothing and keeps the order", \
            shape.with_layout(lay.replace(tiles=lay.tiles[:-1]))
    if lay.tiles:
        t = _drop_leading_ones(lay.tiles[-1])
        if t is not None:
            yield f"drop the leading ones of tile {lay.tiles[-1]}", \
                shape.with_layout(lay.replace(tiles=lay.tiles[:-1] + (t,)))
    if _alignment_redundant(shape, timeout):
        yield (f"drop L({lay.tail_padding_alignment_in_elements}): the padded size "
               "is already a multiple"), \
            shape.with_layout(lay.replace(tail_padding_alignment_in_elements=1))


def normalize(shape: Shape, *, timeout: float = DEFAULT_TIMEOUT) -> tuple[Shape, Result]:
    """A simpler layout for ``shape`` and the proof that it is equivalent.

    Each rewrite is proved equivalent to the input before it is kept; the
    returned Result is the proof for the final layout against the input
    (``proved``, or ``unknown`` if even the unchanged layout could not be
    shown equal to itself).  A rewrite refuted by the solver is a bug in
    the rewrite: ProverBug.
    """
    if not isinstance(shape, Shape):
        raise TilespecError("normalize needs an array shape, not a tuple")
    start = time.perf_counter()
    current, made = shape, []
    changed = True
    while changed:
        changed = False
        for why, candidate in _rewrites(current, timeout):
            r = equivalent(shape, candidate, timeout=timeout)
            if r.status == REFUTED:
                raise ProverBug(f"rewrite '{why}' of {format_shape(current)} is not "
                                f"equivalent: {r.counterexample}")
            if r.status == PROVED:
                current, changed = candidate, True
                made.append(why)
                break
    proof = equivalent(shape, current, timeout=timeout)
    proof = dataclasses.replace(
        proof, seconds=time.perf_counter() - start,
        steps=tuple(f"rewrite: {m}" for m in made) + proof.steps)
    return current, proof
