"""The XLA client's answers when the worker process ends, without jax: a
stand-in interpreter plays the worker, ending as XLA ends it (a glog FATAL
line, a Python traceback, a hang, XLA's message for flags it does not know)."""

from __future__ import annotations

import sys

import pytest

from tilespec.xla import client
from tilespec.xla.protocol import Aborted, Crashed, DumpRequest, DumpResponse, Hung, encode

#: The stand-in for the worker's interpreter: it ignores its arguments (the
#: worker's boot code), prints chatter, and answers DumpRequest(name) by name.
FAKE = """#!{python}
import os, sys, time
for line in sys.stdin:
    unknown = [f for f in os.environ["XLA_FLAGS"].split() if f.startswith("--xla_unknown")]
    if unknown:  # XLA's ParseFlagsFromEnvAndDieIfUnknown (LOG(QFATAL))
        s = "s" if len(unknown) > 1 else ""
        sys.stderr.write("F0101 00:00:00.000000 1 parse_flags_from_env.cc:234] "
                         f"Unknown flag{{s}} in XLA_FLAGS: {{' '.join(unknown)}}\\n")
        sys.stderr.flush()
        os.abort()
    print("XLA chatter on stdout", flush=True)
    if '"abort"' in line:
        sys.stderr.write("F0101 00:00:00.000000 1 shape_util.cc:9] Check failed: x >= 1\\n")
        sys.stderr.flush()
        os.abort()
    if '"raise"' in line:
        raise KeyError("x")
    if '"hang"' in line:
        time.sleep(600)
    print({answer!r}, flush=True)
"""
ANSWER = DumpResponse("HloModule m\n")


@pytest.fixture
def fake_python(tmp_path):
    path = tmp_path / "python"
    path.write_text(FAKE.format(python=sys.executable, answer=encode(ANSWER)))
    path.chmod(0o755)
    return str(path)


@pytest.mark.parametrize("unknown", [("--xla_unknown_a=1",),
                                     ("--xla_unknown_a=1", "--xla_unknown_b=0")],
                         ids=["one flag", "two flags"])
def test_speed_flags_xla_does_not_know_are_dropped_and_the_request_asked_again(
        fake_python, unknown):
    # XLA writes "Unknown flag in" for one and "Unknown flags in" for more
    # (xla/parse_flags_from_env.cc, ParseFlagsFromEnvAndDieIfUnknown, at
    # ROCm/xla ac82760645efcc15109243545254bac80d4a64dc)
    setup = client.WorkerSetup(python=fake_python, speed_flags=("--xla_fast=1", *unknown))
    with client.Worker(setup) as worker:
        assert worker.ask(DumpRequest("ok")) == ANSWER
    assert setup.xla_flags() == ("--xla_fast=1",)


def test_an_xla_abort_is_aborted_with_its_fatal_line_and_the_next_request_answered(
        fake_python):
    with client.Worker(client.WorkerSetup(python=fake_python)) as worker:
        answers = worker.run([DumpRequest("abort"), DumpRequest("ok")])
    assert answers == [Aborted("Check failed: x >= 1"), ANSWER]


def test_a_python_error_in_the_worker_is_crashed_not_an_xla_answer(fake_python):
    with client.Worker(client.WorkerSetup(python=fake_python)) as worker:
        answer = worker.ask(DumpRequest("raise"))
    assert isinstance(answer, Crashed) and "KeyError: 'x'" in answer.error


def test_a_request_past_the_timeout_is_hung_and_the_next_one_answered(fake_python):
    # the stand-in starts in well under the second (jax would not)
    with client.Worker(client.WorkerSetup(python=fake_python, timeout=1.0)) as worker:
        answers = worker.run([DumpRequest("hang"), DumpRequest("ok")])
    assert answers == [Hung(1.0), ANSWER]
