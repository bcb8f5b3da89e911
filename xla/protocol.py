"""The questions tilespec asks real XLA and XLA's answers, as values, and
their one serialisation: one JSON object a line.

A request goes to the worker (:mod:`.worker`), which answers each with one
response, in order.  Besides each request's own answer, three responses may
answer any request: :class:`Aborted` (XLA ended the process, e.g. a CHECK
failure: an answer about XLA), :class:`Hung` (no answer in time) and
:class:`Crashed` (the worker raised: a bug on this side of the protocol).

This module runs on both sides, so it imports nothing outside the standard
library (the worker may run in another environment's Python).

>>> line = encode(ParseRequest(("f32[3]{0}",)))
>>> line
'{"type": "ParseRequest", "texts": ["f32[3]{0}"]}'
>>> decode(line)
ParseRequest(texts=('f32[3]{0}',))
>>> decode(encode(Aborted("Check failed: value >= 1")))
Aborted(last_words='Check failed: value >= 1')
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Any, Union


class ProtocolError(ValueError):
    """A line that is not one of the protocol's values."""


# --- what both sides say about arrays -------------------------------------------------

@dataclass(frozen=True)
class ArrayFacts:
    """What XLA's parser read of an array shape: enough to allocate it.

    ``dtype`` is numpy's (or ml_dtypes') name, ``None`` when jax has no array
    type for the element type (``dtype_error`` says why); ``unbounded`` when a
    dim is ``?``."""

    static: bool
    dims: tuple[int, ...] = ()
    minor_to_major: tuple[int, ...] = ()
    tiling: tuple[tuple[int, ...], ...] = ()
    dtype: str | None = None
    itemsize: int = 0
    dtype_error: str | None = None
    unbounded: bool = False


@dataclass(frozen=True)
class ArrayQuestion:
    """An array handed to XLA with an exact layout text.

    ``signature`` is how XLA's messages name the shape (``f32[3,5]``), so a
    failing compilation of many arrays can be blamed on one;
    ``estimate_bytes`` bounds what allocating it costs."""

    signature: str
    dims: tuple[int, ...]
    dtype: str
    layout: str
    major_to_minor: tuple[int, ...]
    static: bool = True
    estimate_bytes: int = 0


@dataclass(frozen=True)
class ArrayLayout:
    """An array as jax's public ``Layout`` describes it: major-to-minor dims
    and tiles (no other layout fields)."""

    dims: tuple[int, ...]
    dtype: str
    major_to_minor: tuple[int, ...]
    tiling: tuple[tuple[int, ...], ...] = ()


@dataclass(frozen=True)
class ReshapeCase:
    """SRC -> DST as a reshape, or as the transpose ``transpose``."""

    src: ArrayLayout
    dst: ArrayLayout
    transpose: tuple[int, ...] | None = None


# --- requests -------------------------------------------------------------------------

@dataclass(frozen=True)
class ParseRequest:
    """Parse each text with XLA's parser and print it with XLA's printer."""

    texts: tuple[str, ...]


@dataclass(frozen=True)
class ValidateRequest:
    """Validate each array's layout with XLA's HLO verifier (many arrays share
    one compilation; the worker splits a failing group)."""

    arrays: tuple[ArrayQuestion, ...]


@dataclass(frozen=True)
class ArraySizeRequest:
    """``ShapeUtil::ArraySize`` of each array: allocated on the device in its
    layout."""

    arrays: tuple[ArrayQuestion, ...]


@dataclass(frozen=True)
class CompileRequest:
    """Compile the cases as one jitted function (one argument and result per
    case, arguments donated) for ``backend``; answer its optimised HLO."""

    cases: tuple[ReshapeCase, ...]
    backend: str = "cpu"


@dataclass(frozen=True)
class BufferOrderRequest:
    """Does the device keep this tiled array's elements in tile order or in
    row-major order?  (Read from its raw buffer.)"""

    array: ArrayLayout
    backend: str = "cpu"


@dataclass(frozen=True)
class DumpRequest:
    """Compile the named program of :mod:`.programs`; answer its optimised HLO."""

    program: str
    backend: str = "cpu"


@dataclass(frozen=True)
class TpuCompileRequest:
    """Compile the named program of :mod:`.tpu_programs` with the TPU
    compiler for ``topology`` (``"v5e:2x2"``); answer its optimised HLO and
    memory figures."""

    program: str
    topology: str


@dataclass(frozen=True)
class TpuLayoutRequest:
    """Compile ``a + 1`` for one parameter of ``dims`` and ``dtype`` (a
    numpy name) with the TPU compiler for ``topology``; answer the module."""

    dims: tuple[int, ...]
    dtype: str
    topology: str


@dataclass(frozen=True)
class BytesInPlaceRequest:
    """Does each reading of SRC as DST keep every byte in place in the
    device's memory?  (Untiled layouts; labels of the element's width.)"""

    src: ArrayLayout
    dst: ArrayLayout
    readings: tuple[str, ...]


# --- answers --------------------------------------------------------------------------

@dataclass(frozen=True)
class Parsed:
    """XLA parsed the text; ``printed`` is XLA's printing of it."""

    printed: str
    kind: str                      # array, tuple, token, buffer or other
    array: ArrayFacts | None = None


@dataclass(frozen=True)
class ParseRejected:
    """XLA's parser rejected the text, with its message."""

    message: str


@dataclass(frozen=True)
class Aborted:
    """XLA ended the process on this request: its last words."""

    last_words: str


@dataclass(frozen=True)
class Hung:
    """No answer within ``seconds``: the process was ended."""

    seconds: float


@dataclass(frozen=True)
class Crashed:
    """The worker raised on this request (not an answer about XLA)."""

    error: str


ParseAnswer = Union[Parsed, ParseRejected, Aborted]


@dataclass(frozen=True)
class ParseResponse:
    """One answer per text, in order (an abort in parsing costs only its text)."""

    answers: tuple[ParseAnswer, ...]


@dataclass(frozen=True)
class LayoutVerdict:
    """XLA's verdict on one layout: ``valid`` is ``None`` when it was not
    asked (``note`` says why); ``device_layout`` is the layout the compiler kept."""

    valid: bool | None
    reason: str | None = None
    device_layout: str | None = None
    note: str | None = None


@dataclass(frozen=True)
class ValidateResponse:
    """One verdict per array, in order."""

    answers: tuple[LayoutVerdict, ...]


@dataclass(frozen=True)
class SizeAnswer:
    """ArraySize in bytes, or ``None`` and why not."""

    array_size: int | None
    note: str | None = None


@dataclass(frozen=True)
class ArraySizeResponse:
    """One size per array, in order."""

    answers: tuple[SizeAnswer, ...]


@dataclass(frozen=True)
class CompileResponse:
    """The optimised HLO text of the compiled function."""

    hlo: str


@dataclass(frozen=True)
class Rejected:
    """XLA (or jax, building the question) refused it, with the message."""

    message: str


@dataclass(frozen=True)
class BufferOrderResponse:
    memory: str                    # 'row-major' or 'tiled'


@dataclass(frozen=True)
class DumpResponse:
    hlo: str


@dataclass(frozen=True)
class TpuCompileResponse:
    """The TPU compiler's module and its ``memory_analysis()`` figures
    (``argument_size_in_bytes``, ... : name -> bytes)."""

    hlo: str
    figures: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class BytesInPlaceResponse:
    agrees: tuple[tuple[str, bool], ...]


Request = Union[ParseRequest, ValidateRequest, ArraySizeRequest, CompileRequest,
                BufferOrderRequest, DumpRequest, BytesInPlaceRequest, TpuCompileRequest,
                TpuLayoutRequest]
Response = Union[ParseResponse, ValidateResponse, ArraySizeResponse, CompileResponse,
                 Rejected, BufferOrderResponse, DumpResponse, BytesInPlaceResponse,
                 TpuCompileResponse, Aborted, Hung, Crashed]
#: What cannot be an answer to a request's question: the process ended or raised.
FAILURES = (Aborted, Hung, Crashed)

#: Every value the protocol carries, by the name it travels under.
TYPES: dict[str, type] = {cls.__name__: cls for cls in (
    ArrayFacts, ArrayQuestion, ArrayLayout, ReshapeCase,
    ParseRequest, ValidateRequest, ArraySizeRequest, CompileRequest, BufferOrderRequest,
    DumpRequest, BytesInPlaceRequest, TpuCompileRequest, TpuCompileResponse, TpuLayoutRequest,
    Parsed, ParseRejected, Aborted, Hung, Crashed, ParseResponse, LayoutVerdict,
    ValidateResponse, SizeAnswer, ArraySizeResponse, CompileResponse, Rejected,
    BufferOrderResponse, DumpResponse, BytesInPlaceResponse)}


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {"type": type(value).__name__,
                **{f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}}
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    return value


def _value(data: Any) -> Any:
    # Every sequence in the protocol is a tuple and every object a value.
    if isinstance(data, list):
        return tuple(_value(v) for v in data)
    if isinstance(data, dict):
        cls = TYPES.get(data.get("type", ""))
        if cls is None:
            raise ProtocolError(f"not a protocol value: {str(data)[:200]}")
        fields = {k: _value(v) for k, v in data.items() if k != "type"}
        try:
            return cls(**fields)
        except TypeError as e:
            raise ProtocolError(f"{cls.__name__}: {e}") from None
    return data


def encode(value: Any) -> str:
    """One line of JSON for a protocol value."""
    return json.dumps(_plain(value))


def decode(line: str) -> Any:
    """The protocol value one line holds; :class:`ProtocolError` if none."""
    try:
        data = json.loads(line)
    except ValueError:
        raise ProtocolError(f"not JSON: {line[:200]!r}") from None
    if not isinstance(data, dict):
        raise ProtocolError(f"not a protocol value: {line[:200]!r}")
    return _value(data)


def last_words(stderr: str, code: int | None) -> str:
    """XLA's fatal message from a dead process's stderr: glog's FATAL line or
    a Check failure.

    >>> last_words("I0 ok\\nF0101 12:00:00.0 1 layout.cc:9] Check failed: x >= 1\\n", -6)
    'Check failed: x >= 1'
    >>> last_words("", -9)
    'the process ended with status -9: no message'
    """
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    for ln in lines:
        if ln[:1] == "F" and ln[1:5].isdigit():
            return ln.split("] ", 1)[-1][:300]
    for ln in lines:
        if "Check failed" in ln:
            return ln.split("] ", 1)[-1][:300]
    tail = lines[-1][:300] if lines else "no message"
    return f"the process ended with status {code}: {tail}"
