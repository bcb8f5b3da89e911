"""A corpus of HLO modules checked as independent work units.

An XLA dump directory (``--xla_dump_to``) holds, per module, the text after
optimisation (``*after_optimizations.txt``) beside buffer assignments, live
ranges and LLVM IR.  :func:`module_paths` picks the modules out of files and
directories; :func:`check_file` is the one work unit: it reads one module,
checks it (:func:`tilespec.prover.hlo.check.check_module`) and returns a
:class:`ModuleResult`, a picklable value.  :func:`check_files` runs the units
in this process, in a pool of processes (``jobs``) or on a Dask cluster
(``scheduler``); the results come back in the order of the paths, whatever
order they finished in, so the output does not depend on how they ran.
Within one run, each bitcast question is decided about once, whichever
module asks it (:func:`~tilespec.prover.bitcast.remembering`): the workers
of ``jobs`` and ``scheduler`` pass their answers on to each other
(:func:`~.workers.dispatch`).

>>> import pathlib, tempfile
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "module_0001.jit_f.cpu_after_optimizations.txt").write_text(
...     "ENTRY %e (p: f32[4,8]) -> f32[32] {\\n"
...     "  %p = f32[4,8]{1,0} parameter(0)\\n"
...     "  ROOT %b = f32[32]{0} bitcast(%p)\\n}\\n")
>>> _ = (d / "module_0001.jit_f.cpu_after_optimizations-buffer-assignment.txt").write_text("")
>>> [p.rsplit("/", 1)[1] for p in module_paths([str(d)])]
['module_0001.jit_f.cpu_after_optimizations.txt']
>>> [(r.status, r.report.counts["bitcasts"]) for r in check_files(module_paths([str(d)]))]
[('proved', 1)]
>>> [r.status for r in check_files([str(d / "missing.txt")])]
['error']
"""

from __future__ import annotations

import multiprocessing
import os
import uuid
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from ...spec import TilespecError, XlaCommit
from ..bitcast import remembering
from ..core import DEFAULT_TIMEOUT
from ..names import DUMP_GLOB
from ..result import PROVED, REFUTED, UNKNOWN
from .backend import backend_of, checked_backend
from .check import check_module, judged_xla
from .files import (
    STDIN,
    Digest,
    Elsewhere,
    Seen,
    bytes_again,
    decoded,
    from_client,
    read_text,
    this_host,
    to_send,
)
from .findings import Finding, Report, with_finding
from .heap import steadily
from .module import parse_hlo
from .reader import cycles_paused
from .workers import dispatch

#: A file not read or not an HLO module (bad input).
ERROR = "error"

#: How XLA's dump names a module before its passes run (``DumpHloModuleIfEnabled``
#: with "before_optimizations"), beside ``*after_optimizations.txt``.
BEFORE_OPTIMIZATIONS = "before_optimizations.txt"


@dataclass(frozen=True)
class ModuleResult:
    """One work unit's answer: the file, and its report or why it has none.

    ``status`` is the report's (proved, refuted, unknown) or ``error`` when
    the file could not be read or is not an HLO module (``error`` says why,
    in one line).  ``rendered``: the report's JSON entries, written by the
    worker that checked it (``then`` of :func:`check_files`), or None.
    """

    path: str
    report: Report | None = None
    error: str | None = None
    rendered: str | None = field(default=None, compare=False, repr=False)

    def __post_init__(self):
        if (self.report is None) == (self.error is None):
            raise ValueError("a module result has a report or an error, not both")

    @property
    def status(self) -> str:
        return self.report.status if self.report is not None else ERROR

    @property
    def reported_status(self) -> str:
        """The status of the findings the options keep (what the exit status
        follows; :attr:`Report.reported_status`)."""
        return self.report.reported_status if self.report is not None else ERROR


def module_paths(paths: Iterable[str], pattern: str = DUMP_GLOB) -> list[str]:
    """The modules named by ``paths``: a file as given, a directory by the
    files under it (recursively) whose names match ``pattern``, sorted;
    ``-`` (standard input) as given.  Each module once, in the order given.

    A directory with no match is bad input; a file is read by its work unit.
    An empty name is bad input (``Path("")`` is the current directory).

    >>> module_paths([""])
    Traceback (most recent call last):
    ...
    tilespec.spec.errors.TilespecError: '' is not a file name
    """
    out: list[str] = []
    for p in paths:
        if p == STDIN:
            out.append(p)
            continue
        if not p:
            raise TilespecError("'' is not a file name")
        try:
            path = Path(p)
            is_dir = path.is_dir()
        except (OSError, ValueError):   # e.g. a NUL byte in the name
            raise TilespecError(f"{p!r} is not a file name") from None
        if is_dir:
            found = sorted(str(f) for f in path.rglob(pattern) if f.is_file())
            if not found:
                raise TilespecError(f"no file under {p} matches {pattern!r}")
            out += found
        else:                           # read_text says why, if it cannot be read
            out.append(p)
    return list(dict.fromkeys(out))


def check_file(path: str, text: str | bytes | None = None, *,
               timeout: float = DEFAULT_TIMEOUT,
               meant: dict | None = None, backend: str | None = None,
               strict_tiles: bool = False, xla: XlaCommit | None = None,
               buffers: bool = True) -> ModuleResult:
    """Check the module in ``path`` (or ``text``, its text or bytes read
    from it already):
    bad input becomes the result's ``error``, any other exception is a bug
    and propagates.  ``backend`` None: the one the file name names
    (:func:`~.backend.backend_of`); ``buffers`` as for
    :func:`~.check.check_module`."""
    try:
        if text is None:
            text = read_text(path)
        elif isinstance(text, bytes):
            text = decoded(text, path)
        # one pause for the module read and checked: the collector would
        # otherwise walk the whole module once between the two
        with cycles_paused():
            report = check_module(parse_hlo(text), timeout=timeout, meant=meant,
                                  backend=backend or backend_of(path),
                                  strict_tiles=strict_tiles, xla=xla, buffers=buffers)
    except TilespecError as e:
        return ModuleResult(path, error=str(e))
    if path.endswith(BEFORE_OPTIMIZATIONS):
        report = with_finding(report, Finding("pre-layout-module", "warning", 1, "",
                                              pre_layout_note(path)))
    return ModuleResult(path, report=report)


def pre_layout_note(path: str) -> str:
    """What a module dumped before optimizations is, and the file to check
    instead: the same module after them, beside it in the dump.  Layout
    assignment runs among the optimizations, so the layouts before are
    defaults nothing runs with, and every reshape there is a reshape.

    >>> pre_layout_note("d/module_0004.jit_f.before_optimizations.txt")
    'the module before optimizations, before layout assignment: its layouts are \
not the ones that run; check d/module_0004.jit_f.*after_optimizations.txt instead'
    """
    stem = path[:-len(BEFORE_OPTIMIZATIONS)]
    after = sorted(p for p in Path(stem).parent.glob(Path(stem).name + DUMP_GLOB)
                   if p.is_file()) if Path(stem).parent.is_dir() else []
    instead = (str(after[0]) if len(after) == 1 else stem + DUMP_GLOB)
    return ("the module before optimizations, before layout assignment: its layouts are "
            f"not the ones that run; check {instead} instead")


def corpus_status(statuses: Iterable[str]) -> str:
    """The status of a corpus from its modules': refuted if any is, else
    unknown if any is or a file was not read (nothing checked is never
    proved), else proved (also for no module).

    >>> corpus_status(["proved", "unknown", "refuted", "error"])
    'refuted'
    >>> corpus_status(["proved", "unknown"]), corpus_status(["proved", "error"])
    ('unknown', 'unknown')
    """
    seen = set(statuses)
    if REFUTED in seen:
        return REFUTED
    if seen & {ERROR, UNKNOWN}:
        return UNKNOWN
    return PROVED


@dataclass(frozen=True)
class Tally:
    """A run's modules counted by what the exit status follows (the
    findings the options keep), so a report's last line and the exit status
    cannot disagree: ``refuted`` counts modules refuted by a finding kept;
    ``suppressed`` those refuted only by findings the options or the baseline
    suppress (still refuted, never called proved); ``unknown`` those with a
    question not decided; ``unread`` files not read.

    >>> Tally(proved=1, suppressed=2).status, Tally(refuted=1, unknown=1).status
    ('proved', 'refuted')
    """

    proved: int = 0
    refuted: int = 0
    suppressed: int = 0
    unknown: int = 0
    unread: int = 0
    seconds: float = 0.0

    @classmethod
    def of(cls, results: Iterable[ModuleResult]) -> "Tally":
        counts = dict.fromkeys(("proved", "refuted", "suppressed", "unknown", "unread"), 0)
        seconds = 0.0
        for r in results:
            if r.report is None:
                counts["unread"] += 1
                continue
            seconds += r.report.seconds
            kept = r.report.reported_status
            counts[kept if kept != PROVED else
                   "proved" if r.report.status == PROVED else "suppressed"] += 1
        return cls(**counts, seconds=seconds)

    @property
    def modules(self) -> int:
        return self.proved + self.refuted + self.suppressed + self.unknown + self.unread

    @property
    def status(self) -> str:
        """The run's status, what the exit status is: refuted if a finding
        kept refutes, else unknown if a question is undecided or a file not
        read, else proved (:func:`corpus_status` of the kept statuses)."""
        return corpus_status([REFUTED] * self.refuted + [UNKNOWN] * self.unknown
                             + [ERROR] * self.unread)


def _unit(timeout: float, meant: dict | None, backend: str | None = None,
          strict_tiles: bool = False, xla: XlaCommit | None = None, buffers: bool = True
          ) -> Callable[..., ModuleResult]:
    """``check_file`` with its options bound (picklable, for other processes)."""
    return partial(check_file, timeout=timeout, meant=meant, backend=backend,
                   strict_tiles=strict_tiles, xla=xla, buffers=buffers)


def _then(unit: Callable[..., ModuleResult], then: Callable[[ModuleResult], ModuleResult],
          path: str, text: str | None = None) -> ModuleResult:
    """``then`` of the unit's result, where the unit ran."""
    return then(unit(path, text))


def check_files(paths: Sequence[str], *, jobs: int = 1, scheduler: str | None = None,
                timeout: float = DEFAULT_TIMEOUT, meant: dict | None = None,
                texts: dict[str, str] | None = None, backend: str | None = None,
                strict_tiles: bool = False, xla: XlaCommit | str | None = None,
                then: Callable[[ModuleResult], ModuleResult] | None = None,
                buffers: bool = True) -> list[ModuleResult]:
    """:func:`check_file` on every path, in the order of ``paths``; ``then``
    (picklable) is applied to each result where it was checked (the
    command's JSON, rendered by the worker); ``buffers`` False: the reports
    list no buffer (:func:`~.check.check_module`).

    ``jobs > 1``: in that many processes (each file read by its worker).
    ``scheduler``: on the Dask cluster at that address (``tcp://host:port``,
    the ``dask`` extra); a worker reads a file itself where it sees the
    file the client saw (the same file on the same host, or the same
    bytes), and is sent the bytes otherwise
    (:mod:`~tilespec.prover.hlo.files`), so workers need no shared file
    system.  ``texts`` gives the text of paths already read (standard
    input).
    """
    if jobs < 1:
        raise TilespecError(f"--jobs {jobs}: expected at least 1")
    texts = dict(texts or {})
    unit = _unit(timeout, meant, checked_backend(backend), strict_tiles, judged_xla(xla),
                 buffers)
    if then is not None:
        unit = partial(_then, unit, then)
    unit = partial(steadily, unit)
    if scheduler is not None:
        return _on_dask(scheduler, list(paths), unit, texts)
    if jobs == 1 or len(paths) <= 1:
        with remembering():
            return [unit(p, texts.get(p)) for p in paths]
    # The largest modules first: a large one started last would run alone
    # while the other workers wait (the results keep the order of paths).
    order = largest_first(paths, texts)
    # spawn, not fork: a forked child of a process that has started threads
    # (JAX's, when the caller imported jax) may deadlock, and JAX warns so.
    # One pool per worker, so that a task goes to the worker whose answers
    # it brings up to date (workers.dispatch).
    spawn = multiprocessing.get_context("spawn")
    pools = [ProcessPoolExecutor(1, mp_context=spawn) for _ in range(min(jobs, len(paths)))]
    try:
        done = dispatch(pools, lambda pool, task, item: pool.submit(task, *item), unit,
                        [(paths[i], texts.get(paths[i])) for i in order], uuid.uuid4().hex)
    finally:
        # the pools stopped side by side: their processes end at the same time
        with ThreadPoolExecutor(len(pools)) as stopping:
            list(stopping.map(partial(ProcessPoolExecutor.shutdown, cancel_futures=True),
                              pools))
    results: list[ModuleResult | None] = [None] * len(paths)
    for i, r in zip(order, done):
        results[i] = r
    return [r for r in results if r is not None]


def largest_first(paths: Sequence[str], texts: dict[str, str]) -> list[int]:
    """The indices of ``paths``, the largest file (or text) first: the order
    to start work units in so that no large one is left to run alone at the
    end.  A file that cannot be read counts as empty (its unit says why).

    >>> largest_first(["-", "/no/such/file", "-"], {"-": "x" * 9})
    [0, 2, 1]
    """
    def size(path: str) -> int:
        if path in texts:
            return len(texts[path])
        try:
            return os.path.getsize(path)
        except (OSError, ValueError):
            return 0
    return sorted(range(len(paths)), key=lambda i: -size(paths[i]))


def _on_dask(address: str, paths: list[str], unit: Callable[..., ModuleResult],
             texts: dict[str, str]) -> list[ModuleResult]:
    """The units on the Dask cluster at ``address``: for each regular file,
    what the client knows of it sent (:func:`~.files.to_send`), and its
    bytes only to a worker that does not see the same file
    (:func:`~.files.from_client`)."""
    # the files looked at (pipes read) while Dask loads and connects: both
    # wait on other work than this thread's
    with ThreadPoolExecutor(1) as reader:
        read = reader.submit(_read_here, paths, texts)
        client = _connected(address)
    unit = partial(from_client, unit)
    run = uuid.uuid4().hex              # both rounds: the workers keep its answers
    with client:
        results, sources, size = read.result()
        workers = _every_worker(client)
        if not workers_see_files_as_here(client):
            # a worker elsewhere: each file read here once, and its digest sent
            for i in [i for i, source in sources.items() if isinstance(source, Seen)]:
                try:
                    sources[i] = to_send(paths[i])
                except TilespecError as e:
                    results[i] = ModuleResult(paths[i], error=str(e))
                    del sources[i]
        threads = {w: info.get("nthreads", 1) for w, info in workers.items()} or {None: 1}
        todo = sorted(sources, key=lambda i: -size[i])
        for i, r in zip(todo, _on_workers(client, threads, unit, run,
                                          [(paths[i], sources[i]) for i in todo])):
            results[i] = r
        # the files the workers do not see: their bytes, read again here
        # (the same file as first sent, or the module is not checked)
        again = []
        for i in todo:
            if isinstance(results[i], Elsewhere):
                try:
                    sources[i] = bytes_again(paths[i], sources[i])
                    again.append(i)
                except TilespecError as e:
                    results[i] = ModuleResult(paths[i], error=str(e))
        for i, r in zip(again, _on_workers(client, threads, unit, run,
                                           [(paths[i], sources[i]) for i in again])):
            results[i] = r
    return results


def workers_see_files_as_here(client) -> bool:
    """Whether every worker of the cluster sees files as this process does
    (:func:`~.files.this_host`), a ``LocalCluster``'s: then a regular
    file's :class:`~.files.Seen` is sent, not the digest of its bytes (a
    worker that joins later and does not see it answers
    :class:`~.files.Elsewhere`)."""
    here = this_host()
    if not here:
        return False
    try:
        there = client.run(this_host)
    except Exception:   # noqa: BLE001 - a worker leaving, another tilespec: sent digests
        return False
    return set(there.values()) == {here}


def _connected(address: str):
    """A Dask client of the scheduler at ``address``; bad input when Dask
    is not installed or the scheduler cannot be reached."""
    try:
        from distributed import Client
    except ImportError:
        raise TilespecError("--scheduler needs Dask: pip install 'dask[distributed]' "
                            "(in a clone of tilespec: pip install -e '.[dask]')") from None
    try:
        return Client(address, timeout=30)
    except (OSError, ValueError, TimeoutError) as e:
        raise TilespecError(f"--scheduler {address}: cannot connect ({e})") from None


def _read_here(paths: list[str], texts: dict[str, str]
               ) -> tuple[list[Any], dict[int, Any], dict[int, int]]:
    """Each path's result when it cannot be read, else what is sent for it
    (its text when given, else :func:`~.files.to_send` to workers that see
    files as this process does), and its size."""
    results: list[Any] = [None] * len(paths)
    sources: dict[int, Any] = {}
    size: dict[int, int] = {}
    for i, p in enumerate(paths):
        try:
            sources[i] = texts[p] if p in texts else to_send(p, here=True)
        except TilespecError as e:
            results[i] = ModuleResult(p, error=str(e))
            continue
        size[i] = sources[i].size if isinstance(sources[i], (Digest, Seen)) \
            else len(sources[i])
    return results, sources, size


def _on_workers(client, threads: dict, unit: Callable[..., Any], run: str,
                items: list[tuple[str, Any]]) -> list:
    """:func:`~.workers.dispatch` of ``items`` on the cluster's workers
    (``threads``: each one's threads), the texts and bytes among them
    scattered."""
    # every text scattered before the first task, not in the task graph
    # (large objects make Dask warn): scattering each as its task starts
    # makes the workers wait for the client
    texts = [k for k, (_, source) in enumerate(items)
             if not isinstance(source, (Digest, Seen))]
    scattered = dict(zip(texts, client.scatter([items[k][1] for k in texts], hash=False)
                         if texts else []))
    items = [(path, scattered.get(k, source)) for k, (path, source) in enumerate(items)]

    def submit(worker, task, item):
        # a worker gets the next module when it is done with one, and the
        # answers of the others (workers.dispatch): pinned, but free to
        # move should the worker leave
        where = {} if worker is None else {"workers": [worker], "allow_other_workers": True}
        return client.submit(task, *item, pure=False, **where)
    return dispatch(list(threads), submit, unit, items, run,
                    ahead={w: n + 1 for w, n in threads.items()})


def _every_worker(client) -> dict:
    """The cluster's workers, each with its information (Dask's
    ``scheduler_info`` lists 5 by default in some versions; ``n_workers=-1``
    all, where it is taken)."""
    try:
        return client.scheduler_info(n_workers=-1)["workers"]
    except TypeError:       # a Dask before n_workers
        return client.scheduler_info()["workers"]


def default_jobs() -> int:
    """The processes ``--jobs 0`` stands for: the CPUs this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1
