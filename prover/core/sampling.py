"""Which elements a concrete scan visits: every element of a small shape,
else its edges (0, 1, the last, each side of a tile edge) and random ones.

The bitcast scan, a user's offset function and XLA's models are all
checked on these elements before a solver is asked.

>>> from tilespec.spec.text import parse_array_shape as shape
>>> element_grid(shape("f32[2,3]{1,0}")).tolist()
[[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]]
>>> grid = element_grid(shape("f32[4096,4096]{1,0:T(8,128)}"))
>>> len(grid) == 2 + 4096 + SAMPLES, grid[1].tolist()
(True, [4095, 4095])
"""

from __future__ import annotations

import numpy as np

from ...spec import COMBINE, Shape, concrete_dims, product

#: Up to this many elements a scan visits every element.
EXHAUSTIVE = 1 << 20
#: Random elements a scan visits beyond that (plus edges).
SAMPLES = 1 << 16
#: Elements drawn from the edge values of each dim.
EDGES = 4096


def edge_values(d: int, tiles) -> list[int]:
    """Indices of a dim of size ``d`` where layouts change: the ends, the
    middle, and each side of the first few multiples of every tile size.

    >>> edge_values(10, (4,))
    [0, 1, 2, 3, 4, 5, 7, 8, 9]
    """
    vals = {0, 1, 2, d - 1, d - 2, d // 2}
    for t in tiles:
        for c in (1, 2, 3):
            vals.update((c * t - 1, c * t))
    return sorted(v for v in vals if 0 <= v < d)


def sample_elements(shapes: tuple[Shape, ...], rng) -> np.ndarray:
    """Elements of ``shapes[0]`` (rows): its first and last, edges at every
    tile size of any of ``shapes``, and :data:`SAMPLES` random ones."""
    dims = concrete_dims(shapes[0])   # sampled only where the dims are sizes
    sizes = sorted({t for s in shapes for tile in s.layout.tiles
                    for t in tile.sizes if t != COMBINE})
    edges = [edge_values(d, sizes) for d in dims]
    cols = [rng.choice(np.asarray(v, dtype=np.int64), size=EDGES) for v in edges]
    rand = [rng.integers(0, d, size=SAMPLES, dtype=np.int64) for d in dims]
    both = [np.concatenate([a, b]) for a, b in zip(cols, rand)]
    first_last = np.array([[0] * len(dims), [d - 1 for d in dims]], dtype=np.int64)
    return np.concatenate([first_last, np.stack(both, axis=-1)])


def element_grid(shape: Shape) -> np.ndarray | None:
    """Every element of a concrete shape (rows, row-major) when there are at
    most :data:`EXHAUSTIVE`, else :func:`sample_elements` (seed 0); None
    with no elements."""
    dims = concrete_dims(shape)
    n = product(dims)
    if n == 0:
        return None
    if n <= EXHAUSTIVE:
        # reshape to n, not -1: a rank-0 shape has one element and no indices
        return np.indices(dims, dtype=np.int64).reshape(len(dims), n).T
    return sample_elements((shape,), np.random.default_rng(0))
