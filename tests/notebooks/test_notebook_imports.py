"""Every notebook (English, and notebooks/ko, notebooks/es) uses tilespec's
public API only: from the tilespec package it imports the top level
(``import tilespec``, ``from tilespec import ...``) and reaches nothing below
it but ``tilespec.xla`` (real XLA, a public subpackage loaded on first use),
``tilespec.cute`` (CuTe's layout algebra, public and solver-free) and
``tilespec.triton`` (Triton's linear layouts, loaded on first use with their
proofs).

Read from the code cells' syntax trees, without running them.
"""

from __future__ import annotations

import ast

import nbformat
import pytest
from locations import ROOT

NOTEBOOKS = sorted((ROOT / "notebooks").rglob("*.ipynb"))
#: What a notebook may reach below ``tilespec.``.
PUBLIC_SUBPACKAGES = {"xla", "cute", "triton"}


def internal_uses(source: str) -> list[str]:
    """What a cell's code takes from tilespec other than its public API.

    >>> internal_uses("import tilespec\\nfrom tilespec import offset\\nimport numpy as np")
    []
    >>> internal_uses("from tilespec.spec.index import linear_index")
    ['line 1: from tilespec.spec.index import']
    >>> internal_uses("import tilespec\\ntilespec.prover.models.rules.check")
    ['line 2: tilespec.prover']
    """
    # IPython's own lines (%magic, !shell) are not Python
    lines = ["" if line.lstrip().startswith(("%", "!")) else line
             for line in source.splitlines()]
    tree = ast.parse("\n".join(lines))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [f"line {node.lineno}: import {a.name}" for a in node.names
                      if a.name.startswith("tilespec.")]
        elif isinstance(node, ast.ImportFrom):
            if (node.module or "").startswith("tilespec.") or node.level:
                found.append(f"line {node.lineno}: from {'.' * node.level}{node.module} import")
            elif node.module == "tilespec":
                found += [f"line {node.lineno}: from tilespec import {a.name}"
                          for a in node.names if a.name in _SUBPACKAGES_NOT_PUBLIC]
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id == "tilespec" and node.attr in _SUBPACKAGES_NOT_PUBLIC:
            found.append(f"line {node.lineno}: tilespec.{node.attr}")
    return found


_SUBPACKAGES_NOT_PUBLIC = {p.parent.name for p in ROOT.glob("*/__init__.py")} - PUBLIC_SUBPACKAGES


def test_the_internal_subpackages_are_known():
    assert {"spec", "prover", "teach", "codegen", "cli", "interop"} <= _SUBPACKAGES_NOT_PUBLIC


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: str(p.relative_to(ROOT / "notebooks")))
def test_notebook_uses_only_the_public_api(path):
    nb = nbformat.read(path, as_version=4)
    found = [f"cell {i}, {use}" for i, cell in enumerate(nb.cells) if cell.cell_type == "code"
             for use in internal_uses(cell.source)]
    assert not found, f"{path.name} reaches inside tilespec: {found}"
