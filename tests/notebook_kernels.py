"""A notebook run in a Jupyter kernel that starts with some code of its own:
how the tests show that a notebook works where an optional package (jax,
Triton) is missing, by hiding it before the kernel's first line runs."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import nbformat
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient


def run_with_boot(notebook: Path, boot: str, kernels: Path, cwd: Path, name: str):
    """``notebook`` executed in a kernel ``name`` (its spec written under
    ``kernels``) whose process runs ``boot`` first, which must end by
    launching ipykernel; the working directory is ``cwd``."""
    (kernels / name).mkdir()
    (kernels / name / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-c", boot, "-f", "{connection_file}"],
        "display_name": f"Python (tilespec tests, {name})", "language": "python"}))
    nb = nbformat.read(notebook, as_version=4)
    manager = KernelManager(kernel_name=name,
                            kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(kernels)]))
    # A client given its kernel manager leaves the kernel running: ended
    # here, with its connection file in the temporary directory
    NotebookClient(nb, km=manager, timeout=120, shutdown_kernel="immediate",
                   resources={"metadata": {"path": str(cwd)}}).execute(cleanup_kc=True)
    return nb


def stream(cell) -> str:
    """What a code cell printed."""
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")


def printed(nb) -> str:
    """What every code cell of ``nb`` printed."""
    return "\n".join(stream(c) for c in nb.cells if c.cell_type == "code")
