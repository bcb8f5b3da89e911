"""z3 deferred by tilespec.prover: ``import z3`` runs nothing, the first use
runs it into the same module object."""

from __future__ import annotations

import subprocess
import sys

import pytest

_FIRST_USE = """
import sys, types
import tilespec.prover
from tilespec.prover import loaded
import z3
assert not loaded("z3") and "z3.z3" not in sys.modules
assert not hasattr(z3, "__wrapped__") and not loaded("z3")   # introspection runs nothing
x = z3.Int("x")
assert loaded("z3") and sys.modules["z3"] is z3 and type(z3) is types.ModuleType
assert z3.Solver().check(x > 1) == z3.sat
print("ok")
"""

_STAR = """
import tilespec.prover
from z3 import *
print(Int("y"))
"""


@pytest.mark.integration
@pytest.mark.parametrize("code, printed", [(_FIRST_USE, "ok"), (_STAR, "y")])
def test_z3_runs_on_first_use_into_the_module_imported(code, printed):
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=False)
    assert out.returncode == 0 and out.stdout.strip() == printed, out.stderr
