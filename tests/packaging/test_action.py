"""The GitHub Action (``action.yml``) and the pre-commit hook
(``.pre-commit-hooks.yaml``) users put in their CI: their commands run on a
dump directory as GitHub and pre-commit would run them (the install step
runs on the built wheel in tests/packaging/test_wheel.py)."""

import json
import shutil
import sys
from pathlib import Path

import pytest
from action_steps import action, hooks, inputs, run_hook, run_step, step
from locations import DATA

#: The tilespec this test run imports: its scripts' directory.
BIN = str(Path(sys.executable).parent)


@pytest.fixture
def dump(tmp_path) -> Path:
    """A user's checkout with a dump of two CPU modules (one bitcast moves
    bytes by tiles the CPU backend ignores) and a pre-layout module beside."""
    shutil.copytree(DATA / "dump", tmp_path / "dump")
    return tmp_path


def test_the_action_is_a_composite_action_whose_upload_survives_a_failed_check():
    a = action()
    assert a["runs"]["using"] == "composite"
    names = [s["name"] for s in a["runs"]["steps"]]
    assert names == ["Install tilespec", "Check the dump",
                     "Upload the findings to code scanning"]
    upload = step("Upload the findings to code scanning")
    assert upload["uses"].startswith("github/codeql-action/upload-sarif@")
    assert "always()" in upload["if"] and "inputs.upload == 'true'" in upload["if"]
    assert set(a["inputs"]) >= {"path", "select", "ignore", "baseline", "min-level",
                                "sarif-file", "upload", "install"}
    assert a["inputs"]["min-level"]["default"] == "warning"


def test_the_check_step_fails_on_an_error_and_writes_warnings_and_errors_as_sarif(dump):
    done = run_step("Check the dump", inputs(strict_tiles="true"), cwd=dump, path=BIN)
    assert done.returncode == 1, done.stderr
    assert done.stdout.splitlines()[-1].startswith("2 modules: 1 proved, 1 refuted  [")
    log = json.loads((dump / "tilespec.sarif").read_text())
    (result,) = log["runs"][0]["results"]
    assert (result["ruleId"], result["level"]) == ("bitcast-tiles-ignored", "error")
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == (
        "dump/module_0002.jit_g.cpu_after_optimizations.txt")
    assert log["runs"][0]["invocations"][0]["exitCode"] == 1


def test_the_check_step_passes_its_baseline_input_on(dump):
    values = inputs(strict_tiles="true", baseline="layouts-baseline.json")
    first = run_step("Check the dump", values, cwd=dump, path=BIN)
    assert first.returncode == 0, first.stderr
    assert "baseline layouts-baseline.json: 1 finding(s) written" in first.stderr
    assert "1 refuted with every error suppressed" in first.stdout
    (known,) = json.loads((dump / "layouts-baseline.json").read_text())["findings"]
    assert known["rule"] == "bitcast-tiles-ignored"


def test_the_pre_commit_hook_checks_the_dump_files_committed_and_nothing_else(dump):
    (hook,) = hooks()
    assert hook["language"] == "python" and hook["require_serial"] is True
    files = ["dump/module_0001.jit_f.cpu_after_optimizations.txt",
             "dump/module_0002.jit_g.cpu_after_optimizations.txt",
             "dump/module_0001.jit_f.cpu_after_optimizations-buffer-assignment.txt",
             "model.py", "README.md"]
    (dump / "model.py").write_text("import jax\n")
    (dump / "README.md").write_text("# a model\n")
    done = run_hook("tilespec-check-hlo", files, cwd=dump, path=BIN)
    # the CPU backend ignores tiles: a warning, which fails no commit
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("dump/module_0002.jit_g.cpu_after_optimizations.txt:24: "
                               "warning: [bitcast-tiles-ignored] bitcast bitcast: ")
    assert lines[-1].startswith("2 modules: 2 proved  [")
