"""The contract of tilespec.process.JsonLinesWorker, on tiny children: one
that echoes (with its process id), one that aborts, one that hangs past the
timeout, one that prints chatter or floods its stderr."""

import json
import os
import sys
import time

import pytest

from tilespec.process import Ended, JsonLinesWorker

#: Echoes each request with its pid; "abort" writes last words and aborts,
#: "hang" sleeps, "slow" sleeps 0.3 s, "raise" raises, "chatter" prints a line that is not JSON
#: first, "flood" writes 1 MiB to stderr first, "env" answers $PROBE.
CHILD = """
import json, os, sys, time
for line in sys.stdin:
    r = json.loads(line)
    if r == "abort":
        sys.stderr.write("some noise\\nF0101 x.cc:9] Check failed: last words\\n")
        sys.stderr.flush()
        os.abort()
    if r == "hang":
        time.sleep(600)
    if r == "slow":
        time.sleep(0.3)
    if r == "raise":
        raise KeyError("x")
    if r == "chatter":
        print("not an answer", flush=True)
    if r == "flood":
        sys.stderr.write("x" * (1 << 20) + "\\n")
    if r == "env":
        r = os.environ.get("PROBE")
    print(json.dumps({"pid": os.getpid(), "echo": r}), flush=True)
"""


def child(**kw) -> JsonLinesWorker:
    return JsonLinesWorker([sys.executable, "-c", CHILD], **{"timeout": 60, **kw})


def test_each_request_is_answered_in_order_by_one_child():
    with child() as worker:
        answers = [worker.ask(r) for r in ({"a": 1}, [2], "three")]
    assert [a["echo"] for a in answers] == [{"a": 1}, [2], "three"]
    assert len({a["pid"] for a in answers}) == 1


def test_an_abort_is_answered_ended_with_the_childs_last_stderr_lines():
    with child() as worker:
        ended = worker.ask("abort")
    assert isinstance(ended, Ended)
    assert ended.status == -6 and not ended.timed_out and not ended.traceback
    assert ended.last_lines(2) == ("some noise", "F0101 x.cc:9] Check failed: last words")


def test_a_child_past_the_timeout_is_killed_and_the_answer_says_so():
    start = time.monotonic()
    with child(timeout=0.5) as worker:
        ended = worker.ask("hang")
        assert time.monotonic() - start < 30
        worker.timeout = 60  # the next child may take its time to start
        after = worker.ask("after")
    assert isinstance(ended, Ended) and ended.timed_out and ended.status == -9
    assert after["echo"] == "after"


def test_without_a_timeout_a_slow_answer_is_waited_for():
    with child(timeout=None) as worker:
        assert worker.ask("slow")["echo"] == "slow"


def test_a_python_exception_in_the_child_is_ended_with_its_traceback():
    with child() as worker:
        ended = worker.ask("raise")
    assert isinstance(ended, Ended) and ended.traceback and ended.status == 1
    assert ended.last_lines(1) == ("KeyError: 'x'",)


def test_the_next_request_after_an_end_starts_a_new_child():
    with child() as worker:
        first = worker.ask(1)
        assert isinstance(worker.ask("abort"), Ended)
        second = worker.ask(2)
    assert (first["echo"], second["echo"]) == (1, 2) and first["pid"] != second["pid"]


def test_the_environment_is_read_at_each_start():
    probes = iter(["one", "two"])
    with child(environment=lambda: dict(os.environ, PROBE=next(probes))) as worker:
        before = worker.ask("env")["echo"]
        assert worker.ask("env")["echo"] == before  # the same child
        worker.ask("abort")
        after = worker.ask("env")["echo"]
    assert (before, after) == ("one", "two")


def test_chatter_is_passed_over_and_any_other_refused_line_is_raised():
    with child(chatter=(json.JSONDecodeError,)) as worker:
        assert worker.ask("chatter")["echo"] == "chatter"
    with child() as worker, pytest.raises(json.JSONDecodeError):
        worker.ask("chatter")


def test_a_child_that_floods_its_stderr_still_answers():
    # stderr goes to a file: a pipe would fill at 64 KiB and block the child
    with child(timeout=30) as worker:
        assert worker.ask("flood")["echo"] == "flood"


def test_close_ends_the_child_and_a_request_after_it_starts_another():
    worker = child()
    pid = worker.ask(0)["pid"]
    worker.close()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # ended and reaped
    assert worker.ask(1)["pid"] != pid
    worker.close()
