"""Blocks cover the work once, and threads do not change what they compute."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tilespec.image import blocks
from tilespec.spec.errors import TilespecError


@settings(max_examples=200)
@given(st.lists(st.integers(0, 7), min_size=0, max_size=4), st.integers(1, 50))
def test_blocks_cover_every_element_once_in_row_major_order(dims, target):
    seen = np.zeros(dims, np.int64)
    order = []
    for index in blocks.blocks(dims, target):
        part = seen[index]
        assert part.size <= max(target, 1) or part.size == 0
        seen[index] += 1
        order.extend(np.arange(seen.size).reshape(dims)[index].reshape(-1).tolist())
    assert (seen == 1).all()
    assert order == sorted(order)


@pytest.mark.parametrize("n", ["1", "2", "5"])
def test_threads_write_the_same_output(n, monkeypatch):
    monkeypatch.setenv("TILESPEC_THREADS", n)
    monkeypatch.setattr(blocks, "PARALLEL_BYTES", 0)
    out = np.zeros((9, 13), np.int64)
    made = []

    def scratch():
        made.append(1)
        return np.empty(13, np.int64)

    def body(index, s):
        np.add(np.arange(out.size).reshape(out.shape)[index], 1, out=out[index])

    blocks.each_block(out.shape, 10, scratch, body, out.nbytes)
    assert (out == np.arange(1, out.size + 1).reshape(out.shape)).all()
    assert len(made) == min(int(n), len(list(blocks.blocks(out.shape, 10))))


def test_small_work_stays_on_the_calling_thread(monkeypatch):
    import threading
    monkeypatch.setenv("TILESPEC_THREADS", "4")
    where = set()
    blocks.each_block((100,), 10, lambda: None,
                      lambda index, s: where.add(threading.get_ident()), 100)
    assert where == {threading.get_ident()}


@pytest.mark.parametrize("value", ["0", "two", "-1", "1.5"])
def test_a_bad_thread_count_is_a_one_line_error(value, monkeypatch):
    monkeypatch.setenv("TILESPEC_THREADS", value)
    with pytest.raises(TilespecError, match=f"^TILESPEC_THREADS={value}: give a number"):
        blocks.threads()


def test_an_error_in_a_block_reaches_the_caller(monkeypatch):
    monkeypatch.setenv("TILESPEC_THREADS", "2")
    monkeypatch.setattr(blocks, "PARALLEL_BYTES", 0)

    def body(index, s):
        raise ArithmeticError("block")

    with pytest.raises(ArithmeticError, match="block"):
        blocks.each_block((100,), 10, lambda: None, body, 100)
