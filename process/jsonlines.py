"""A worker process that answers requests written as JSON lines, for a
library that may end the process it runs in (XLA's ``CHECK``, LLVM's
``report_fatal_error``, a failed ``assert``).

The contract of :class:`JsonLinesWorker`:

* **Requests and answers are lines.** Each request is written to the
  child's stdin as ``encode(request)`` and one line; the answer is the first
  line of its stdout that ``decode`` reads.  A line that ``decode`` refuses
  with one of the ``chatter`` exceptions is something the library printed,
  not an answer, and is passed over; any other exception of ``decode`` is
  raised to the caller (the child wrote something that is not the protocol).
* **A crash or an abort is an answer.** When the child ends before it
  answers, the request is answered :class:`Ended`, with everything the
  child wrote to stderr (it goes to a temporary file, so a chatty child
  never blocks on a full pipe) and its exit status.
* **The timeout kills the child and says so.** A request not answered in
  ``timeout`` seconds kills the child; the answer is :class:`Ended` with
  ``timed_out`` set.  ``timeout=None`` waits as long as the child lives.
* **A new child answers the next request.** The child is started on the
  first request, and again on the first request after one ended; its
  environment is read at each start, so a change to it (a flag dropped)
  reaches the next child.  :meth:`JsonLinesWorker.close`
  (or leaving the ``with`` block) closes its stdin, which ends it.

>>> import sys
>>> echo = "import sys\\nfor line in sys.stdin: print(line.strip(), flush=True)"
>>> with JsonLinesWorker([sys.executable, "-c", echo], timeout=60) as child:
...     child.ask({"op": "ping"}), child.ask([1, 2])
({'op': 'ping'}, [1, 2])
>>> with JsonLinesWorker([sys.executable, "-c", "import os; os.abort()"], timeout=60) as child:
...     ended = child.ask("hello")
>>> ended.status, ended.timed_out
(-6, False)
"""

from __future__ import annotations

import json
import subprocess
import tempfile
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Any, Generic, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Ended:
    """The child ended before it answered: what it wrote to stderr, its
    exit status (negative: the signal that ended it, as in
    :mod:`subprocess`), and whether the timeout killed it.

    >>> Ended("F0101 x.cc:1] Check failed: a\\n", -6).last_lines(1)
    ('F0101 x.cc:1] Check failed: a',)
    >>> Ended("", -9, timed_out=True).timed_out
    True
    """

    stderr: str
    status: int | None
    timed_out: bool = False

    def last_lines(self, n: int) -> tuple[str, ...]:
        """The last ``n`` lines of stderr that are not blank, stripped."""
        lines = [ln.strip() for ln in self.stderr.splitlines() if ln.strip()]
        return tuple(lines[-n:]) if n > 0 else ()

    @property
    def traceback(self) -> bool:
        """Whether Python printed a traceback: the child's own code raised,
        not (only) the library ended it."""
        return "Traceback (most recent call last)" in self.stderr


class JsonLinesWorker(Generic[T]):
    """One child process at a time, answering requests in order (the module's
    docstring states the contract).  Use as a context manager.

    ``command`` is the child's argv; ``environment`` a function that gives
    the child's environment at each start (``None``: this process's)."""

    def __init__(self, command: Sequence[str], *, timeout: float | None,
                 environment: Callable[[], Mapping[str, str]] | None = None,
                 encode: Callable[[Any], str] = json.dumps,
                 decode: Callable[[str], T] = json.loads,
                 chatter: tuple[type[Exception], ...] = ()):
        self.command = command
        self.timeout = timeout
        self.environment = environment
        self.encode = encode
        self.decode = decode
        self.chatter = chatter
        self._proc: subprocess.Popen | None = None
        self._stderr: IO[str] | None = None

    def __enter__(self) -> JsonLinesWorker[T]:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _start(self) -> subprocess.Popen:
        env = None if self.environment is None else dict(self.environment())
        self._stderr = tempfile.TemporaryFile("w+")
        self._proc = subprocess.Popen(
            list(self.command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr,
            text=True, env=env)
        return self._proc

    def close(self) -> None:
        """End the child (it ends by itself when its input closes; one that
        does not within 30 s is killed)."""
        proc, self._proc = self._proc, None
        if proc is not None:
            _close_pipes(proc)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    def ask(self, request: Any) -> T | Ended:
        """The child's answer to ``request``, decoded; :class:`Ended` when the
        child ended (or was killed at the timeout) before it answered."""
        proc = self._proc or self._start()
        assert proc.stdin is not None and proc.stdout is not None  # opened above
        fired = threading.Event()
        timer = None if self.timeout is None else threading.Timer(
            self.timeout, _kill, (proc, fired))
        if timer is not None:
            timer.start()
        try:
            proc.stdin.write(self.encode(request) + "\n")
            proc.stdin.flush()
            for line in iter(proc.stdout.readline, ""):
                try:
                    return self.decode(line)
                except self.chatter:
                    continue
        except OSError:  # the child is gone: its stderr says why
            pass
        finally:
            if timer is not None:
                timer.cancel()
        return self._ended(proc, fired.is_set())

    def _ended(self, proc: subprocess.Popen, timed_out: bool) -> Ended:
        """Forget the dead child, and say how it ended."""
        assert self._stderr is not None  # opened with the child
        stderr, self._stderr, self._proc = self._stderr, None, None
        _close_pipes(proc)
        proc.wait()
        stderr.seek(0)
        text = stderr.read()
        stderr.close()
        return Ended(text, proc.returncode, timed_out)


def _close_pipes(proc: subprocess.Popen) -> None:
    for pipe in (proc.stdin, proc.stdout):
        try:
            if pipe is not None:
                pipe.close()
        except OSError:  # the child is gone
            pass


def _kill(proc: subprocess.Popen, fired: threading.Event) -> None:
    """End a child that took too long, saying so."""
    fired.set()
    proc.kill()
