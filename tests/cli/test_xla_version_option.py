"""``--xla VERSION`` on the commands whose verdict names an XLA: the line
``XLA: <sha10> (<date>)`` where one was asked for, ``data.xla_version`` in
``--json`` always, and a one-line refusal (exit 2) where tilespec does not
model the version asked."""

from __future__ import annotations

import json

import pytest

from tilespec.cli.main import main
from tilespec.spec import resolve_xla

HLO = "tests/data/hlo/tpu_style.hlo"
NEWEST = resolve_xla(None)


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("argv", [
    ["explain", "f32[3,5]{1,0:T(2,2)}"],
    ["padding", "f32[8,8]{1,0:T(8,128)}"],
    ["bitcast", "f32[8,128]{1,0}", "f32[1024]{0}"],
    ["check-hlo", HLO],
], ids=lambda a: a[0])
def test_the_verdict_names_the_xla_asked_for(capsys, argv):
    _, out, _ = run(capsys, *argv, "--xla", "jaxlib-0.10.2")
    assert "XLA: 5a9e73cbd9 (2026-06-14)" in out
    _, out, _ = run(capsys, *argv)
    assert "XLA: " not in out           # the same at every version: not said unasked
    _, out, _ = run(capsys, *argv, "--json")
    data = json.loads(out)["results"][0]["data"]
    assert data["xla_version"]["sha"] == NEWEST.sha


def test_check_hlo_refuses_xla_before_split_validation(capsys):
    code, _, err = run(capsys, "check-hlo", HLO, "--xla", "2026-05-22")
    assert code == 2 and "before cbb23d1d64" in err and len(err.strip().splitlines()) == 1


def test_bitcast_across_memory_spaces_is_judged_by_the_verifier_of_its_version(capsys):
    # before 8a84ad7ef7 the verifier compared no memory spaces; since, host
    # memory on one side only is rejected (prover/bitcast/memory_space.py)
    across = ["bitcast", "f32[8,128]{1,0}", "f32[1024]{0:S(5)}"]
    code, out, _ = run(capsys, *across, "--xla", "2026-03-27")
    assert code == 0 and "XLA: 5d1dc54c5f (2026-03-27)" in out
    code, out, _ = run(capsys, *across)
    assert code == 1 and "XLA: 183fa00cb5 (2026-08-22)" in out
    code, out, _ = run(capsys, "bitcast", "f32[8,128]{1,0}", "f32[1024]{0}", "--xla",
                       "2026-03-27")
    assert code == 0 and "XLA: 5d1dc54c5f (2026-03-27)" in out


@pytest.mark.parametrize("command", ["check-rule", "check-hlo", "bitcast", "explain",
                                     "padding"])
def test_an_unknown_version_is_a_usage_error(capsys, command):
    code, _, err = run(capsys, command, "f32[8]{0}", "--xla", "2025-01-01")
    assert code == 2 and "before the oldest commit modelled" in err
