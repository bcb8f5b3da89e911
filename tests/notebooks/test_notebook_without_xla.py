"""Notebook 08 (real XLA beside the spec) runs without jax as well.

The kernel hides jax and jaxlib (``sys.modules[name] = None`` makes
``importlib.util.find_spec`` answer ``None`` and any import fail), so
``tilespec.xla.real.available()`` is False and the notebook must show the
answers recorded with jaxlib 0.10.2, its asserts holding all the same.
tests/test_notebooks.py runs it with jax, where it asks XLA.
"""

from __future__ import annotations

import json
import sys

import nbformat
import pytest
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager
from locations import ROOT
from nbclient import NotebookClient

# Starts a Jupyter kernel.
pytestmark = pytest.mark.integration

NOTEBOOK = ROOT / "notebooks" / "08_real_xla_beside_the_spec.ipynb"
KERNEL = "tilespec-test-no-xla"
HIDE_JAX = ("import sys; sys.modules['jax'] = sys.modules['jaxlib'] = None; "
            "from ipykernel import kernelapp; kernelapp.launch_new_instance()")


def _stream(cell) -> str:
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")


def test_notebook_08_runs_without_jax(tmp_path):
    (tmp_path / KERNEL).mkdir()
    (tmp_path / KERNEL / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-c", HIDE_JAX, "-f", "{connection_file}"],
        "display_name": "Python (tilespec tests, no jax)", "language": "python"}))
    nb = nbformat.read(NOTEBOOK, as_version=4)
    manager = KernelManager(kernel_name=KERNEL,
                            kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(tmp_path)]))
    NotebookClient(nb, km=manager, timeout=120,
                   resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    printed = "\n".join(_stream(c) for c in nb.cells if c.cell_type == "code")
    assert "recorded with jaxlib 0.10.2" in printed
    assert "pip install -e '.[xla]'" in printed      # the install hint, shown
    assert "asking real XLA" not in printed
    assert "all checks passed" in _stream(nb.cells[-1])
