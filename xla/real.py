"""Ask the real XLA (from jaxlib) about shape texts, many at a time.

One subprocess answers a whole list of texts, so a thousand shapes take
seconds.  Each text gets an :class:`Answer`:

* XLA's parser: ``xla_client.Shape(text)`` runs ``ParseShape``
  (openxla/xla ``xla/hlo/parser/hlo_parser.cc``); ``str(shape)`` is XLA's
  printer (``ShapeUtil::HumanStringWithLayout``, ``xla/shape_util.cc``).
* XLA's layout validator: the parsed layout text is handed to XLA as the
  layout of an unused parameter of a jitted function on the CPU device;
  compiling runs the HLO verifier, which calls
  ``LayoutUtil::ValidateLayoutForShape`` (``xla/layout_util.cc``); its
  message is the ``reason`` of an invalid layout.  Many texts share one
  compilation (the message names the shape, so texts are grouped so that
  it names one; otherwise a failing group is split).
* ``ShapeUtil::ArraySize``: each valid array is produced as an output in
  its layout, and ``on_device_size_in_bytes()`` of the result is the size
  of the layout the compiler kept (``Answer.device_layout``).
* An input on which XLA aborts the process (a CHECK failure) is answered
  with ``aborted`` set to XLA's last words; the other texts are still asked.

The API (``texts`` is a list of strings; answers come back in its order):

``available()``
    Whether jax is importable (without importing it).
``versions()``
    ``{"jax": ..., "jaxlib": ...}`` of the XLA that answers.
``ask(texts, validate=True)``
    The full :class:`Answer` for each text.
``parse(texts)``
    Parse and print only (no validation), also :class:`Answer` objects.
``validate(texts)``
    Same as ``ask``; ``answer.accepted`` is XLA's accept/reject verdict.
``array_size(texts)``
    ArraySize in bytes, or ``None`` where XLA gave none.

>>> from tilespec.xla import real
>>> if real.available():
...     a, = real.ask(["bf16[3,5]{1,0:T(8,128)(2,1)}"])
...     print(a.printed, a.valid, a.array_size)
... else:
...     print("bf16[3,5]{1,0:T(8,128)(2,1)} True 2048")
bf16[3,5]{1,0:T(8,128)(2,1)} True 2048

Without jax, every question raises :class:`XlaUnavailable` (a
:class:`~tilespec.spec.errors.TilespecError`) saying how to install it.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from ..spec import TilespecError
from ._worker import last_words as _last_words

INSTALL_HINT = ("real XLA is not installed; install jax and jaxlib: "
                "pip install -e '.[xla]' in a clone of tilespec, or pip install jax jaxlib")
#: Seconds one subprocess may take before its current question counts as hung.
DEFAULT_TIMEOUT = 300.0
_WORKER = Path(__file__).with_name("_worker.py")


class XlaUnavailable(TilespecError):
    """jax/jaxlib are not installed, so real XLA cannot be asked."""


class XlaWorkerError(RuntimeError):
    """The XLA subprocess failed before it could answer anything (a bug or
    a broken installation, not an answer about the input)."""


@dataclass(frozen=True)
class Answer:
    """What real XLA said about one shape text.

    ``valid`` is ``None`` when the validator was not asked (a tuple, a
    dynamic shape, a type jax cannot allocate; ``note`` says which).
    ``aborted`` holds XLA's last words when the process died on this input.
    ``device_layout`` is the layout the CPU compiler gave the array (it drops
    ``E(n)`` on types of 8 bits or more and ``S(n)``, and adds ``E(4)`` to
    ``s4``); ``array_size`` is ArraySize of the shape with that layout.
    """

    text: str
    parsed: bool = False
    printed: str | None = None
    parse_error: str | None = None
    kind: str | None = None
    valid: bool | None = None
    reason: str | None = None
    array_size: int | None = None
    device_layout: str | None = None
    aborted: str | None = None
    note: str | None = None

    @property
    def accepted(self) -> bool:
        """XLA takes the text: it parses, does not abort, and is not invalid."""
        return self.parsed and not self.aborted and self.valid is not False

    @property
    def verdict(self) -> str:
        """One line: what XLA made of the text."""
        if self.aborted:
            return f"XLA aborts on this input: {self.aborted}"
        if not self.parsed:
            return f"XLA's parser rejects it: {self.parse_error}"
        if self.valid is False:
            return f"XLA rejects the layout: {self.reason}"
        return f"XLA accepts it and prints {self.printed}"

    def to_json(self) -> dict:
        data = dataclasses.asdict(self)
        data["accepted"] = self.accepted
        return data


def available() -> bool:
    """True when jax and jaxlib can be imported (neither is imported here)."""
    return all(importlib.util.find_spec(m) is not None for m in ("jax", "jaxlib"))


def require() -> None:
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


_CACHE: dict[tuple[str, bool, bool, str], Answer] = {}


def forget() -> None:
    """Drop every remembered answer, so that the next question asks XLA."""
    _CACHE.clear()


def ask(texts, validate: bool = True, measure: bool = True,
        timeout: float = DEFAULT_TIMEOUT, python: str | None = None) -> list[Answer]:
    """XLA's answer for each text, in order (repeated texts asked once).

    ``validate=False`` asks the parser and printer only; ``measure=False``
    skips allocating arrays for ArraySize (the slow part: some 15 ms an
    array, where validating takes well under 1 ms).  ``python``: the
    interpreter whose jaxlib answers (another venv's), by default this one.
    """
    if python is None:
        require()
    texts = list(texts)
    for t in texts:
        if not isinstance(t, str):
            raise TilespecError(f"shape text must be a string, not {type(t).__name__}")
    key = (validate, measure and validate, python or "")
    new = [t for t in dict.fromkeys(texts) if (t,) + key not in _CACHE]
    if new:
        for t, a in zip(new, _ask(new, validate, measure and validate, timeout,
                                  python or sys.executable)):
            _CACHE[(t,) + key] = a
    return [_CACHE[(t,) + key] for t in texts]


def parse(texts, timeout: float = DEFAULT_TIMEOUT) -> list[Answer]:
    """XLA's parser and printer only."""
    return ask(texts, validate=False, timeout=timeout)


def validate(texts, timeout: float = DEFAULT_TIMEOUT) -> list[Answer]:
    """Parser, printer and layout validator; see :attr:`Answer.accepted`."""
    return ask(texts, validate=True, measure=False, timeout=timeout)


def array_size(texts, timeout: float = DEFAULT_TIMEOUT) -> list[int | None]:
    """``ShapeUtil::ArraySize`` in bytes, as the CPU client allocates it."""
    return [a.array_size for a in ask(texts, timeout=timeout)]


# --- the subprocess -------------------------------------------------------------

def _ask(texts: list[str], validate: bool, measure: bool, timeout: float,
         python: str = sys.executable) -> list[Answer]:
    pending = dict(enumerate(texts))
    pieces: dict[int, dict] = {i: {} for i in pending}
    singly: set[int] = set()
    while pending:
        done, marker, last_words = _run_worker(pending, pieces, singly,
                                               validate, measure, timeout, python)
        if done:
            break
        # The process died (or hung) while asking the marked question.
        if marker is None and "Unknown flags in XLA_FLAGS" in last_words and \
                _drop_unknown_flags(python, last_words):
            continue  # an older XLA: ask again without the flags it lacks
        if marker is None:
            raise XlaWorkerError(f"the XLA subprocess failed to start: {last_words}")
        items = [marker["i"]] if marker["at"] == "parse" else marker["items"]
        if len(items) == 1 or marker["at"] == "parse":
            pieces[items[0]]["aborted"] = last_words
            pending.pop(items[0], None)
        else:
            singly.update(items)  # ask each again on its own to find the culprit
    return [Answer(text=t, **pieces[i]) for i, t in enumerate(texts)]


#: Compile fast: the answers (validity, layouts, sizes) do not depend on
#: how well the machine code is optimised.
_FAST = ("--xla_backend_optimization_level=0 --xla_llvm_disable_expensive_passes=true "
         "--xla_cpu_use_fusion_emitters=false")


#: The speed flags each interpreter's XLA knows (older XLAs lack some).
_FLAGS: dict[str, list[str]] = {}


def _drop_unknown_flags(python: str, last_words: str) -> bool:
    """Forget the flags XLA named as unknown; False if none was ours."""
    flags = _FLAGS.setdefault(python, _FAST.split())
    unknown = [f for f in flags if f.split("=")[0] in last_words]
    for f in unknown:
        flags.remove(f)
    return bool(unknown)


def _run_worker(pending, pieces, singly, validate, measure, timeout, python):
    fast = " ".join(_FLAGS.get(python, _FAST.split()))
    env = dict(os.environ, JAX_PLATFORMS="cpu", TF_CPP_MIN_LOG_LEVEL="1",
               XLA_FLAGS=(os.environ.get("XLA_FLAGS", "") + " " + fast).strip())
    request = {"texts": [[i, t] for i, t in pending.items()], "validate": validate,
               "measure": measure, "singly": sorted(singly & set(pending))}
    with tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen([python, str(_WORKER)], env=env,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=err, text=True)
        timer = threading.Timer(timeout, proc.kill)
        timer.start()
        marker, done = None, False
        # both pipes were asked for above
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(json.dumps(request) + "\n")
            proc.stdin.close()
            for line in proc.stdout:
                try:
                    msg = json.loads(line)
                except ValueError:
                    continue  # something XLA printed, not ours
                if not isinstance(msg, dict):
                    continue
                if "at" in msg:
                    marker = msg
                elif msg.get("done"):
                    done = True
                elif "i" in msg:
                    i = msg.pop("i")
                    final = msg.pop("final", False)
                    pieces[i].update(msg)
                    if final:
                        pending.pop(i, None)
        finally:
            proc.stdout.close()
            proc.wait()
            timed_out = not timer.is_alive() and not done
            timer.cancel()
        err.seek(0)
        last_words = (f"no answer within {timeout:g} s" if timed_out and proc.returncode
                      else _last_words(err.read(), proc.returncode))
    return done, marker, last_words
