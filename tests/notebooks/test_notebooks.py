"""Every notebook in notebooks/ runs from top to bottom; its last cells assert.

The lessons 01-04 are also in Korean (notebooks/ko) and Spanish
(notebooks/es): each says the same things in its own language (the words
below), and draws its figures in it.

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
import tempfile

import nbformat
import pytest
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager
from locations import ROOT
from nbclient import NotebookClient

# Starts a Jupyter kernel per notebook.
pytestmark = pytest.mark.integration

NOTEBOOK_DIR = ROOT / "notebooks"
#: Per language: its folder, and how a notebook says "what you will learn",
#: names the document's figures and ends.
LANGUAGES = {
    "en": (NOTEBOOK_DIR, "What you will learn", "Figure", "all checks passed"),
    "ko": (NOTEBOOK_DIR / "ko", "배울 내용", "그림", "모든 확인을 통과했습니다"),
    "es": (NOTEBOOK_DIR / "es", "Lo que aprenderá", "Figura", "todas las comprobaciones se cumplen"),
}
NOTEBOOKS = sorted(path for folder, *_ in LANGUAGES.values() for path in folder.glob("*.ipynb"))
TRANSLATED = ("01", "02", "03", "04")
KERNEL = "tilespec-test-python"


def language(path: Path) -> str:
    return next((lang for lang, (folder, *_) in LANGUAGES.items()
                 if lang != "en" and path.parent == folder), "en")


def name(path: Path) -> str:
    return str(path.relative_to(NOTEBOOK_DIR))


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


@pytest.mark.parametrize("lang", ["ko", "es"])
def test_lessons_01_to_04_are_translated(lang):
    english = {p.name for p in NOTEBOOK_DIR.glob("*.ipynb") if p.name[:2] in TRANSLATED}
    translated = {p.name for p in (NOTEBOOK_DIR / lang).glob("*.ipynb")}
    assert len(english) == 4 and english <= translated


@pytest.mark.parametrize("path", [p for p in NOTEBOOKS if language(p) != "en"], ids=name)
def test_a_translation_draws_its_figures_in_its_language(path):
    nb = nbformat.read(path, as_version=4)
    calls = [line for c in nb.cells if c.cell_type == "code"
             for line in c.source.splitlines() if "tilespec.draw(" in line]
    assert all(f'lang="{language(path)}"' in line for line in calls), calls


@pytest.mark.parametrize("path", NOTEBOOKS, ids=name)
def test_notebook_has_no_saved_outputs(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, path.name
    learn = LANGUAGES[language(path)][1]
    assert nb.cells[0].cell_type == "markdown" and learn in nb.cells[0].source


SOURCE_URL = "https://openxla.org/xla/tiled_layout"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=name)
def test_notebook_names_and_links_the_source_document(path):
    # "The document" is XLA's "Tiled layout" page: named and linked up front.
    nb = nbformat.read(path, as_version=4)
    first = nb.cells[0].source
    assert SOURCE_URL in first and "Tiled layout" in first, path.name
    figure = LANGUAGES[language(path)][2]
    cited = [c.source for c in nb.cells if f"{figure} 1" in c.source or f"{figure} 2" in c.source]
    if cited:
        assert figure in first, f"{path.name} draws the document's figures without naming them"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=name)
def test_notebook_runs_from_any_working_directory(path, kernel_dirs, tmp_path, monkeypatch):
    # the kernel's connection file is made in the temporary directory
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    nb = nbformat.read(path, as_version=4)
    manager = KernelManager(kernel_name=KERNEL,
                            kernel_spec_manager=KernelSpecManager(kernel_dirs=kernel_dirs))
    client = NotebookClient(nb, km=manager, timeout=120, shutdown_kernel="immediate",
                            resources={"metadata": {"path": str(tmp_path)}})
    # A client given its kernel manager leaves the kernel running: ended
    # here, with its connection file in the temporary directory
    client.execute(cleanup_kc=True)
    assert not manager.has_kernel and list((tmp_path / "tmp").iterdir()) == []
    last = nb.cells[-1]
    printed = "".join(o.get("text", "") for o in last.outputs if o.output_type == "stream")
    assert LANGUAGES[language(path)][3] in printed
