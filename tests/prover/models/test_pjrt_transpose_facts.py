"""The tilings of XLA's PJRT transpose test as facts, replayed through tilespec.

``xla/pjrt/transpose_test.cc`` (mridul-sahu/xla@65aa4b65af, carrying
openxla/xla) checks ``TransposePlan`` against a reference transpose whose
byte offsets come from three helpers of the test:

- ``PadTiling``: a tiling shorter than the dims applies to the most minor
  dims (suffix alignment; leading entries 1); ``CHECK_LE`` on the lengths.
- ``ComputeDefaultStrides``: tiles are laid out row-major, each tile of
  ``prod(tiling) * elem_size`` bytes, dim ``i`` stepping over
  ``prod_{j>i} ceil(d_j / t_j)`` tiles.
- ``IndexToByteOffset``: inside a tile the index is row-major over the
  tiling; the tile's own position uses the strides above.
- ``SizeOfTiledArray`` (default strides): the bytes from the first to the
  end of the last tile; 0 when a dim is 0.

The facts below are the test cases of ``GetTransposeTestCases`` whose
tiling uses the default strides (the cases with explicit ``input_striding``
place tiles at arbitrary byte strides, negative ones included, which no XLA
layout text expresses).  Dims are major first, so the XLA layout is
``{rank-1,...,0:T(tiling)}`` (no ``T`` for an empty tiling, no layout
for the scalar), and the
reference offsets must equal the spec's byte offsets at every element
(a sample of them for the arrays of millions of elements), and the
reference size the spec's byte size.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import tilespec

TRANSPOSE_TEST = "xla/pjrt/transpose_test.cc@65aa4b65af"

#: (dims, tiling) of GetTransposeTestCases with default strides, input or
#: output tiling alike (the reference treats both with the same helpers)
CASES = [
    ((), ()), ((1,), ()), ((4,), ()), ((27,), ()), ((1, 1), ()), ((2, 2), ()),
    ((4, 4), ()), ((8, 8), ()), ((16, 16), ()), ((11, 15), ()),
    ((11, 15, 13), ()), ((64, 64, 64), ()), ((4, 8, 16, 32), ()),
    ((64, 224, 224, 3), ()),
    ((3,), (3,)), ((2, 4, 6), (2, 3)), ((4,), (3,)), ((5,), (3,)), ((8,), (3,)),
    ((29,), (3,)), ((12, 7), (4,)), ((7, 12), (5,)), ((12, 7), (2, 4)),
    ((7, 12), (5, 2)), ((128, 224, 224, 3), ()), ((3, 224, 224, 128), (8, 128)),
    ((129, 1234567), (8, 128)), ((2, 33554433), (33554433,)),
    ((24, 80), (15, 1)), ((51, 85, 63, 1), (5, 13, 16)),
    ((67, 16, 75, 5, 15), (9, 3)),
    ((52, 44, 45, 96, 1, 5), ()),
]

#: the element sizes the test runs every case with, as XLA element types
ELEMENT_TYPES = {1: "s8", 2: "s16", 4: "f32", 8: "f64"}


def pad_tiling(dims, tiling):
    assert len(tiling) <= len(dims)  # PadTiling's CHECK_LE
    return (1,) * (len(dims) - len(tiling)) + tuple(tiling)


def default_strides(dims, full_tiling, elem_size):
    stride = elem_size * math.prod(full_tiling)
    strides = [0] * len(dims)
    for i in reversed(range(len(dims))):
        strides[i] = stride
        stride *= -(-dims[i] // full_tiling[i])
    return strides


def index_to_byte_offset(full_tiling, index, strides, elem_size):
    """The test's IndexToByteOffset, vectorised over rows of ``index``."""
    index = np.asarray(index, dtype=np.int64)
    offset = np.zeros(index.shape[:-1], dtype=np.int64)
    within = elem_size
    for i in reversed(range(len(full_tiling))):
        offset += (index[..., i] % full_tiling[i]) * within
        within *= full_tiling[i]
    for i, s in enumerate(strides):
        offset += (index[..., i] // full_tiling[i]) * s
    return offset


def size_of_tiled_array(dims, tiling, elem_size):
    if 0 in dims:
        return 0
    full = pad_tiling(dims, tiling)
    strides = default_strides(dims, full, elem_size)
    last = sum((d - 1) // t * s for d, t, s in zip(dims, full, strides))
    return last + math.prod(full) * elem_size


def xla_text(dims, tiling, elem_size):
    minor_to_major = ",".join(str(i) for i in reversed(range(len(dims))))
    tiles = f":T({','.join(map(str, tiling))})" if tiling else ""
    if not dims:
        return f"{ELEMENT_TYPES[elem_size]}[]"
    return (f"{ELEMENT_TYPES[elem_size]}[{','.join(map(str, dims))}]"
            f"{{{minor_to_major}{tiles}}}")


def indices(dims, limit=4096, seed=0):
    """Every index of small arrays; corners and a random sample of big ones."""
    n = math.prod(dims)
    if n <= limit:
        return np.indices(dims).reshape(len(dims), -1).T
    rng = np.random.default_rng(seed)
    sample = np.stack([rng.integers(0, d, limit) for d in dims], axis=-1)
    corners = np.array(np.meshgrid(*[[0, d - 1] for d in dims],
                                   indexing="ij")).reshape(len(dims), -1).T
    return np.concatenate([sample, corners])


@pytest.mark.parametrize("elem_size", sorted(ELEMENT_TYPES))
@pytest.mark.parametrize("dims,tiling", CASES, ids=[f"{d}T{t}" for d, t in CASES])
def test_byte_offsets_and_sizes_equal_the_transpose_tests_reference(dims, tiling, elem_size):
    shape = tilespec.parse_shape(xla_text(dims, tiling, elem_size))
    assert tilespec.byte_size(shape) == size_of_tiled_array(dims, tiling, elem_size)
    if not dims:
        return
    full = pad_tiling(dims, tiling)
    index = indices(dims)
    reference = index_to_byte_offset(full, index, default_strides(dims, full, elem_size),
                                     elem_size)
    spec = tilespec.offsets(shape, index).astype(np.int64) * elem_size
    np.testing.assert_array_equal(spec, reference)


def test_the_reference_is_not_the_untiled_layout():
    """The facts can fail: a tiled case's offsets differ from row-major."""
    dims, tiling = (12, 7), (2, 4)
    full = pad_tiling(dims, tiling)
    index = indices(dims)
    reference = index_to_byte_offset(full, index, default_strides(dims, full, 4), 4)
    untiled = tilespec.offsets(tilespec.parse_shape("f32[12,7]{1,0}"), index) * 4
    assert (reference != untiled).any()
    assert size_of_tiled_array(dims, tiling, 4) == 4 * 12 * 8 != tilespec.byte_size("f32[12,7]{1,0}")
