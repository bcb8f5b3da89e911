"""The proof cache (prover/core/cache.py): keyed by the live code, safe on disk."""

from __future__ import annotations

import json

import pytest
import z3

from tilespec.prover.core import cache, theorems
from tilespec.prover.properties.proof import prove
from tilespec.spec import index
from tilespec.spec.index import Split
from tilespec.spec.text import parse_array_shape as shape


@pytest.fixture
def disk(tmp_path, monkeypatch):
    monkeypatch.setenv("TILESPEC_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("TILESPEC_CACHE", raising=False)
    monkeypatch.setenv("TILESPEC_SHIPPED", "off")    # the disk store on its own
    cache.clear_memory()
    yield tmp_path
    cache.clear_memory()


def test_fingerprint_follows_the_live_code(monkeypatch):
    before = cache.fingerprint((index,))
    monkeypatch.setattr(Split, "dims", lambda self, d, ar: tuple(d))
    assert cache.fingerprint((index,)) != before
    monkeypatch.undo()
    assert cache.fingerprint((index,)) == before


def test_fingerprint_sees_a_replaced_module_function(monkeypatch):
    before = cache.fingerprint((index,))
    monkeypatch.setattr(index, "product", lambda values, ar=index.INT: 1)
    assert cache.fingerprint((index,)) != before


def test_a_proof_on_disk_is_cited_by_a_later_process(disk, monkeypatch):
    assert prove(shape("f32[5]{0:T(2)}"), "injective").proved
    (path,) = disk.iterdir()
    assert z3.get_version_string() in path.name     # keyed by the z3 version too
    cache.clear_memory()                             # as a fresh process
    monkeypatch.setattr(z3, "Solver", None)          # no solver call possible
    r = prove(shape("f32[9]{0:T(2)}"), "injective")
    assert r.proved and any("cited from disk cache" in s for s in r.steps)


def test_an_unreadable_cache_file_is_ignored(disk):
    path = cache.cache_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{not json")
    assert prove(shape("f32[5]{0:T(2)}"), "inverse").proved
    assert json.loads(path.read_text())          # rewritten whole


def test_only_proved_records_are_read_back(disk):
    path = cache.cache_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    digest = cache.fingerprint(theorems._code())
    key = cache.key("q", digest)
    path.write_text(json.dumps({key: {"status": "refuted", "question": "q"}}))
    assert cache.lookup("q", digest) is None


def test_the_disk_store_can_be_turned_off(disk, monkeypatch):
    monkeypatch.setenv("TILESPEC_CACHE", "off")
    assert cache.cache_file() is None
    assert prove(shape("f32[5]{0:T(2)}"), "bijective").proved
    assert not any(disk.iterdir())


def test_the_fingerprint_is_the_same_in_another_process():
    # hash seeds differ, reference counts differ: the digest must not
    import os
    import subprocess
    import sys
    here = cache.fingerprint(theorems._code())
    out = subprocess.run(
        [sys.executable, "-c", "from tilespec.prover.core import cache, theorems;"
         "print(cache.fingerprint(theorems._code()))"],
        capture_output=True, text=True, check=True,
        env=dict(os.environ, PYTHONHASHSEED="12345"))
    assert out.stdout.strip() == here


def test_each_property_name_selects_its_own_facts():
    # the names are defined once (prover/names.py); the prover pairs them
    # with the functions that gather each property's facts
    from tilespec.prover.names import PROPERTY_NAMES
    from tilespec.prover.properties.proof import PROPERTIES
    assert tuple(PROPERTIES) == PROPERTY_NAMES
    assert all(fn.__name__ == "_" + name for name, fn in PROPERTIES.items())


def test_version_and_bad_input_load_no_solver():
    import subprocess
    import sys
    # z3 may be deferred (tilespec.prover puts a module not yet run under
    # its name): what must not happen is z3's code running
    code = ("import sys\nfrom tilespec.cli.main import main\n"
            "from tilespec.prover import loaded\n"
            "for argv in (['--version'], ['prove', 'f32[3'], ['prove', '--property', 'x', 'f32[3]']):\n"
            "    try:\n        rc = main(argv)\n    except SystemExit as e:\n        rc = e.code\n"
            "    print(rc, [m for m in ('z3', 'sympy') if loaded(m)])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    lines = out.stdout.split("\n")
    assert lines[0].startswith("tilespec ") and lines[1:4] == ["0 []", "2 []", "2 []"], out


def test_a_stage_given_other_code_in_the_process_is_not_cited():
    # the same function object, other code: the fingerprint must see it
    s = shape("f32[16,256]{1,0:T(8,128)}")
    assert prove(s, "injective").proved

    def forward(self, e, d, ar):
        k = len(self.sizes)
        out = list(e[:len(e) - k])
        for x, t in zip(e[len(e) - k:], self.sizes):
            out += [ar.floordiv(x, t), ar.floordiv(x, t)]
        return tuple(out)
    original = Split.forward.__code__
    Split.forward.__code__ = forward.__code__
    try:
        assert prove(s, "injective").status == "refuted"
    finally:
        Split.forward.__code__ = original
    assert prove(s, "injective").proved


DAMAGED = "f32[6]{0:T(2)}"    # rank 1: its stage theorems are the quickest to prove again


@pytest.fixture(scope="module")
def proved_on_disk(tmp_path_factory):
    """The disk cache's text after proving inverse and packing of
    :data:`DAMAGED` from nothing: the solver's work made once for the module."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TILESPEC_CACHE_DIR", str(tmp_path_factory.mktemp("proved")))
        patch.delenv("TILESPEC_CACHE", raising=False)
        patch.setenv("TILESPEC_SHIPPED", "off")
        cache.clear_memory()
        try:
            s = shape(DAMAGED)
            assert prove(s, "inverse").proved and prove(s, "packing").proved
            return cache.cache_file().read_text()
        finally:
            cache.clear_memory()


@pytest.mark.parametrize("damage", [
    lambda r: r.pop("solver", None), lambda r: r.pop("name"),
    lambda r: r.update(seconds="fast"), lambda r: r.update(steps=[1, 2]),
    lambda r: r.update(proved_at=None)])
def test_a_cache_record_with_a_missing_or_mistyped_field_is_proved_again(disk, damage,
                                                                         proved_on_disk):
    s = shape(DAMAGED)
    path = cache.cache_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(proved_on_disk)
    for prop in ("inverse", "packing"):       # undamaged, the records are cited
        assert any("disk cache" in x for x in prove(s, prop).steps), prop
    cache.clear_memory()
    data = json.loads(path.read_text())
    for record in data.values():
        damage(record)
    path.write_text(json.dumps(data))
    cache.clear_memory()
    for prop in ("inverse", "packing"):
        r = prove(s, prop)
        assert r.proved and not any("disk cache" in x for x in r.steps), r.steps


def test_the_all_shapes_proofs_code_holds_the_theorems_code():
    # prover.properties.proof keeps citations under the instances' fingerprint
    # alone: that is only sound if it covers everything the theorems are about
    import sys

    from tilespec.prover.properties import instances
    modules = set(instances._MODULES)
    for obj in theorems._code():
        name = obj.__name__ if hasattr(obj, "__file__") else obj.__module__
        assert name.removeprefix("tilespec.") in modules, name
    assert all(sys.modules[f"tilespec.{m}"] for m in modules)
