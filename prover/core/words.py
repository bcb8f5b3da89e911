"""Machine words inside live objects, read all at once.

The fingerprint's fast check (:mod:`prover.core.cache`) asks, on every
warm proof, whether any of a few hundred dicts has a new version tag and
whether any of a hundred closure cells holds another object.  Read one by
one from Python that is tens of microseconds; here the words are read in
one numpy gather: a ``uint64`` array is laid over the address space from
the lowest address to the highest (a view, nothing is allocated or copied),
and the words are taken from it by their indices in one C loop.

Reading only ever touches the words of objects kept alive by the
:class:`Words` that reads them, at offsets found by probing this
interpreter (:func:`cell_offset`; the dict tag's offset is probed by the
cache), so no freed or foreign memory is read.

>>> import types
>>> cell = (lambda x: lambda: x)([1]).__closure__[0]
>>> offset = cell_offset()
>>> w = Words([cell], [offset], [id(cell.cell_contents)], keep=[cell.cell_contents])
>>> w.unchanged()
True
>>> cell.cell_contents = [2]
>>> w.unchanged()
False
"""

from __future__ import annotations

import ctypes
import sys
import types
from collections.abc import Sequence

import numpy as np

__all__ = ["Words", "cell_offset", "WORD"]

#: The size of a word read: a version tag (uint64) or a pointer.
WORD = 8


class _Span:
    """``[start, start + 8 * count)`` of this process's memory, as numpy
    sees an array through ``__array_interface__`` (no copy)."""

    def __init__(self, start: int, count: int):
        self.__array_interface__ = {"shape": (count,), "typestr": "<u8" if
                                    sys.byteorder == "little" else ">u8",
                                    "data": (start, True), "version": 3}


class Words:
    """The words at ``id(owner) + offset`` of each owner, and the values
    they held when it was made (``expected``).

    ``unchanged()`` compares them again, in one gather.  The owners are
    kept, so their memory stays theirs while this object lives, and so are
    the objects of ``keep`` (those whose addresses ``expected`` holds: a
    pointer compared with the address of an object freed since could meet
    a new object put there)."""

    __slots__ = ("owners", "offsets", "expected", "keep", "_span", "_index", "_bytes")

    def __init__(self, owners: Sequence[object], offsets: Sequence[int],
                 expected: Sequence[int], keep: Sequence[object] = ()):
        self.owners, self.offsets = tuple(owners), tuple(offsets)
        self.expected, self.keep = tuple(expected), tuple(keep)
        addresses = [id(o) + k for o, k in zip(self.owners, self.offsets, strict=True)]
        if len(self.expected) != len(addresses):
            raise ValueError("one expected value per word")
        low = min(addresses, default=0)
        if any((a - low) % WORD for a in addresses):
            raise ValueError("the words are not aligned alike")
        self._span = np.asarray(_Span(low, (max(addresses, default=0) - low) // WORD + 1)) \
            if addresses else np.zeros(1, np.uint64)
        self._index = np.array([(a - low) // WORD for a in addresses], dtype=np.intp)
        self._bytes = np.array(self.expected, dtype=np.uint64).tobytes()

    def unchanged(self) -> bool:
        """Does every word still hold its expected value?"""
        # compared as bytes: two C calls, no ufunc reduction
        return self._span.take(self._index).tobytes() == self._bytes

    def __add__(self, other: Words) -> Words:
        """The words of both."""
        return Words.joined([self, other])

    @staticmethod
    def joined(parts: Sequence[Words]) -> Words:
        """The words of every part, read in one gather."""
        return Words([o for p in parts for o in p.owners],
                     [k for p in parts for k in p.offsets],
                     [e for p in parts for e in p.expected],
                     [x for p in parts for x in p.keep])


def _probed_cell_offset() -> int | None:
    # PyCellObject is the object header then the pointer to the contents;
    # believed only after a probe cell showed its contents' address there
    # through two assignments and an emptying.
    if sys.implementation.name != "cpython" or ctypes.sizeof(ctypes.c_void_p) != WORD:
        return None
    offset = 2 * ctypes.sizeof(ctypes.c_ssize_t)
    cell = types.CellType()
    word = ctypes.c_uint64.from_address(id(cell) + offset)
    for value in ([1], object()):
        cell.cell_contents = value
        if word.value != id(value):
            return None
    del cell.cell_contents
    return offset if word.value == 0 else None


_CELL_OFFSET: list = []


def cell_offset() -> int | None:
    """Where CPython keeps a closure cell's pointer to its contents, or None
    when this interpreter keeps it elsewhere (probed once)."""
    if not _CELL_OFFSET:
        _CELL_OFFSET.append(_probed_cell_offset())
    return _CELL_OFFSET[0]
