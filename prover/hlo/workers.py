"""Work units on several workers that pass on what they decide.

In one process a run decides each bitcast question once, whichever module
asks it (:func:`~tilespec.prover.bitcast.remembering`): the modules of one
model share their layouts.  Spread over workers (the processes of
``--jobs``, the workers of a Dask cluster), each worker would decide again
what another has decided already.  :func:`dispatch` hands out the units
a few at a time per worker and carries answers between them: each task
brings its worker the answers of the run it has not seen yet
(:func:`answering` adds them to the worker's answers before the unit
runs), and each result brings back the answers its task decided.

Answers pass only between workers whose deciding code is the same
(:func:`code_digest`: the files of ``spec`` and ``prover`` and the Z3
version), and a question without an answer is decided where it is asked:
what is passed on changes how long a run takes, not what it finds (as in
one process, a question is answered once per run).
"""

from __future__ import annotations

import functools
import hashlib
import queue
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Hashable, Iterable, Mapping, Sequence, TypeVar

from ..bitcast import remembering

__all__ = ["Answered", "Handout", "answering", "code_digest", "dispatch"]


@functools.cache
def code_digest() -> str:
    """The digest of the code that decides bitcast questions in this
    process: the source of ``spec`` and ``prover`` (the folders beside
    this package's) and the Z3 version.

    >>> len(code_digest()), code_digest() == code_digest()
    (64, True)
    """
    import z3
    root = Path(__file__).resolve().parents[2]
    digest = hashlib.sha256(z3.get_version_string().encode())
    for folder in ("spec", "prover"):
        for path in sorted((root / folder).rglob("*.py")):
            digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


@dataclass(frozen=True)
class Answered:
    """A task's result, with the answers it decided (``answers``, by
    question) and the :func:`code_digest` of the worker that decided them."""

    result: Any
    answers: dict
    code: str


def answering(unit: Callable[..., Any], run: str, code: str,
              given: Iterable[tuple[Hashable, Any]], *args) -> Answered:
    """``unit(*args)`` in a worker, going on from the answers of ``run``
    (one :func:`dispatch`) it has: those of its earlier tasks, and
    ``given`` (question, answer) pairs, decided by other workers running
    the same ``code``.  A worker keeps the answers of its latest run only
    (a Dask worker outlives the run; never a patched solver's, nor past a
    ``--cross-check``): a task of another run starts from none.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> from tilespec.prover.bitcast import is_bitcast
    >>> ask = lambda text: is_bitcast(shape("f32[4]{0}"), shape(text))
    >>> a = answering(ask, "run 1", code_digest(), {}, "f32[2,2]{1,0}")
    >>> len(a.answers) > 0
    True
    >>> b = answering(ask, "run 1", code_digest(), {}, "f32[2,2]{1,0}")
    >>> b.result is a.result, b.answers
    (True, {})
    >>> c = answering(ask, "run 2", code_digest(), a.answers.items(), "f32[2,2]{1,0}")
    >>> c.result is a.result, c.answers
    (True, {})
    >>> answering(ask, "run 3", "other code", a.answers.items(), "f32[2,2]{1,0}").answers == {}
    False
    """
    with _RUN_LOCK:
        if run not in _ANSWERS_OF_RUN:
            _ANSWERS_OF_RUN.clear()     # the latest run's only
            _ANSWERS_OF_RUN[run] = {}
        answers = _ANSWERS_OF_RUN[run]
        if code == code_digest():
            for question, answer in given:
                answers.setdefault(question, answer)
    decided: dict = {}
    with remembering(answers, decided):
        result = unit(*args)
    return Answered(result, decided, code_digest())


#: A worker's answers, by run: the latest run's only.
_ANSWERS_OF_RUN: dict[str, dict] = {}
_RUN_LOCK = threading.Lock()      # a worker may run tasks in several threads


class Handout:
    """Which item a worker starts next, of ``n`` items (in the order the
    caller wants them started: ``check_files``' largest first) shared by
    ``workers``: worker ``k`` begins at item ``k * n // workers`` and goes
    on in order; once none is left after its last, it takes the last item
    left.  So workers start on different parts of the list (modules of
    similar size, often variants of one model that ask the same questions,
    run on one worker, one after the other, and it asks each once), and
    the end of the list, smallest first, fills the gaps, as it would.

    >>> h = Handout(6, 2)
    >>> [h.next(w) for w in (0, 1, 0, 1, 1, 1, 0)]
    [0, 3, 1, 4, 5, 2, None]
    """

    def __init__(self, n: int, workers: int):
        self.taken = [False] * n
        self.at = [k * n // workers for k in range(workers)]
        self.last = n - 1

    def next(self, worker: int) -> int | None:
        taken = self.taken
        i = self.at[worker]
        while i < len(taken) and taken[i]:
            i += 1
        if i == len(taken):             # none left after its last: the last left
            while self.last >= 0 and taken[self.last]:
                self.last -= 1
            if self.last < 0:
                return None
            i = self.last
        taken[i] = True
        self.at[worker] = i
        return i


#: A worker, as ``dispatch``'s caller names it (a pool, a Dask worker's address).
Worker = TypeVar("Worker", bound=Hashable)


def dispatch(workers: Sequence[Worker], submit: Callable[[Worker, Callable, tuple], Any],
             unit: Callable[..., Any], items: Sequence[tuple], run: str,
             ahead: int | Mapping[Worker, int] = 2) -> list:
    """``unit(*item)`` for every item, on ``workers``, in the order of
    ``items``: ``submit(worker, task, item)`` starts ``task(*item)`` there
    and returns a future (``concurrent.futures`` or Dask's).  Each worker
    has ``ahead`` tasks at a time (one runs while the next waits; a Dask
    worker with several threads, one more than it has threads), the next
    one (:class:`Handout`) started when one is done, carrying the answers
    of this run that worker has not seen (:func:`answering`); an exception
    of a task propagates.

    >>> from concurrent.futures import ThreadPoolExecutor
    >>> with ThreadPoolExecutor(2) as pool:
    ...     dispatch(["a", "b"], lambda w, task, item: pool.submit(task, *item),
    ...              pow, [(2, 3), (3, 2), (5, 1)], "doctest")
    [8, 9, 5]
    """
    code = code_digest()
    known: set = set()                  # the questions of the log
    # every answer of the run once, in the order it came back, with the
    # worker that decided it; each worker has been given the log up to
    # sent[worker] (a question's hash walks its shapes: each is hashed
    # once here, not once per task)
    log: list[tuple[Worker, Hashable, Any]] = []
    sent: dict[Worker, int] = dict.fromkeys(workers, 0)
    results: list = [None] * len(items)
    done: queue.SimpleQueue = queue.SimpleQueue()
    handout = Handout(len(items), len(workers))
    number = {w: k for k, w in enumerate(workers)}
    running = 0

    def start(worker: Worker) -> None:
        nonlocal running
        i = handout.next(number[worker])
        if i is None:
            return
        given = [(q, a) for by, q, a in log[sent[worker]:] if by != worker]
        sent[worker] = len(log)
        future = submit(worker, functools.partial(answering, unit, run, code, given), items[i])
        future.add_done_callback(lambda f, worker=worker, i=i: done.put((worker, i, f)))
        running += 1

    slots = ahead if isinstance(ahead, Mapping) else dict.fromkeys(workers, ahead)
    for round_ in range(max(slots.values(), default=0)):
        for worker in workers:
            if round_ < slots[worker]:
                start(worker)
    while running:
        worker, i, future = done.get()
        running -= 1
        answered = future.result()
        results[i] = answered.result
        if answered.code == code:
            for question, answer in answered.answers.items():
                if question not in known:
                    known.add(question)
                    log.append((worker, question, answer))
        start(worker)
    return results
