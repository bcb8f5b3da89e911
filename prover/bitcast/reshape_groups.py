"""A reshape as groups of dims: consecutive dims of SRC and of DST whose
element counts are equal, each group a monomial in the named dims.

>>> [g.kind for g in reshape_groups(("m", 1, 6), (1, "m", 2, 3))]
['same', 'constant']
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from ...spec import TilespecError


def monomial(dims):
    coef, names = 1, Counter[str]()
    for d in dims:
        if isinstance(d, str):
            names[d] += 1
        else:
            coef *= d
    return coef, names


def _divides(a, b) -> bool:
    return b[0] % a[0] == 0 and a[1] <= b[1]


def element_count(dims) -> str:
    """The element count as a monomial, for messages: ``6*m*n``."""
    coef, names = monomial(dims)
    parts = ([str(coef)] if coef != 1 or not names else []) + sorted(names.elements())
    return "*".join(parts)


@dataclass(frozen=True)
class ReshapeGroup:
    """Consecutive dims of SRC and of DST with the same product.

    ``kind`` says how the reshape acts inside: ``same`` keeps one dim (unit
    dims aside), ``units`` moves only unit dims, ``constant`` regroups
    constant dims (a linear map), ``mixed`` regroups names with other dims
    (nonlinear: left to the lemma and the solver).
    """

    src: tuple[int, int]
    dst: tuple[int, int]
    kind: str


def reshape_groups(src_dims, dst_dims) -> tuple[ReshapeGroup, ...]:
    """The finest grouping of a row-major reshape, by equal products.

    Dims are ints or names (a name is any size >= 1); there must be no zero
    dims and the products must be equal as monomials.

    >>> [(g.src, g.dst, g.kind) for g in reshape_groups(("m", 6), ("m", 2, 3))]
    [((0, 1), (0, 1), 'same'), ((1, 2), (1, 3), 'constant')]
    >>> [(g.src, g.dst, g.kind) for g in reshape_groups((2, "m"), ("m", 2, 1))]
    [((0, 2), (0, 3), 'mixed')]
    """
    nu_s = [i for i, d in enumerate(src_dims) if d != 1]
    nu_d = [j for j, d in enumerate(dst_dims) if d != 1]
    if not nu_s and not nu_d:
        return (ReshapeGroup((0, len(src_dims)), (0, len(dst_dims)), "units"),)
    raw, i, j = [], 0, 0
    while i < len(nu_s) or j < len(nu_d):
        if i >= len(nu_s) or j >= len(nu_d):
            raise TilespecError("the element counts differ")
        gs, gd = [nu_s[i]], [nu_d[j]]
        i, j = i + 1, j + 1
        while True:
            ps = monomial(src_dims[k] for k in gs)
            pd = monomial(dst_dims[k] for k in gd)
            if ps == pd:
                break
            # A prefix boundary needs equal products; extend the side whose
            # product divides the other's (both if neither does).
            take_s = _divides(ps, pd) or not _divides(pd, ps)
            take_d = _divides(pd, ps) or not _divides(ps, pd)
            if (take_s and i >= len(nu_s)) or (take_d and j >= len(nu_d)):
                raise TilespecError("the element counts differ")
            if take_s:
                gs.append(nu_s[i])
                i += 1
            if take_d:
                gd.append(nu_d[j])
                j += 1
        raw.append((gs, gd))
    # Unit dims join the group of the non-unit dim before them (leading
    # ones the first group), so every group is a consecutive range.
    starts_s = [0] + [gs[0] for gs, _ in raw[1:]] + [len(src_dims)]
    starts_d = [0] + [gd[0] for _, gd in raw[1:]] + [len(dst_dims)]
    out = []
    for k, (gs, gd) in enumerate(raw):
        s = (starts_s[k], starts_s[k + 1])
        d = (starts_d[k], starts_d[k + 1])
        vs, vd = [src_dims[x] for x in gs], [dst_dims[x] for x in gd]
        if len(vs) == 1 and len(vd) == 1 and vs[0] == vd[0]:
            kind = "same"
        elif all(isinstance(v, int) for v in vs + vd):
            kind = "constant"
        else:
            kind = "mixed"
        out.append(ReshapeGroup(s, d, kind))
    return tuple(out)
