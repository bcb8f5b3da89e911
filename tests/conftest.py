"""Hypothesis settings shared by the tests.

The suite is deterministic by default (the README's command, and CI=true):
examples are derandomized (seeded from each test's name), no example
database replays a failure found on another run, and no health check
depends on the machine's speed.  So a red run means a change, not luck or a
loaded machine.  Developers who want fresh random examples run with
``TILESPEC_HYPOTHESIS=explore`` (failures are then printed with a blob to
reproduce them, and saved in .hypothesis/).

Proofs cached on disk (prover/core/cache.py) go to a directory of this run, not
the user's ~/.cache: every run starts from the same (empty) cache, and the
tests leave nothing behind in the home directory, nor in the temporary
directory (the process that made the cache directory removes it at exit).
In an environment that asks for no bytecode (PYTHONDONTWRITEBYTECODE), the
run writes it anyway, as Python does by default (__pycache__ beside the
sources): tilespec is compiled once, not in each of the run's processes.

No deadline: the first example of a test pays for imports (sympy, numpy) and
a loaded machine is slow; the tests bound their work with max_examples.
"""

import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

sys.path.insert(0, str(Path(__file__).parent))  # tests/mutants.py

if "TILESPEC_CACHE_DIR" not in os.environ:  # subprocesses of the tests inherit it
    import atexit
    import shutil
    import tempfile
    CACHE_DIR = tempfile.mkdtemp(prefix="tilespec-test-cache-")
    os.environ["TILESPEC_CACHE_DIR"] = CACHE_DIR
    # Removed by the process that made it, when it exits: the xdist workers
    # and the tests' subprocesses inherit the variable and never come here;
    # a child forked from this process (os.fork, multiprocessing's fork)
    # inherits the handler, so it checks whose exit it is.
    MAKER = os.getpid()
    atexit.register(lambda: os.getpid() == MAKER and shutil.rmtree(CACHE_DIR, ignore_errors=True))
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        # Each process of the run (the xdist workers, the CLI subprocesses,
        # the notebook kernels, the XLA workers) would compile tilespec from
        # source again: the run writes bytecode as Python does by default,
        # beside the sources (__pycache__, ignored by git).  Not in a
        # directory of the run (PYTHONPYCACHEPREFIX): there every installed
        # package would be compiled again too.
        del os.environ["PYTHONDONTWRITEBYTECODE"]
        sys.dont_write_bytecode = False

settings.register_profile("explore", deadline=None, print_blob=True)
settings.register_profile("ci", deadline=None, print_blob=True, derandomize=True,
                          database=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("explore" if os.environ.get("TILESPEC_HYPOTHESIS") == "explore"
                      else "ci")


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook makes `-n` mean --dist load
def pytest_cmdline_main(config):
    """With ``-n``, each module's tests go to one worker (``--dist
    loadfile``), modules in collection order (no loadscope reorder), unless
    ``--dist`` says otherwise.

    So a module's fixtures (a thousand texts asked of XLA, a fuzzing
    campaign) are set up once, and the integration modules, first in the
    order (below), start first.  Set here rather than in ``addopts``, where
    xdist's options would make a plain ``pytest -p no:xdist`` an error.
    """
    if config.pluginmanager.hasplugin("xdist") and config.option.numprocesses \
            and config.option.dist == "no" \
            and not config.option.distload:
        config.option.dist = "loadfile"
        config.option.loadscopereorder = False


@pytest.hookimpl(trylast=True)  # after -m deselects: a slow test leaves its module short
def pytest_collection_modifyitems(config, items):
    """``slow`` tests run only when the ``-m`` expression names them, and
    the integration tests run first.

    A ``-m`` on the command line replaces the one in ``addopts`` ("not
    slow"), so without this ``pytest -m "not integration"`` would start the
    long campaigns.
    """
    if "slow" not in (config.option.markexpr or ""):
        slow = [item for item in items if item.get_closest_marker("slow")]
        if slow:
            config.hook.pytest_deselected(items=slow)
            items[:] = [item for item in items if not item.get_closest_marker("slow")]
    # The modules with integration tests (a real compiler, a subprocess, a
    # kernel, mypy) are the long ones: run first, they leave the short unit
    # tests to balance the workers of `-n auto` at the end, instead of one
    # worker finishing mypy or the XLA tests alone.  Whole modules move, and
    # each goes to one worker (--dist loadfile, pyproject.toml), so a
    # module's fixtures are set up once; the order is otherwise the
    # collection order (a stable sort), the same in every worker.
    long = {item.path for item in items if item.get_closest_marker("integration")}
    items.sort(key=lambda item: item.path not in long)
