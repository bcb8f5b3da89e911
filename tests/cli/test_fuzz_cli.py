"""The command-line fuzzer (tools/fuzz_cli.py), a few thousand invocations:
no traceback, no hang, no exit status outside 0-3, every error one line.

Under CI=true the run is seeded (the same inputs every time); otherwise the
seed is random and printed, so a developer's run keeps finding new inputs.
The long campaign (100,000 invocations) is the script itself.
"""

import os
import random
import sys

import pytest
from locations import ROOT

sys.path.insert(0, str(ROOT / "tools"))

import fuzz_cli  # noqa: E402

# A campaign of CLI subprocesses.
pytestmark = pytest.mark.integration

INVOCATIONS = 1500


@pytest.fixture(scope="module")
def summary():
    seed = 0 if os.environ.get("CI") else random.randrange(2**32)
    print(f"fuzz_cli seed {seed}")
    # a generous per-invocation limit: a hang, not a slow machine
    return fuzz_cli.fuzz(INVOCATIONS, seed=seed, limit=120.0, examples=60)


def _show(findings, kinds):
    return "\n".join(f"{f['kind']} x{f['count']}: {f['argv']!r}\n  {f['detail']}\n"
                     f"{f['traceback'] or ''}" for f in findings if f["kind"] in kinds)


def test_no_traceback_hang_or_bad_exit(summary):
    assert summary["invocations"] == INVOCATIONS
    counts = {k: summary[k] for k in ("tracebacks", "hangs", "bad_exit", "bad_message")}
    assert counts == dict.fromkeys(counts, 0), _show(
        summary["findings"], ("traceback", "hang", "bad_exit", "bad_message"))


def test_every_command_and_status_is_reached(summary):
    # the fuzzer drives every command, and gets past parsing: verdicts too
    assert set(summary["per_command"]) >= {"explain", "offset", "locate", "prove",
                                           "bitcast", "check-rule", "normalize",
                                           "equivalent", "regress", "draw", "formula"}
    assert {"0", "1", "2", "3"} <= set(summary["exit_statuses"])


def test_judge_counts_what_a_user_would_see():
    judge = fuzz_cli.judge
    assert judge(0, "", None, 0.1, 10) is None
    assert judge(2, "tilespec: error: x\n", None, 0.1, 10) is None
    assert judge(2, "usage: x\n", None, 0.1, 10)[0] == "bad_message"
    assert judge(2, "tilespec: error: a\nb\n", None, 0.1, 10)[0] == "bad_message"
    assert judge(2, "tilespec: error: x\n", None, 0.1, 10, out="x")[0] == "bad_message"
    assert judge(2, "tilespec: error: x\n", None, 0.1, 10,
                 out='{"error": {"kind": "bad input", "message": "x"}}') is None
    assert judge(4, "tilespec: internal error: X\n", None, 0.1, 10)[0] == "traceback"
    assert judge(None, "", "KeyError: 1", 0.1, 10)[0] == "traceback"
    assert judge(0, "", None, 11, 10)[0] == "hang"
    assert judge(5, "", None, 0.1, 10)[0] == "bad_exit"
    assert judge(1, "Traceback (most recent call last):\n", None, 0.1, 10)[0] == "bad_message"


def test_invoke_catches_what_escapes_main():
    def main(argv):
        raise RuntimeError("escaped")
    status, _, _, problem, _ = fuzz_cli.invoke(main, [], 10)
    assert status is None and problem.startswith("RuntimeError: escaped")


def test_beyond_int64():
    assert fuzz_cli.beyond_int64(["f32[9223372036854775808]"])
    assert fuzz_cli.beyond_int64(["x", "9" * 5000])
    assert not fuzz_cli.beyond_int64(["f32[9223372036854775807]", "-5", "١٢"])


def test_options_that_write_files_get_names_in_the_fuzzers_directory():
    # a junk value (",") for --baseline once wrote a file into the repository
    from fuzz_inputs import Inputs, _value, subcommands

    from tilespec.cli.main import build_parser
    writers = [(name, a) for name, sub in subcommands(build_parser()).items()
               for a in sub._actions if a.metavar == "FILE" and a.option_strings]
    assert {(n, a.dest) for n, a in writers} >= {("check-hlo", "baseline"),
                                                 ("check-hlo", "report_output")}
    inputs = Inputs(random.Random(0), ["f32[4]{0}"], "/tmp/fuzz-dir")
    for name, action in writers:
        for _ in range(200):
            value = _value(inputs, action.dest, action)
            assert value == "" or "\0" in value or os.path.isabs(value), (name, value)


def test_the_fuzzer_runs_in_its_own_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    seen = []
    with fuzz_cli.working_in(str(tmp_path.parent)):
        seen.append(os.getcwd())
    assert os.getcwd() == str(tmp_path) and seen == [str(tmp_path.parent)]
