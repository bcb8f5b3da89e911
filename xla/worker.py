"""The one subprocess that asks real XLA: it reads one request a line
(:mod:`.protocol`) on stdin and writes one response a line on stdout, in
order.  Each request type has one handler in :data:`HANDLERS`; XLA is
reached through :mod:`.jax_adapter` only.

An XLA abort ends this process; the client (:mod:`.client`) answers the
request in flight :class:`~.protocol.Aborted` and starts another worker for
the rest.  Parsing is cheaper to protect: while no backend is started, texts
are parsed in forked children, so an abort there costs a fork, not a new
Python with jax.

This module imports nothing outside ``xla/`` (the worker may run in another
environment's Python, where tilespec is not installed).

>>> sorted(cls.__name__ for cls in HANDLERS)[:3]
['ArraySizeRequest', 'BufferOrderRequest', 'BytesInPlaceRequest']
"""

from __future__ import annotations

import json
import math
import os
import sys
import tempfile
from typing import Any, Callable

import numpy as np

from . import jax_adapter as jx
from .programs import programs
from .protocol import (
    Aborted,
    ArrayFacts,
    ArraySizeRequest,
    ArraySizeResponse,
    BufferOrderRequest,
    BufferOrderResponse,
    BytesInPlaceRequest,
    BytesInPlaceResponse,
    CompileRequest,
    CompileResponse,
    Crashed,
    DumpRequest,
    DumpResponse,
    LayoutVerdict,
    Parsed,
    ParseRejected,
    ParseRequest,
    ParseResponse,
    Rejected,
    SizeAnswer,
    TpuCompileRequest,
    TpuCompileResponse,
    TpuLayoutRequest,
    ValidateRequest,
    ValidateResponse,
    decode,
    encode,
    last_words,
)
from .readings import reading_of
from .tpu_programs import tpu_programs

#: Largest total bytes one compilation may allocate to measure ArraySize.
BATCH_BYTES = 64 << 20
#: Largest bytes one array may take and still be allocated.
ARRAY_BYTES = 16 << 20
#: Most arrays measured by one compilation (its time grows with the count).
BATCH_ITEMS = 256


def xla_message(error: Exception) -> str:
    """XLA's status message in one line, without the status code prefix.

    >>> xla_message(ValueError("INVALID_ARGUMENT: layout is bad\\nmore"))
    'layout is bad'
    """
    text = str(error)
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for ln in lines:
        if "error:" in ln and ln.split("error:", 1)[1].strip():
            return ln.split("error:", 1)[1].strip()
    if len(lines) > 1 and lines[0].endswith("Syntax error:"):
        return lines[1]
    first = lines[0] if lines else type(error).__name__
    for code in ("INVALID_ARGUMENT: ", "INTERNAL: ", "UNIMPLEMENTED: ",
                 "FAILED_PRECONDITION: ", "UNKNOWN: "):
        if first.startswith(code):
            first = first[len(code):]
    if first.startswith("during context [hlo verifier]: "):
        first = first[len("during context [hlo verifier]: "):]
    return first


# --- parsing ----------------------------------------------------------------------------

def parse_answer(text: str) -> Parsed | ParseRejected:
    """XLA's parse and print of one text."""
    try:
        printed, kind, facts = jx.parse_shape(text)
    except Exception as e:
        return ParseRejected(xla_message(e))
    array = None
    if kind == "array":
        error = facts.pop("dtype_error", None)
        array = ArrayFacts(
            static=facts["static"], dims=tuple(facts.get("dims", ())),
            minor_to_major=tuple(facts.get("minor_to_major", ())),
            tiling=tuple(tuple(t) for t in facts.get("tiling", ())),
            dtype=facts.get("dtype"), itemsize=facts.get("itemsize", 0),
            dtype_error=None if error is None else xla_message(error),
            unbounded=facts.get("unbounded", False))
    return Parsed(printed, kind, array)


def answer_parse(request: ParseRequest) -> ParseResponse:
    if jx.backends_started():  # forking now could deadlock in XLA's threads
        return ParseResponse(tuple(parse_answer(t) for t in request.texts))
    return ParseResponse(tuple(_parse_in_forks(request.texts)))


def _parse_in_forks(texts) -> list:
    """Parse every text in forked children, one child until one dies; the
    text a child died on is answered with its last words."""
    answers: list = []
    jx.load_parser()
    while len(answers) < len(texts):
        sys.stdout.flush()
        with tempfile.TemporaryFile("w+") as err:
            read, write = os.pipe()
            pid = os.fork()
            if pid == 0:  # the child: parse from where the last one stopped
                try:
                    os.close(read)
                    os.dup2(err.fileno(), 2)
                    out = os.fdopen(write, "w")
                    for k in range(len(answers), len(texts)):
                        out.write(json.dumps({"at": k}) + "\n")
                        out.flush()
                        out.write(encode(parse_answer(texts[k])) + "\n")
                        out.flush()
                    out.close()
                finally:  # the child never goes on as the worker
                    os._exit(0)
            os.close(write)
            at = None
            with os.fdopen(read) as stream:
                for line in stream:
                    if line.startswith('{"at"'):
                        at = json.loads(line)["at"]
                    else:
                        answers.append(decode(line))
                        at = None
            _, status = os.waitpid(pid, 0)
            if at is not None:  # the child died parsing this one
                err.seek(0)
                answers.append(Aborted(last_words(err.read(), status)))
            elif len(answers) < len(texts):
                raise RuntimeError(f"the parsing child failed with status {status}")
    return answers


# --- validating and measuring -----------------------------------------------------------

def _unique_groups(arrays, size=256):
    """Groups (of indices) in which no two arrays print alike without their
    layout, so the shape XLA's verifier names in its message points at one."""
    groups: list[list[int]] = []
    for k, a in enumerate(arrays):
        for g in groups:
            if len(g) < size and all(arrays[o].signature != a.signature for o in g):
                g.append(k)
                break
        else:
            groups.append([k])
    return groups


_DYNAMIC = ("validated with each '<=N' dim at its bound N (jax cannot allocate a "
            "dynamic shape); ArraySize not measured")


def answer_validate(request: ValidateRequest) -> ValidateResponse:
    arrays = request.arrays
    verdicts: dict[int, LayoutVerdict] = {}
    groups = _unique_groups(arrays)
    while groups:
        group = groups.pop()
        try:
            kept = jx.layouts_kept([arrays[k] for k in group])
        except jx.JaxRefusal as e:
            if len(group) == 1:
                verdicts[group[0]] = LayoutVerdict(
                    None, note=f"not validated: jax cannot lower it ({xla_message(e)})")
            else:
                groups += [group[:len(group) // 2], group[len(group) // 2:]]
            continue
        except Exception as e:  # XLA's status: the verifier's reason
            reason = xla_message(e)
            culprit = [k for k in group if reason.endswith(": " + arrays[k].signature)]
            if len(group) == 1 or len(culprit) == 1:
                bad = group[0] if len(group) == 1 else culprit[0]
                verdicts[bad] = LayoutVerdict(False, reason=reason)
                rest = [k for k in group if k != bad]
                if rest:
                    groups.append(rest)
            else:
                groups += [group[:len(group) // 2], group[len(group) // 2:]]
            continue
        for k, layout in zip(group, kept):
            verdicts[k] = LayoutVerdict(True, device_layout=layout,
                                        note=None if arrays[k].static else _DYNAMIC)
    return ValidateResponse(tuple(verdicts[k] for k in range(len(arrays))))


def answer_array_size(request: ArraySizeRequest) -> ArraySizeResponse:
    """Measure in batches under the memory cap; a failing batch is split."""
    arrays = request.arrays
    sizes: dict[int, SizeAnswer] = {}
    batches: list[list[int]] = []
    batch: list[int] = []
    total = 0
    for k, a in enumerate(arrays):
        if a.estimate_bytes > ARRAY_BYTES:
            sizes[k] = SizeAnswer(None, "ArraySize not measured: the array is too large "
                                  "to allocate here")
            continue
        if batch and (total + a.estimate_bytes > BATCH_BYTES or len(batch) >= BATCH_ITEMS):
            batches.append(batch)
            batch, total = [], 0
        batch.append(k)
        total += a.estimate_bytes
    if batch:
        batches.append(batch)
    while batches:
        batch = batches.pop()
        try:
            got = jx.array_sizes([arrays[k] for k in batch])
        except Exception as e:
            if len(batch) == 1:
                sizes[batch[0]] = SizeAnswer(None, "ArraySize not measured: XLA cannot "
                                             f"produce an array in this layout "
                                             f"({xla_message(e)})")
            else:
                batches += [batch[:len(batch) // 2], batch[len(batch) // 2:]]
            continue
        for k, size in zip(batch, got):
            sizes[k] = SizeAnswer(size)
    return ArraySizeResponse(tuple(sizes[k] for k in range(len(arrays))))


# --- compiling --------------------------------------------------------------------------

def answer_compile(request: CompileRequest) -> CompileResponse | Rejected:
    try:
        return CompileResponse(jx.compile_reshapes(request.cases, request.backend))
    except jx.UnknownBackend:
        raise
    except Exception as e:  # XLA's status: these layouts are rejected
        return Rejected(str(e).splitlines()[0][:300] if str(e) else type(e).__name__)


def answer_buffer_order(request: BufferOrderRequest) -> BufferOrderResponse:
    """Row-major storage puts element (0,...,0,1) of the most minor dim right
    after element 0 even where a tile would put it elsewhere."""
    array = request.array
    if not array.tiling:
        return BufferOrderResponse("row-major")
    n = math.prod(array.dims)
    labels = np.arange(n, dtype=np.int32).reshape(array.dims)
    raw = np.frombuffer(jx.device_bytes(labels, array, request.backend), dtype=np.int32)
    physical = np.transpose(labels, list(array.major_to_minor)).reshape(-1)
    return BufferOrderResponse("row-major" if np.array_equal(raw, physical) else "tiled")


_PROGRAMS: dict[str, Any] = {}


def answer_dump(request: DumpRequest) -> DumpResponse:
    if not _PROGRAMS:
        _PROGRAMS.update(programs())
    fn, args, keywords = _PROGRAMS[request.program]
    return DumpResponse(jx.compile_program(fn, args, keywords, request.backend))


_TPU_PROGRAMS: dict = {}


def answer_tpu_compile(request: TpuCompileRequest) -> TpuCompileResponse:
    if not _TPU_PROGRAMS:
        _TPU_PROGRAMS.update(tpu_programs())
    fn, specs, result, devices = _TPU_PROGRAMS[request.program]
    hlo, figures = jx.compile_for_tpu(fn, specs, result, devices, request.topology)
    return TpuCompileResponse(hlo, tuple(sorted(figures.items())))


def answer_tpu_layout(request: TpuLayoutRequest) -> TpuCompileResponse:
    spec = (tuple(request.dims), request.dtype, None)
    hlo, figures = jx.compile_for_tpu(lambda a: a + 1, (spec,), None, 1, request.topology)
    return TpuCompileResponse(hlo, tuple(sorted(figures.items())))


def answer_bytes_in_place(request: BytesInPlaceRequest) -> BytesInPlaceResponse:
    src, dst = request.src, request.dst
    dtype = np.dtype(src.dtype)
    width = dtype.itemsize
    labels = np.arange(math.prod(src.dims), dtype=np.uint64)
    # Labels of ``width`` bytes repeat past 2**(8*width) elements: one pass
    # per digit, so that equal buffers in every pass mean every element kept
    # its place.
    digits = []
    while True:
        digits.append((labels % (1 << (8 * width))).astype(dtype).reshape(src.dims))
        labels = labels >> np.uint64(8 * width)
        if not labels.any():
            break
    agrees = []
    for reading in request.readings:
        agrees.append((reading, all(
            jx.device_bytes(a, src) == jx.device_bytes(np.ascontiguousarray(reading_of(
                a, reading, dst.dims, src.major_to_minor, dst.major_to_minor)), dst)
            for a in digits)))
    return BytesInPlaceResponse(tuple(agrees))


#: Each request type and the function that answers it.
HANDLERS: dict[type, Callable[[Any], Any]] = {
    ParseRequest: answer_parse,
    ValidateRequest: answer_validate,
    ArraySizeRequest: answer_array_size,
    CompileRequest: answer_compile,
    BufferOrderRequest: answer_buffer_order,
    DumpRequest: answer_dump,
    BytesInPlaceRequest: answer_bytes_in_place,
    TpuCompileRequest: answer_tpu_compile,
    TpuLayoutRequest: answer_tpu_layout,
}


def answer(request: Any) -> Any:
    """The response to one request; a handler that raises is :class:`Crashed`."""
    try:
        return HANDLERS[type(request)](request)
    except Exception as e:
        return Crashed(f"{type(e).__name__}: {e}"[:500])


def main() -> None:  # pragma: no cover - runs in the subprocess
    # readline, not iteration: each request is answered as it arrives
    for line in iter(sys.stdin.readline, ""):
        if line.strip():
            response = answer(decode(line))
            sys.stdout.write(encode(response) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":  # pragma: no cover
    main()
