"""HLO module files for the corpus tests: XLA dump directories of the
modules in ``tests/data/hlo``, the command run in-process, and a module's
result without its timings."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

from locations import DATA

from tilespec.cli.main import main
from tilespec.prover.hlo.corpus import ModuleResult
from tilespec.render.hlo import entries

HLO = DATA / "hlo"
GOOD = ("jax_tiled_good.hlo", "jax_tuple_dot.hlo", "jax_reshape_transpose.hlo")
BAD = "jax_tiled_bad.hlo"          # a bitcast the tiles refute, at line 24


def run(capsys, *argv, stdin=None, monkeypatch=None):
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def dump(root: Path, names=GOOD + (BAD,)) -> Path:
    """An XLA dump directory: each module after optimisation, with the
    reports XLA writes beside it, one module in a sub-directory."""
    d = root / "dump"
    (d / "sub").mkdir(parents=True)
    for i, name in enumerate(names):
        where = d / "sub" if i == 1 else d
        stem = f"module_{i:04d}.jit_{Path(name).stem}"
        # no backend in the name: tiles are honoured, as on TPU
        shutil.copy(HLO / name, where / f"{stem}.after_optimizations.txt")
        (where / f"{stem}.cpu_after_optimizations-buffer-assignment.txt").write_text(
            "BufferAssignment:\nallocation 0: size 4\n")
        (where / f"{stem}.before_optimizations.txt").write_text("HloModule before\n")
    return d


def stable(result: ModuleResult):
    """A module's result without its timings."""
    if result.report is None:
        return result.path, result.error
    return result.path, untimed([{**e.to_json(), "subject": {
        k: v for k, v in e.subject.items() if k != "file"}} for e in entries([result], "check-hlo")])


def untimed(value):
    if isinstance(value, dict):
        return {k: untimed(v) for k, v in value.items() if k != "seconds"}
    if isinstance(value, list):
        return [untimed(v) for v in value]
    return value
