"""A ``check-hlo --baseline`` file: the findings a project has accepted.

The file is JSON, ``{"version": 2, "findings": [...]}``, one object per
finding (:class:`~tilespec.prover.hlo.findings.Known`): its key (``file``,
``computation``, ``instruction``, ``rule``, ``about``) and what it was
(``level``, ``line``, ``message``).  A module's ``file`` is its name in
the baseline (:func:`baseline_names`): its path relative to the path
checked, as SARIF gives a file relative to the root it was found under, so
a dump checked in another directory keeps its baseline.

Version 1 files keyed a finding by module name, rule and instruction only:
a new error at a same-named instruction in another computation matched an
old one and was hidden.  They are refused (bad input, one line) rather
than read with a warning: no reading of such a key can tell the two apart.

>>> import json, pathlib, tempfile
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "old.json").write_text(json.dumps({"version": 1, "findings": ["m|padding|p"]}))
>>> read_baseline(str(d / "old.json"))
Traceback (most recent call last):
...
tilespec.spec.errors.TilespecError: baseline ... is version 1, whose keys name no file or computation (a new finding could match an old one): delete it and run with --baseline once to write version 2
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path, PurePath
from typing import Iterable, Sequence

from ...spec import TilespecError
from .files import STDIN
from .findings import RULES, Known

#: The version of the baseline file this module writes and reads.
VERSION = 2


def baseline_names(arguments: Sequence[str], paths: Iterable[str]) -> dict[str, str]:
    """Each module path's name in a baseline: a module found under a
    directory argument by its path relative to that directory, a file
    argument by its file name, standard input as ``stdin`` (``/``
    separators).  When two modules of one run would share a name, both are
    named by their paths as given instead: a name never stands for two
    modules, so a baseline entry can only match the module it was written
    for (a new name makes its findings new, never hidden).

    >>> baseline_names(["dump"], ["dump/a/m.txt", "dump/n.txt"])
    {'dump/a/m.txt': 'a/m.txt', 'dump/n.txt': 'n.txt'}
    >>> baseline_names(["x/m.hlo", "y/m.hlo", "-"], ["x/m.hlo", "y/m.hlo", "-"])
    {'x/m.hlo': 'x/m.hlo', 'y/m.hlo': 'y/m.hlo', '-': 'stdin'}
    """
    roots = [PurePath(a) for a in arguments if a != STDIN]
    names = {}
    for p in paths:
        names[p] = "stdin" if p == STDIN else _relative(PurePath(p), roots)
    shared = {n for n, count in Counter(names.values()).items() if count > 1}
    return {p: PurePath(p).as_posix() if n in shared else n for p, n in names.items()}


def _relative(path: PurePath, roots: list[PurePath]) -> str:
    for root in roots:
        if path == root:
            return path.name
        if path.is_relative_to(root):
            return path.relative_to(root).as_posix()
    return path.as_posix()


def read_baseline(path: str) -> dict[tuple, Known]:
    """The findings a baseline file holds, by key.  A file that does not
    exist raises FileNotFoundError (the caller writes it); any other
    problem is bad input, said in one line."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except FileNotFoundError:
        raise
    except OSError as e:
        raise TilespecError(f"cannot read baseline {path}: {e.strerror or e}") from None
    except ValueError:
        raise TilespecError(f"baseline {path} is not a tilespec baseline (JSON with a "
                            "'findings' list)") from None
    version = data.get("version", 1) if isinstance(data, dict) else None
    if version == 1 and isinstance(data.get("findings"), list):
        raise TilespecError(f"baseline {path} is version 1, whose keys name no file or "
                            "computation (a new finding could match an old one): delete it "
                            "and run with --baseline once to write version 2")
    try:
        if version != VERSION:
            raise ValueError
        known = [_known(x) for x in data["findings"]]
    except (ValueError, KeyError, TypeError):
        raise TilespecError(f"baseline {path} is not a tilespec baseline (JSON version "
                            f"{VERSION} with a 'findings' list)") from None
    return {k.key: k for k in known}


def _known(x: dict) -> Known:
    about = x.get("about", [])
    level = x.get("level", RULES[x["rule"]].levels[-1])
    fields = [x["file"], x["computation"], x["instruction"], x["rule"], *about,
              level, x.get("message", "")]
    if not all(isinstance(v, str) for v in fields) or not isinstance(about, list):
        raise TypeError
    line = x.get("line", 0)
    if not isinstance(line, int):
        raise TypeError
    return Known(x["file"], x["computation"], x["instruction"], x["rule"], tuple(about),
                 level, line, x.get("message", ""))


def write_baseline(path: str, known: Iterable[Known]) -> int:
    """Write the findings ``known`` to a baseline file (sorted by key, each
    once); how many.  A file that cannot be written is bad input."""
    entries = sorted({k.key: k for k in known}.values(), key=lambda k: k.key)
    doc = {"version": VERSION, "findings": [
        {"file": k.file, "computation": k.computation, "instruction": k.instruction,
         "rule": k.rule, "about": list(k.about), "level": k.level, "line": k.line,
         "message": k.message} for k in entries]}
    try:
        Path(path).write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    except OSError as e:
        raise TilespecError(f"cannot write baseline {path}: {e.strerror or e}") from None
    return len(entries)
