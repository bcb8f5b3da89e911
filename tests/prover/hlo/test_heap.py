"""The C heap while a work unit runs (``prover/hlo/heap.py``): where the
environment fixed glibc's thresholds (Dask's nanny sets
``MALLOC_TRIM_THRESHOLD_``), a unit's blocks are not mapped afresh each
time, and the environment's thresholds hold again after it."""

import subprocess
import sys

import pytest

from tilespec.prover.hlo.heap import (
    GLIBC_DEFAULT,
    M_MMAP_THRESHOLD,
    M_TRIM_THRESHOLD,
    WHILE_RUNNING,
    fixed_thresholds,
    glibc,
    steady_heap,
)


@pytest.mark.parametrize("environ, fixed", [
    ({}, None),
    ({"MALLOC_TRIM_THRESHOLD_": "65536"}, {M_TRIM_THRESHOLD: 65536,
                                          M_MMAP_THRESHOLD: GLIBC_DEFAULT}),
    ({"MALLOC_MMAP_THRESHOLD_": "1048576"}, {M_TRIM_THRESHOLD: GLIBC_DEFAULT,
                                            M_MMAP_THRESHOLD: 1048576}),
    ({"MALLOC_TRIM_THRESHOLD_": "-1"}, None),
    ({"MALLOC_TRIM_THRESHOLD_": ""}, None),
])
def test_the_thresholds_an_environment_fixes(environ, fixed):
    assert fixed_thresholds(environ) == fixed


class Recorder:
    def __init__(self):
        self.calls = []

    def mallopt(self, parameter, value):
        self.calls.append(("mallopt", parameter, value))
        return 1

    def malloc_trim(self, pad):
        self.calls.append(("malloc_trim", pad))
        return 1


def test_the_environment_holds_again_after_a_unit_even_one_that_raises():
    libc = Recorder()
    with pytest.raises(KeyError), steady_heap({"MALLOC_TRIM_THRESHOLD_": "65536"}, libc):
        raise KeyError("a unit's bug")
    assert libc.calls == [("mallopt", p, v) for p, v in WHILE_RUNNING.items()] + [
        ("mallopt", M_TRIM_THRESHOLD, 65536), ("mallopt", M_MMAP_THRESHOLD, GLIBC_DEFAULT),
        ("malloc_trim", 0)]


def test_nothing_changes_where_the_environment_fixed_nothing():
    libc = Recorder()
    with steady_heap({}, libc):
        pass
    assert libc.calls == []


#: Allocates and frees a 1 MiB block 300 times, outside and inside a steady
#: heap, and prints the page faults of each: with the mmap threshold fixed
#: at 128 KiB, each block is a fresh mapping, its 256 pages faulted in anew.
FAULTS = """
import resource
from tilespec.prover.hlo.heap import steady_heap
def faults(n=300):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(n):
        b = bytearray(1 << 20)
        del b
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
outside = faults()
with steady_heap():
    inside = faults()
after = faults()
print(outside, inside, after)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux") or glibc() is None,
                    reason="glibc's malloc only")
def test_a_steady_heap_maps_no_block_afresh_under_a_fixed_threshold():
    out = subprocess.run([sys.executable, "-c", FAULTS], capture_output=True, text=True,
                         check=True, env={"MALLOC_TRIM_THRESHOLD_": "65536",
                                          "PATH": "/usr/bin:/bin"}).stdout
    outside, inside, after = map(int, out.split())
    assert outside > 300 * 200 and after > 300 * 200    # a mapping per block
    assert inside < 300 * 20


def test_units_running_at_once_keep_the_heap_steady_until_the_last_ends():
    libc = Recorder()
    environ = {"MALLOC_TRIM_THRESHOLD_": "65536"}
    first, second = steady_heap(environ, libc), steady_heap(environ, libc)
    first.__enter__()
    second.__enter__()                  # a second thread's unit starts
    first.__exit__(None, None, None)    # the first ends while the second runs
    assert ("malloc_trim", 0) not in libc.calls
    second.__exit__(None, None, None)
    assert libc.calls == [("mallopt", p, v) for p, v in WHILE_RUNNING.items()] + [
        ("mallopt", M_TRIM_THRESHOLD, 65536), ("mallopt", M_MMAP_THRESHOLD, GLIBC_DEFAULT),
        ("malloc_trim", 0)]


def test_the_thresholds_are_those_the_process_started_with(monkeypatch):
    from tilespec.prover.hlo.heap import startup_environment
    started = startup_environment().get("MALLOC_TRIM_THRESHOLD_")
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "12345")     # set since: glibc never read it
    if sys.platform == "linux":
        assert startup_environment().get("MALLOC_TRIM_THRESHOLD_") == started
