"""Checking a pipeline handed to the prover, stage by stage.

``prove(shape, prop, stages=...)`` judges a variant of the spec's pipeline (a
compiler's formula, a deliberately broken one).  Some proofs lean on what a
stage's class promises: a :class:`~spec.index.Combine` is a row-major
linearisation of its groups (the mixed-radix lemma, no per-stage facts), a
:class:`~spec.index.Pad` only enlarges its box.  Those promises hold only for
sound parameters, so each stage's parameters are checked here against the
vector it receives, before anything is proved: a combine's groups cover the
vector, a permutation is a permutation, tiles and pads are >= 1 and fit the
vector, a prepend's count is >= 0, and every stage (a custom class too)
returns index and dims vectors of one length.  A stage that fails is bad
input (:class:`StageError`), never a vacuous proof.

>>> from tilespec.spec.index import Combine, Permute
>>> from tilespec.spec.text import parse_array_shape as shape
>>> checked_stages(shape("f32[3,5]"), [Permute((1, 0)), Combine((2,))])[1]
Combine(groups=(2,), level=0, name='combine')
>>> checked_stages(shape("f32[3,5]"), [Combine((1,))])
Traceback (most recent call last):
...
tilespec.prover.properties.stages_check.StageError: stage 0 (combine): groups (1,) cover 1 entries of a 2-entry vector
"""

from __future__ import annotations

import numpy as np

from ...spec import INT, Combine, Pad, Permute, Prepend, Shape, Split, TilespecError, shape_pipeline


class StageError(TilespecError):
    """A pipeline stage whose parameters do not fit the vector it receives."""


def _ints(values, what, where, minimum):
    if not isinstance(values, tuple):
        # proofs are kept and cited by the stages' values: a list is unhashable
        raise StageError(f"{where}: {what} {values!r} must be a tuple")
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int) or v < minimum:
            raise StageError(f"{where}: {what} {values} must be whole numbers >= {minimum}")
    return values


def checked_stages(shape: Shape, stages=None) -> tuple:
    """``stages`` (default: the spec's pipeline for ``shape``) after
    checking every stage's parameters; raises :class:`StageError`."""
    if stages is None:
        return shape_pipeline(shape)
    try:
        stages = tuple(stages)
    except TypeError:
        raise StageError(f"stages {stages!r} is not a sequence of stages") from None
    n = shape.rank
    for i, s in enumerate(stages):
        name = getattr(s, "name", type(s).__name__)
        where = f"stage {i} ({name})"
        for method in ("dims", "forward", "backward"):
            if not callable(getattr(s, method, None)):
                raise StageError(f"{where} has no {method}() method")
        level = getattr(s, "level", None)
        if isinstance(level, bool) or not isinstance(level, int) or level < 0 \
                or not isinstance(name, str):
            raise StageError(f"{where}: needs a name and a level >= 0")
        if isinstance(s, Permute):
            perm = _ints(s.perm, "permutation", where, 0)
            if sorted(perm) != list(range(n)):
                raise StageError(f"{where}: {perm} is not a permutation of "
                                 f"the {n} entries it receives")
            out = n
        elif isinstance(s, Prepend):
            _ints((s.count,), "count", where, 0)
            out = n + s.count
        elif isinstance(s, Combine):
            groups = _ints(s.groups, "groups", where, 1)
            if sum(groups) != n:
                raise StageError(f"{where}: groups {groups} cover {sum(groups)} "
                                 f"entries of a {n}-entry vector")
            out = len(groups)
        elif isinstance(s, (Pad, Split)):
            sizes = _ints(s.sizes, "tile sizes", where, 1)
            if len(sizes) > n:
                raise StageError(f"{where}: {len(sizes)} tile sizes for a "
                                 f"{n}-entry vector")
            out = n + len(sizes) if isinstance(s, Split) else n
        else:
            out = None
        out = _arity(s, where, n, out)
        n = out
    return stages


def _arity(s, where, n, expected):
    """Run the stage once on small ints: dims, forward and backward must
    return vectors of the lengths the stage's parameters promise (zip would
    silently drop an entry otherwise)."""
    d, e = (2,) * n, (0,) * n
    try:
        d_out = tuple(s.dims(d, INT))
        e_out = tuple(s.forward(e, d, INT))
        back, _ = s.backward(e_out, d, INT)
        back = tuple(back)
    except TilespecError:
        raise
    except Exception as err:  # a custom stage: its failure is bad input
        raise StageError(f"{where} fails on a {n}-entry vector: "
                         f"{type(err).__name__}: {err}") from None
    if expected is not None and len(d_out) != expected:
        raise StageError(f"{where}: dims() gives {len(d_out)} entries, its "
                         f"parameters say {expected}")
    if len(e_out) != len(d_out):
        raise StageError(f"{where}: forward() gives {len(e_out)} entries for "
                         f"{len(d_out)} dims")
    if len(back) != n:
        raise StageError(f"{where}: backward() gives {len(back)} entries for "
                         f"a {n}-entry vector")
    if any(x is None for x in back + e_out + d_out):
        raise StageError(f"{where}: an entry is left undefined")
    for x in back + e_out + d_out:
        # a float (true division), a bool, ...: not an index
        if isinstance(x, bool) or not isinstance(x, (int, np.integer)):
            raise StageError(f"{where}: an entry is {x!r}, not an integer")
    return len(d_out)


def combine_stages(shape: Shape, stages) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(the stages that are ``*`` merges, the levels where the shape merges
    dims but no such stage is found).

    Judged against the shape, never the pipeline alone: the levels whose
    tile has a ``*`` come from the shape's own pipeline; a stage of the one
    judged is a merge when it is a :class:`~spec.index.Combine` (of any
    subclass) or is named ``combine``.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> s = shape("f32[2,3]{1,0:T(*,4)}")
    >>> combine_stages(s, shape_pipeline(s)), combine_stages(s, shape_pipeline(s)[:1])
    (((1,), ()), ((), (1,)))
    """
    levels = {s.level for s in shape_pipeline(shape) if type(s) is Combine}
    found = tuple(i for i, s in enumerate(stages)
                  if isinstance(s, Combine) or getattr(s, "name", None) == "combine")
    missing = tuple(sorted(levels - {stages[i].level for i in found}))
    return found, missing
