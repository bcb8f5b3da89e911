"""The bitcast room has one door: every module outside ``prover/bitcast/``
imports it as ``tilespec.prover.bitcast`` (its ``__init__``), never one of
its inner modules; and the padding advisor enters the rooms it asks (bitcast,
models, hlo) by their doors."""

from __future__ import annotations

import ast
import subprocess

import pytest
from locations import ROOT

import tilespec.prover.bitcast as door

PACKAGES = ("spec", "prover", "cli", "xla", "teach", "codegen", "interop", "cute")


def _files() -> list[str]:
    out = subprocess.run(["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout.split()
    return [f for f in out if f.split("/")[0] in PACKAGES or f == "__init__.py"]


def _reached(path: str) -> list[tuple[int, str]]:
    """Each module a file's relative imports reach, as a dotted path from
    the repository's root (``prover.bitcast.reading``), with its line;
    ``from ..bitcast import reading`` reaches ``prover.bitcast.reading``."""
    tree = ast.parse((ROOT / path).read_text())
    base = path.split("/")[:-1]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            parts = base[: len(base) - (node.level - 1)] + (node.module or "").split(".")
            parts = [p for p in parts if p]
            out.append((node.lineno, ".".join(parts)))
            # from package import module: the module is reached too
            out += [(node.lineno, ".".join(parts + [a.name])) for a in node.names
                    if ROOT.joinpath(*parts, a.name + ".py").exists()]
    return out


def _inner(module: str, room: str) -> bool:
    return module.startswith(room + ".")


@pytest.mark.parametrize("path", [f for f in _files() if not f.startswith("prover/bitcast/")])
def test_no_module_outside_the_bitcast_room_imports_its_inner_modules(path):
    inner = [(line, m) for line, m in _reached(path) if _inner(m, "prover.bitcast")]
    assert not inner, f"{path}: {inner}"


@pytest.mark.parametrize("path", ["prover/padding/advice.py", "prover/padding/report.py"])
def test_the_advisor_enters_each_room_by_its_door(path):
    for room in ("prover.bitcast", "prover.hlo", "prover.models"):
        inner = [(line, m) for line, m in _reached(path) if _inner(m, room)]
        assert not inner, f"{path}: {inner}"


def test_the_door_exports_the_questions_and_what_they_answer_with():
    assert {"is_bitcast", "decompose", "Decomposition", "Question"} <= set(door.__all__)
    assert all(hasattr(door, name) for name in door.__all__)
    # the inner modules' helpers stay inside
    assert not {"moved_element", "scan", "major_to_minor", "reshape_groups"} & set(door.__all__)
