"""The C heap while a work unit runs, where the environment fixed its thresholds.

glibc's ``malloc`` gives memory back to the system when the free space at
the top of its heap exceeds the *trim threshold*, and serves a block of at
least the *mmap threshold* from a fresh mapping.  By default it adapts both
to the blocks a program frees (a freed mapping of n bytes raises the mmap
threshold to n and the trim threshold to 2n).  An environment that sets
``MALLOC_TRIM_THRESHOLD_`` or ``MALLOC_MMAP_THRESHOLD_`` turns the
adaptation off: Dask's nanny starts every worker with
``MALLOC_TRIM_THRESHOLD_=65536`` (``distributed.nanny.pre-spawn-environ``),
so that a worker returns memory between tasks.  Checking a module frees and
allocates far more than that all the time: with the variable, a worker
shrinks and grows its heap thousands of times per module and zero-fills
each page again (4x the page faults, and about 10% more time).

:func:`steady_heap` keeps the heap while a unit runs and honours the
environment between units: inside, the thresholds are high; after it, they
are the environment's again (glibc's default for the one it did not set)
and the free memory is returned at once (``malloc_trim``).  Where the
environment set neither, or the C library is not glibc, it does nothing.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import functools
import os
import threading
from typing import Callable, Iterator, Mapping, TypeVar

T = TypeVar("T")

__all__ = ["M_MMAP_THRESHOLD", "M_TRIM_THRESHOLD", "WHILE_RUNNING", "fixed_thresholds",
           "glibc", "startup_environment", "steadily", "steady_heap"]

#: ``mallopt``'s parameter numbers (glibc's ``malloc.h``).
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3

#: The environment variable that fixes each threshold.
ENVIRONMENT = {M_TRIM_THRESHOLD: "MALLOC_TRIM_THRESHOLD_",
               M_MMAP_THRESHOLD: "MALLOC_MMAP_THRESHOLD_"}

#: glibc's initial value of both (``DEFAULT_MMAP_THRESHOLD_MIN``,
#: ``DEFAULT_TRIM_THRESHOLD``: 128 KiB).
GLIBC_DEFAULT = 128 * 1024

#: The thresholds while a unit runs: no trim below 1 GiB of free top, and
#: mappings only from glibc's largest mmap threshold on 64-bit (32 MiB,
#: ``DEFAULT_MMAP_THRESHOLD_MAX``), above any module text.
WHILE_RUNNING = {M_TRIM_THRESHOLD: 1 << 30, M_MMAP_THRESHOLD: 32 << 20}


#: The same thresholds as glibc's tunables (``GLIBC_TUNABLES``, which
#: win over the variables above).
TUNABLES = {M_TRIM_THRESHOLD: "glibc.malloc.trim_threshold",
            M_MMAP_THRESHOLD: "glibc.malloc.mmap_threshold"}


def fixed_thresholds(environ: Mapping[str, str]) -> dict[int, int] | None:
    """The thresholds an environment fixed, with glibc's default for the
    other of the two; None when it fixed neither (glibc adapts them itself)
    or a value is not a number glibc reads (it ignores the value then).

    >>> fixed_thresholds({"MALLOC_TRIM_THRESHOLD_": "65536"}) == {
    ...     M_TRIM_THRESHOLD: 65536, M_MMAP_THRESHOLD: GLIBC_DEFAULT}
    True
    >>> fixed_thresholds({"GLIBC_TUNABLES": "glibc.malloc.mmap_threshold=0x10000"}) == {
    ...     M_TRIM_THRESHOLD: GLIBC_DEFAULT, M_MMAP_THRESHOLD: 65536}
    True
    >>> fixed_thresholds({}) is None, fixed_thresholds({"MALLOC_TRIM_THRESHOLD_": "x"})
    (True, None)
    """
    tunables = dict(item.split("=", 1) for item in environ.get("GLIBC_TUNABLES", "").split(":")
                    if "=" in item)
    given: dict[int, str] = {}
    for p, name in ENVIRONMENT.items():
        value = tunables.get(TUNABLES[p], environ.get(name))
        if value is not None:
            given[p] = value
    if not given:
        return None
    try:
        values = {p: _unsigned(v) for p, v in given.items()}
    except ValueError:
        return None
    return {p: values.get(p, GLIBC_DEFAULT) for p in ENVIRONMENT}


def _unsigned(text: str) -> int:
    """A number as glibc reads a tunable: decimal, ``0x`` hexadecimal or
    ``0`` octal.

    >>> _unsigned("65536"), _unsigned("0x10"), _unsigned("010")
    (65536, 16, 8)
    """
    text = text.strip()
    if len(text) > 1 and text[0] == "0" and text[1] not in "xX":
        return int(text, 8)
    value = int(text, 0)
    if value < 0 or not text.isascii():
        raise ValueError(text)
    return value


@functools.cache
def startup_environment() -> Mapping[str, str]:
    """The environment this process started with, the one glibc read its
    thresholds from (``/proc/self/environ`` on Linux, read once: a variable
    set since, as Dask's ``distributed.nanny.environ`` does, changed
    nothing); else the current one."""
    try:
        with open("/proc/self/environ", "rb") as f:
            data = f.read()
    except OSError:
        return os.environ
    return dict(item.decode(errors="replace").split("=", 1)
                for item in data.split(b"\0") if b"=" in item)


@functools.cache
def glibc():
    """This process's C library when it is glibc (it has ``mallopt`` and
    ``malloc_trim``), else None."""
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name)
        libc.mallopt, libc.malloc_trim    # noqa: B018 (glibc names both)
    except (OSError, AttributeError, TypeError):
        return None
    return libc


#: How many units run in a steady heap now, in this process's threads (a
#: Dask worker may run several): the first one in sets the thresholds, the
#: last one out restores them.
_RUNNING = 0
_RUNNING_LOCK = threading.Lock()


@contextlib.contextmanager
def steady_heap(environ: Mapping[str, str] | None = None, libc=None) -> Iterator[None]:
    """Inside, the heap is neither trimmed nor mapped block by block; after
    the last unit running in one, the thresholds ``environ`` fixed (by
    default :func:`startup_environment`), and free memory returned.  Does
    nothing where ``environ`` fixed none (``libc``: glibc's functions, by
    default this process's).

    >>> class Calls:
    ...     def __init__(self): self.made = []
    ...     def mallopt(self, p, v): self.made.append((p, v)); return 1
    ...     def malloc_trim(self, pad): self.made.append(("trim", pad)); return 1
    >>> c = Calls()
    >>> with steady_heap({"MALLOC_TRIM_THRESHOLD_": "65536"}, c):
    ...     c.made[-2:] == list(WHILE_RUNNING.items())
    True
    >>> c.made[2:]
    [(-1, 65536), (-3, 131072), ('trim', 0)]
    >>> with steady_heap({}, c):
    ...     pass
    >>> len(c.made)
    5
    """
    global _RUNNING
    after = fixed_thresholds(startup_environment() if environ is None else environ)
    libc = libc if libc is not None or after is None else glibc()
    if after is None or libc is None:
        yield
        return
    with _RUNNING_LOCK:
        if _RUNNING == 0:
            for parameter, value in WHILE_RUNNING.items():
                libc.mallopt(parameter, value)
        _RUNNING += 1
    try:
        yield
    finally:
        with _RUNNING_LOCK:
            _RUNNING -= 1
            if _RUNNING == 0:
                for parameter, value in after.items():
                    libc.mallopt(parameter, value)
                libc.malloc_trim(0)


def steadily(unit: Callable[..., T], *args) -> T:
    """``unit(*args)`` in a :func:`steady_heap` (picklable, for workers).

    >>> steadily(max, 2, 3)
    3
    """
    with steady_heap():
        return unit(*args)
