"""Notebook 11 (Triton's linear layouts) runs without the real Triton too.

The kernel hides Triton (its distribution's metadata and its import), so
``tilespec.triton.real.available()`` is False and the notebook must show
the answers recorded with triton 3.9.0, its asserts holding all the same.
tests/notebooks/test_notebooks.py runs it as installed (with Triton where
the triton extra is).
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


def _stream(cell) -> str:
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")


def test_notebook_11_runs_without_triton(tmp_path):
    (tmp_path / KERNEL).mkdir()
    (tmp_path / KERNEL / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-c", HIDE_TRITON, "-f", "{connection_file}"],
        "display_name": "Python (tilespec tests, no triton)", "language": "python"}))
    nb = nbformat.read(NOTEBOOK, as_version=4)
    manager = KernelManager(kernel_name=KERNEL,
                            kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(tmp_path)]))
    NotebookClient(nb, km=manager, timeout=120,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    printed = "\n".join(_stream(c) for c in nb.cells if c.cell_type == "code")
    assert "recorded with triton 3.9.0" in printed
    assert "asking the real Triton" not in printed
    assert "all checks passed" in _stream(nb.cells[-1])
