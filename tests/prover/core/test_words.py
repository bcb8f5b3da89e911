"""prover.core.words: the words read in one gather are the live ones."""

import sys
import types

import pytest
from hypothesis import given, settings, strategies as st

from tilespec.prover.core import cache
from tilespec.prover.core.words import Words, cell_offset


def tag_offset() -> int:
    offset = cache._version_offset()
    if offset is None:
        pytest.skip("this interpreter keeps no dict version tag where CPython 3.11-3.13 does")
    return offset


def tags_of(dicts, offset):
    import ctypes
    return [ctypes.c_uint64.from_address(id(d) + offset).value for d in dicts]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.dictionaries(st.integers(0, 9), st.integers()), min_size=1, max_size=20),
       st.data())
def test_a_changed_dict_is_seen_and_an_unchanged_one_is_not(dicts, data):
    offset = tag_offset()
    words = Words(dicts, [offset] * len(dicts), tags_of(dicts, offset))
    assert words.unchanged()
    i = data.draw(st.integers(0, len(dicts) - 1))
    dicts[i][data.draw(st.integers(0, 9))] = object()
    assert not words.unchanged()


def test_a_cell_given_another_object_is_seen():
    at = cell_offset()
    if at is None:
        pytest.skip("this interpreter keeps a cell's contents elsewhere")
    cells = [types.CellType([k]) for k in range(5)]
    words = Words(cells, [at] * 5, [id(c.cell_contents) for c in cells],
                  keep=[c.cell_contents for c in cells])
    assert words.unchanged()
    cells[3].cell_contents = [3]               # equal, but another object
    assert not words.unchanged()
    del cells[1].cell_contents
    assert not words.unchanged()


def test_the_sum_of_two_reads_both():
    offset = tag_offset()
    a, b = {1: 2}, {3: 4}
    both = Words([a], [offset], tags_of([a], offset)) + Words([b], [offset], tags_of([b], offset))
    assert both.unchanged()
    b[5] = 6
    assert not both.unchanged()


def test_words_not_aligned_alike_are_refused():
    with pytest.raises(ValueError):
        Words([{}, {}], [0, 1], [0, 0])


def test_no_words_are_unchanged():
    assert Words([], [], []).unchanged()


def test_the_cell_probe_finds_the_contents_pointer():
    at = cell_offset()
    if sys.implementation.name == "cpython":
        assert at == 2 * 8
    if at is not None:
        import ctypes
        value = object()
        cell = types.CellType(value)
        assert ctypes.c_uint64.from_address(id(cell) + at).value == id(value)
