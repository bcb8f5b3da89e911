"""The suite's own set-up (tests/conftest.py) leaves nothing behind.

The proof cache of a test run is a directory in the system's temporary
directory; the process that made it removes it when it exits, and no
process that merely inherits it (the xdist workers, the tests'
subprocesses, a forked child) removes it early.
"""

import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from locations import ROOT

pytestmark = pytest.mark.integration  # three Python processes

SESSION = """
import os, subprocess, sys
sys.path.insert(0, sys.argv[1])
import conftest
cache = os.environ["TILESPEC_CACHE_DIR"]
open(os.path.join(cache, "a-proof"), "w").write("{}")
# a test's subprocess inherits the directory, and leaves it
subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1]); "
                "import conftest", sys.argv[1]], check=True)
pid = os.fork()                # the child runs this process's exit handlers too
if pid == 0:
    sys.exit(0)
os.waitpid(pid, 0)
assert os.path.exists(os.path.join(cache, "a-proof")), "removed by a process that inherited it"
print(cache)
"""


def test_a_test_process_removes_its_cache_directory_and_only_it(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "TILESPEC_CACHE_DIR"}
    env["TMPDIR"] = str(tmp_path)
    done = subprocess.run([sys.executable, "-c", SESSION, str(ROOT / "tests")], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(str(tmp_path / "tilespec-test-cache-"))
    assert list(tmp_path.iterdir()) == []


def test_a_module_runs_in_one_worker_integration_modules_first(request):
    # a module's fixture (a thousand texts asked of XLA) is set up in every
    # worker that runs one of its tests: -n sends whole modules, in the
    # order of tests/conftest.py (xdist's own reorders them by test count)
    # (the mode xdist is given: the next test)
    modules = [item.path for item in request.session.items]
    long = {item.path for item in request.session.items
            if item.get_closest_marker("integration")}
    first = [path in long for path in modules]
    assert first == sorted(first, reverse=True), "the integration modules run first"
    assert len(set(modules)) == sum(a != b for a, b in zip([None] + modules, modules)), \
        "each module's tests are together"


def test_the_run_writes_bytecode_once_for_all_its_processes():
    # PYTHONDONTWRITEBYTECODE would have every subprocess, kernel and XLA
    # worker of the run compile tilespec from source again
    assert "PYTHONDONTWRITEBYTECODE" not in os.environ and not sys.dont_write_bytecode


def test_minus_n_alone_means_whole_modules_in_collection_order(request):
    # set by tests/conftest.py, not by addopts: there xdist's options would
    # make `pytest -p no:xdist` an error
    here = Path(__file__).with_name("conftest.py")
    hook = next(p for p in request.config.pluginmanager.get_plugins()
                if getattr(p, "__file__", None) == str(here)).pytest_cmdline_main

    def told(xdist=True, **given):
        option = SimpleNamespace(**{"numprocesses": 2, "dist": "no", "distload": False,
                                    "loadscopereorder": True, **given})
        hook(SimpleNamespace(option=option, pluginmanager=SimpleNamespace(
            hasplugin=lambda name: xdist and name == "xdist")))
        return option.dist, option.loadscopereorder
    assert told() == ("loadfile", False)
    assert told(dist="load") == ("load", True)      # the command line's --dist stands
    assert told(distload=True) == ("no", True)
    assert told(numprocesses=None) == ("no", True)  # no -n: one process
    assert told(xdist=False) == ("no", True)
