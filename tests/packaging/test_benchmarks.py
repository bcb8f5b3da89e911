"""The benchmark scripts run to the end (slow: ``pytest -m slow``), and
bench_speed.py's targets plumbing works on small figures (T10's bytes on one
core, the ``--markdown`` table).

Speed is measured by the scripts' printed figures, never asserted here.
"""

import os
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


# --- bench_speed.py's plumbing, on small figures (not timed) ---------------------------

def _bench_speed():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import bench_speed
    return bench_speed


def test_the_bytes_target_reads_bench_bytes_figures_on_one_core_and_gives_the_cores_back(
        capsys, monkeypatch):
    pytest.importorskip("ml_dtypes", reason="bench_bytes.py makes bf16 and int4 arrays")
    speed = _bench_speed()
    monkeypatch.delenv("TILESPEC_THREADS", raising=False)
    cpus = os.sched_getaffinity(0)
    results: list = []
    speed.bytes_on_one_core(results, mib=1, runs=1)
    out = capsys.readouterr().out
    assert os.sched_getaffinity(0) == cpus and "TILESPEC_THREADS" not in os.environ
    assert len(results) == 1 and isinstance(results[0], bool)
    (line,) = [l for l in out.splitlines() if l.startswith("T10 ")]
    assert "word interleave: C kernel" in line or "word interleave: numpy" in line
    assert line.endswith(" met") or line.endswith("NOT MET")
    # every layout family of bench_bytes.py, both directions, both interleaves
    import bench_bytes
    for element, *_ in bench_bytes.CASES:
        (row,) = [l for l in out.splitlines() if l.strip().startswith(f"{element}[")]
        assert " to " in row and " from " in row and "numpy interleave" in row


def test_the_markdown_table_has_a_row_per_target_and_says_which_depend_on_cores():
    speed = _bench_speed()
    printed = ("T1 first prove  0.300 s  1.20x bare  (target <= 3x)  met\n"
               "   a detail line\n"
               "T8/T9 corpus /x absent: make it  NOT MEASURED\n"
               "T10 bytes on one core, word interleave: C kernel: least 0.41 | x  NOT MET\n")
    rows = speed.markdown(printed).splitlines()
    body = [r for r in rows if r.startswith("| T")]
    assert [r.split(" | ")[0] for r in body] == ["| T1", "| T8/T9", "| T10"]
    assert body[0].endswith("| met | no: one process |")
    assert "**NOT MEASURED**" in body[1] and "yes" in body[1]
    assert "**NOT MET**" in body[2] and "pinned to one core" in body[2] and "\\|" in body[2]
