"""The class of layouts whose stage and level theorems are shipped with tilespec.

A layout's ``injective``, ``bijective``, ``inverse`` and ``in_bounds`` (any
dims, named or not) are proved by citing one theorem per stage structure and
the mixed-radix lemma (:mod:`prover.core.theorems`); its
``formula_equals_prt``, ``combine_equals_reshape`` and, for named dims, the
dims part of ``in_bounds`` by citing one theorem per tiling level, per rank
(the transpose to physical order) and per ``*`` merge
(:mod:`prover.core.level_theorems`).
Each such theorem is about a stage's *structure* only (a permutation, a
prepend's count, how many of how many entries a pad or split tiles), with
every dim and every tile size a parameter.  This module lists every
structure that the pipelines of a class of layouts use (and
:func:`level_structures` every level), so that
:mod:`prover.properties.ship` proves them all once and a user's first proof
of any layout in the class is a citation, without a solver call:

* rank at most :data:`MAX_RANK` (every ``minor_to_major``),
* at most :data:`MAX_TILES` tiles, each of at most :data:`MAX_TILE_RANK`
  entries, any entry but the most minor one may be ``*``,
* any element type, ``E(n)`` included (the pipeline does not read it).

A layout outside the class is proved as before: its structures that are
shipped (most are) are cited, the others are proved by Z3 on first use and
kept in the user's cache.  Citation is by structure, so a theorem is only
ever cited for a stage with exactly the structure it was proved for.

>>> len(tile_patterns())
15
>>> len(level_structures(1, 1, 2)), transpose_ranks(2)
(6, range(0, 3))
>>> max(lemma_ranks())
18
"""

from __future__ import annotations

from dataclasses import replace
from itertools import permutations, product

from ...spec import COMBINE, Combine, Layout, Permute, Tile, dims_through, pipeline

#: The class whose structures are shipped (see the module's docstring).
MAX_RANK = 6
MAX_TILES = 3
MAX_TILE_RANK = 4


def tile_patterns(max_tile_rank: int = MAX_TILE_RANK) -> tuple[Tile, ...]:
    """One tile per pattern of ``*`` entries (sizes do not change a stage's
    structure): every length up to ``max_tile_rank``, the most minor entry
    a size."""
    return tuple(Tile(tuple(COMBINE if star else 2 for star in stars) + (2,))
                 for k in range(1, max_tile_rank + 1)
                 for stars in product((False, True), repeat=k - 1))


def _level(n: int, tile: Tile):
    """The stages one tiling level adds to a vector of ``n`` entries, and
    the vector's length after them."""
    stages = pipeline(n, Layout(tuple(range(n)), tiles=(tile,)))[1:]
    return stages, len(dims_through(stages, (1,) * n)[-1])


def _tiling_levels(max_rank: int, max_tiles: int, max_tile_rank: int):
    """Every (stages, entries after them) of the tiling levels of the class."""
    lengths = set(range(max_rank + 1))
    for _ in range(max_tiles):
        after = set()
        for n in sorted(lengths):
            for tile in tile_patterns(max_tile_rank):
                stages, m = _level(n, tile)
                yield n, stages, m
                after.add(m)
        lengths = after


def stage_structures(max_rank: int = MAX_RANK, max_tiles: int = MAX_TILES,
                     max_tile_rank: int = MAX_TILE_RANK) -> list[tuple[object, int]]:
    """``(stage, entries it receives)``, one per structure of the class, in
    a fixed order: first every ``minor_to_major`` permutation, then the
    tiling stages (Combine is cited through the lemma, so it is not here).

    >>> [(s.perm, n) for s, n in stage_structures(2, 0)]
    [((), 0), ((0,), 1), ((0, 1), 2), ((1, 0), 2)]
    """
    out: dict[tuple, tuple[object, int]] = {}
    for r in range(max_rank + 1):
        for perm in permutations(range(r)):
            out.setdefault(("permute", perm, r), (Permute(perm), r))
    for n, stages, _ in _tiling_levels(max_rank, max_tiles, max_tile_rank):
        for s in stages:
            kind = type(s).__name__
            if kind == "Combine":
                n = len(s.groups)
                continue
            what = (getattr(s, "perm", None), getattr(s, "count", None),
                    len(getattr(s, "sizes", ())))
            out.setdefault((kind, what, n), (s, n))
            n = len(dims_through((s,), (1,) * n)[-1])
    return list(out.values())


def lemma_ranks(max_rank: int = MAX_RANK, max_tiles: int = MAX_TILES,
                max_tile_rank: int = MAX_TILE_RANK) -> range:
    """The ranks of the mixed-radix lemma the class cites: every Combine
    group and every pipeline's last vector are at most the longest vector."""
    longest = max([max_rank] + [m for _, _, m in _tiling_levels(
        max_rank, max_tiles, max_tile_rank)])
    return range(0, longest + 1)


def level_structures(max_rank: int = MAX_RANK, max_tiles: int = MAX_TILES,
                     max_tile_rank: int = MAX_TILE_RANK) -> list[tuple[tuple, int, tuple]]:
    """``(the level's stages, entries it receives, the tile's '*' pattern)``,
    one per level of the class (its number, length and tile pattern), in a
    fixed order: what :func:`prover.core.level_theorems.level_theorem` is
    proved for (sizes are parameters, so any sizes stand for all)."""
    out: dict[tuple, tuple[tuple, int, tuple]] = {}
    lengths = set(range(max_rank + 1))
    for level in range(1, max_tiles + 1):
        after = set()
        for n in sorted(lengths):
            for tile in tile_patterns(max_tile_rank):
                stages, m = _level(n, tile)
                stars = tuple(t == COMBINE for t in tile.sizes)
                out.setdefault((level, n, stars), (
                    tuple(replace(st, level=level) for st in stages), n, stars))
                after.add(m)
        lengths = after
    return list(out.values())


def combine_structures(max_rank: int = MAX_RANK, max_tiles: int = MAX_TILES,
                       max_tile_rank: int = MAX_TILE_RANK) -> list[tuple[Combine, int]]:
    """``(Combine stage, entries it receives)`` of every level of the class
    (after the level's unit dims, if it prepends any).

    >>> combine_structures(0, 1, 2)
    [(Combine(groups=(2,), level=1, name='combine'), 2)]
    """
    out: dict[tuple, tuple[Combine, int]] = {}
    for stages, n, _ in level_structures(max_rank, max_tiles, max_tile_rank):
        through = dims_through(stages, (1,) * n)
        for s, d in zip(stages, through):
            if type(s) is Combine:
                out.setdefault((s, len(d)), (s, len(d)))
    return list(out.values())


def transpose_ranks(max_rank: int = MAX_RANK) -> range:
    """The ranks whose transpose theorem (every ``minor_to_major``) is shipped."""
    return range(0, max_rank + 1)
