"""Running requests in the real-XLA worker (:mod:`.worker`): one subprocess
answers a batch of :mod:`.protocol` requests in order; when XLA ends it,
the request in flight is answered :class:`~.protocol.Aborted` (or
:class:`~.protocol.Hung` past the timeout) and a new worker takes the rest.

:class:`WorkerSetup` says what the process needs before jax starts (XLA
flags, CPU device count, 64-bit types, the interpreter whose jaxlib
answers); :func:`run` answers a batch; :class:`Worker` keeps one process
open for a conversation whose next questions depend on the last answers.

>>> WorkerSetup(devices=4).xla_flags()
('--xla_force_host_platform_device_count=4',)
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from ..spec import TilespecError
from .protocol import Aborted, Crashed, Hung, ProtocolError, decode, encode, last_words

INSTALL_HINT = ("real XLA is not installed; install jax and jaxlib: "
                "pip install -e '.[xla]' in a clone of tilespec, or pip install jax jaxlib")
#: Seconds one request may take before it counts as hung.
DEFAULT_TIMEOUT = 300.0


class XlaUnavailable(TilespecError):
    """jax/jaxlib are not installed, so real XLA cannot be asked."""


class XlaWorkerError(RuntimeError):
    """The XLA subprocess failed before it could answer anything (a bug or
    a broken installation, not an answer about the input)."""


def available() -> bool:
    """True when jax and jaxlib can be imported (neither is imported here)."""
    return all(importlib.util.find_spec(m) is not None for m in ("jax", "jaxlib"))


def require() -> None:
    """Raise :class:`XlaUnavailable`, saying how to install jax, without it."""
    if not available():
        raise XlaUnavailable(INSTALL_HINT)


def versions() -> dict:
    """The versions of jax and jaxlib that answer, read from their metadata."""
    require()
    from importlib.metadata import PackageNotFoundError, version
    out = {}
    for name in ("jax", "jaxlib"):
        try:
            out[name] = version(name)
        except PackageNotFoundError:  # importable but not installed as a dist
            out[name] = "unknown"
    return out


@dataclass(frozen=True)
class WorkerSetup:
    """What a worker process is started with.

    ``speed_flags`` are XLA flags that only make it faster: an XLA that does
    not know one (an older release) is asked again without it.  ``python``
    is the interpreter whose jaxlib answers (``""``: this one); ``timeout``
    the seconds each request may take."""

    python: str = ""
    flags: tuple[str, ...] = ()
    speed_flags: tuple[str, ...] = ()
    devices: int = 1
    x64: bool = False
    platform: str = "cpu"
    timeout: float = DEFAULT_TIMEOUT

    def interpreter(self) -> str:
        return self.python or sys.executable

    def xla_flags(self) -> tuple[str, ...]:
        """The flags the worker's XLA is started with."""
        count = (f"--xla_force_host_platform_device_count={self.devices}",) \
            if self.devices > 1 else ()
        known = _SPEED_FLAGS.get(self.interpreter(), self.speed_flags)
        return self.flags + count + tuple(f for f in self.speed_flags if f in known)


#: The speed flags each interpreter's XLA knows (older XLAs lack some).
_SPEED_FLAGS: dict[str, tuple[str, ...]] = {}

#: Starts the worker with xla/ as a package of its own: the interpreter may
#: be another environment's, where tilespec is not installed.
_BOOT = ("import importlib, sys, types; p = types.ModuleType('tilespec_xla_worker'); "
         "p.__path__ = [sys.argv[1]]; sys.modules[p.__name__] = p; "
         "importlib.import_module(p.__name__ + '.worker').main()")


class Worker:
    """One worker process at a time, started on the first request and again
    after XLA ends one.  Use as a context manager."""

    def __init__(self, setup: WorkerSetup = WorkerSetup()):
        self.setup = setup
        self._proc: subprocess.Popen | None = None
        self._stderr: IO[str] | None = None

    def __enter__(self) -> Worker:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _start(self) -> subprocess.Popen:
        env = dict(os.environ, JAX_PLATFORMS=self.setup.platform, TF_CPP_MIN_LOG_LEVEL="1",
                   JAX_ENABLE_X64="1" if self.setup.x64 else "0",
                   XLA_FLAGS=" ".join((os.environ.get("XLA_FLAGS", ""),
                                       *self.setup.xla_flags())).strip())
        self._stderr = tempfile.TemporaryFile("w+")
        self._proc = subprocess.Popen(
            [self.setup.interpreter(), "-c", _BOOT, str(Path(__file__).parent)], env=env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr, text=True)
        return self._proc

    def close(self) -> None:
        """End the process (it ends by itself when its input closes)."""
        proc, self._proc = self._proc, None
        if proc is not None:
            for pipe in (proc.stdin, proc.stdout):
                try:
                    if pipe is not None:
                        pipe.close()
                except OSError:  # the process is gone
                    pass
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    def ask(self, request: Any) -> Any:
        """The worker's response to ``request``; :class:`Aborted`,
        :class:`Hung` or :class:`Crashed` when the process ended on it."""
        while True:
            proc = self._proc or self._start()
            assert proc.stdin is not None and proc.stdout is not None  # asked for above
            fired = threading.Event()
            timer = threading.Timer(self.setup.timeout, _end, (proc, fired))
            timer.start()
            response = None
            try:
                proc.stdin.write(encode(request) + "\n")
                proc.stdin.flush()
                for line in iter(proc.stdout.readline, ""):
                    try:
                        response = decode(line)
                        break
                    except ProtocolError:
                        continue  # something XLA printed, not ours
            except OSError:  # the process is gone: its stderr says why
                pass
            finally:
                timer.cancel()
            if response is not None:
                return response
            failure = self._failure(proc, fired.is_set())
            if failure is not None:
                return failure

    def _failure(self, proc: subprocess.Popen, hung: bool) -> Any:
        """What ended the process, as an answer; ``None`` when it is worth
        asking again (flags an older XLA does not know were dropped)."""
        assert self._stderr is not None  # set with the process
        stderr = self._stderr
        self._stderr = None
        self._proc = None
        for pipe in (proc.stdin, proc.stdout):
            try:
                if pipe is not None:
                    pipe.close()
            except OSError:  # the process is gone
                pass
        proc.wait()
        stderr.seek(0)
        text = stderr.read()
        stderr.close()
        if hung:
            return Hung(self.setup.timeout)
        words = last_words(text, proc.returncode)
        if "Unknown flags in XLA_FLAGS" in words and self._drop_unknown_flags(words):
            return None
        if "Traceback (most recent call last)" in text and "Check failed" not in text:
            return Crashed(words)
        return Aborted(words)

    def _drop_unknown_flags(self, words: str) -> bool:
        python = self.setup.interpreter()
        known = _SPEED_FLAGS.get(python, self.setup.speed_flags)
        unknown = [f for f in known if f.split("=")[0] in words]
        _SPEED_FLAGS[python] = tuple(f for f in known if f not in unknown)
        return bool(unknown)

    def run(self, requests) -> list:
        """The response to each request, in order."""
        return [self.ask(r) for r in requests]


def _end(proc: subprocess.Popen, fired: threading.Event) -> None:
    """End a process that took too long, saying so."""
    fired.set()
    proc.kill()


def run(requests, setup: WorkerSetup = WorkerSetup()) -> list:
    """Answer a batch of requests in one worker (another after each abort):
    the typed responses, in order."""
    with Worker(setup) as worker:
        return worker.run(requests)
