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
import math
import sys
from dataclasses import dataclass

from ..spec import TilespecError
from .client import (
    DEFAULT_TIMEOUT,
    INSTALL_HINT,
    Worker,
    WorkerSetup,
    XlaUnavailable,
    XlaWorkerError,
    available,
    require,
    versions,
)
from .jax_adapter import LOWERED_AS_OTHER
from .protocol import (
    Aborted,
    ArrayQuestion,
    ArraySizeRequest,
    Crashed,
    Hung,
    Parsed,
    ParseRequest,
    ParseResponse,
    ValidateRequest,
)
from .worker import ARRAY_BYTES

__all__ = ["DEFAULT_TIMEOUT", "INSTALL_HINT", "Answer", "XlaUnavailable", "XlaWorkerError",
           "array_size", "ask", "available", "forget", "parse", "require", "validate",
           "versions"]

INT64_MAX = 2**63 - 1


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


# --- the conversation with the worker ------------------------------------------------

#: Compile fast: the answers (validity, layouts, sizes) do not depend on
#: how well the machine code is optimised.
SPEED_FLAGS = ("--xla_backend_optimization_level=0",
               "--xla_llvm_disable_expensive_passes=true",
               "--xla_cpu_use_fusion_emitters=false")


def _ask(texts: list[str], validate: bool, measure: bool, timeout: float,
         python: str = sys.executable) -> list[Answer]:
    """Parse every text, validate the arrays jax can hand to XLA, measure
    the valid static ones: one worker, one conversation."""
    pieces: list[dict] = [{} for _ in texts]
    # 64-bit types stay themselves (s64, f64, c128)
    setup = WorkerSetup(python=python, speed_flags=SPEED_FLAGS, x64=True, timeout=timeout)
    with Worker(setup) as worker:
        parsed = worker.ask(ParseRequest(tuple(texts)))
        if not isinstance(parsed, ParseResponse):
            raise XlaWorkerError(f"the XLA subprocess failed to start: {_failure(parsed)}")
        asked: list[tuple[int, ArrayQuestion]] = []
        for i, answer in enumerate(parsed.answers):
            if isinstance(answer, Aborted):
                pieces[i]["aborted"] = answer.last_words
            elif not isinstance(answer, Parsed):
                pieces[i].update(parsed=False, parse_error=answer.message)
            else:
                pieces[i].update(parsed=True, printed=answer.printed, kind=answer.kind)
                question = _question(answer, pieces[i]) if validate else None
                if question is not None:
                    asked.append((i, question))
        measured = []
        for (i, q), verdict in zip(asked, answer_each(worker, ValidateRequest,
                                                      [q for _, q in asked])):
            if isinstance(verdict, (Aborted, Hung)):
                pieces[i]["aborted"] = _failure(verdict)
                continue
            pieces[i].update({k: v for k, v in dataclasses.asdict(verdict).items()
                              if v is not None})
            if verdict.valid and q.static:
                measured.append((i, q))
        if measure:
            for (i, _q), size in zip(measured, answer_each(worker, ArraySizeRequest,
                                                          [q for _, q in measured])):
                if isinstance(size, (Aborted, Hung)):
                    pieces[i]["aborted"] = _failure(size)
                else:
                    pieces[i].update({k: v for k, v in dataclasses.asdict(size).items()
                                      if v is not None})
    return [Answer(text=t, **p) for t, p in zip(texts, pieces)]


def answer_each(worker: Worker, request, items: list) -> list:
    """One answer per item of a request over many (``ValidateRequest``,
    ``ArraySizeRequest``): when XLA ends the process on the whole request,
    each item is asked again on its own, so that only the one it dies on is
    answered :class:`~.protocol.Aborted`."""
    if not items:
        return []
    response = worker.ask(request(tuple(items)))
    if isinstance(response, Crashed):
        raise XlaWorkerError(f"the XLA worker failed: {response.error}")
    if isinstance(response, (Aborted, Hung)):
        if len(items) == 1:
            return [response]
        return [a for item in items for a in answer_each(worker, request, [item])]
    return list(response.answers)


def _failure(response) -> str:
    if isinstance(response, Aborted):
        return response.last_words
    if isinstance(response, Hung):
        return f"no answer within {response.seconds:g} s"
    return getattr(response, "error", str(response))


def _estimate_bytes(dims, tiles, itemsize) -> int:
    """An upper bound on the padded size: each tile may pad every element out
    to a whole tile.  A '*' entry counts as 32 (ArraySize pads it at most that
    far)."""
    n = max(math.prod(dims), 1)
    for tile in tiles:
        n *= math.prod(t if t > 0 else 32 for t in tile)
    return n * max(itemsize, 1)


def _question(answer: Parsed, pieces: dict) -> ArrayQuestion | None:
    """The array to hand XLA's validator, or ``None`` with a note saying why
    it is not asked."""
    facts, printed = answer.array, answer.printed
    if facts is None:
        pieces["note"] = f"not validated: a {answer.kind} shape"
        return None
    if facts.unbounded:
        pieces["note"] = "not validated: jax cannot allocate an unbounded dynamic dim '?'"
        return None
    if facts.dtype is None:
        pieces["note"] = f"not validated: jax has no array type for it ({facts.dtype_error})"
        return None
    element = printed[:printed.index("[")]
    if element in LOWERED_AS_OTHER:
        pieces["note"] = (f"not validated: jax hands XLA a {LOWERED_AS_OTHER[element]} "
                          f"array for {element}, so XLA's answer would be about another shape")
        return None
    dims, m2m = facts.dims, facts.minor_to_major
    if math.prod(max(d, 1) for d in dims) > INT64_MAX:
        # XLA aborts compiling these ("overflow in static extent product"),
        # taking every question in the batch with it.
        pieces["note"] = ("not validated: the element count overflows int64, which XLA "
                          "does not survive compiling")
        return None
    layout = printed[printed.index("]") + 1:] or "{" + ",".join(map(str, m2m)) + "}"
    estimate = _estimate_bytes(dims, facts.tiling, facts.itemsize)
    if math.prod(dims) * facts.itemsize > ARRAY_BYTES:
        estimate = ARRAY_BYTES + 1
    return ArrayQuestion(
        signature=element + "[" + ",".join(map(str, dims)) + "]", dims=dims,
        dtype=facts.dtype, layout=layout,
        major_to_minor=tuple(reversed(m2m)) if len(m2m) == len(dims)
        else tuple(range(len(dims))),
        static=facts.static, estimate_bytes=estimate)
