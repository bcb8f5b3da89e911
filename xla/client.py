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
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..process import Ended, JsonLinesWorker
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


#: How XLA ends a process whose XLA_FLAGS name flags it does not know: "flag"
#: for one, "flags" for more (``ParseFlagsFromEnvAndDieIfUnknown``,
#: xla/parse_flags_from_env.cc, ROCm/xla ac82760645ef).
UNKNOWN_FLAGS = ("Unknown flag in XLA_FLAGS", "Unknown flags in XLA_FLAGS")

#: The speed flags each interpreter's XLA knows (older XLAs lack some).
_SPEED_FLAGS: dict[str, tuple[str, ...]] = {}

#: Starts the worker with xla/ as a package of its own: the interpreter may
#: be another environment's, where tilespec is not installed.
_BOOT = ("import importlib, sys, types; p = types.ModuleType('tilespec_xla_worker'); "
         "p.__path__ = [sys.argv[1]]; sys.modules[p.__name__] = p; "
         "importlib.import_module(p.__name__ + '.worker').main()")


class Worker:
    """One worker process at a time, started on the first request and again
    after XLA ends one (a :class:`~tilespec.process.JsonLinesWorker`).  Use
    as a context manager."""

    def __init__(self, setup: WorkerSetup = WorkerSetup()):
        self.setup = setup
        self._worker: JsonLinesWorker[Any] = JsonLinesWorker(
            [setup.interpreter(), "-c", _BOOT, str(Path(__file__).parent)],
            timeout=setup.timeout, environment=self._environment, encode=encode,
            decode=decode, chatter=(ProtocolError,))  # chatter: what XLA prints, not ours

    def __enter__(self) -> Worker:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _environment(self) -> dict[str, str]:
        """The worker's environment, read at each start: the speed flags an
        earlier worker's XLA did not know are gone from it."""
        return dict(os.environ, JAX_PLATFORMS=self.setup.platform, TF_CPP_MIN_LOG_LEVEL="1",
                    JAX_ENABLE_X64="1" if self.setup.x64 else "0",
                    XLA_FLAGS=" ".join((os.environ.get("XLA_FLAGS", ""),
                                        *self.setup.xla_flags())).strip())

    def close(self) -> None:
        """End the process (it ends by itself when its input closes)."""
        self._worker.close()

    def ask(self, request: Any) -> Any:
        """The worker's response to ``request``; :class:`Aborted`,
        :class:`Hung` or :class:`Crashed` when the process ended on it."""
        while True:
            response = self._worker.ask(request)
            if not isinstance(response, Ended):
                return response
            failure = self._failure(response)
            if failure is not None:
                return failure

    def _failure(self, ended: Ended) -> Any:
        """What ended the process, as an answer; ``None`` when it is worth
        asking again (flags an older XLA does not know were dropped)."""
        if ended.timed_out:
            return Hung(self.setup.timeout)
        words = last_words(ended.stderr, ended.status)
        if any(m in words for m in UNKNOWN_FLAGS) and self._drop_unknown_flags(words):
            return None
        if ended.traceback and "Check failed" not in ended.stderr:
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


def run(requests, setup: WorkerSetup = WorkerSetup()) -> list:
    """Answer a batch of requests in one worker (another after each abort):
    the typed responses, in order."""
    with Worker(setup) as worker:
        return worker.run(requests)
