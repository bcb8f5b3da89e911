"""Real XLA's own bitcast-or-copy decisions (jaxlib on the CPU), beside
tilespec's model of XLA's rules and the spec (``tilespec.xla.bitcasts``).

Skipped, with the reason, when jax is not installed.  The CI run compiles a
small family (one subprocess, about 10 s); ``-m slow`` compiles 300 cases.
"""

import pytest

from tilespec.xla import bitcasts, compiled

# Compiles with real XLA (jaxlib) in a subprocess.
pytestmark = pytest.mark.integration

needs_xla = pytest.mark.skipif(not compiled.available(),
                               reason="real XLA (jax, jaxlib) is not installed: "
                               "pip install -e '.[xla]'")

#: Cases whose answers were read off the compiler's HLO by hand.
KNOWN = [
    # untiled row-major reshape: a bitcast everywhere
    (("f32[8,256]{1,0}", "f32[2048]{0}", None), "bitcast", "proved", "agree"),
    # a real transpose moves data
    (("f32[8,256]{1,0}", "f32[256,8]{1,0}", (1, 0)), "copy", "refuted", "agree"),
    # tiles ignored: XLA reuses the bytes, the document says they differ
    (("f32[16,256]{1,0:T(8,128)}", "f32[4096]{0}", None), "bitcast", "refuted", "finding"),
    # the same bytes, but layout assignment normalises the unit dim and copies
    (("s8[3,128]{1,0}", "s8[384,1]{1,0}", None), "copy", "proved", "model"),
    # a tiled transpose that is physically the identity: XLA copies anyway
    (("bf16[3,128]{0,1:T(8,128)}", "bf16[128,3]{1,0:T(8,128)}", (1, 0)), "copy", "proved",
     "model"),
]


def test_entry_instructions_are_read_past_layout_parentheses():
    hlo = ("HloModule m\n\n%fused (p: f32[2]) -> f32[2] {\n  %p = f32[2]{0} parameter(0)\n}\n\n"
           "ENTRY %main.1 (x.1: f32[16,256]) -> f32[4096] {\n"
           "  %x.1 = f32[16,256]{1,0:T(8,128)} parameter(0), sharding={replicated}\n"
           "  ROOT %bitcast = f32[4096]{0} bitcast(%x.1), metadata={op_name=\"x\"}\n}\n")
    assert [op for _, op in compiled._entry_ops(hlo)] == ["parameter", "bitcast"]


@pytest.fixture(scope="module")
def rows():
    cases = [c for c, *_ in KNOWN] + bitcasts.family(10, seed=0)
    return bitcasts.compare(cases)


@needs_xla
def test_known_decisions(rows, record_property):
    record_property("xla", compiled.versions())
    for (case, compiler, spec, kind), row in zip(KNOWN, rows):
        assert (row.compiler, row.spec, row.kind) == (compiler, spec, kind), case


@needs_xla
def test_every_case_is_answered(rows):
    assert {r.compiler for r in rows} <= {"bitcast", "copy"}
    assert all(r.spec in ("proved", "refuted") for r in rows)


@needs_xla
def test_compiler_bitcasts_only_where_the_model_says_so(rows):
    # XLA's compiled bitcasts follow ReshapeIsBitcast / TransposeIsBitcast as
    # tilespec models them; where the two differ, the compiler copies.
    for r in rows:
        if r.compiler == "bitcast":
            assert r.model, r


@needs_xla
def test_every_finding_is_explained_by_untiled_memory(rows):
    # Each bitcast the spec refutes is shown loudly; on the CPU it computes
    # the right numbers only because the CPU client keeps tiled arrays in
    # row-major memory (the worker reads the raw buffer to check).
    findings = [r for r in rows if r.kind == "finding"]
    assert findings
    for r in findings:
        assert r.memory == "row-major", r
        assert r.spec_counterexample, r


@pytest.mark.slow
@needs_xla
def test_family_of_300():
    rows = bitcasts.compare(bitcasts.family(300, seed=1))
    summary = bitcasts.summary(rows)
    assert summary["cases"] == 300
    assert all(r.model for r in rows if r.compiler == "bitcast")
    assert all(r.memory == "row-major" for r in rows if r.kind == "finding")
    assert not [r for r in rows if r.compiler in ("aborted", "rejected")]


def test_result_traced_back_through_bitcasts_to_its_own_parameter():
    hlo = ("ENTRY %main (a: f32[2,3], b: f32[6]) -> (f32[6], f32[6]) {\n"
           "  %a = f32[2,3]{1,0:T(2,2)} parameter(0)\n"
           "  %b = f32[6]{0} parameter(1)\n"
           "  %bitcast = f32[6]{0} bitcast(%a)\n"
           "  %copy = f32[6]{0} copy(%b)\n"
           "  ROOT %tuple = (f32[6]{0:T(2)}, f32[6]{0}) tuple(%bitcast, %copy)\n}\n")
    assert compiled._verdicts(hlo, 2) == [("bitcast", ["parameter", "bitcast"]),
                                          ("copy", ["copy"])]


def test_a_transpose_of_unit_dims_is_judged_as_a_reshape():
    from tilespec.spec.text import parse_array_shape as shape
    a, b = shape("s8[1,384]{1,0}"), shape("s8[384,1]{1,0}")
    assert bitcasts.moves_only_unit_dims(a, (1, 0))
    assert bitcasts.compiler_rule(a, b, (1, 0))          # ReshapeIsBitcast: yes
    from tilespec.prover.models.rules import xla_transpose_is_bitcast
    assert not xla_transpose_is_bitcast(a, b, (1, 0))    # TransposeIsBitcast: no


@needs_xla
def test_cli_against_xla(capsys):
    import json as _json

    from tilespec.cli import main
    code = main(["check-rule", "reshape_is_bitcast", "f32[16,256]{1,0:T(8,128)}",
                 "f32[4096]{0}", "--against-xla", "--json"])
    out = _json.loads(capsys.readouterr().out)
    assert code == 1                                  # the rule disagrees with the spec
    assert out["results"][0]["data"]["xla_compiled"]["verdict"] == "bitcast"
    assert out["results"][0]["data"]["xla_compiled"]["memory"] == "row-major"


def test_cli_against_xla_needs_a_bitcast_rule(capsys):
    from tilespec.cli import main
    assert main(["check-rule", "array_size", "f32[3]{0}", "--against-xla"]) == 2
    assert "reshape_is_bitcast" in capsys.readouterr().err
