"""The benchmark scripts run to the end (slow: ``pytest -m slow``).

Speed is measured by the scripts' printed figures, never asserted here.
"""

import subprocess
import sys

import pytest
from locations import ROOT

SCRIPTS = sorted((ROOT / "benchmarks").glob("bench_*.py"))


@pytest.mark.slow
@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_benchmark_script_runs(script):
    done = subprocess.run([sys.executable, str(script)], capture_output=True,
                          text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip()
