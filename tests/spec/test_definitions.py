"""spec/ holds definitions only: no engine, and a second definition that is
independent of the first.

The fast byte engine (strided plans, word packing, blocks on threads) is
:mod:`tilespec.image`, a floor above; spec's pad-reshape-transpose on arrays
(:mod:`spec.physical`) is plain numpy that a reader checks by eye, and it
must not borrow the index arithmetic it is compared with.
"""

import ast

import pytest
from locations import ROOT

SPEC = sorted((ROOT / "spec").glob("*.py"))


def _imported(path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            yield "." * node.level + (node.module or "")


@pytest.mark.parametrize("path", SPEC, ids=lambda p: p.name)
def test_spec_runs_no_threads_or_processes(path):
    engines = {"threading", "concurrent", "multiprocessing", "_thread", "os"}
    assert not {m.split(".")[0] for m in _imported(path)} & engines


def test_the_arrays_definition_is_independent_of_the_index_maps():
    used = set(_imported(ROOT / "spec" / "physical.py"))
    assert not used & {".index", ".prt", ".arith", ".size"}, used


def test_the_engine_is_not_in_spec():
    names = {p.stem for p in SPEC}
    assert not names & {"blocks", "strided", "packing", "elements", "bytes", "strategies"}
