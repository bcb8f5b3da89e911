"""check-hlo over a corpus of real TPU modules (issue 35's T8 and T9), the
corpus that benchmarks/make_tpu_corpus.py writes: ``--jobs 2`` in every
output format, one process and a two-worker Dask LocalCluster, side by side,
and where the time goes.  bench_speed.py prints these with its targets.

Run alone: python benchmarks/bench_corpus.py [--corpus DIR] [--repeats N]
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from command_runs import fresh_cache_dir, run_seconds, side_by_side, verdict

PY = sys.executable

#: Where benchmarks/make_tpu_corpus.py wrote the corpus of T8/T9 (--corpus).
CORPUS_DIR = Path(os.environ.get("TILESPEC_TPU_CORPUS")
                  or Path(tempfile.gettempdir()) / "tilespec-tpu-corpus")
#: Runs of each corpus command (medians); --corpus-repeats.
CORPUS_REPEATS = 3


def corpus_instructions(text_output: str) -> tuple[int, int]:
    """(modules, instructions) from check-hlo's text: each module's line says
    ``N instruction(s)``.

    >>> corpus_instructions("module a: proved -- 2 bitcast(s), 10 instruction(s)\\n"
    ...                     "module b: proved -- 0 bitcast(s), 5 instruction(s)\\n")
    (2, 15)
    """
    import re
    counts = [int(n) for n in re.findall(r"(\d+) instruction\(s\)", text_output)]
    return len(counts), sum(counts)


def tpu_corpus_figures(results: list, corpus: Path, repeats: int) -> None:
    """T8 and T9 (issue 35): check-hlo over a corpus of real TPU modules,
    ``--jobs 2`` in each output format, one process, and a two-worker Dask
    LocalCluster, run in turn (medians of ``repeats``); T9's ratios are
    the medians of each repeat's, one process against the runs just before
    and after it, so that a ratio compares runs made side by side on the
    shared machine, whose speed drifts over minutes.  Each Dask run
    has a warm cluster of its own (:func:`two_worker_cluster`, then a
    small module on each worker), started after the other runs and closed
    before the next: an idle cluster takes about a tenth of a core, which
    would slow the runs that need both."""
    if not corpus.is_dir():
        results += [False, False]
        print(f"T8/T9 corpus {corpus} absent: python benchmarks/make_tpu_corpus.py {corpus} "
              "(libtpu, the tpu extra) writes it, or --corpus DIR  NOT MEASURED")
        return
    check = [PY, "-m", "tilespec", "check-hlo", str(corpus)]
    env = dict(os.environ, TILESPEC_CACHE_DIR=fresh_cache_dir())
    text = subprocess.run(check + ["--jobs", "2"], capture_output=True, text=True,
                          env=env).stdout        # also fills the cache, as a user's first run
    modules, instructions = corpus_instructions(text)
    smallest = [str(p) for p in sorted(corpus.rglob("*after_optimizations.txt"),
                                       key=lambda p: p.stat().st_size)[:2]]
    load_before = os.getloadavg()
    stolen_before = stolen_seconds()
    # one process between the two runs it is compared with (T9): each
    # repeat's ratios come from runs side by side
    runs = {"--json": check + ["--jobs", "2", "--json"],
            "--format sarif": check + ["--jobs", "2", "--format", "sarif"],
            "text": check + ["--jobs", "2"], "one process": check + ["--jobs", "1"]}
    timed: dict = {name: (cmd, env) for name, cmd in runs.items()}
    dask = "dask LocalCluster(2)"
    trim = None
    try:
        import distributed
    except ImportError:
        distributed = None

    def dask_seconds() -> float:
        # a cluster of its own for each Dask run, warm (tilespec imported
        # by its workers): idle, a cluster's processes take about a tenth
        # of a core, which the other runs should not lose
        nonlocal trim
        with two_worker_cluster(distributed) as (address, trim):
            # a small module on each worker first, as on a cluster that has
            # run before: the first decisions' imports fall outside
            subprocess.run([*check[:-1], *smallest, "--scheduler", address],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
            return run_seconds(check + ["--scheduler", address], env)
    if distributed is not None:
        timed[dask] = dask_seconds
    times = dict(zip(timed, side_by_side(list(timed.values()), repeats)))
    median = {k: statistics.median(v) for k, v in times.items()}
    load_after = os.getloadavg()
    stolen = stolen_seconds() - stolen_before
    cores = os.cpu_count()
    formats = {k: v for k, v in median.items() if k in ("text", "--json", "--format sarif")}
    results.append(max(formats.values()) < 30.0 and instructions >= 1_000_000
                   and modules >= 100)
    print(f"T8 check-hlo --jobs 2, {modules} real TPU modules, {instructions:,} instructions "
          f"({cores} cores, load {load_before[0]:.1f} before / {load_after[0]:.1f} after): "
          + ", ".join(f"{k} {v:.1f} s" for k, v in formats.items())
          + f"; {instructions / median['text']:,.0f} instructions/s; CPU stolen by the host "
          f"during these runs {stolen:.1f} s  (target < 30 s each, "
          f"1,000,000 in 100 modules)  {verdict(results[-1])}")
    one = median["one process"]
    each = {k: [a / b for a, b in zip(times["one process"], times[k])]
            for k in ("text", dask) if k in median}
    ratios = {k: statistics.median(v) for k, v in each.items()}
    results.append(len(ratios) == 2 and min(ratios.values()) >= 1.7)

    def ratio(k):
        return f"{ratios[k]:.2f}x (" + " ".join(f"{r:.2f}" for r in each[k]) + ")"
    print(f"T9 parallel vs one process ({one:.1f} s, {cores} cores; median of each "
          f"repeat's ratio, each in brackets): --jobs 2 {median['text']:.1f} s = "
          f"{ratio('text')}, "
          + (f"Dask LocalCluster(2 workers, {trim}) {median[dask]:.1f} s = {ratio(dask)}"
             if dask in median else "Dask not installed (the dask extra): NOT MEASURED")
          + f"  (target >= 1.7x each)  {verdict(results[-1])}")
    corpus_phases(corpus, instructions)


def stolen_seconds() -> float:
    """CPU seconds the hypervisor has given other guests while this machine
    wanted them (``steal`` of ``/proc/stat``, all CPUs); 0 where unknown.
    Noise on a shared machine that the load average does not show."""
    try:
        with open("/proc/stat") as f:
            fields = f.readline().split()
        return int(fields[8]) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


@contextlib.contextmanager
def two_worker_cluster(distributed):
    """A two-worker Dask LocalCluster, one thread each, as Dask starts its
    workers, with tilespec imported by each: its scheduler's address and
    how its workers run (:func:`worker_trim_threshold`)."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=":0") as cluster:
        # this client gone before the run: check-hlo's is the cluster's only one
        with distributed.Client(cluster) as client:
            client.run(importlib.import_module, "tilespec.prover.hlo.corpus")
            trim = worker_trim_threshold(client.run(os.environ.get, "MALLOC_TRIM_THRESHOLD_"))
        yield cluster.scheduler_address, trim


def worker_trim_threshold(values: dict) -> str:
    """How the cluster's workers run, from each worker's
    ``MALLOC_TRIM_THRESHOLD_`` (``Client.run``): Dask's nanny sets it by
    default, which fixes glibc's mmap threshold at 128 KiB; a cluster made
    after ``dask.config.set({"distributed.nanny.pre-spawn-environ":
    {"MALLOC_TRIM_THRESHOLD_": None}})`` runs them without it.

    >>> worker_trim_threshold({"tcp://a": "65536", "tcp://b": "65536"})
    'workers as Dask starts them: MALLOC_TRIM_THRESHOLD_=65536'
    >>> worker_trim_threshold({"tcp://a": None})
    'workers without MALLOC_TRIM_THRESHOLD_'
    """
    seen = sorted({str(v) for v in values.values()})
    if seen == ["None"]:
        return "workers without MALLOC_TRIM_THRESHOLD_"
    return "workers as Dask starts them: MALLOC_TRIM_THRESHOLD_=" + ",".join(seen)


def corpus_phases(corpus: Path, instructions_all: int, sample: int = 4) -> None:
    """Where check-hlo's time goes on the corpus, in CPU seconds of this
    process (``time.process_time``: less sensitive to the load of a shared
    machine than wall time), per 10,000 instructions over ``sample`` modules,
    after one warm-up module: reading and parsing, checking, the pickle
    round trip of what a ``--jobs`` worker sends the parent under text and
    SARIF (:func:`~tilespec.prover.hlo.findings.reported_part`), and
    writing ``--json`` (by the workers under ``--jobs 2`` when no option
    filters findings: ``cli.hlo.rendered_json``); and the projection to the
    whole corpus on 2 cores."""
    import contextlib
    import io
    import pickle

    from tilespec.cli.main import main as cli
    from tilespec.prover.hlo import check_module, module_paths, parse_hlo, reported_part
    paths = module_paths([str(corpus)])
    if not paths:
        return
    phases = dict.fromkeys(("parse", "check", "pickle", "json"), 0.0)
    instructions = 0
    for n, path in enumerate(paths[:sample + 1]):
        text = Path(path).read_text()
        a = time.process_time()
        module = parse_hlo(text)
        b = time.process_time()
        report = check_module(module)
        c = time.process_time()
        pickle.loads(pickle.dumps(reported_part(report, min_level="warning")))
        d = time.process_time()
        with contextlib.redirect_stdout(io.StringIO()):
            cli(["check-hlo", path])
            e = time.process_time()
            cli(["check-hlo", path, "--json"])
        f = time.process_time()
        if n == 0:
            continue                      # imports and first proofs
        instructions += report.counts["instructions"]
        for k, t in zip(phases, (b - a, c - b, d - c, (f - e) - (e - d))):
            phases[k] += t
    per = {k: t / instructions * 10_000 for k, t in phases.items()}
    whole = {k: t * instructions_all / 10_000 for k, t in per.items()}
    workers = whole["parse"] + whole["check"] + whole["pickle"]
    print(f"   CPU s per 10,000 instructions ({sample} modules): "
          + ", ".join(f"{k} {v:.2f}" for k, v in per.items())
          + f"; for {instructions_all:,} instructions on 2 cores: text/SARIF >= "
          f"{workers / 2:.0f} s, --json >= {(workers + whole['json']) / 2:.0f} s "
          "(the JSON rendered by the workers)")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", type=Path, default=CORPUS_DIR,
                    help="the corpus benchmarks/make_tpu_corpus.py wrote")
    ap.add_argument("--repeats", type=int, default=CORPUS_REPEATS)
    args = ap.parse_args()
    results: list = []
    tpu_corpus_figures(results, args.corpus, args.repeats)
    sys.exit(0 if all(results) else 1)
