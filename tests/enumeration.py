"""Deciding a layout property by enumerating every index: the brute force the
prover's verdicts are compared with (only the concrete evaluator and the numpy
pad-reshape-transpose path, never the prover)."""

import numpy as np

from tilespec.spec import physical_size, to_physical
from tilespec.spec.arith import INT
from tilespec.spec.index import Combine, Pad, dims_through, evaluate, unevaluate
from tilespec.spec.size import byte_size


def brute(shape, stages, prop) -> bool:
    """Does ``prop`` hold for the pipeline ``stages``, by enumeration?"""
    dims = tuple(shape.dims)
    P = int(np.prod(dims_through(stages, dims)[-1], dtype=np.int64))
    n = int(np.prod(dims, dtype=np.int64))
    grid = np.indices(dims).reshape(len(dims), -1) if dims else np.zeros((0, 1), np.int64)
    cols = tuple(grid[i] for i in range(len(dims)))
    offs = np.broadcast_to(np.asarray(evaluate(stages, cols, dims, INT)), (n,))
    in_bounds = bool(((offs >= 0) & (offs < P)).all())
    injective = len(set(offs.tolist())) == n
    if prop == "in_bounds":
        # and inside the spec's buffer, from the numpy pad-reshape-transpose
        return in_bounds and bool((offs < physical_size(shape)).all())
    if prop == "injective":
        return injective
    if prop == "packing":
        bits = shape.element_bits
        return injective and bool(((offs + 1) * bits <= 8 * byte_size(shape)).all())
    if prop == "bijective":
        return stages_bijective(stages, dims)
    if prop == "inverse":
        back, ok = unevaluate(stages, offs, dims, INT)
        back = [np.broadcast_to(np.asarray(b), (n,)) for b in back]
        ok = np.broadcast_to(np.asarray(ok), (n,))
        # locate is defined on [0, P) only: an offset outside it fails too
        left = in_bounds and bool(ok.all()) and all((b == c).all() for b, c in zip(back, cols))
        o = np.arange(P)
        back, ok = unevaluate(stages, o, dims, INT)
        back = tuple(np.broadcast_to(np.asarray(b), (P,)) for b in back)
        ok = np.broadcast_to(np.asarray(ok), (P,))
        again = np.broadcast_to(np.asarray(evaluate(stages, back, dims, INT)), (P,))
        right = (again == o) | ~ok
        return left and bool(right.all())
    if prop == "formula_equals_prt":
        if not in_bounds:
            return False
        buf = to_physical(np.arange(n).reshape(dims), shape, pad_value=-1)
        return len(buf) == P and bool((buf[offs] == np.arange(n)).all())
    if prop == "combine_equals_reshape":
        # on the indices that reach a combine stage inside its box
        x, d = cols, dims
        for s in stages:
            if isinstance(s, Combine):
                merged = s.dims(d, INT)
                pts = [np.broadcast_to(np.asarray(v), (n,)) for v in x]
                inside = np.ones(n, bool)
                for v, m in zip(pts, d):
                    inside &= (v >= 0) & (v < m)
                if inside.any():
                    pts = tuple(v[inside] for v in pts)
                    want = np.unravel_index(np.ravel_multi_index(pts, d), merged)
                    got = s.forward(pts, d, INT)
                    if not all((np.broadcast_to(a, b.shape) == b).all()
                               for a, b in zip(got, want)):
                        return False
            x, d = s.forward(x, d, INT), s.dims(d, INT)
        return True
    raise ValueError(prop)


def stages_bijective(stages, dims) -> bool:
    """Every stage but the pads maps its whole box one-to-one onto the next,
    by enumerating both boxes."""
    through = dims_through(stages, dims)
    for s, d_in, d_out in zip(stages, through, through[1:]):
        if type(s) is Pad:
            continue
        n_in, n_out = int(np.prod(d_in, dtype=np.int64)), int(np.prod(d_out, dtype=np.int64))

        def forward(v, s=s, d_in=d_in):
            return s.forward(v, d_in, INT)

        def backward(v, s=s, d_in=d_in):
            return s.backward(v, d_in, INT)[0]
        for d, n, first, d_other in ((d_in, n_in, "f", d_out), (d_out, n_out, "b", d_in)):
            if n == 0:
                continue
            pts = tuple(np.indices(d).reshape(len(d), -1)) if d else ()
            go, come = (forward, backward) if first == "f" else (backward, forward)
            mid = tuple(np.broadcast_to(np.asarray(x), (n,)) for x in go(pts))
            if not all(((x >= 0) & (x < m)).all() for x, m in zip(mid, d_other)):
                return False
            back = tuple(np.broadcast_to(np.asarray(x), (n,)) for x in come(mid))
            if not all((a == b).all() for a, b in zip(back, pts)):
                return False
    return True


def byte_image(shape, labels: np.ndarray) -> np.ndarray:
    """The buffer of ``shape`` holding ``labels``, one row per byte: each
    byte says which byte of which element it holds (-1: padding); a byte of
    sub-byte elements lists the elements packed in it."""
    slots = to_physical(shape, labels, pad_value=-1).astype(np.int64)
    bits = shape.element_bits
    if bits % 8 == 0:
        width = bits // 8
        image = slots[:, None] * width + np.arange(width)
        image[slots < 0] = -1
        image = image.reshape(-1, 1)
    else:
        per = 8 // bits
        slots = np.concatenate([slots, np.full(-len(slots) % per, -1)])
        image = slots.reshape(-1, per)
    assert len(image) == byte_size(shape), shape
    return image
