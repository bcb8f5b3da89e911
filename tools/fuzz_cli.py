"""Fuzz the ``tilespec`` command line in-process: no input may end in a traceback.

Every command the parser knows (read from the parser itself, so a new
command is fuzzed too) is driven through ``tilespec.cli.main(argv)`` with
generated bad and edge inputs: shapes from the Hypothesis strategies of
``testing/strategies.py`` and the catalogue, mutated (numbers at the int64
edges, names, ``?``, deleted and inserted characters, unicode, empty
strings), odd option values, negative and huge numbers, unknown options.

Each invocation is judged on what a user would see:

- ``traceback``: an exception escaped ``main`` (a user would see a Python
  traceback), or ``main`` returned 4 (an internal error: a bug);
- ``hang``: it ran longer than the per-invocation limit (``--limit``);
- ``bad_exit``: an exit status outside {0, 1, 2, 3};
- ``bad_message``: exit 2 without exactly one line ``tilespec: error: ...``
  on stderr (or with output on stdout), or any ``Traceback`` text on
  stderr (without ``--debug``).

A traceback on a command line holding an integer beyond int64 is counted
apart (``tracebacks_beyond_int64``): such dims are to be refused when the
shape is parsed, as XLA's parser does.

Findings are grouped by signature (command, kind, exception and message)
with one argv to reproduce each.  Usage::

    python tools/fuzz_cli.py -n 100000 --seed 1 --report fuzz.json

prints one JSON summary (invocations, per-kind counts, exit-status
histogram, time) and exits 1 if anything was found.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import json
import os
import random
import re
import signal
import sys
import tempfile
import time
import traceback
from collections import Counter

from fuzz_inputs import INT64_MAX, WEIGHTS, Inputs, argv_for, shape_pool, subcommands


class Hang(BaseException):
    """Raised by the alarm: not an Exception, so main() cannot catch it."""


# --- running -----------------------------------------------------------------------

def _alarm(signum, frame):
    raise Hang()


def invoke(main, argv: list[str], limit: float):
    """Run main(argv) in-process: (status or None, stdout, stderr, exception
    text or None, seconds)."""
    out, err = io.StringIO(), io.StringIO()
    start = time.perf_counter()
    problem = None
    status = None
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(argv)
    except Hang:
        problem = "Hang"
    except BaseException as e:  # noqa: BLE001 -- everything that escapes is a finding
        problem = "".join(traceback.format_exception_only(type(e), e)).strip()
        problem += "\n" + "".join(traceback.format_tb(e.__traceback__)[-3:])
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    return status, out.getvalue(), err.getvalue(), problem, time.perf_counter() - start


def json_error(out: str) -> bool:
    """With --json, bad input is also one JSON document with its error."""
    try:
        return json.loads(out).get("error") is not None
    except (ValueError, AttributeError):
        return False


def judge(status, err: str, problem, seconds: float, limit: float, debug=False,
          out: str = ""):
    """What is wrong with one invocation: (kind, detail) or None."""
    if problem == "Hang" or seconds > limit:
        return "hang", f"over {limit:g} s"
    if problem is not None:
        return "traceback", problem.splitlines()[0]
    if status == 4:
        return "traceback", err.strip().splitlines()[-1] if err.strip() else "exit 4"
    if not isinstance(status, int) or status not in (0, 1, 2, 3):
        return "bad_exit", f"exit status {status!r}"
    if "Traceback (most recent call last)" in err and not debug:
        return "bad_message", "a traceback on stderr"
    if status == 2:
        lines = err.splitlines()
        if debug:  # the traceback, then the line
            lines = lines[-1:]
        if len(lines) != 1 or not lines[0].startswith("tilespec: error: ") \
                or not err.endswith("\n"):
            return "bad_message", f"exit 2 with stderr {err[:120]!r}"
        if out and not json_error(out):
            return "bad_message", "exit 2 after printing to stdout (not a JSON error)"
    return None


def beyond_int64(argv) -> bool:
    """Does the command line hold an integer that does not fit int64?  XLA's
    parser refuses such dims; tilespec's parse-time check is issue 8's
    machine-integer part, so these findings are counted apart."""
    return any(len(m) > 100 or abs(int(m)) > INT64_MAX
               for a in argv for m in re.findall(r"-?[0-9]+", a))


@contextlib.contextmanager
def working_in(directory: str):
    """The current directory is ``directory`` inside the block (Python 3.10
    has no ``contextlib.chdir``)."""
    saved = os.getcwd()
    os.chdir(directory)
    try:
        yield
    finally:
        os.chdir(saved)


def _signature(name: str, kind: str, detail: str) -> str:
    # numbers and quoted text vary between inputs of one bug
    detail = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", detail)
    detail = re.sub(r"\d+", "N", detail)
    return f"{name} | {kind} | {detail[:160]}"


def fuzz(n: int, seed: int = 0, limit: float = 60.0, examples: int = 400,
         commands=None, progress: bool = False) -> dict:
    """Run ``n`` invocations; return the summary (see the module docstring)."""
    cli = importlib.import_module("tilespec.cli.main")
    # Building the parser costs more than most invocations; argparse parsers
    # are reusable, so build it once (restored on the way out).
    build = cli.build_parser
    parser = build()
    cli.build_parser = lambda only=None: parser
    try:
        return _fuzz(cli, n, seed, limit, examples, commands, progress)
    finally:
        cli.build_parser = build


def _fuzz(cli, n, seed, limit, examples, commands, progress) -> dict:
    rng = random.Random(seed)
    start = time.perf_counter()
    shapes = shape_pool(examples)
    findings: dict[str, dict] = {}
    kinds: Counter = Counter()
    statuses: Counter = Counter()
    per_command: Counter = Counter()
    command_seconds: Counter = Counter()
    slowest = (0.0, None)
    # Run in the temporary directory: a junk relative name given to an
    # option that writes a file (-o, --baseline) lands there, not in the
    # directory the fuzzer was started from (the repository).
    with tempfile.TemporaryDirectory(prefix="tilespec-fuzz-") as tmp, working_in(tmp):
        inputs = Inputs(rng, shapes, tmp)
        subs = subcommands(cli.build_parser())
        names = [c for c in subs if commands is None or c in commands]
        weights = [WEIGHTS.get(c, 1) for c in names]
        for i in range(n):
            if rng.random() < 0.01:  # the top level: no command, --help, junk
                name = "(top)"
                argv = rng.choice([[], ["--help"], ["--debug"], [inputs.junk()],
                                   ["--json", "explain", inputs.shape()]])
            else:
                name = rng.choices(names, weights)[0]
                argv = argv_for(inputs, name, subs[name])
            status, out, err, problem, seconds = invoke(cli.main, argv, limit)
            per_command[name] += 1
            command_seconds[name] += seconds
            statuses[str(status)] += 1
            if seconds > slowest[0]:
                slowest = (seconds, argv)
            verdict = judge(status, err, problem, seconds, limit, "--debug" in argv, out)
            if verdict:
                kind, detail = verdict
                if kind == "traceback" and beyond_int64(argv):
                    kind = "traceback_beyond_int64"
                kinds[kind] += 1
                sig = _signature(name, kind, detail)
                f = findings.setdefault(sig, {"kind": kind, "command": name, "count": 0,
                                              "argv": argv, "detail": detail,
                                              "traceback": problem})
                f["count"] += 1
                if f["count"] == 1 and kind.startswith("traceback") and problem is None:
                    # exit 4: run it again with --debug for the traceback
                    f["traceback"] = invoke(cli.main, ["--debug", *argv], limit)[2]
            if progress and (i + 1) % 1000 == 0:
                print(f"{i + 1} invocations, {sum(kinds.values())} findings, "
                      f"{time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
    return {
        "invocations": n, "seed": seed, "limit_seconds": limit,
        "shape_pool": len(shapes),
        "tracebacks": kinds["traceback"], "hangs": kinds["hang"],
        "tracebacks_beyond_int64": kinds["traceback_beyond_int64"],
        "bad_exit": kinds["bad_exit"], "bad_message": kinds["bad_message"],
        "exit_statuses": dict(sorted(statuses.items())),
        "per_command": dict(sorted(per_command.items())),
        "seconds_per_command": {k: round(v, 1) for k, v in sorted(command_seconds.items())},
        "seconds": round(time.perf_counter() - start, 1),
        "slowest": {"seconds": round(slowest[0], 2), "argv": slowest[1]},
        "findings": sorted(findings.values(), key=lambda f: -f["count"]),
    }


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-n", "--invocations", type=int, default=10_000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--limit", type=float, default=60.0,
                   help="seconds one invocation may take before it counts as a hang")
    p.add_argument("--examples", type=int, default=400,
                   help="Hypothesis examples in the shape pool")
    p.add_argument("--command", action="append", help="fuzz only these commands")
    p.add_argument("--report", metavar="FILE", help="also write the summary here")
    p.add_argument("--progress", action="store_true")
    a = p.parse_args(argv)
    summary = fuzz(a.invocations, a.seed, a.limit, a.examples, a.command, a.progress)
    text = json.dumps(summary, indent=2, ensure_ascii=False)
    if a.report:
        with open(a.report, "w") as f:
            f.write(text + "\n")
    brief = {k: v for k, v in summary.items() if k != "findings"}
    brief["findings"] = [{k: f[k] for k in ("kind", "command", "count", "detail", "argv")}
                         for f in summary["findings"]]
    print(json.dumps(brief, indent=2, ensure_ascii=False))
    found = summary["tracebacks"] + summary["hangs"] + summary["bad_exit"] \
        + summary["bad_message"] + summary["tracebacks_beyond_int64"]
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
