"""The real-XLA oracle's answers, ``tilespec xla`` and ``explain --json``."""

from __future__ import annotations

import json

import pytest

from tilespec.cli import main
from tilespec.xla import client, real

# Asks real XLA (jaxlib) in a subprocess.
pytestmark = pytest.mark.integration

needs_xla = pytest.mark.skipif(
    not real.available(), reason="real XLA is not installed (pip install -e '.[xla]')")

# One question per kind of answer; asked once (real.ask caches) for the module.
CASES = {
    "f32[3]{0:L(4)}": "accepted",
    "f32[]{}": "parse error",
    "f32[3,5]{0,0}": "invalid",
    "f32[3]{0:L(0)}": "aborts",
    "f32[3]{0:#(u16)}": "invalid",
    "b(f32[3])": "buffer",
}


@pytest.fixture(scope="module")
def answers():
    return dict(zip(CASES, real.ask(list(CASES))))


@needs_xla
def test_each_kind_of_answer(answers):
    a = answers["f32[3]{0:L(4)}"]
    assert (a.accepted, a.printed, a.array_size, a.device_layout) == (
        True, "f32[3]{0:L(4)}", 12, "{0:L(4)}")
    a = answers["f32[]{}"]
    assert not a.parsed and a.parse_error == "Extra content after shape"
    a = answers["f32[3,5]{0,0}"]
    assert a.parsed and a.valid is False and "duplicate values" in a.reason
    a = answers["f32[3]{0:L(0)}"]
    assert a.aborted and "value >= 1" in a.aborted
    assert a.verdict.startswith("XLA aborts on this input")
    assert "not a sparse array" in answers["f32[3]{0:#(u16)}"].reason
    assert answers["b(f32[3])"].printed == "b(f32[3]{0})"


@needs_xla
def test_xla_command_names_each_difference(answers, capsys):
    code = main(["xla", "--json", *CASES])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0 and {r["status"] for r in doc["results"]} == {"ok"}
    shapes = [r["data"] for r in doc["results"]]
    assert set(shapes[0]["xla_versions"]) == {"jax", "jaxlib"}
    first = shapes[0]
    assert (first["spec_bytes"], first["model_bytes"], first["xla"]["array_size"]) == (16, 12, 12)
    assert [d["name"] for d in first["differences"]] == ["untiled-L"]
    assert list(first["divergences"]) == ["untiled-L"]
    assert shapes[-1]["differences"] == []  # tilespec reads buffer shapes as XLA does
    code = main(["xla", "f32[3]{0:L(0)}"])
    out = capsys.readouterr().out
    assert code == 0 and "XLA              aborts on this input" in out


def test_xla_command_without_the_extra(monkeypatch, capsys):
    monkeypatch.setattr(client, "available", lambda: False)   # what real.require asks
    assert main(["xla", "f32[3]"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["tilespec: error: " + real.INSTALL_HINT]


def test_explain_json_has_xlas_array_size_as_modelled(capsys):
    assert main(["explain", "--json", "f32[3]{0:L(4)}"]) == 0
    info = json.loads(capsys.readouterr().out)["results"][0]["data"]
    assert (info["byte_size"], info["xla_array_size"]) == (16, 12)
    assert main(["explain", "--json", "f32[8,256]{1,0:T(8,128)SC(1:128)}"]) == 0
    info = json.loads(capsys.readouterr().out)["results"][0]["data"]
    assert (info["byte_size"], info["xla_array_size"]) == (8192, 4096)   # the largest split


@needs_xla
def test_split_configs_are_a_documented_divergence(capsys):
    """XLA sizes an array by its largest split (measured 4096 bytes here); the
    spec sizes the whole array: named, not reported as a bug."""
    assert main(["xla", "--json", "f32[8,256]{1,0:T(8,128)SC(1:128)}"]) == 0
    data = json.loads(capsys.readouterr().out)["results"][0]["data"]
    assert (data["spec_bytes"], data["model_bytes"], data["xla"]["array_size"]) == (8192, 4096, 4096)
    assert [d["name"] for d in data["differences"]] == ["split-configs"]


def test_an_abort_in_a_batch_is_pinned_on_one_input():
    """When XLA dies compiling many inputs at once, each is asked again on its
    own, and only the one it dies on is answered 'XLA aborts on this input'."""
    from tilespec.xla.protocol import (
        Aborted,
        ArrayQuestion,
        LayoutVerdict,
        ValidateRequest,
        ValidateResponse,
    )
    first, second = (ArrayQuestion(f"f32[{i}]", (i,), "float32", "{0}", (0,)) for i in (0, 1))
    asked = []

    class Worker:
        def ask(self, request):
            asked.append(request.arrays)
            if first in request.arrays:   # XLA dies on every batch holding it
                return Aborted("Check failed: boom")
            return ValidateResponse((LayoutVerdict(True),))

    answers = real.answer_each(Worker(), ValidateRequest, [first, second])
    assert asked == [(first, second), (first,), (second,)]
    assert answers == [Aborted("Check failed: boom"), LayoutVerdict(True)]


def test_xla_timeout_is_checked_like_every_command(capsys):
    """--timeout 1e300 started a threading.Timer that overflowed time_t in its
    thread (found by the fuzzer): it is bad input, as for every command."""
    assert main(["xla", "f32[3]{0}", "--timeout", "1e300"]) == 2
    assert "at most" in capsys.readouterr().err


@needs_xla
def test_an_array_size_past_int64_is_the_documented_wrap_not_a_bug(capsys):
    """The CPU client reports ArraySize through an unsigned size_t: -4 arrives
    as 2^64-4.  The model's int64 value equals XLA's; the spec's true size
    differs by the documented divergence."""
    texts = ["f32[2]{0:T(2)L(9223372036854775807)}", "f32[2]{0:T(2)L(4611686018427387904)}"]
    assert main(["xla", "--json", *texts]) == 0
    for r, model in zip(json.loads(capsys.readouterr().out)["results"], (-4, 0)):
        data = r["data"]
        assert data["model_bytes"] == model
        assert [d["name"] for d in data["differences"]] == ["array-size-wraps"]
