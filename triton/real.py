"""The real Triton as a judge: queries of its ``LinearLayout`` binding run
in a worker process (:mod:`.worker`), so that an abort cannot take the
caller down.

Every query is answered by one of three values: :class:`Answer` (what
Triton returned), :class:`Refused` (the binding raised a Python exception)
or :class:`Aborted` (Triton ended the process: an LLVM ERROR or a failed
assert, its last words kept).  After an abort a new worker answers the
rest of the batch.

>>> Aborted("LLVM ERROR: x").reason, Aborted("Assertion `isPowerOf2_32(size)' failed.").reason
('llvm-error', 'assertion')
>>> Answer(True).value, Refused("TypeError: bad").message
(True, 'TypeError: bad')

Triton itself is imported only by the worker; this module needs the
``triton`` extra (``pip install -e '.[triton]'``) only when it asks.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Union

from ..process import Ended, JsonLinesWorker
from ..spec import TilespecError
from .layout import LinearLayout
from .worker import last_words

INSTALL_HINT = ("triton not installed; install it: pip install -e '.[triton]' in a clone of "
                "tilespec, or pip install 'triton>=3.6'")
#: Seconds one query may take before the worker is ended.
DEFAULT_TIMEOUT = 120.0


class TritonUnavailable(TilespecError):
    """The real Triton is not installed, so it cannot be asked."""


class TritonWorkerError(RuntimeError):
    """The worker answered something that is not the protocol (a bug on
    this side, not an answer about the input)."""


def available() -> bool:
    """True when the real Triton is installed, by its distribution's
    metadata (not by ``find_spec``: run from a clone of tilespec, the
    folder ``triton/`` would be found instead; nothing is imported here)."""
    from importlib.metadata import PackageNotFoundError, distribution
    try:
        distribution("triton")
    except PackageNotFoundError:
        return False
    return True


def require() -> None:
    """Raise :class:`TritonUnavailable` (exit 2 in the CLI) without Triton."""
    if not available():
        raise TritonUnavailable(INSTALL_HINT)


def version() -> str:
    """The installed Triton's version, from its metadata."""
    require()
    from importlib.metadata import version as of
    return of("triton")


@dataclass(frozen=True)
class Answer:
    """What the binding returned, in the wire form (:mod:`.worker`)."""

    value: Any


@dataclass(frozen=True)
class Refused:
    """The binding raised a Python exception: ``Type: message``."""

    message: str


@dataclass(frozen=True)
class Aborted:
    """Triton ended the process; ``last_words`` is its message."""

    last_words: str

    @property
    def reason(self) -> str:
        """The class of the abort: ``llvm-error`` (``report_fatal_error``),
        ``assertion`` (a failed ``assert``), ``timeout`` or ``signal``."""
        if "LLVM ERROR" in self.last_words:
            return "llvm-error"
        if "Assertion" in self.last_words:
            return "assertion"
        if "timed out" in self.last_words:
            return "timeout"
        return "signal"


Reply = Union[Answer, Refused, Aborted]


def to_json(reply: Reply) -> dict:
    """A reply as JSON (the recorded corpus's form).

    >>> to_json(Aborted("LLVM ERROR: no"))
    {'aborted': 'LLVM ERROR: no'}
    """
    if isinstance(reply, Answer):
        return {"answer": reply.value}
    if isinstance(reply, Refused):
        return {"refused": reply.message}
    return {"aborted": reply.last_words}


def from_json(value: dict) -> Reply:
    """The reply :func:`to_json` wrote.

    >>> from_json({"answer": [1]})
    Answer(value=[1])
    """
    if "answer" in value:
        return Answer(value["answer"])
    if "refused" in value:
        return Refused(value["refused"])
    return Aborted(value["aborted"])


#: Runs the worker as a script, with neither the working directory nor the
#: script's folder on the path: ``import triton`` must find the real one,
#: not this package's folder of the same name.
_BOOT = ("import os, runpy, sys; here = os.path.dirname(sys.argv[1]); "
         "sys.path[:] = [p for p in sys.path if p not in ('', os.getcwd(), here)]; "
         "runpy.run_path(sys.argv[1], run_name='__main__')")


class Oracle:
    """One worker process at a time, started on the first query and again
    after Triton ends one (a :class:`~tilespec.process.JsonLinesWorker`).
    Use as a context manager.

    ``python`` is the interpreter whose Triton answers (``""``: this one)."""

    def __init__(self, python: str = "", timeout: float = DEFAULT_TIMEOUT):
        self.python = python or sys.executable
        self.timeout = timeout
        self._worker: JsonLinesWorker[Reply] = JsonLinesWorker(
            [self.python, "-c", _BOOT, str(Path(__file__).with_name("worker.py"))],
            timeout=timeout, environment=_environment, decode=_reply)

    def __enter__(self) -> Oracle:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        """End the worker (it ends by itself when its input closes)."""
        self._worker.close()

    def ask(self, query: dict) -> Reply:
        """Triton's reply to one query (:data:`.worker.OPS` names them)."""
        reply = self._worker.ask(query)
        if not isinstance(reply, Ended):
            return reply
        if reply.timed_out:
            return Aborted(f"timed out after {self.timeout:g} s")
        if reply.traceback and "LLVM ERROR" not in reply.stderr:
            raise TritonWorkerError(reply.stderr.strip().splitlines()[-1][:300])
        return Aborted(last_words(reply.stderr, reply.status))

    def run(self, queries: Any) -> list[Reply]:
        """The reply to each query, in order."""
        return [self.ask(q) for q in queries]


def _environment() -> dict[str, str]:
    # Triton's own warnings (and its cache) stay out of the answers
    return dict(os.environ, TRITON_CACHE_DIR=tempfile.gettempdir() + "/tilespec-triton")


def _reply(line: str) -> Reply:
    """The reply the worker wrote on one line."""
    try:
        value = json.loads(line)
    except json.JSONDecodeError as error:
        raise TritonWorkerError(f"the worker wrote {line[:200]!r}") from error
    return from_json(value)


def ask(queries: Any, python: str = "") -> list[Reply]:
    """Triton's replies to a batch of queries, in one worker (another after
    each abort).  Raises :class:`TritonUnavailable` without Triton."""
    if not python:
        require()
    with Oracle(python) as oracle:
        return oracle.run(queries)


@dataclass(frozen=True)
class Agreement:
    """One question asked of tilespec and of the real Triton about the
    same layout: both answers, and whether they are the same."""

    question: str
    tilespec: Any
    triton: Reply

    @property
    def agree(self) -> bool:
        return isinstance(self.triton, Answer) and self.triton.value == self.tilespec

    def line(self) -> str:
        """The comparison in one line.

        >>> Agreement("is_injective", True, Answer(True)).line()
        'is_injective: tilespec True, Triton True: agree'
        """
        theirs = self.triton.value if isinstance(self.triton, Answer) else self.triton
        return (f"{self.question}: tilespec {_short(self.tilespec)}, Triton {_short(theirs)}: "
                + ("agree" if self.agree else "DIFFER"))


def _short(value: Any) -> str:
    """A value as one short line: a long list by its length."""
    if isinstance(value, list) and len(value) > 4:
        return f"[{len(value)} values]"
    text = str(value)
    return text if len(text) <= 80 else text[:77] + "..."


#: Most inputs :func:`compare` applies the layout to (all, below it).
COMPARED_INPUTS = 1 << 14


def compare(layout: LinearLayout, python: str = "") -> list[Agreement]:
    """``layout`` beside the real Triton's ``LinearLayout.from_bases`` of the
    same bases: the layout Triton builds, its ``apply`` at every input (the
    first :data:`COMPARED_INPUTS`), and injective/surjective/invertible.
    Raises :class:`TritonUnavailable` without Triton."""
    wire = {"bases": [[n, [list(b) for b in vs]] for n, vs in layout.bases],
            "out_dims": [[n, s] for n, s in layout.out_dims]}
    dims = [(n, 1 << len(vs)) for n, vs in layout.bases]
    points: list[list[tuple[str, int]]] = []
    for k in range(min(COMPARED_INPUTS, 1 << layout.total_in_bits)):
        point, rest = [], k
        for n, size in dims:
            point.append((n, rest % size))
            rest //= size
        points.append(point)
    ours: list[tuple[str, Any]] = [
        ("from_bases", wire),
        ("apply", [[[n, v] for n, v in layout.apply(dict(p)).items()] for p in points]),
        ("is_injective", layout.is_injective()), ("is_surjective", layout.is_surjective()),
        ("is_invertible", layout.is_invertible())]
    pairs = [[list(p) for p in point] for point in points]
    queries = [{"op": op, "layout": wire, **({"inputs": pairs} if op == "apply" else {})}
               for op, _ in ours]
    replies = ask(queries, python)
    return [Agreement(f"apply at {len(points)} inputs" if op == "apply" else op, value, reply)
            for (op, value), reply in zip(ours, replies)]
