"""``prover.bitcast.enumeration``: the scan of every element block by block
finds the element the dense scan finds (the first, in SRC's row-major order,
whose offset moves), and stops at its block."""

import itertools
import random

import numpy as np
import pytest

from tilespec.prover.bitcast import enumeration, question
from tilespec.prover.bitcast.enumeration import blocks, first_moved, pairing
from tilespec.spec.errors import TilespecError
from tilespec.spec.index import INT, all_offsets
from tilespec.spec.text import parse_array_shape as shape

TILES = ("", ":T(2)", ":T(4)", ":T(2,2)", ":T(2,4)(2,1)", ":T(3,2)", ":T(8,128)",
         ":T(8,128)(2,1)", ":T(2,*,2)", ":T(1,2)", ":T(4)(2)", ":T(2,2)L(8)")


def dense_first_moved(src, dst, transpose=None):
    """The scan as it was: every offset of both sides at once."""
    a, b = all_offsets(src), all_offsets(dst)
    if transpose is not None:
        b = np.transpose(b, np.argsort(transpose))
    bad = np.flatnonzero(a.reshape(-1) != b.reshape(-1))
    return int(bad[0]) if bad.size else None


def random_shape(rng, dims, element="f32"):
    while True:
        order = list(range(len(dims)))
        rng.shuffle(order)
        try:
            return shape(f"{element}[{','.join(map(str, dims))}]"
                         f"{{{','.join(map(str, order))}{rng.choice(TILES)}}}")
        except TilespecError:
            continue


def factors(rng, n, rank):
    """``rank`` dims whose product is ``n``."""
    out = []
    for _ in range(rank - 1):
        d = rng.choice([k for k in range(1, n + 1) if n % k == 0])
        out.append(d)
        n //= d
    return out + [n]


def questions(count, seed=0):
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        dims = [rng.choice((1, 2, 3, 4, 6, 8, 9, 16)) for _ in range(rng.randint(1, 4))]
        src = random_shape(rng, dims)
        if rng.random() < 0.5:
            perm = list(range(len(dims)))
            rng.shuffle(perm)
            dst = random_shape(rng, [dims[p] for p in perm])
            out.append((src, dst, tuple(perm)))
        else:
            n = int(np.prod(dims))
            dst = random_shape(rng, factors(rng, n, rng.randint(1, 4)))
            out.append((src, dst, None))
    return out


@pytest.mark.parametrize("size", [1, 5, 64, enumeration.BLOCK])
def test_first_moved_is_the_element_the_dense_scan_finds(size):
    found = 0
    for src, dst, perm in questions(60, seed=size):
        want = dense_first_moved(src, dst, perm)
        assert first_moved(src, dst, perm, size) == want, (src, dst, perm, size)
        found += want is not None
    assert 10 < found < 60      # both verdicts are exercised


def test_pairing_is_the_questions_pairing():
    for src, dst, perm in questions(25, seed=7):
        q = question(src, dst, perm)
        pair = pairing(src.dims, dst.dims, perm)
        for e in itertools.product(*map(range, src.dims)):
            assert tuple(int(x) for x in pair(e)) == tuple(q.pair(e, INT)), (src, dst, e)


@pytest.mark.parametrize("dims,size", [((3, 4), 8), ((2, 3, 5), 4), ((7,), 3), ((), 4),
                                       ((2, 1, 3), 1), ((4, 4), 100)])
def test_blocks_cover_each_position_once_in_row_major_order(dims, size):
    seen = []
    for start, grids, block in blocks(dims, size):
        assert int(np.prod(block)) <= size
        cols = [np.broadcast_to(g, block).reshape(-1) for g in grids]
        positions = np.ravel_multi_index(cols, dims) if dims else np.zeros(1, np.int64)
        assert positions.tolist() == list(range(start, start + len(positions)))
        seen += positions.tolist()
    assert seen == list(range(int(np.prod(dims))))


def test_a_refuted_question_stops_at_the_block_of_its_first_moved_element(monkeypatch):
    # 2^20 elements; element (0, 1) moves: the scan reads one block of them
    src = shape("f32[1024,1024]{1,0:T(8,128)}")
    dst = shape("f32[1024,1024]{0,1:T(8,128)}")
    calls = []
    evaluate = enumeration.evaluate
    monkeypatch.setattr(enumeration, "evaluate", lambda *a: calls.append(1) or evaluate(*a))
    assert first_moved(src, dst, (0, 1)) == 1
    assert len(calls) == 2      # one block: SRC's offsets and DST's


def test_a_scan_of_every_element_holds_no_array_of_the_whole_shape():
    # 2^20 elements of 8 bytes: the offsets of the whole array would take
    # 8 MiB; a block's arrays stay under glibc's mmap threshold (128 KiB),
    # which Dask's workers fix there (MALLOC_TRIM_THRESHOLD_)
    import tracemalloc
    src = shape("f32[1024,1024]{1,0:T(8,128)}")
    dst = shape("f32[1,1024,1024]{2,1,0:T(8,128)}")
    tracemalloc.start()
    try:
        assert first_moved(src, dst) is None
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20
