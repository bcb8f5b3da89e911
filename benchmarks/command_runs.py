"""Whole commands timed on a shared machine: each in a fresh process, with
an empty proof cache where a first use is measured, and medians of runs
made side by side (the load changes from second to second)."""

from __future__ import annotations

import os
import statistics
import subprocess
import tempfile
import time


def fresh_cache_dir() -> str:
    """An empty proof-cache directory: a first use, as after an install."""
    return tempfile.mkdtemp(prefix="tilespec-bench-fresh-")


def run_seconds(cmd, env=None) -> float:
    """Wall seconds of one run of ``cmd`` (its output discarded)."""
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False,
                   env=env)
    return time.perf_counter() - start


def median_run(cmd, repeats, fresh=False) -> float:
    """Median wall seconds of ``repeats`` runs (``fresh``: each with an
    empty proof cache)."""
    return statistics.median(run_seconds(cmd, fresh_env() if fresh else None)
                             for _ in range(repeats))


def side_by_side(runs, repeats) -> list[list[float]]:
    """Wall seconds of each run, the runs made in turn ``repeats`` times:
    on a shared machine the load changes from second to second, and a
    ratio is only fair between runs made side by side.  A run is a
    ``(cmd, env)`` pair (``env`` may be a function giving each run its
    environment) or a function that makes one and returns its seconds."""
    times: list[list[float]] = [[] for _ in runs]
    for _ in range(repeats):
        for t, run in zip(times, runs):
            if callable(run):
                t.append(run())
            else:
                cmd, env = run
                t.append(run_seconds(cmd, env() if callable(env) else env))
    return times


def interleaved(runs, repeats) -> list[float]:
    """Median wall time of each run of :func:`side_by_side`."""
    return [statistics.median(t) for t in side_by_side(runs, repeats)]


def fresh_env() -> dict:
    """This process's environment with an empty proof cache."""
    return dict(os.environ, TILESPEC_CACHE_DIR=fresh_cache_dir())


def verdict(ok: bool) -> str:
    """A target's verdict as the benchmarks print it."""
    return "met" if ok else "NOT MET"
