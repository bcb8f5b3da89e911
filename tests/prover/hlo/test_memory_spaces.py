"""check-hlo on memory spaces, as XLA decides them (ROCm/xla 183fa00cb5d8).

* ``ShapeVerifier::HandleBitcast`` rejects a bitcast with host memory
  ``S(5)`` on one side only (its operand not a constant through copies), in
  every computation: ``HloVerifier::RunImpl`` visits fused ones too.
* It accepts ``S(1)`` against ``S(0)``.  Outside fusions a bitcast's result
  is its operand's buffer, which memory-space assignment colours with one
  memory space: a warning of its own.  Inside a fused computation values
  have no buffers (``BufferAssigner`` skips fusion computations): the TPU
  compiler prints such fused bitcasts by the thousand, and they are no
  finding.

The modules are written as the TPU compiler prints them.
"""

from __future__ import annotations

import pytest

from tilespec.cli.main import main
from tilespec.prover.hlo.check import check_module
from tilespec.prover.hlo.module import parse_hlo


def module(fused_bitcast: str, entry_bitcast: str, operand: str = "%p") -> str:
    """A fusion whose root is ``fused_bitcast`` of its parameter, beside
    ``entry_bitcast`` of ``operand`` in ENTRY (each a result shape)."""
    return f"""HloModule m, is_scheduled=true

%fused_computation (param_0.1: f32[1,8,128]) -> f32[8,128] {{
  %param_0.1 = f32[1,8,128]{{2,1,0:T(8,128)}} parameter(0)
  ROOT %bitcast.1 = {fused_bitcast} bitcast(f32[1,8,128]{{2,1,0:T(8,128)}} %param_0.1)
}}

ENTRY %main (p: f32[1,8,128]) -> (f32[8,128], f32[8,128]) {{
  %p = f32[1,8,128]{{2,1,0:T(8,128)}} parameter(0)
  %c = f32[1,8,128]{{2,1,0:T(8,128)}} constant({{...}})
  %copy.3 = f32[1,8,128]{{2,1,0:T(8,128)}} copy(%c)
  %bitcast.2 = {entry_bitcast} bitcast(f32[1,8,128]{{2,1,0:T(8,128)}} {operand})
  %fusion = {fused_bitcast} fusion(f32[1,8,128]{{2,1,0:T(8,128)}} %p), kind=kLoop, calls=%fused_computation
  ROOT %tuple = ({entry_bitcast}, {fused_bitcast}) tuple(%bitcast.2, %fusion)
}}
"""


def memory_findings(text: str) -> set:
    r = check_module(parse_hlo(text))
    return {(f.instruction, f.rule, f.level) for f in r.findings
            if f.rule.startswith("bitcast-memory-space")}


S0 = "f32[8,128]{1,0:T(8,128)}"
S1 = "f32[8,128]{1,0:T(8,128)S(1)}"
S5 = "f32[8,128]{1,0:T(8,128)S(5)}"


def test_a_fused_bitcast_between_s1_and_s0_is_no_finding_and_a_top_level_one_warns():
    text = module(S1, S1)
    assert memory_findings(text) == {("bitcast.2", "bitcast-memory-space-change", "warning")}
    r = check_module(parse_hlo(text))
    # XLA's verifier accepts both: the bytes decide, and they stay in place
    assert r.status == "proved"
    assert {f.instruction for f in r.findings if f.rule == "bitcast-proved"} == {
        "bitcast.1", "bitcast.2"}


def test_the_same_memory_space_is_no_finding_anywhere():
    assert memory_findings(module(S0, S0)) == set()
    text = module(S1, S1).replace("f32[1,8,128]{2,1,0:T(8,128)}",
                                  "f32[1,8,128]{2,1,0:T(8,128)S(1)}")
    assert memory_findings(text) == set()


def test_host_memory_on_one_side_is_an_error_inside_a_fusion_too():
    text = module(S5, S5)
    assert memory_findings(text) == {("bitcast.1", "bitcast-memory-space", "error"),
                                     ("bitcast.2", "bitcast-memory-space", "error")}
    r = check_module(parse_hlo(text))
    assert r.status == "refuted"
    # the one decision refuted it before any reading: no bytes verdict beside it
    assert not [f for f in r.findings if f.rule in ("bitcast-proved", "bitcast-refuted")]
    f = next(f for f in r.findings if f.instruction == "bitcast.2")
    assert [s.value for s in f.counterexample.sides] == [0, 5]


def test_a_constant_s_bitcast_may_change_memory_space():
    assert memory_findings(module(S0, S5, operand="%copy.3")) == set()
    assert memory_findings(module(S0, S1, operand="%copy.3")) == set()


def test_the_command_warns_of_a_top_level_change_and_exits_on_the_bytes(tmp_path, capsys):
    path = tmp_path / "m.hlo"
    path.write_text(module(S1, S1))
    assert main(["check-hlo", str(path)]) == 0
    out = capsys.readouterr().out
    warned = [line for line in out.splitlines() if "[bitcast-memory-space-change]" in line]
    assert len(warned) == 1 and "bitcast bitcast.2:" in warned[0]
    path.write_text(module(S5, S0))
    assert main(["check-hlo", str(path)]) == 1
    assert "[bitcast-memory-space] bitcast bitcast.1" in capsys.readouterr().out


@pytest.mark.parametrize("src,dst,moves", [
    ("f32[8,128]{1,0:T(8,128)}", "f32[8,128]{1,0:T(8,128)S(1)}", "from memory space S(0) to S(1)"),
    ("f32[8,128]{1,0:T(8,128)S(1)}", "f32[8,128]{1,0:T(8,128)S(5)}", "host memory S(5)"),
])
def test_a_copy_between_memory_spaces_moves_data_and_could_not_be_a_bitcast(src, dst, moves):
    r = check_module(parse_hlo(f"""HloModule m
ENTRY %main (p: f32[8,128]) -> f32[8,128] {{
  %p = {src} parameter(0)
  ROOT %copy.1 = {dst} copy(%p)
}}"""))
    [f] = [f for f in r.findings if f.instruction == "copy.1"]
    assert (f.rule, f.level) == ("moves-data", "note") and moves in f.message


def test_a_bitcast_convert_into_another_memory_space_is_no_error():
    # ShapeVerifier::HandleBitcastConvert compares shapes by
    # ShapeUtil::Compatible (CheckShape's default case: no layout), and a
    # bitcast-convert writes a buffer of its own (ROCm/xla 183fa00cb5d8); the
    # TPU compiler emits f32[16,128]{1,0:T(8,128)} -> u32[...]{1,0:T(8,128)S(1)}
    from locations import DATA
    text = (DATA / "hlo" / "tpu_v5e_bitcast_convert.hlo").read_text()
    assert "bitcast-convert(" in text and "S(1)} bitcast-convert(" in text
    report = check_module(parse_hlo(text))
    assert report.status == "proved", [f.message for f in report.findings
                                      if f.level != "note"]


def test_a_bitcast_convert_between_other_tiles_names_both_layouts():
    m = parse_hlo("ENTRY %e (p: f32[16,128]) -> u32[16,128] {\n"
                  "  %p = f32[16,128]{1,0:T(8,128)} parameter(0)\n"
                  "  ROOT %c = u32[16,128]{1,0:S(1)} bitcast-convert(%p)\n}")
    [f] = [f for f in check_module(m).findings if f.level == "error"]
    assert f.rule == "bitcast-convert-layout"
    assert f.message.endswith("layouts differ: {1,0:T(8,128)} against {1,0}")


@pytest.mark.parametrize("space", [0, 1, 5])
def test_one_memory_space_on_both_sides_is_never_rejected(space):
    # check-hlo asks the verifier's memory-space rule only where the spaces
    # differ: the rule rejects nothing else, at any XLA, constant or not
    from tilespec.prover.bitcast import memory_space_violation
    from tilespec.spec.text import parse_array_shape

    a = parse_array_shape(f"f32[8]{{0:S({space})}}")
    b = parse_array_shape(f"f32[2,4]{{1,0:S({space})}}")
    for xla in (None, "2026-04-01", "2026-08-22"):
        for constant in (False, True):
            assert memory_space_violation(a, b, constant_operand=constant, xla=xla) is None
