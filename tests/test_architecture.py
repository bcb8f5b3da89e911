"""The architecture of docs/architecture.md holds in the code: each package
imports only the packages below it, and no module uses another module's
private names."""

import ast
import functools
import subprocess
from collections import Counter

import pytest
from locations import ROOT

#: What each unit may import from tilespec (besides itself).  A unit is a
#: top-level package, a sub-package or root module of prover/, or cute/proofs/
#: (CuTe's proofs, above the solver core; cute/ itself is free of it).
MAY_IMPORT = {
    "spec": set(),
    # worker processes: a child answering JSON lines, its abort an answer
    "process": set(),
    "image": {"spec"},
    "testing": {"spec"},
    "prover": set(),
    "interop": {"spec"},
    "cute": {"spec"},
    "codegen": {"spec"},
    "teach": {"spec", "codegen"},
    "prover.result": {"spec"},
    "prover.names": set(),
    "prover.core": {"spec", "prover.result", "prover.names"},
    "prover.properties": {"spec", "prover.result", "prover.names", "prover.core"},
    "prover.bitcast": {"spec", "prover.result", "prover.names", "prover.core"},
    "prover.models": {"spec", "prover.result", "prover.names", "prover.core",
                      "prover.bitcast"},
    "prover.hlo": {"spec", "prover.result", "prover.names", "prover.core", "prover.bitcast"},
    "prover.regress": {"spec", "image", "prover.result", "prover.names", "prover.core",
                       "prover.models"},
    "prover.codegen": {"spec", "codegen", "prover.result", "prover.names", "prover.core",
                       "prover.properties"},
    "prover.equivalence": {"spec", "prover.result", "prover.names", "prover.core",
                           "prover.bitcast", "prover.models"},
    "prover.userfn": {"spec", "prover.result", "prover.names", "prover.core",
                      "prover.bitcast", "prover.equivalence"},
    "cute.proofs": {"spec", "cute", "prover.result", "prover.names", "prover.core"},
    "triton": {"spec", "process"},
    "triton.proofs": {"spec", "triton", "cute", "cute.proofs", "prover.result",
                      "prover.names", "prover.core"},
    "prover.padding": {"spec", "prover.result", "prover.names", "prover.core",
                       "prover.bitcast", "prover.models", "prover.hlo"},
    "xla": {"spec", "process", "prover.result", "prover.names", "prover.bitcast", "prover.models"},
    # Pallas on TPU: Mosaic's layouts modelled, the block checks, XLA's layout against Mosaic's
    "mosaic": {"spec", "prover.result", "prover.names", "prover.core", "prover.bitcast"},
    # the output: text, JSON and SARIF of the typed verdicts
    "render": {"spec", "prover.result", "prover.names", "prover.hlo"},
    "cli": None,        # the command line may use everything
    "tilespec": None,   # the public namespace (src/tilespec)
}
PACKAGES = ("spec", "image", "testing", "prover", "cli", "xla", "teach", "codegen", "interop",
            "cute", "render", "triton", "mosaic", "process")
#: The root's own modules: the public namespace and ``python -m tilespec``.
ROOT_MODULES = ("__init__.py", "__main__.py")


def _files():
    out = subprocess.run(["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout.split()
    return [f for f in out if f.split("/")[0] in PACKAGES or f in ROOT_MODULES]


def _unit(path: str) -> str:
    parts = path[:-3].split("/")
    if parts[0] in ("__init__", "__main__"):
        return "tilespec"
    if parts[0] == "prover" and parts[1] != "__init__":
        return f"prover.{parts[1]}"
    if parts[:2] in (["cute", "proofs"], ["triton", "proofs"]):
        return ".".join(parts[:2])
    return parts[0]


def _target(module: str) -> str | None:
    parts = module.split(".")[1:]
    if not parts:
        return "tilespec"
    if parts[0] == "prover" and len(parts) > 1:
        return f"prover.{parts[1]}"
    if parts[:2] in (["cute", "proofs"], ["triton", "proofs"]):
        return ".".join(parts[:2])
    return parts[0]


def _package(path: str) -> list[str]:
    """The package a file's relative imports start from: the repository's
    root is ``tilespec``, each folder a subpackage."""
    return ["tilespec", *path.split("/")[:-1]]


def absolute(path: str, level: int, module: str | None) -> str:
    """The absolute name a relative import in ``path`` reaches, by path alone.

    >>> absolute("prover/core/solve.py", 3, "spec.layout")
    'tilespec.spec.layout'
    >>> absolute("__init__.py", 1, "prover.result"), absolute("cli/main.py", 1, None)
    ('tilespec.prover.result', 'tilespec.cli')
    """
    base = _package(path)
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def _imports(tree, path: str):
    """Each import of tilespec in a file, its module made absolute."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            yield node, absolute(path, node.level, node.module), [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module \
                and node.module.split(".")[0] == "tilespec":
            yield node, None, [a.name for a in node.names]
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "tilespec":
                    yield node, None, []


FILES = _files()


@functools.lru_cache(maxsize=None)
def _tree(path: str) -> ast.Module:
    """A file's syntax tree, read once for every check (the checks only walk it)."""
    return ast.parse((ROOT / path).read_text())


def test_the_packages_are_found():
    assert len(FILES) > 80 and {_unit(f) for f in FILES} <= set(MAY_IMPORT)


@pytest.mark.parametrize("path", FILES)
def test_each_package_imports_only_the_packages_below_it(path):
    allowed = MAY_IMPORT[_unit(path)]
    tree = _tree(path)
    for node, module, names in _imports(tree, path):
        # Absolute imports of tilespec inside the package would make the wiring
        # depend on an install; relative ones a reader resolves by path.
        assert module is not None, f"{path}:{node.lineno}: an absolute import of tilespec"
        if allowed is None:
            continue
        targets = {_target(module)}
        if module == "tilespec.prover":
            targets = {_target(f"tilespec.prover.{n}") for n in names}
        for t in targets - {_unit(path)}:
            assert t in allowed, f"{path}:{node.lineno} imports {module} ({t})"


@pytest.mark.parametrize("path", FILES)
def test_no_module_uses_another_modules_private_names(path):
    tree = _tree(path)
    for node, module, names in _imports(tree, path):
        private = [n for n in names if n.startswith("_") and not n.startswith("__")]
        assert not private, f"{path}:{node.lineno} imports {private} from {module}"
    modules = {a.asname or a.name for node, module, names in _imports(tree, path)
               if isinstance(node, ast.ImportFrom) for a in node.names
               if module and (module + "." + a.name).count(".") >= 2}
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in modules and node.attr.startswith("_")
                and not node.attr.startswith("__")):
            pytest.fail(f"{path}:{node.lineno} uses {node.value.id}.{node.attr}")


def test_the_repository_holds_no_symlinks():
    # A checkout where git makes no symlinks (core.symlinks=false) must work.
    staged = subprocess.run(["git", "ls-files", "-s"], cwd=ROOT, capture_output=True,
                            text=True, check=True).stdout.splitlines()
    links = [line.split("\t")[1] for line in staged if line.startswith("120000")]
    assert not links, links


def test_pyproject_names_every_package():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())
                 ["tool"]["setuptools"]["packages"])
    found = {"tilespec"} | {"tilespec." + ".".join(f.split("/")[:-1]) for f in FILES
                            if f.endswith("/__init__.py")}
    assert listed == found


@pytest.mark.parametrize("path", [f for f in FILES if f.startswith("cli/")
                                  and f not in ("cli/main.py", "cli/__init__.py")])
def test_no_command_module_imports_the_command_line_back(path):
    # main registers the commands from one table (cli/commands.py); a module
    # below it importing main back would make a cycle
    tree = _tree(path)
    for node, module, names in _imports(tree, path):
        assert module != "tilespec.cli.main" and not (
            module == "tilespec.cli" and "main" in names), f"{path}:{node.lineno}"


@pytest.mark.parametrize("path", FILES)
def test_each_package_is_entered_by_its_door(path):
    # Another package is asked through its __init__ (its questions), never
    # through its inner modules: those can move without touching the callers.
    tree = _tree(path)
    mine = _unit(path)
    for node, module, _names in _imports(tree, path):
        if module is None or module == "tilespec" or _target(module) == mine:
            continue
        door = "tilespec." + _target(module)
        assert module == door, f"{path}:{node.lineno} imports {module}, not its door {door}"


#: Private attributes of other libraries' objects that are their documented
#: extension points or process calls: sympy printers' ``_print`` hook,
#: ``os._exit`` (a worker that must not run atexit handlers), Gluon's
#: ``_to_ir`` (its layout classes' one way into Triton's IR, the only way to
#: ask Triton for a shared encoding's linear layout).
FOREIGN_PRIVATE = {"_print", "_exit", "_to_ir"}


def _defined_here(tree) -> set:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
    return names


@pytest.mark.parametrize("path", FILES)
def test_no_module_reaches_a_private_attribute_defined_elsewhere(path):
    # ``ar._term(x)`` on another module's object is a private name used from
    # outside as much as ``from m import _term`` is.  The adapter of jax's
    # internals is the one module allowed to reach into a library.
    if path == "xla/jax_adapter.py":
        return
    tree = _tree(path)
    here = _defined_here(tree) | FOREIGN_PRIVATE
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and node.attr.startswith("_")
                and not node.attr.startswith("__") and node.attr not in here
                # a subclass's own members, inherited (argparse's parser)
                and not (isinstance(node.value, ast.Name) and node.value.id == "self")):
            pytest.fail(f"{path}:{node.lineno} uses {ast.unparse(node)}, "
                        f"a private name defined in another module")


#: The only imports made inside functions, each at a boundary the package
#: keeps light: what importing the module would cost or require otherwise.
LAZY_BOUNDARIES = {
    "z3": "the solver: a cited proof answers without loading it (prover/__init__ defers it)",
    "cvc5": "the second solver, loaded only under --cross-check",
    "sympy": "symbolic algebra, for formulas only: its import costs a cold command ~0.3 s",
    "matplotlib": "figures, for draw and the padding plot only",
    "jax": "real XLA, an extra; imported by the worker and the JAX interop on use",
    "jaxlib": "real XLA, an extra",
    "pycute": "the real CuTe, an extra, for replaying an equality on it",
    "ml_dtypes": "the small float types as numpy dtypes, only when their values are used",
    "distributed": "Dask, an extra, only under check-hlo --scheduler",
    "triton": "the real Triton, an extra, imported only by its worker process",
    "importlib": "package metadata, the lazy public names (PEP 562) of the root and of "
                 "render (check-hlo's renderings), and the one command module a run needs",
}


#: tilespec's own packages that stand behind those boundaries: they prove
#: (z3) or ask real XLA (jax), so a command that does neither (``tilespec
#: offset``, ``--version``, a cited proof) does not load them.
LAZY_UNITS = {"prover.properties", "prover.models", "prover.codegen", "prover.padding",
              "prover.regress", "prover.equivalence", "prover.userfn", "cute.proofs", "xla",
              "triton.proofs"}


@pytest.mark.parametrize("path", FILES)
def test_imports_inside_functions_are_only_at_the_boundaries(path):
    if path == "__init__.py":
        return  # the root's prover functions load on first use: the solver boundary (PEP 562)
    tree = _tree(path)
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(fn):
            if isinstance(node, ast.ImportFrom) and node.level:
                unit = _target(absolute(path, node.level, node.module))
                assert unit in LAZY_UNITS, (
                    f"{path}:{node.lineno} imports {unit} inside a function; move it "
                    f"to the top, or name the boundary in LAZY_UNITS")
                continue
            if isinstance(node, ast.ImportFrom):
                roots = [node.module.split(".")[0]]
            elif isinstance(node, ast.Import):
                roots = [a.name.split(".")[0] for a in node.names]
            else:
                continue
            for root in roots:
                assert root in LAZY_BOUNDARIES, (
                    f"{path}:{node.lineno} imports {root or '(relative)'} inside a function; "
                    f"move it to the top, or name the boundary in LAZY_BOUNDARIES")


def test_test_modules_have_unique_names():
    """pytest imports test files by their base name (the tests folder has no
    ``__init__.py``), so two folders' ``test_corpus.py`` collide: the second
    is not collected and the run stops with an import-file mismatch."""
    names = Counter(p.name for p in (ROOT / "tests").rglob("test_*.py"))
    assert [n for n, k in names.items() if k > 1] == []
