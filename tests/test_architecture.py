"""The architecture of docs/architecture.md holds in the code: each package
imports only the packages below it, and no module uses another module's
private names."""

import ast
import subprocess

import pytest
from locations import ROOT

#: What each unit may import from tilespec (besides itself).  A unit is a
#: top-level package, or a sub-package or root module of prover/.
MAY_IMPORT = {
    "spec": set(),
    "prover": set(),
    "interop": {"spec"},
    "cute": {"spec"},
    "codegen": {"spec"},
    "teach": {"spec", "codegen"},
    "prover.result": set(),
    "prover.names": set(),
    "prover.core": {"spec", "prover.result", "prover.names"},
    "prover.properties": {"spec", "prover.result", "prover.names", "prover.core"},
    "prover.bitcast": {"spec", "prover.result", "prover.names", "prover.core"},
    "prover.models": {"spec", "prover.result", "prover.names", "prover.core",
                      "prover.bitcast"},
    "prover.hlo": {"spec", "prover.result", "prover.names", "prover.core", "prover.bitcast"},
    "prover.regress": {"spec", "prover.result", "prover.names", "prover.core",
                       "prover.models"},
    "prover.codegen": {"spec", "codegen", "prover.result", "prover.names", "prover.core",
                       "prover.properties"},
    "prover.equivalence": {"spec", "prover.result", "prover.names", "prover.core",
                           "prover.bitcast", "prover.models"},
    "prover.userfn": {"spec", "prover.result", "prover.names", "prover.core",
                      "prover.bitcast", "prover.equivalence"},
    "prover.cute": {"spec", "interop", "cute", "prover.result", "prover.names", "prover.core"},
    "prover.cute_algebra": {"spec", "cute", "interop", "prover.result", "prover.names",
                            "prover.core"},
    "prover.padding": {"spec", "prover.result", "prover.names", "prover.core",
                       "prover.bitcast", "prover.models", "prover.hlo"},
    "xla": {"spec", "prover.result", "prover.names", "prover.bitcast", "prover.models"},
    "cli": None,        # the command line may use everything
    "tilespec": None,   # the public namespace (src/tilespec)
}
PACKAGES = ("spec", "prover", "cli", "xla", "teach", "codegen", "interop", "cute")


def _files():
    out = subprocess.run(["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout.split()
    return [f for f in out if f.split("/")[0] in PACKAGES or f.startswith("src/")]


def _unit(path: str) -> str:
    parts = path[:-3].split("/")
    if parts[0] == "src":
        return "tilespec"
    if parts[0] == "prover" and parts[1] != "__init__":
        return f"prover.{parts[1]}"
    return parts[0]


def _target(module: str) -> str | None:
    parts = module.split(".")[1:]
    if not parts:
        return "tilespec"
    if parts[0] == "prover" and len(parts) > 1:
        return f"prover.{parts[1]}"
    return parts[0]


def _imports(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.level:
                yield node, None, [a.name for a in node.names]
            elif node.module.split(".")[0] == "tilespec":
                yield node, node.module, [a.name for a in node.names]
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "tilespec":
                    yield node, a.name, []


FILES = _files()


def test_the_packages_are_found():
    assert len(FILES) > 80 and {_unit(f) for f in FILES} <= set(MAY_IMPORT)


@pytest.mark.parametrize("path", FILES)
def test_each_package_imports_only_the_packages_below_it(path):
    allowed = MAY_IMPORT[_unit(path)]
    tree = ast.parse((ROOT / path).read_text())
    for node, module, names in _imports(tree):
        assert module is not None, f"{path}:{node.lineno}: a relative import"
        if allowed is None:
            continue
        targets = {_target(module)}
        if module == "tilespec.prover":
            targets = {_target(f"tilespec.prover.{n}") for n in names}
        for t in targets - {_unit(path)}:
            assert t in allowed, f"{path}:{node.lineno} imports {module} ({t})"


@pytest.mark.parametrize("path", FILES)
def test_no_module_uses_another_modules_private_names(path):
    tree = ast.parse((ROOT / path).read_text())
    for node, module, names in _imports(tree):
        private = [n for n in names if n.startswith("_") and not n.startswith("__")]
        assert not private, f"{path}:{node.lineno} imports {private} from {module}"
    modules = {a.asname or a.name for node, module, names in _imports(tree)
               if isinstance(node, ast.ImportFrom) for a in node.names
               if module and (module + "." + a.name).count(".") >= 2}
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in modules and node.attr.startswith("_")
                and not node.attr.startswith("__")):
            pytest.fail(f"{path}:{node.lineno} uses {node.value.id}.{node.attr}")
