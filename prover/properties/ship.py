"""The proofs shipped with tilespec: made, and checked, by one command.

``python -m tilespec.prover.properties.ship`` proves, from nothing (no disk
cache, no shipped proofs, a fresh process's memory), what every user's
first proofs cite: the stage theorems and mixed-radix lemma instances of
:mod:`prover.core.theorems` for every stage structure of the class of
layouts :mod:`prover.properties.covered` lists, the level, transpose and
merge theorems of :mod:`prover.core.level_theorems` for every level of that
class, and the all-shapes proofs of
every property of every layout of the catalogue
(:mod:`prover.properties.instances`), and
writes them to ``prover/core/shipped_proofs.json``
(:data:`prover.core.cache.SHIPPED_FILE`), each keyed by the fingerprint of
the code it is about.  ``--check`` proves them all again the same way and
compares with the file: exit 0 when the file holds exactly what the code
that runs proves now, 1 otherwise (a stale or edited file).  ``--jobs N``
proves the stage and level theorems in N processes (each in a cache of its own; the
records are the same as one process's).

>>> sorted(SHIPPED_RANKS)[:3]
[0, 1, 2]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import tempfile
from pathlib import Path

from ...spec import parse_array_shape
from ..core import cache, level_theorems, theorems
from ..names import PROPERTY_NAMES
from . import covered
from .catalogue import CATALOGUE
from .proof import prove

#: Ranks whose mixed-radix lemma is shipped: every vector length the
#: covered class's pipelines reach.
SHIPPED_RANKS = covered.lemma_ranks()

#: Fields compared by ``--check`` (the time and date of a proof differ).
COMPARED = ("question", "digest", "status", "name")


def level_jobs() -> list[tuple]:
    """Every level, transpose and merge theorem of the covered class, as
    :func:`_prove_structures` takes them."""
    return ([("transpose", r) for r in covered.transpose_ranks()]
            + [("level", *x) for x in covered.level_structures()]
            + [("combine", *x) for x in covered.combine_structures()]
            + [("packing", aligned) for aligned in (False, True)])


def _prove_structures(root: str, structures) -> None:
    """A worker of :func:`prove_from_nothing`: the stage theorems of
    ``structures`` (``(stage, n)``) and the theorems of :func:`level_jobs`,
    kept in the disk cache under ``root``."""
    os.environ["TILESPEC_CACHE_DIR"] = root
    cache.clear_memory()
    for job in structures:
        if job[0] == "transpose":
            level_theorems.transpose_theorem(job[1])
        elif job[0] == "level":
            level_theorems.level_theorem(*job[1:])
        elif job[0] == "combine":
            level_theorems.combine_theorem(*job[1:])
        elif job[0] == "packing":
            level_theorems.packing_theorem(job[1])
        else:
            theorems.stage_theorem(*job)


def _records(root: str) -> dict:
    os.environ["TILESPEC_CACHE_DIR"] = root
    cache.clear_memory()
    path = cache.cache_file()
    assert path is not None
    return json.loads(path.read_text()) if path.exists() else {}


def prove_from_nothing(structures=None, jobs: int = 1, catalogue=None,
                       levels=None) -> dict[str, dict]:
    """Every shipped proof, proved now by Z3 from nothing: ``{key: record}``.

    ``structures`` (default: all of :func:`prover.properties.covered.stage_structures`)
    are the stage theorems and ``levels`` (default: all of :func:`level_jobs`)
    the level theorems proved beside the ``catalogue``'s (default: all of
    :data:`prover.properties.catalogue.CATALOGUE`); ``jobs`` processes prove
    them."""
    if structures is None:
        structures = covered.stage_structures()
    if levels is None:
        levels = level_jobs()
    # the slowest first, so that no process is left with them at the end
    structures = sorted(levels, key=lambda j: -(j[1] if j[0] == "transpose" else 0)) \
        + list(structures)
    if catalogue is None:
        catalogue = CATALOGUE
    saved = {k: os.environ.get(k) for k in ("TILESPEC_CACHE_DIR", "TILESPEC_CACHE",
                                             "TILESPEC_SHIPPED")}
    with tempfile.TemporaryDirectory(prefix="tilespec-ship-") as root:
        os.environ.update(TILESPEC_CACHE_DIR=root, TILESPEC_CACHE="on",
                          TILESPEC_SHIPPED="off")
        cache.clear_memory()
        try:
            for rank in SHIPPED_RANKS:
                theorems.mixed_radix(rank)
            for text, _ in catalogue:
                shape = parse_array_shape(text)
                for prop in PROPERTY_NAMES:
                    prove(shape, prop)
            records = _records(root)
            roots = [str(Path(root, f"job{i}")) for i in range(max(1, jobs))]
            chunks = [list(structures)[i::len(roots)] for i in range(len(roots))]
            if len(roots) == 1:
                _prove_structures(roots[0], chunks[0])
            else:
                with multiprocessing.get_context("fork").Pool(len(roots)) as pool:
                    pool.starmap(_prove_structures, zip(roots, chunks))
            for r in roots:
                records.update(_records(r))
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
            cache.clear_memory()
    return {k: records[k] for k in sorted(records)}


def differences(shipped: dict, now: dict) -> list[str]:
    """What differs between the shipped records and the ones proved now."""
    out = [f"shipped but not proved by the code that runs: {shipped[k].get('question')!r}"
           for k in shipped if k not in now]
    out += [f"proved now but not shipped: {now[k]['question']!r}" for k in now
            if k not in shipped]
    out += [f"differs: {now[k]['question']!r} ({f})" for k in now if k in shipped
            for f in COMPARED if shipped[k].get(f) != now[k].get(f)]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tilespec.prover.properties.ship",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="prove everything again and compare with the shipped file")
    ap.add_argument("--jobs", type=int, default=1, metavar="N",
                    help="processes proving the stage and level theorems (default 1)")
    args = ap.parse_args(argv)
    now = prove_from_nothing(jobs=args.jobs)
    if args.check:
        try:
            shipped = json.loads(cache.SHIPPED_FILE.read_text())
        except (OSError, ValueError) as err:
            print(f"{cache.SHIPPED_FILE}: unreadable ({err})")
            return 1
        diff = differences(shipped, now)
        for line in diff:
            print(line)
        print(f"{len(now)} proofs proved now; {len(shipped)} shipped; "
              + ("the shipped file is current" if not diff else
                 f"{len(diff)} differences: run python -m tilespec.prover.properties.ship"))
        return 1 if diff else 0
    cache.SHIPPED_FILE.write_text(json.dumps(now, indent=0, sort_keys=True) + "\n")
    print(f"{len(now)} proofs written to {cache.SHIPPED_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
