"""check_files in worker processes: started by spawn, so a caller that has
imported jax (whose backends start threads) gets no fork warning and no
risk of a deadlocked child."""

from __future__ import annotations

import warnings

import pytest

from tilespec.prover.hlo.corpus import check_files

MODULE = ("ENTRY %e (p: f32[4,8]) -> f32[32] {\n"
          "  %p = f32[4,8]{1,0} parameter(0)\n"
          "  ROOT %b = f32[32]{0} bitcast(%p)\n}\n")


def test_workers_are_spawned_so_jax_warns_of_no_fork(tmp_path):
    jax = pytest.importorskip("jax")
    jax.devices()   # starts the backend, which installs JAX's at-fork warning
    paths = []
    for n in (1, 2):
        p = tmp_path / f"module_000{n}.jit_f.cpu_after_optimizations.txt"
        p.write_text(MODULE)
        paths.append(str(p))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        results = check_files(paths, jobs=2)
    assert [r.status for r in results] == ["proved", "proved"]
    assert not [w for w in caught if "fork" in str(w.message)], [str(w.message) for w in caught]
