"""Work cut into cache-sized blocks, run on the machine's cores.

Packing (:mod:`image.packing`) makes several passes over its data (a cast,
a shift, an or); done block by block, each block's passes stay in the
cache and the data crosses memory once.  The strided copies of
:mod:`image.strided` are cut the same way (:func:`copy`), to run on the
cores.  Blocks write disjoint parts of
the output, so they may run in any order and on several threads (numpy
releases the interpreter's lock while it computes): the result does not
depend on the number of threads.

Threads are used only for large work (:data:`PARALLEL_BYTES`); their number
is the cores this process may run on, at most :data:`MAX_THREADS`, or the
environment variable ``TILESPEC_THREADS`` (``1``: none; anything but a
positive number is an error).

>>> list(blocks((3, 4), 8))
[(slice(0, 2, None),), (slice(2, 4, None),)]
>>> seen = []
>>> each_block((3, 4), 8, lambda: None, lambda index, scratch: seen.append(index), 0)
>>> seen == list(blocks((3, 4), 8))
True
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Iterator, Sequence, TypeVar

import numpy as np

from ..spec import TilespecError

#: Elements of a word array handled per block (1 MiB of 32-bit words: big
#: enough that the cost of a block (slicing, calls) is small beside its work,
#: small enough that its passes run in the cache).
BLOCK_ELEMENTS = 1 << 18

#: Elements per block of a plain copy (:func:`copy`).
COPY_ELEMENTS = 1 << 20

#: Work below this many bytes runs on the calling thread.
PARALLEL_BYTES = 1 << 23

#: At most this many threads.
MAX_THREADS = 8

Scratch = TypeVar("Scratch")


def blocks(dims: Sequence[int], target: int) -> Iterator[tuple[Any, ...]]:
    """Index tuples that cut an array of ``dims`` into blocks of about
    ``target`` elements, in row-major order."""
    k, inner = len(dims), 1
    while k and inner * dims[k - 1] <= target:
        inner *= dims[k - 1]
        k -= 1
    if k == 0:
        yield ()
        return
    step = max(1, target // max(inner, 1))
    for prefix in np.ndindex(*dims[:k - 1]):
        for start in range(0, dims[k - 1], step):
            yield prefix + (slice(start, start + step),)


def threads() -> int:
    """Threads for large work: ``TILESPEC_THREADS``, else the cores this
    process may use (at most :data:`MAX_THREADS`).

    >>> threads() >= 1
    True
    """
    given = os.environ.get("TILESPEC_THREADS", "").strip()
    if given:
        if not (given.isdigit() and int(given) >= 1):
            raise TilespecError(f"TILESPEC_THREADS={given}: give a number of threads, 1 or more")
        return int(given)
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, MAX_THREADS))


def each_block(dims: Sequence[int], target: int, scratch: Callable[[], Scratch],
               body: Callable[[tuple[Any, ...], Scratch], None], nbytes: int) -> None:
    """Call ``body(index, s)`` for each block of :func:`blocks`, where ``s``
    is made by ``scratch()`` once per thread; on several threads when the
    work (``nbytes``) is large."""
    indices = list(blocks(dims, target))
    n = threads() if nbytes >= PARALLEL_BYTES else 1
    n = min(n, len(indices))

    def run(share: Sequence[tuple[Any, ...]]) -> None:
        s = scratch()
        for index in share:
            body(index, s)

    if n <= 1:
        run(indices)
        return
    # Contiguous shares: each thread writes its own stretch of the output.
    cut = [len(indices) * k // n for k in range(n + 1)]
    with ThreadPoolExecutor(n) as pool:
        for done in [pool.submit(run, indices[cut[k]:cut[k + 1]]) for k in range(n)]:
            done.result()


def copy(dst: np.ndarray, src: np.ndarray) -> None:
    """``np.copyto(dst, src)`` (same dims), block by block along the leading
    dims, on several threads when large.

    >>> a = np.arange(12).reshape(3, 4)
    >>> b = np.empty((4, 3), a.dtype)
    >>> copy(b.T, a); bool((b.T == a).all())
    True
    >>> c = np.zeros((), np.int8); copy(c, np.array(5, np.int8)); int(c)
    5
    """
    each_block(dst.shape, COPY_ELEMENTS, lambda: None,
               # ``...`` keeps a 0-d block an array (an empty index gives a scalar)
               lambda index, _: np.copyto(dst[index + (...,)], src[index + (...,)]),
               dst.nbytes)
