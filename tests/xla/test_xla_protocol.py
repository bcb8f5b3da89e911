"""The one protocol between tilespec and the real-XLA worker: every request
and response type survives its serialisation, the worker answers each
request type through its table, and an XLA abort is an answer (the batch
goes on)."""

from __future__ import annotations

import pytest

from tilespec.xla import client, protocol, worker
from tilespec.xla.protocol import (
    Aborted,
    ArrayFacts,
    ArrayLayout,
    ArrayQuestion,
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
    Hung,
    LayoutVerdict,
    Parsed,
    ParseRejected,
    ParseRequest,
    ParseResponse,
    Rejected,
    ReshapeCase,
    SizeAnswer,
    TpuCompileRequest,
    TpuCompileResponse,
    TpuLayoutRequest,
    ValidateRequest,
    ValidateResponse,
    decode,
    encode,
)

TILED = ArrayLayout((16, 256), "float32", (0, 1), ((8, 128),))
FLAT = ArrayLayout((4096,), "float32", (0,))
QUESTION = ArrayQuestion("f32[3,5]", (3, 5), "float32", "{0,1:T(2,2)L(4)}", (1, 0),
                         static=False, estimate_bytes=64)
FACTS = ArrayFacts(True, (3, 5), (0, 1), ((2, 2),), "bfloat16", 2, None, False)

#: One value of every type the protocol carries, nested values included.
EXAMPLES = [
    ParseRequest(("f32[3]{0}", "f32[]{}")),
    ValidateRequest((QUESTION,)),
    ArraySizeRequest((QUESTION, QUESTION)),
    CompileRequest((ReshapeCase(TILED, FLAT), ReshapeCase(TILED, TILED, (1, 0))), "cpu"),
    BufferOrderRequest(TILED),
    DumpRequest("mlp"),
    BytesInPlaceRequest(FLAT, TILED, ("reshape", "transpose 1,0")),
    TpuCompileRequest("reshape_1000", "v5e:2x2"),
    TpuLayoutRequest((129, 257), "bfloat16", "v5e:2x2"),
    TpuCompileResponse("HloModule m", (("argument_size_in_bytes", 8192),)),
    ParseResponse((Parsed("f32[3,5]{0,1:T(2,2)}", "array", FACTS), Parsed("(f32[])", "tuple"),
                   ParseRejected("Extra content after shape"), Aborted("Check failed: x"))),
    ValidateResponse((LayoutVerdict(True, device_layout="{0}"), LayoutVerdict(False, "dup"),
                      LayoutVerdict(None, note="not validated"))),
    ArraySizeResponse((SizeAnswer(12), SizeAnswer(None, "too large"))),
    CompileResponse("HloModule m\n"),
    Rejected("INVALID_ARGUMENT: no"),
    BufferOrderResponse("row-major"),
    DumpResponse("HloModule m\n"),
    BytesInPlaceResponse((("reshape", True), ("trt", False))),
    ArrayFacts(False, unbounded=True),
    Aborted("Check failed: value >= 1"),
    Hung(2.5),
    Crashed("KeyError: 'x'"),
]


def test_every_protocol_type_has_an_example():
    assert {type(v) for v in EXAMPLES} | {ArrayLayout, ArrayQuestion, ReshapeCase,
                                          Parsed, ParseRejected, LayoutVerdict,
                                          SizeAnswer} == set(protocol.TYPES.values())


@pytest.mark.parametrize("value", EXAMPLES, ids=lambda v: type(v).__name__)
def test_every_request_and_response_round_trips(value):
    line = encode(value)
    assert "\n" not in line and decode(line) == value


@pytest.mark.parametrize("line", ['[1, 2]', 'Check failed', '{"type": "Nope"}',
                                  '{"type": "Hung", "minutes": 1}'])
def test_a_line_that_is_not_a_protocol_value_is_refused(line):
    with pytest.raises(protocol.ProtocolError):
        decode(line)


def test_every_request_type_has_one_handler():
    requests = {type(v) for v in EXAMPLES if type(v).__name__.endswith("Request")}
    assert set(worker.HANDLERS) == requests


def test_a_handler_that_raises_is_answered_crashed(monkeypatch):
    def boom(request):
        raise KeyError("x")
    monkeypatch.setitem(worker.HANDLERS, DumpRequest, boom)
    assert worker.answer(DumpRequest("mlp")) == Crashed("KeyError: 'x'")


@pytest.mark.integration   # starts real XLA (jaxlib) in a subprocess
@pytest.mark.skipif(not client.available(),
                    reason="real XLA is not installed (pip install -e '.[xla]')")
def test_an_xla_abort_is_an_answer_and_the_batch_goes_on():
    ok = ArrayQuestion("f32[3]", (3,), "float32", "{0}", (0,))
    # XLA dies compiling an element count past int64 (a CHECK in its StatusOr)
    overflow = ArrayQuestion("f32[4611686018427387904,4]", (4611686018427387904, 4),
                             "float32", "{1,0}", (0, 1))
    parsed, dead, alive = client.run([
        ParseRequest(("f32[3]{0:L(0)}", "f32[3]{0}")),   # a CHECK failure in the parser
        ValidateRequest((overflow,)), ValidateRequest((ok,))])
    assert isinstance(parsed.answers[0], Aborted)
    assert "value >= 1" in parsed.answers[0].last_words
    assert parsed.answers[1].printed == "f32[3]{0}"
    assert isinstance(dead, Aborted) and "overflow" in dead.last_words
    assert alive == ValidateResponse((LayoutVerdict(True, device_layout="{0}"),))
