"""Notebook 08 (real XLA beside the spec) runs without jax as well.

The kernel hides jax and jaxlib (``sys.modules[name] = None`` makes
``importlib.util.find_spec`` answer ``None`` and any import fail), so
``tilespec.xla.real.available()`` is False and the notebook must show the
answers recorded with jaxlib 0.10.2, its asserts holding all the same.
tests/test_notebooks.py runs it with jax, where it asks XLA.
"""

from __future__ import annotations

import pytest
from locations import ROOT
from notebook_kernels import printed, run_with_boot, stream

# Starts a Jupyter kernel.
pytestmark = pytest.mark.integration

NOTEBOOK = ROOT / "notebooks" / "08_real_xla_beside_the_spec.ipynb"
KERNEL = "tilespec-test-no-xla"
HIDE_JAX = ("import sys; sys.modules['jax'] = sys.modules['jaxlib'] = None; "
            "from ipykernel import kernelapp; kernelapp.launch_new_instance()")


def test_notebook_08_runs_without_jax(tmp_path):
    nb = run_with_boot(NOTEBOOK, HIDE_JAX, tmp_path, NOTEBOOK.parent, KERNEL)
    out = printed(nb)
    assert "recorded with jaxlib 0.10.2" in out
    assert "pip install -e '.[xla]'" in out      # the install hint, shown
    assert "asking real XLA" not in out
    assert "all checks passed" in stream(nb.cells[-1])
