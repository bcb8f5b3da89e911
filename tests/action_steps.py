"""The steps of the repository's GitHub Action (``action.yml``) and
pre-commit hook (``.pre-commit-hooks.yaml``), run as GitHub and pre-commit
run them, for the tests."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from pathlib import Path

import yaml
from locations import ROOT

#: ``${{ inputs.NAME }}`` in a step: GitHub substitutes the input's value.
INPUT = re.compile(r"\$\{\{\s*inputs\.([\w-]+)\s*\}\}")


def action() -> dict:
    return yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))


def hooks() -> list[dict]:
    return yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))


def step(name: str) -> dict:
    (found,) = [s for s in action()["runs"]["steps"] if s.get("name") == name]
    return found


def inputs(**given: str) -> dict[str, str]:
    """Every input of the action: its default, or the value ``given``
    (``min_level`` for ``min-level``)."""
    declared = action()["inputs"]
    values = {k: str(v.get("default", "")) for k, v in declared.items()}
    for k, v in given.items():
        name = k.replace("_", "-")
        assert name in declared, name
        values[name] = v
    return values


def run_step(name: str, values: dict[str, str], *, cwd: Path, path: str | None = None,
             env: dict[str, str] | None = None,
             timeout: float = 120) -> subprocess.CompletedProcess:
    """Run the ``run:`` of the action's step ``name`` as GitHub does: the
    inputs substituted in its ``env`` and ``run``, ``bash -e -o pipefail``,
    ``GITHUB_ACTION_PATH`` the action's checkout; ``path`` first on PATH,
    ``env`` added to the environment."""
    s = step(name)
    assert s["shell"] == "bash" and "run" in s
    env = {**{k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, **(env or {})}
    env["GITHUB_ACTION_PATH"] = str(ROOT)
    if path is not None:
        env["PATH"] = f"{path}{os.pathsep}{env.get('PATH', '')}"
    for k, v in s.get("env", {}).items():
        env[k] = INPUT.sub(lambda m: values[m.group(1)], str(v))
    script = INPUT.sub(lambda m: values[m.group(1)], s["run"])
    return subprocess.run(["bash", "--noprofile", "--norc", "-e", "-o", "pipefail", "-c",
                           script], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)


def run_hook(hook_id: str, files: list[str], *, cwd: Path, path: str | None = None,
             timeout: float = 120) -> subprocess.CompletedProcess:
    """Run the hook ``hook_id`` as pre-commit does: the files its ``files``
    pattern matches (``re.search`` on each path; ``exclude`` drops), after
    its ``entry`` and ``args``, in one call (``require_serial``)."""
    (hook,) = [h for h in hooks() if h["id"] == hook_id]
    keep = [f for f in files if re.search(hook.get("files", ""), f)
            and not (hook.get("exclude") and re.search(hook["exclude"], f))]
    argv = shlex.split(hook["entry"]) + list(hook.get("args", []))
    if hook.get("pass_filenames", True):
        argv += keep
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if path is not None:
        env["PATH"] = f"{path}{os.pathsep}{env.get('PATH', '')}"
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)
