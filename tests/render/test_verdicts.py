"""One verdict per module and per finding, whatever the output format:
text, ``--json`` and SARIF are rendered from the same typed findings, whose
meaning for the verdict each rule declares once."""

from __future__ import annotations

import json

import pytest
from locations import DATA

from tilespec.cli.main import main
from tilespec.prover.hlo.check import check_module
from tilespec.prover.hlo.findings import NONE, RULES, Finding, status_of, verdict_of
from tilespec.prover.hlo.module import parse_hlo
from tilespec.prover.result import PROVED, REFUTED, UNKNOWN

HLO = DATA / "hlo"


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def verdicts(capsys, path, *options):
    """(exit statuses, the module's status, each finding's status) in
    text, JSON and SARIF."""
    code_text, text, _ = run(capsys, "check-hlo", path, *options)
    code_json, out, _ = run(capsys, "check-hlo", path, *options, "--json")
    doc = json.loads(out)
    code_sarif, out, _ = run(capsys, "check-hlo", path, *options, "--format", "sarif")
    log = json.loads(out)["runs"][0]
    module_text = text.split(":", 1)[1].split(" --", 1)[0].strip()
    module_json = doc["results"][0]["status"]
    module_sarif = log["properties"]["modules"][0]["status"]
    return ((code_text, code_json, doc["exit_status"], code_sarif,
             log["invocations"][0]["exitCode"]),
            (module_text, module_json, module_sarif), doc["results"][1:])


def test_a_transpose_inferred_from_metadata_is_one_verdict_in_every_format(capsys):
    # op_name says transpose, but the bitcast is only a reshape: a hint, not
    # an accusation; the module is proved and the finding is not refuted
    codes, module, findings = verdicts(capsys, HLO / "findings_meant_transpose_hint.hlo")
    assert codes == (0, 0, 0, 0, 0)
    assert module == ("proved", "proved", "proved")
    hint = [r for r in findings if r["check"] == "meant-transpose-not-bitcast"]
    assert [(r["status"], r["data"]["level"]) for r in hint] == [("ok", "warning")]
    assert hint[0]["counterexample"]["what"]      # why the transpose is not a bitcast


def test_a_transpose_the_user_states_is_one_refutation_in_every_format(capsys):
    codes, module, findings = verdicts(capsys, HLO / "findings_meant_transpose_hint.hlo",
                                       "--meant", "b=1,0")
    assert codes == (1, 1, 1, 1, 1)
    assert module == ("refuted", "refuted", "refuted")
    stated = [r for r in findings if r["check"] == "meant-transpose-not-bitcast"]
    assert [r["status"] for r in stated] == ["refuted"]


@pytest.mark.parametrize("name", sorted(p.name for p in HLO.glob("findings_*.hlo")))
def test_a_module_is_refuted_exactly_when_one_of_its_findings_is(name):
    r = check_module(parse_hlo((HLO / name).read_text()))
    statuses = {verdict_of(f) for f in r.findings}
    assert (r.status == REFUTED) == (REFUTED in statuses)
    assert (r.status == UNKNOWN) == (REFUTED not in statuses and UNKNOWN in statuses)


def test_every_rule_declares_its_levels_and_what_it_means_for_the_verdict():
    for rule in RULES.values():
        assert rule.levels and rule.verdict in (PROVED, REFUTED, UNKNOWN, NONE)
        # only a refuting rule is ever an error
        assert ("error" in rule.levels) == (rule.verdict == REFUTED)


def test_a_finding_of_no_rule_or_at_a_level_its_rule_does_not_take_is_refused():
    with pytest.raises(ValueError, match="no rule"):
        Finding("bitcast-proved", "error", 1, "b", "...")
    with pytest.raises(ValueError, match="no rule"):
        Finding("no-such-rule", "note", 1, "b", "...")


def test_a_question_left_undecided_is_unknown_whatever_its_rule():
    f = Finding("skipped", "warning", 1, "", "text not read", decided=False)
    assert verdict_of(f) == UNKNOWN and status_of([f]) == UNKNOWN

