"""The built wheel: only ``tilespec/...`` at the top level, and it works when
installed (not editable) in a fresh virtual environment.

Marked ``wheel`` so that it can be deselected (``-m "not slow and not wheel"``:
a second ``-m`` replaces the default ``not slow``); it runs
in the default suite.  It builds without network access (``--no-isolation``,
with the test extra's setuptools) and installs with ``--no-deps`` into a
virtual environment that sees this one's packages (numpy, z3, ...).
"""

import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest
from action_steps import inputs, run_step
from locations import ROOT

pytestmark = [pytest.mark.wheel, pytest.mark.integration]
tomllib = pytest.importorskip("tomllib")  # Python 3.11+

FIG1 = "f32[3,5]{1,0:T(2,2)}"


def _run(*argv, cwd, ok=(0,), timeout=60):
    # A PYTHONPATH naming a source tree (as in a worktree's test run) would
    # shadow the installed wheel that this test is about.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run([str(a) for a in argv], cwd=cwd, capture_output=True,
                         text=True, timeout=timeout, env=env)
    assert out.returncode in ok, f"{argv}: {out.returncode}\n{out.stdout}\n{out.stderr}"
    assert "Traceback" not in out.stderr, out.stderr
    return out


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """Build from a copy holding only what pyproject.toml names."""
    src = tmp_path_factory.mktemp("src")
    text = (ROOT / "pyproject.toml").read_text()
    shutil.copy(ROOT / "pyproject.toml", src)
    shutil.copy(ROOT / re.search(r'^readme = "(.+)"', text, re.M).group(1), src)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    # the root's own files (the package tilespec) and the folders of its subpackages
    packages = tomllib.loads(text)["tool"]["setuptools"]["packages"]
    for name in ("__init__.py", "__main__.py", "py.typed"):
        shutil.copy(ROOT / name, src)
    folders = {p.split(".")[1] for p in packages if p != "tilespec"}
    assert {"spec", "prover", "cli"} <= folders
    for folder in folders:
        shutil.copytree(ROOT / folder, src / folder, ignore=ignore)
    dist = tmp_path_factory.mktemp("dist")
    _run(sys.executable, "-m", "build", "--wheel", "--no-isolation",
         "--skip-dependency-check", "--outdir", dist, src, cwd=src, timeout=120)
    (whl,) = dist.glob("tilespec-*.whl")
    return whl


def test_the_wheel_holds_only_the_tilespec_namespace(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/")[0] for n in names}
    assert top == {"tilespec", re.sub(r"-py3.*", "", wheel.name) + ".dist-info"}, top
    for needed in ("tilespec/__init__.py", "tilespec/__main__.py", "tilespec/py.typed",
                   "tilespec/spec/index.py", "tilespec/prover/properties/proof.py",
                   "tilespec/cli/main.py", "tilespec/cli/schema.json",
                   "tilespec/image/kernel.c"):
        assert needed in names
    entry = next(n for n in names if n.endswith("entry_points.txt"))
    assert "tilespec = tilespec.cli:main" in zipfile.ZipFile(wheel).read(entry).decode()


def _readme_python() -> str:
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    assert blocks, "the README has no Python example"
    return "\n".join(blocks)


def _readme_commands() -> list[tuple[str, int]]:
    """The README's commands, the ``$ tilespec ...`` lines of its console
    blocks, each with the exit status the block shows (``[exit N]``, else
    0; tests/test_docs.py checks what they print)."""
    lines: list[tuple[str, int]] = []
    for block in re.findall(r"```console\n(.*?)```", (ROOT / "README.md").read_text(), re.S):
        for line in block.splitlines():
            if line.startswith("$ "):
                lines.append((line[2:], 0))
            elif re.fullmatch(r"\[exit \d+\]", line) and lines:
                lines[-1] = (lines[-1][0], int(line[6:-1]))
    # (the whole catalogue, `tilespec prove`, is the slow CI job)
    lines = [(c, n) for c, n in lines if c.startswith("tilespec ") and c != "tilespec prove"]
    assert lines and any(n for _, n in lines)
    return lines


def test_installed_wheel_smoke(wheel, tmp_path):
    env = tmp_path / "venv"
    # No pip inside (ensurepip takes many seconds): this environment's pip
    # installs into it (pip >= 22.3).
    venv.EnvBuilder(system_site_packages=True, with_pip=False).create(env)
    bindir = env / ("Scripts" if sys.platform == "win32" else "bin")
    python, tilespec = bindir / "python", bindir / "tilespec"
    # "System" site-packages are the base interpreter's; when the tests run
    # in a virtual environment (as CI's), its dependencies (numpy, z3, ...)
    # are made visible too.  A directory named in a .pth file is only added
    # to sys.path: its own .pth files (an editable tilespec) are not run.
    site = _run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])",
                cwd=tmp_path).stdout.strip()
    here = {sysconfig.get_paths()[k] for k in ("purelib", "platlib")}
    Path(site, "tilespec_test_parent.pth").write_text("\n".join(sorted(here)) + "\n")
    work = tmp_path / "work"      # away from the source tree, so nothing
    work.mkdir()                  # is imported from it by accident
    # The GitHub Action's install step, on the wheel with the test extra: pip
    # resolves every requirement (the extras' included) offline, against the
    # packages this environment makes visible, and installs the wheel.
    installed = run_step("Install tilespec", inputs(install=f"{wheel}[test]"), cwd=work,
                         path=str(bindir), env={"PIP_NO_INDEX": "1"})
    assert installed.returncode == 0, installed.stderr
    where = _run(python, "-c", "import tilespec; print(tilespec.__file__)", cwd=work)
    assert str(env) in where.stdout and "site-packages" in where.stdout
    version = _run(tilespec, "--version", cwd=work).stdout.strip()
    assert re.fullmatch(r"tilespec \d+\.\d+\S*", version)
    assert _run(python, "-m", "tilespec", "offset", FIG1, "2,3", cwd=work).stdout.strip() == "17"
    # one proof by Z3 in the installed package
    proof = _run(tilespec, "prove", FIG1, "--property", "injective", cwd=work).stdout
    assert "1 checks: 1 proved, 0 refuted, 0 unknown" in proof
    # the action's check step with the installed tilespec, on a dump directory
    shutil.copytree(ROOT / "tests" / "data" / "dump", work / "dump")
    checked = run_step("Check the dump", inputs(strict_tiles="true"), cwd=work,
                       path=str(bindir))
    assert checked.returncode == 1, checked.stderr
    assert checked.stdout.splitlines()[-1].startswith("2 modules: 1 proved, 1 refuted  [")
    assert (work / "tilespec.sarif").is_file()
    check = ('\nassert offset("f32[3,5]{1,0:T(2,2)}", (2, 3)) == 17'
             '\nassert locate("f32[3,5]{1,0:T(2,2)}", 9) is None\n')
    _run(python, "-c", _readme_python() + check, cwd=work)
    # The schema ships and the JSON output matches it.
    check = ("import json, subprocess, jsonschema, sys\n"
             "from tilespec.cli.envelope import schema\n"
             f"out = subprocess.run([{str(tilespec)!r}, 'locate', {FIG1!r}, '9', '--json'],"
             " capture_output=True, text=True).stdout\n"
             "jsonschema.validate(json.loads(out), schema())\n")
    _run(python, "-c", check, cwd=work)
    # The C word interleave builds from the installed package's source where
    # a compiler is (into a fresh cache directory) and gives numpy's bytes.
    check = ("import os, tempfile, numpy as np, tilespec\n"
             "os.environ['TILESPEC_CACHE_DIR'] = tempfile.mkdtemp()\n"
             "from tilespec.image.kernel import kernel_status\n"
             "t = 's8[64,256]{1,0:T(32,128)(4,1)}'\n"
             "a = np.arange(64 * 256).reshape(64, 256).astype(np.int8)\n"
             "c = tilespec.to_bytes(t, a)\n"
             "os.environ['TILESPEC_KERNEL'] = 'off'\n"
             "assert (c == tilespec.to_bytes(t, a)).all()\n"
             "del os.environ['TILESPEC_KERNEL']\n"
             "print(kernel_status())\n")
    built = _run(python, "-c", check, cwd=work).stdout.strip()
    assert built == "C kernel" or not any(map(shutil.which, ("cc", "gcc", "clang"))), built
    # Every README command, in one process (each would pay the imports); the
    # README's HLO, dump and out-of-memory examples are files of the
    # repository's test data.
    shutil.copytree(ROOT / "tests" / "data", work / "tests" / "data")
    runs = "\n".join(f"assert main({shlex.split(line)[1:]!r}) == {status}, {line!r}"
                     for line, status in _readme_commands())
    _run(python, "-c", "from tilespec.cli import main\n" + runs, cwd=work, timeout=120)
