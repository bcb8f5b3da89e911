"""What each of tilespec's extras installs, and how much disk it takes: the
distributions its requirements reach (through their own requirements, with
the environment markers of this machine), as installed in the environment
this script runs in, and the bytes of their files.  Run it with the Python
of an environment where the extras are installed:

    python tools/extra_sizes.py                 # every extra of pyproject.toml
    python tools/extra_sizes.py notebooks test  # some

Each extra is counted beyond the base install (tilespec's own dependencies),
since every install has those.  Figures in docs/install.md come from it.
"""

from __future__ import annotations

import re
import sys
from importlib import metadata
from pathlib import Path

import tomllib
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def closure(requirements: list[str], extras: dict[str, list[str]],
            missing: set[str] | None = None) -> set[str]:
    """The installed distributions ``requirements`` reach (a requirement of
    ``tilespec[x]`` stands for the extra x's own); those not installed are
    added to ``missing``."""
    seen: set[str] = set()
    todo = [(Requirement(r), "") for r in requirements]
    while todo:
        req, extra = todo.pop()
        if req.marker is not None and not req.marker.evaluate({"extra": extra}):
            continue
        name = canonical(req.name)
        if name == "tilespec":
            todo += [(Requirement(r), x) for x in req.extras for r in extras[x]]
            continue
        for x in req.extras:        # the requirement's own extras, then the package
            try:
                own = metadata.requires(name) or []
            except metadata.PackageNotFoundError:
                own = []
            todo += [(Requirement(r), x) for r in own]
        if name in seen:
            continue
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            if missing is not None:
                missing.add(name)
            continue
        seen.add(name)
        todo += [(Requirement(r), "") for r in dist.requires or []]
    return seen


def size(names: set[str]) -> int:
    total = 0
    for name in names:
        for f in metadata.distribution(name).files or []:
            p = Path(f.locate())
            if p.is_file():
                total += p.stat().st_size
    return total


def main(argv: list[str]) -> int:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    absent: set[str] = set()
    base = closure(project["dependencies"], extras, absent)
    print(f"| (base) | {len(base)} distributions | {size(base) / 2**20:.0f} MiB |"
          + (f" (not installed here: {', '.join(sorted(absent))})" if absent else ""))
    for extra in argv or list(extras):
        missing: set[str] = set()
        more = closure([f"tilespec[{extra}]"], extras, missing) - base - absent
        if missing - absent:
            print(f"| `{extra}` | not installed here: {', '.join(sorted(missing - absent))} |")
            continue
        top = sorted(canonical(Requirement(r).name) for r in extras[extra]
                     if not r.startswith("tilespec"))
        print(f"| `{extra}` | {', '.join(top) or '-'}; {len(more)} distributions beyond "
              f"the base | {size(more) / 2**20:.0f} MiB |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
