"""Notebook 11 (Triton's linear layouts) runs without the real Triton too.

The kernel hides Triton (its distribution's metadata and its import), so
``tilespec.triton.real.available()`` is False and the notebook must show
the answers recorded with triton 3.9.0, its asserts holding all the same.
tests/notebooks/test_notebooks.py runs it as installed (with Triton where
the triton extra is).
"""

from __future__ import annotations

import pytest
from locations import ROOT
from notebook_kernels import printed, run_with_boot, stream

# Starts a Jupyter kernel.
pytestmark = pytest.mark.integration

NOTEBOOK = ROOT / "notebooks" / "11_triton_linear_layouts.ipynb"
KERNEL = "tilespec-test-no-triton"
HIDE_TRITON = (
    "import importlib.metadata as m, sys; sys.modules['triton'] = None; d = m.distribution\n"
    "def hidden(name):\n"
    "    if name == 'triton':\n"
    "        raise m.PackageNotFoundError(name)\n"
    "    return d(name)\n"
    "m.distribution = hidden\n"
    "from ipykernel import kernelapp; kernelapp.launch_new_instance()")


def test_notebook_11_runs_without_triton(tmp_path):
    nb = run_with_boot(NOTEBOOK, HIDE_TRITON, tmp_path, tmp_path, KERNEL)
    out = printed(nb)
    assert "recorded with triton 3.9.0" in out
    assert "asking the real Triton" not in out
    assert "all checks passed" in stream(nb.cells[-1])
