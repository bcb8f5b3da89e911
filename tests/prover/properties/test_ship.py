"""The proofs shipped with tilespec (prover/core/shipped_proofs.json): cited
only for the code they are about, and current with the code in the tree.

Refresh the file with ``python -m tilespec.prover.properties.ship``."""

from __future__ import annotations

import json

import pytest
import z3

from tilespec.prover.core import cache, level_theorems, theorems
from tilespec.prover.names import PROPERTY_NAMES
from tilespec.prover.properties import covered, instances, ship
from tilespec.prover.properties.catalogue import CATALOGUE
from tilespec.prover.properties.proof import prove
from tilespec.spec.index import Split
from tilespec.spec.printer import format_shape
from tilespec.spec.text import parse_array_shape as shape

REFRESH = "stale: run python -m tilespec.prover.properties.ship"


def _stage_theorem_name() -> str:
    return theorems.stage_theorem(Split((8, 128)), 3)["name"]


def test_the_catalogue_is_proved_from_the_shipped_proofs_without_a_solver(
        shipped_only, monkeypatch):
    # fails when the code changed and the file was not refreshed
    monkeypatch.setattr(z3, "Solver", None)
    monkeypatch.setattr(z3, "SolverFor", None)
    for text, _ in CATALOGUE:
        s = shape(text)
        for prop in PROPERTY_NAMES:
            try:
                r = prove(s, prop)
            except TypeError as err:    # a solver was needed
                pytest.fail(f"{prop} of {text} needs Z3 ({err}): {REFRESH}")
            assert r.proved, (text, prop, REFRESH)
            if r.steps == ("the shape combines no dims ('*'): nothing to show",):
                continue    # no theorem needed
            assert any("shipped with tilespec" in step for step in r.steps), (text, prop)


def test_every_shipped_record_is_well_formed_and_keyed_by_its_question():
    data = json.loads(cache.SHIPPED_FILE.read_text())
    assert len(data) > 50
    for key, record in data.items():
        assert cache.well_formed(record, ("digest",)), record
        assert key == cache.key(record["question"], record["digest"])


def _edited_shipped_file(tmp_path, monkeypatch, edit):
    data = json.loads(cache.SHIPPED_FILE.read_text())
    name = _stage_theorem_name()
    (key,) = [k for k, r in data.items() if r["question"] == name]
    edit(data, key)
    path = tmp_path / "shipped_proofs.json"
    path.write_text(json.dumps(data))
    monkeypatch.setattr(cache, "SHIPPED_FILE", path)
    cache.clear_memory()
    return name, key


EDITS = [
    lambda data, k: data[k].update(question=data[k]["question"].replace("3", "4")),
    lambda data, k: data[k].update(digest="0" * 64),
    lambda data, k: data[k].update(status="proved?"),
    lambda data, k: data[k].pop("seconds"),
    lambda data, k: data.update({"0" * 64: data.pop(k)}),
]


@pytest.mark.parametrize("edit", EDITS)
def test_an_edited_shipped_entry_is_not_cited(shipped_only, tmp_path, monkeypatch, edit):
    digest = cache.fingerprint(theorems._code())
    name = _stage_theorem_name()
    assert cache.lookup(name, digest)["where"] == "the proofs shipped with tilespec"
    name, key = _edited_shipped_file(tmp_path, monkeypatch, edit)
    assert cache.lookup(name, digest) is None
    edited = json.loads(cache.SHIPPED_FILE.read_text())
    for record in edited.values():      # nor under what the edit made it say
        if isinstance(record.get("question"), str):
            assert cache.lookup(record["question"], "0" * 64) is None
    # Proved again: Z3's proof is the same after every edit, so Z3 proves it
    # after the first; after the others, that the solver is asked is enough.
    asked: list = []
    if edit is not EDITS[0]:
        monkeypatch.setattr(theorems, "all_proved",
                            lambda ctx, claims: asked.append(claims) or "proved")
    record = theorems.stage_theorem(Split((8, 128)), 3)
    assert record["status"] == "proved" and record["where"] == "this process"
    assert edit is EDITS[0] or asked


def test_shipped_proofs_about_other_code_are_not_cited(shipped_only, monkeypatch):
    s = shape("f32[16,256]{1,0:T(8,128)}")
    assert any("shipped with tilespec" in x for x in prove(s, "injective").steps)
    monkeypatch.setattr(Split, "forward", lambda self, e, d, ar: tuple(e) + (0,) * len(
        self.sizes))
    r = prove(s, "injective")
    assert not any("shipped with tilespec" in x for x in r.steps), r.steps
    assert r.status == "refuted"


@pytest.mark.slow
def test_the_shipped_file_is_what_the_code_proves_now():
    # one command re-proves everything from nothing and compares
    shipped = json.loads(cache.SHIPPED_FILE.read_text())
    assert ship.differences(shipped, ship.prove_from_nothing(jobs=2)) == [], REFRESH


@pytest.mark.integration
def test_a_sample_of_the_shipped_file_is_what_the_code_proves_now():
    # the fast version of the test above: the lemma, every fifth catalogue
    # entry and a sample of the stage theorems of at most four entries
    # re-proved from nothing (each record proved now must be the shipped
    # one); every other shipped record is a question the code asks
    structures = covered.stage_structures()
    shipped = json.loads(cache.SHIPPED_FILE.read_text())
    sample = [(s, n) for s, n in structures if n <= 4][::6]
    levels = ship.level_jobs()
    now = ship.prove_from_nothing(sample, catalogue=CATALOGUE[::5], levels=[
        job for job in levels if job[0] in ("level", "combine") and job[2] <= 4][::20])
    assert [d for d in ship.differences(shipped, now)
            if not d.startswith("shipped but not proved")] == [], REFRESH
    digest = theorems.fingerprint()
    asked = {cache.key(_name(s, n), digest) for s, n in structures}
    asked |= {cache.key(_level_name(job), level_theorems.fingerprint()) for job in levels}
    asked |= {cache.key(level_theorems.packing_theorem(a)["name"],
                        level_theorems.fingerprint()) for a in (False, True)}
    for text, _ in CATALOGUE:     # the all-shapes proofs of the catalogue
        generic = format_shape(instances.signature(shape(text)))
        asked |= {cache.key(f"{prop} of {generic} for all dims >= 1",
                            instances.fingerprint()) for prop in PROPERTY_NAMES}
    assert set(shipped) <= set(now) | asked, REFRESH
    assert len(shipped) >= len(structures)


def _level_name(job) -> str:
    """The question a level, transpose or merge theorem is kept under (read
    back from the shipped file, so no solver runs)."""
    kind, *args = job
    return getattr(level_theorems, f"{kind}_theorem")(*args)["name"]


def _name(stage, n) -> str:
    """The question a stage theorem is kept under (read back from the
    shipped file, so no solver runs)."""
    return theorems.stage_theorem(stage, n)["name"]
