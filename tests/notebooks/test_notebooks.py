"""Every notebook in notebooks/ runs from top to bottom; its last cells assert.

Each runs with an empty temporary directory as its working directory: a
notebook that reads files beside it (``Path("..") / "tests"``) fails here,
as it would for a user who opens it from anywhere else.

The kernel is this interpreter (``sys.executable -m ipykernel_launcher``),
described by a kernel spec written to a temporary directory, so the test
needs nothing installed outside the venv: no ``ipykernel install --user``,
and a ``python3`` kernel registered elsewhere on the machine is not used.
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

# Starts a Jupyter kernel per notebook.
pytestmark = pytest.mark.integration

NOTEBOOK_DIR = ROOT / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
KERNEL = "tilespec-test-python"


@pytest.fixture(scope="session")
def kernel_dirs(tmp_path_factory) -> list[str]:
    root = tmp_path_factory.mktemp("kernels")
    (root / KERNEL).mkdir()
    (root / KERNEL / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python (tilespec tests)",
        "language": "python",
    }))
    return [str(root)]


def test_there_are_notebooks():
    assert len(NOTEBOOKS) >= 4


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_has_no_saved_outputs(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, path.name
    assert nb.cells[0].cell_type == "markdown" and "What you will learn" in nb.cells[0].source


SOURCE_URL = "https://openxla.org/xla/tiled_layout"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_names_and_links_the_source_document(path):
    # "The document" is XLA's "Tiled layout" page: named and linked up front.
    nb = nbformat.read(path, as_version=4)
    first = nb.cells[0].source
    assert SOURCE_URL in first and "Tiled layout" in first, path.name
    cited = [c.source for c in nb.cells if "Figure 1" in c.source or "Figure 2" in c.source]
    if cited:
        assert "Figure" in first, f"{path.name} draws the document's figures without naming them"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs_from_any_working_directory(path, kernel_dirs, tmp_path):
    nb = nbformat.read(path, as_version=4)
    manager = KernelManager(kernel_name=KERNEL,
                            kernel_spec_manager=KernelSpecManager(kernel_dirs=kernel_dirs))
    client = NotebookClient(nb, km=manager, timeout=120,
                            resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    last = nb.cells[-1]
    printed = "".join(o.get("text", "") for o in last.outputs if o.output_type == "stream")
    assert "all checks passed" in printed
