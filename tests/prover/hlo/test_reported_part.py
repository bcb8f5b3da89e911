"""What a worker sends of a module under text and SARIF
(:func:`~tilespec.prover.hlo.findings.reported_part`): the linter's options
applied to it again, with or without a baseline, report exactly what they
report of the whole report, and text and SARIF written from it are the same
bytes."""

from __future__ import annotations

import io

import pytest
from hypothesis import given, settings, strategies as st
from locations import DATA

from tilespec.prover.hlo.check import check_module
from tilespec.prover.hlo.corpus import ModuleResult, Tally
from tilespec.prover.hlo.findings import RULES, reported_part, select_findings, verdict_part
from tilespec.prover.hlo.module import parse_hlo
from tilespec.render import write_sarif, write_text

MODULES = sorted((DATA / "hlo").glob("*.hlo"))


@pytest.fixture(scope="module")
def reports() -> list:
    out = []
    for p in MODULES:
        try:
            out.append(check_module(parse_hlo(p.read_text())))
        except ValueError:      # modules that are bad input on purpose
            continue
    return out


def what_is_reported(r) -> tuple:
    return (r.status, r.reported_status, r.verdict(), r.findings, r.suppressed_errors,
            r.baselined, r.updated, r.absent, r.worst(), r.largest(), r.counts)


options = st.fixed_dictionaries({
    "select": st.none() | st.frozensets(st.sampled_from(list(RULES)), min_size=1),
    "ignore": st.none() | st.frozensets(st.sampled_from(list(RULES)), min_size=1),
    "min_level": st.sampled_from(["note", "warning", "error"])})


@settings(max_examples=40, deadline=None)
@given(options, st.booleans(), st.data())
def test_options_report_the_same_of_the_part_as_of_the_whole(reports, opts, tables, data):
    r = data.draw(st.sampled_from(reports))
    part = reported_part(r, **opts, tables=tables)
    whole = select_findings(r, **opts)
    assert what_is_reported(select_findings(part, **opts))[:-3] == what_is_reported(whole)[:-3]
    if tables:
        assert (part.worst(), part.largest()) == (whole.worst(), whole.largest())
    # a baseline of the kept findings: every one of them known, none absent
    known = {k.key: k for k in (f.known_as("m.hlo") for f in whole.findings)}
    for b in (known, {}):
        assert (what_is_reported(select_findings(part, **opts, baseline=b, file="m.hlo"))[:-3]
                == what_is_reported(select_findings(r, **opts, baseline=b, file="m.hlo"))[:-3])


def test_a_large_module_sends_its_findings_not_its_notes_and_buffers(reports):
    r = max(reports, key=lambda r: len(r.buffers))
    part = reported_part(r, min_level="warning")
    assert len(r.buffers) > 1 and part.buffers == ()
    assert not any(f.level == "note" for f in part.findings + part.filtered)


@pytest.mark.parametrize("tables", [False, True])
def test_text_and_sarif_of_the_part_are_the_bytes_of_the_whole(reports, tables):
    results = [ModuleResult(f"m{i}.hlo", report=select_findings(r, min_level="warning"))
               for i, r in enumerate(reports)]
    parts = [ModuleResult(x.path, report=reported_part(r, min_level="warning", tables=tables))
             for x, r in zip(results, reports)]
    for write in (lambda out, rs: write_text(out, rs, tables=tables, verbose=True),
                  lambda out, rs: write_sarif(out, rs, 1)):
        whole, part = io.StringIO(), io.StringIO()
        write(whole, results)
        write(part, parts)
        assert part.getvalue() == whole.getvalue()



def test_the_verdict_part_decides_what_the_whole_report_decides(reports):
    # what a worker sends beside its module's JSON: the tally and the exit
    # status come from it
    for r in reports:
        whole, part = (select_findings(x, min_level="note") for x in (r, verdict_part(r)))
        assert (part.status, part.reported_status, part.verdict(), part.suppressed_errors) \
            == (whole.status, whole.reported_status, whole.verdict(), whole.suppressed_errors)
    results = [ModuleResult(f"m{i}", report=select_findings(r, min_level="note"))
               for i, r in enumerate(reports)]
    parts = [ModuleResult(f"m{i}", report=select_findings(verdict_part(r), min_level="note"))
             for i, r in enumerate(reports)]
    assert Tally.of(parts) == Tally.of(results)
    assert {r.status for r in reports} >= {"proved", "refuted", "unknown"}
