"""The fingerprint sees every definition a proof depends on
(prover/core/definitions.py): a module-level value, a table entry, a
default, a closure, a function body, in this process or in a new one after
an edit of the source; a kept proof about other definitions is not cited."""

from __future__ import annotations

import ast
import compileall
import json
import os
import py_compile
import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest

import tilespec
from tilespec.prover.core import cache, definitions, level_theorems, theorems
from tilespec.prover.properties import instances
from tilespec.prover.properties.proof import prove
from tilespec.spec import dtypes, index, layout, size
from tilespec.spec.arith import NUMPY
from tilespec.spec.text import parse_array_shape as shape

#: The issue's case: the formula and pad-reshape-transpose of this layout
#: disagree once spec/index.py rebinds COMBINE.
CASE = "f32[3,4]{1,0:T(2,3)}"
QUESTION = "formula_equals_prt of f32[d0,d1]{1,0:T(2,3)} for all dims >= 1"


def _spec_modules(code=None) -> list[str]:
    """The spec modules the all-shapes proofs (or ``code``'s modules) reach."""
    code = instances._code() if code is None else tuple(
        m for m in code if isinstance(m, types.ModuleType))
    return [m.__name__.removeprefix("tilespec.") for m in
            definitions.reached(code, ("tilespec.prover.core.cache",))
            if m.__name__.startswith("tilespec.spec.")]


def test_the_proofs_reach_the_spec_modules_they_read():
    # index reads layout's COMBINE, size reads dtypes' bit widths
    assert {"spec.index", "spec.layout", "spec.dtypes", "spec.size", "spec.arith",
            "spec.prt"} <= set(_spec_modules())


def test_the_fingerprint_is_about_the_proofs_code_not_the_proof_store():
    names = {m.__name__ for m in definitions.reached(
        instances._code(), ("tilespec.prover.core.cache",))}
    assert "tilespec.prover.core.cache" not in names
    assert "tilespec.prover.core.theorems" in names


# --- in this process --------------------------------------------------------

def _shipped_cited(s, prop) -> bool:
    try:
        r = prove(s, prop)
    except Exception:       # a definition changed so far that the proof breaks
        return False
    return any("shipped with tilespec" in step for step in r.steps)


def test_a_rebound_module_constant_stops_the_shipped_citation(shipped_only, monkeypatch):
    s = shape(CASE)
    assert _shipped_cited(s, "formula_equals_prt")      # warm: the fast check vouches
    before = instances.fingerprint()
    monkeypatch.setattr(index, "COMBINE", 2)
    assert instances.fingerprint() != before
    assert cache.lookup(QUESTION, instances.fingerprint()) is None
    assert not _shipped_cited(s, "formula_equals_prt")
    monkeypatch.undo()
    assert instances.fingerprint() == before and _shipped_cited(s, "formula_equals_prt")


def _set_default(monkeypatch, f, i, value):
    defaults = list(f.__defaults__)
    defaults[i] = value
    monkeypatch.setattr(f, "__defaults__", tuple(defaults))


#: Changes to what a definition holds, in this process, each undone after.
CHANGES = {
    "a module constant rebound": lambda mp: mp.setattr(index, "COMBINE", 2),
    "a constant added to a module": lambda mp: mp.setattr(size, "EDITED", 1, raising=False),
    "a table entry": lambda mp: mp.setitem(dtypes.BIT_WIDTHS, "f32", 16),
    "a table entry added": lambda mp: mp.setitem(dtypes.BIT_WIDTHS, "f7", 7),
    "a default argument": lambda mp: _set_default(mp, index.product, 0, NUMPY),
    "a default argument of a method": lambda mp: _set_default(
        mp, layout.Layout.__init__, 0, ("edited",)),
    "a class attribute": lambda mp: mp.setattr(type(NUMPY), "name", "edited"),
    "an instance attribute": lambda mp: mp.setitem(vars(NUMPY), "extra", 1),
    "a function body": lambda mp: mp.setattr(index.product, "__code__",
                                             index.linear_index.__code__),
    "a method replaced": lambda mp: mp.setattr(index.Split, "dims",
                                               lambda self, d, ar: tuple(d)),
}


@pytest.mark.parametrize("change", CHANGES.values(), ids=CHANGES.keys())
def test_a_changed_definition_changes_the_warm_fingerprint(monkeypatch, change):
    before = (instances.fingerprint(), theorems.fingerprint())
    assert (instances.fingerprint(), theorems.fingerprint()) == before     # warm
    change(monkeypatch)
    assert instances.fingerprint() != before[0]
    monkeypatch.undo()
    assert (instances.fingerprint(), theorems.fingerprint()) == before


def test_a_closure_cell_and_a_list_are_watched():
    import types
    m = types.ModuleType("watched_cells")
    exec("def make(k):\n    def f(x):\n        return x + k[0]\n    return f\n\n"
         "TABLE = [1, 2]\nf = make(TABLE)\ng = make({'a': 1})\n", vars(m))
    before = cache.fingerprint((m,))
    assert cache.fingerprint((m,)) == before
    m.TABLE[0] = 5                      # a list has no version tag: its snapshot
    assert cache.fingerprint((m,)) != before
    m.TABLE[0] = 1
    assert cache.fingerprint((m,)) == before
    m.f.__closure__[0].cell_contents = [1, 2]     # an equal list, another cell value
    assert cache.fingerprint((m,)) == before      # same definition: same digest
    m.f.__closure__[0].cell_contents = [3, 2]
    assert cache.fingerprint((m,)) != before


def test_a_global_a_monkeypatched_function_reads_is_watched(monkeypatch):
    import types
    m = types.ModuleType("patching")
    exec("K = 1\ndef forward(self, e, d, ar):\n    return tuple(e) + (K,)\n", vars(m))
    monkeypatch.setattr(index.Split, "forward", m.forward)
    before = instances.fingerprint()
    assert instances.fingerprint() == before
    m.K = 0     # not a tilespec module: the walk read it through the function
    assert instances.fingerprint() != before


def test_a_value_the_walk_cannot_write_makes_the_fingerprint_this_process_own():
    import types
    m = types.ModuleType("watched_foreign")
    m.OPAQUE = iter(())         # no state the walk can read
    walk = definitions.Definitions()
    walk.module(m)
    assert walk.foreign == ["builtins.tuple_iterator"]


# --- in a new process, after an edit of the source --------------------------

def _edits(source: str) -> dict[str, str]:
    """The source with one definition changed, each way this module's text
    allows: a constant added, a table entry changed, a default changed, a
    function body changed."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    out = {"a new constant": source + "\nEDITED_CONSTANT = 2\n"}

    def replace(node, text):
        start = sum(map(len, lines[:node.lineno - 1])) + node.col_offset
        end = sum(map(len, lines[:node.end_lineno - 1])) + node.end_col_offset
        return source[:start] + text + source[end:]

    for node in tree.body:
        value = getattr(node, "value", None)
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(value, ast.Dict) \
                and "a table entry" not in out:
            entries = [v for v in value.values if isinstance(v, ast.Constant)]
            if entries:
                out["a table entry"] = replace(entries[0], _other(entries[0].value))
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef):
            continue
        defaults = [d for d in node.args.defaults + node.args.kw_defaults
                    if isinstance(d, (ast.Constant, ast.Name))]
        if defaults and "a default" not in out:
            d = defaults[0]
            out["a default"] = replace(d, _other(d.value) if isinstance(d, ast.Constant)
                                       else "None")
        body = node.body[1:] if isinstance(node.body[0], ast.Expr) and len(
            node.body) > 1 else node.body
        if "a function body" not in out:
            first = body[0]
            indent = " " * first.col_offset
            line = lines[first.lineno - 1]
            edited = lines[:first.lineno - 1] + [indent + "edited_local = 1\n", line] + \
                lines[first.lineno:]
            out["a function body"] = "".join(edited)
    return out


def _other(value) -> str:
    """Another constant of the same kind, as source."""
    if isinstance(value, bool) or value is None:
        return repr(not value)
    if isinstance(value, (int, float)):
        return repr(value + 1)
    return repr(value + "_edited" if isinstance(value, str) else None)


_CHILD = """
import json
from tilespec.prover.core import cache, level_theorems
from tilespec.prover.properties.proof import prove
from tilespec.spec.text import parse_array_shape as shape
question, case = {question!r}, {case!r}
found = cache.lookup(question, level_theorems.fingerprint())
steps = []
if {run_prove!r}:
    try:
        steps = prove(shape(case), "formula_equals_prt").steps
    except Exception as err:    # the edit broke the proof: not a citation
        steps = [repr(err)]
print(json.dumps({{"where": found and found["where"],
                  "shipped": any("shipped with tilespec" in s for s in steps)}}))
"""


def _copy_package(root: Path) -> Path:
    here = Path(tilespec.__file__).parent
    copy = root / "tilespec"
    shutil.copytree(here, copy, ignore=shutil.ignore_patterns(
        ".*", "__pycache__", "tests", "notebooks", "benchmarks", "docs", "*.egg-info"))
    # Byte-compiled once, checked against each source's hash on every import
    # (not its time stamp, which an edit within the same second keeps): an
    # edited module is compiled from its text, every other one is loaded.
    compileall.compile_dir(str(copy), quiet=1,
                           invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)
    return copy


def _level_question() -> str:
    """The question of CASE's level theorem, which its formula_equals_prt
    cites (read from the shipped file: no solver runs)."""
    stages = index.shape_pipeline(shape(CASE))
    return level_theorems.level_theorem(stages[1:], 2, (False, False))["name"]


#: Runs each request (a Python source) in a process forked from it, which
#: has imported numpy (what every tilespec import pays for first) but never
#: tilespec: the fork imports tilespec anew from the files as they are now,
#: as a new process would, without paying for numpy again.  The fork prints
#: its answer; the server then prints END and the fork's exit status.
_SERVER = """
import json, os, sys, traceback
import numpy
for line in sys.stdin:
    pid = os.fork()
    if pid == 0:
        status = 1
        try:
            exec(json.loads(line), {"__name__": "__main__"})
            status = 0
        except BaseException:
            traceback.print_exc()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(status)
    print("END", os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), flush=True)
"""


class NewProcesses:
    """Asks questions of new processes started with the package copy at
    ``root`` first on their path (see :data:`_SERVER`)."""

    def __init__(self, root: Path):
        env = dict(os.environ, PYTHONPATH=str(root), PYTHONDONTWRITEBYTECODE="1",
                   TILESPEC_CACHE="off")
        env.pop("TILESPEC_SHIPPED", None)
        self.server = subprocess.Popen([sys.executable, "-c", _SERVER], stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, text=True, env=env, cwd=root)

    def cites(self, run_prove: bool = False) -> dict:
        child = _CHILD.format(question=_level_question(), case=CASE, run_prove=run_prove)
        self.server.stdin.write(json.dumps(child) + "\n")
        self.server.stdin.flush()
        lines = []
        while not (lines and lines[-1].startswith("END ")):
            line = self.server.stdout.readline()
            assert line, "the server ended"
            lines.append(line.strip())
        assert lines[-1] == "END 0", lines
        return json.loads(lines[-2])

    def close(self) -> None:
        self.server.stdin.close()
        assert self.server.wait(timeout=60) == 0


@pytest.mark.integration
def test_an_edited_copy_of_each_spec_module_cites_no_shipped_proof(tmp_path):
    copy = _copy_package(tmp_path)
    new = NewProcesses(tmp_path)
    # the copy unedited is the same code: its shipped proof is cited
    assert new.cites(run_prove=True) == {
        "where": "the proofs shipped with tilespec", "shipped": True}
    index_path = copy / "spec" / "index.py"
    source = index_path.read_text()
    imports_end = source.index("\n\n", source.index("from .naming import"))
    index_path.write_text(source[:imports_end] + "\nCOMBINE = 2" + source[imports_end:])
    assert new.cites(run_prove=True) == {"where": None, "shipped": False}
    index_path.write_text(source)
    cited = []
    # the level theorem CASE cites is about the modules its code reaches
    # (the parser's are not among them: it is about the pipeline of a Shape)
    for module in _spec_modules(level_theorems._CODE):
        path = copy / Path(*module.split(".")).with_suffix(".py")
        source = path.read_text()
        edits = _edits(source)
        assert {"a new constant", "a function body"} <= set(edits), module
        for what, edited in edits.items():
            path.write_text(edited)
            if new.cites() != {"where": None, "shipped": False}:
                cited.append((module, what))
        path.write_text(source)
    assert cited == []
    # and the copy as it was is cited again
    assert new.cites() == {"where": "the proofs shipped with tilespec", "shipped": False}
    new.close()


def test_a_warning_issued_from_a_spec_module_leaves_the_fingerprint_alone():
    # `warnings` adds __warningregistry__ to the globals of a module whose
    # code warned (numpy's overflow warnings in spec.index, in a test that
    # evaluates large offsets): the proofs shipped stayed uncited after it
    import warnings
    before = (theorems.fingerprint(), instances.fingerprint())
    had = "__warningregistry__" in vars(index)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            warnings.warn_explicit("overflow", RuntimeWarning, index.__file__, 1,
                                   module=index.__name__,
                                   registry=vars(index).setdefault("__warningregistry__", {}))
        assert (theorems.fingerprint(), instances.fingerprint()) == before
    finally:
        if not had:
            vars(index).pop("__warningregistry__", None)
