"""The repository passes its own lint: ``ruff check .`` and ``mypy``.

Both run with the executables of the environment the tests run in (the
``test`` extra installs them), on this checkout: mypy reads the package's
files by path (``files`` in pyproject.toml), so it checks these files, not
another install.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from locations import ROOT

# Each starts another program (mypy takes some 20 s): kept out of the inner loop.
pytestmark = pytest.mark.integration


def _tool(name: str) -> str:
    """The tool beside this Python, else on the PATH; skip if neither."""
    here = Path(sys.executable).parent / name
    found = str(here) if here.exists() else shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed (pip install -e '.[test]')")
    return found


def test_ruff_finds_nothing():
    done = subprocess.run([_tool("ruff"), "check", "--no-cache", "."], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_finds_nothing():
    done = subprocess.run([_tool("mypy"), "--no-incremental", "--cache-dir", os.devnull],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
