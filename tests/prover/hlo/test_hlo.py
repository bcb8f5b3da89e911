"""``prover.hlo.module``, ``prover.bitcast.decompose``, ``prover.hlo.check`` and ``tilespec
check-hlo``: HLO dumps read, every bitcast decomposed and judged on bytes,
every refuted bitcast's counterexample confirmed by an independent
computation (the pad-reshape-transpose memory image of a numbered array).
"""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from locations import DATA

from tilespec.cli.main import main
from tilespec.prover.bitcast import decompose, is_bitcast, prove_reading
from tilespec.prover.bitcast.xla_reading import (
    normalized,
    transpose_candidates,
    xla_transpose_permutation,
)
from tilespec.prover.hlo.check import check_module, meant_op
from tilespec.prover.hlo.findings import RULES
from tilespec.prover.hlo.module import parse_hlo, parse_instruction, shape_prefix
from tilespec.prover.result import Counterexample
from tilespec.spec import from_physical, physical_size, to_physical
from tilespec.spec.layout import TupleShape
from tilespec.spec.printer import format_shape
from tilespec.spec.text import parse_array_shape as shape

DATA = DATA / "hlo"


def run(capsys, *argv, stdin=None, monkeypatch=None):
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def module(body: str, header: str = "HloModule m"):
    return parse_hlo(f"{header}\nENTRY %e (p: f32[1]) -> f32[1] {{\n{body}\n}}\n")


# --- reading ---------------------------------------------------------------------------

def test_reads_the_tpu_style_module():
    m = parse_hlo((DATA / "tpu_style.hlo").read_text())
    assert m.name == "jit_step"
    assert m.entry_layout.startswith("(bf16[1024,1024]{1,0:T(8,128)(2,1)}, f32[3,5]")
    assert [c.name for c in m.computations] == ["fused_computation.1", "main.7"]
    assert [c.is_entry for c in m.computations] == [False, True]
    # names with and without '%', operands with their shapes (older dumps)
    good = m.instruction("good.1")
    assert (good.opcode, good.operands, good.line) == ("bitcast", ("Arg_0.1",), 12)
    assert m.instruction("negate.1").operands == ("param_0.1",)
    # memory space S(1) read by the shape parser
    assert m.instruction("Arg_1.2").shape.layout.memory_space == 1
    # tuples with /*index=*/ comments; get-tuple-element; attributes kept
    tup = m.instruction("tup.11")
    assert isinstance(tup.shape, TupleShape) and len(tup.shape.elements) == 2
    assert m.instruction("gte.12").attribute("index") == "1"
    assert m.instruction("fusion.13").attribute("calls") == "%fused_computation.1"
    assert m.instruction("weird.10").attribute("backend_config") == '{"a": [1, 2]}'
    assert m.instruction("Arg_0.1").attribute("sharding") == "{replicated}"
    assert m.instruction("negate.1").op_name == "jit(step)/neg"
    assert m.instruction("out.14").is_root
    # the line that is not HLO is skipped with its line number, not a crash
    assert [(s.line, s.text) for s in m.skipped] == [(21, "this line is not HLO at all")]


def test_a_closing_brace_with_attributes_ends_the_computation():
    m = parse_hlo("%async (p: f32[2]) -> f32[2] {\n  ROOT %p = f32[2]{0} parameter(0)\n"
                  "}, execution_thread=\"host\"\n\nENTRY %e (q: f32[2]) -> f32[2] {\n"
                  "  ROOT %q = f32[2]{0} parameter(0)\n}\n")
    assert [c.name for c in m.computations] == ["async", "e"] and not m.skipped


def test_shape_prefix_and_instruction_forms():
    assert shape_prefix("f32[2]{0:T(2)S(1)} copy(%a)") == ("f32[2]{0:T(2)S(1)}", 18)
    i = parse_instruction('%c = f32[2]{0} constant({1, 2}), metadata={op_name="a/b"}')
    assert i.operands == () and i.op_name == "a/b"
    i = parse_instruction("%t = f32[3,2]{0,1} transpose(%a), dimensions={1,0}  ")
    assert i.dimensions == (1, 0)
    with pytest.raises(ValueError):
        parse_instruction("%t = f32[3,2 transpose(%a)")


@pytest.mark.parametrize("text", ["", "hello", "HloModule m\n"])
def test_not_a_module_is_bad_input(text):
    with pytest.raises(ValueError, match="no computation"):
        parse_hlo(text)


def test_unknown_instructions_are_skipped_not_crashes_and_leave_the_module_unknown():
    m = module("  %a = f32[4]{0} parameter(0)\n"
               "  %b = f99[4]{0} frobnicate(%a)\n"
               "  %c = f32[4]{0} bitcast(%missing)\n"
               "  %d = token[] after-all()")
    assert [s.line for s in m.skipped] == [4]          # unknown element type
    r = check_module(m)
    skipped = [f for f in r.findings if f.rule == "skipped"]
    assert [f.line for f in skipped] == [4, 5]         # operand not in the module
    assert r.status == "unknown"                       # what was not read may hide a bitcast


@pytest.mark.parametrize("op", [
    "f32[2,512]{1,0:T(8,128)} copy(%p)",
    "f32[128,4]{0,1} transpose(%p), dimensions={1,0}",
    "f32[8,128]{1,0} transpose(%p), dimensions={0,0}",
    "f32[4000]{0} reshape(%p)",
])
def test_an_instruction_xla_rejects_leaves_the_module_unknown_not_proved(op):
    # XLA's ShapeVerifier rejects each of these (HandleCopy, HandleTranspose,
    # HandleReshape): nothing about the module's bitcasts is shown
    m = module("  %p = f32[8,128]{1,0:T(8,128)} parameter(0)\n"
               "  %b = f32[1024]{0} bitcast(%p)\n"
               f"  ROOT %x = {op}")
    r = check_module(m)
    skipped = [f for f in r.findings if f.rule == "skipped"]
    assert [(f.line, f.level) for f in skipped] == [(5, "warning")]
    assert "XLA's verifier rejects it" in skipped[0].message
    assert r.status == "unknown"


def test_a_valid_copy_transpose_or_reshape_is_no_skip():
    m = module("  %p = f32[8,128]{1,0:T(8,128)} parameter(0)\n"
               "  %c = f32[8,128]{1,0} copy(%p)\n"
               "  %t = f32[128,8]{1,0} transpose(%p), dimensions={1,0}\n"
               "  ROOT %r = f32[1024]{0} reshape(%p)")
    r = check_module(m)
    assert not [f for f in r.findings if f.rule == "skipped"]
    assert r.status == "proved"


# --- decomposition ---------------------------------------------------------------------

def test_xla_permutation_and_candidates():
    src, dst = shape("f32[2,3,4]{2,1,0}"), shape("f32[2,4,3]{1,2,0}")
    assert xla_transpose_permutation(src, dst) == (0, 2, 1)
    # repeated dims: every permutation that lines the dims up, XLA's first
    src, dst = shape("f32[4,4,2]{2,1,0}"), shape("f32[4,4,2]{2,0,1}")
    assert transpose_candidates(src, dst) == [(1, 0, 2), (0, 1, 2)]
    assert format_shape(normalized(shape("f32[2,3]{0,1:T(2,2)}"))) == "f32[3,2]{1,0:T(2,2)}"


def test_decomposition_kinds():
    d = decompose(shape("f32[4,4,2]{2,1,0}"), shape("f32[4,4,2]{2,0,1}"))
    assert (d.status, d.kind, d.permutations) == ("proved", "transpose", ((1, 0, 2),))
    d = decompose(shape("f32[2,3,4]{2,1,0}"), shape("f32[4,6]{0,1}"))
    assert (d.status, d.kind) == ("proved", "trt")
    assert format_shape(d.trt.reshape_shape) == "f32[6,4]{1,0}"
    d = decompose(shape("f32[m,n]{1,0:T(8,128)}"), shape("f32[1,m,n]{2,1,0:T(8,128)}"))
    assert (d.status, d.kind) == ("proved", "reshape")
    assert decompose(shape("f32[4]{0}"), shape("bf16[4]{0}")).status == "refuted"
    # other byte sizes: XLA's verifier rejects it, a verdict
    d = decompose(shape("f32[3,5]"), shape("f32[4,4]"))
    assert d.status == "refuted" and d.counterexample.what.startswith("the byte sizes differ")
    with pytest.raises(ValueError, match="element count"):
        decompose(shape("f32[m]{0}"), shape("f32[n]{0}"))
    with pytest.raises(ValueError, match="unbounded dim"):
        decompose(shape("f32[?]{0}"), shape("f32[4]{0}"))


# XLA's own expectations for DecomposeBitcast (its shape_util tests), as facts:
# (SRC, DST, kind, transpose1, transpose1 shape, reshape shape, transpose2)
XLA_CASES = [
    ("f32[1,16,17,3]{3,2,1,0}", "f32[16,51]{1,0}", "reshape", None),
    ("f32[17,3,1,16]{1,0,3,2}", "f32[51,16]{0,1}", "reshape", None),
    ("f32[16,17,3]{2,1,0}", "f32[51,16]{0,1}", "trt",
     ((0, 1, 2), "f32[16,17,3]{2,1,0}", "f32[16,51]{1,0}", (1, 0))),
    ("f32[16,17,3,7]{3,2,1,0}", "f32[7,16,51]{0,2,1}", "trt",
     ((0, 1, 2, 3), "f32[16,17,3,7]{3,2,1,0}", "f32[16,51,7]{2,1,0}", (2, 0, 1))),
    ("f32[16,3,17]{1,2,0}", "f32[51,16]{1,0}", "trt",
     ((0, 2, 1), "f32[16,17,3]{2,1,0}", "f32[51,16]{1,0}", (0, 1))),
    ("f32[16,3,17]{1,2,0}", "f32[16,51]{0,1}", "trt",
     ((0, 2, 1), "f32[16,17,3]{2,1,0}", "f32[51,16]{1,0}", (1, 0))),
]


@pytest.mark.parametrize("src,dst,kind,trt", XLA_CASES)
def test_decomposition_matches_xla_on_untiled_layouts(src, dst, kind, trt):
    d = decompose(shape(src), shape(dst))
    assert (d.status, d.kind) == ("proved", kind)
    if trt:
        t = d.trt.to_json()
        assert (tuple(t["transpose1"]), t["transpose1_shape"], t["reshape_shape"],
                tuple(t["transpose2"])) == trt


def test_xla_reshape_is_not_a_bitcast_when_dim0_is_most_minor():
    # XLA: ReshapeIsBitcast(f32[3,2,2]{0,1,2}, f32[6,2]{0,1}) is false
    d = decompose(shape("f32[3,2,2]{0,1,2}"), shape("f32[6,2]{0,1}"))
    assert d.result("reshape").status == "refuted" and d.kind == "trt"


def test_padding_inside_the_last_byte_is_no_difference():
    # 4 padded s4 elements and 3 take the same 2 bytes: the same bytes.
    src, dst = shape("s4[3]{0:T(4)E(4)}"), shape("s4[3]{0:E(4)}")
    # the reading compares bytes, as XLA's verifier does
    assert prove_reading(src, dst, (0,)).status == "proved"
    assert is_bitcast(src, dst, (0,)).status == "proved"
    assert is_bitcast(src, dst).status == "proved"
    # ... but not when the bytes differ
    assert is_bitcast(shape("s4[3]{0:T(8)E(4)}"), dst, (0,)).status == "refuted"


def confirm(src, dst, ce, paired):
    """The counterexample, confirmed without the index arithmetic: the memory
    images of numbered arrays (pad-reshape-transpose), and the bitcast as a
    reinterpretation of SRC's bytes as DST."""
    if isinstance(ce, Counterexample):
        ce = ce.to_json()
    # the counterexample's JSON, read by side
    side = {x["name"]: x for x in ce["sides"]}
    ce = {f"{p}_{k}": side[name][k] for p, name in (("src", "source"), ("dst", "target"))
          for k in ("element", "offset", "byte_offset")}
    a = np.arange(1, int(np.prod(src.dims)) + 1).reshape(src.dims)
    e, f = tuple(ce["src_element"]), tuple(ce["dst_element"])
    img = to_physical(a, src, pad_value=0)
    assert img[ce["src_offset"]] == a[e]
    b = np.arange(1, int(np.prod(dst.dims)) + 1).reshape(dst.dims)
    assert to_physical(b, dst, pad_value=0)[ce["dst_offset"]] == b[f]
    assert ce["src_byte_offset"] == ce["src_offset"] * src.element_bits // 8
    # the logical op pairs e with f ...
    assert paired(a)[f] == a[e]
    # ... but reading SRC's bytes as DST puts something else at f
    n = physical_size(dst)
    buf = np.concatenate([img, np.zeros(max(0, n - img.size), img.dtype)])[:n]
    assert from_physical(buf, dst)[f] != a[e]


def test_refuted_tiled_bitcast_counterexample_is_confirmed():
    src, dst = shape("f32[8,128]{1,0:T(8,128)}"), shape("f32[2,512]{1,0:T(8,128)}")
    d = decompose(src, dst)
    assert d.status == "refuted"
    confirm(src, dst, d.counterexample, lambda a: a.reshape(dst.dims))


def test_refuted_trt_counterexample_is_confirmed():
    # column-major tiled SRC; the TRT reshape is the tiled one that fails
    src, dst = shape("f32[128,8]{0,1:T(8,128)}"), shape("f32[512,2]{0,1:T(8,128)}")
    d = decompose(src, dst)
    assert d.status == "refuted" and d.trt is not None
    # TRT's logical meaning: to physical order, row-major reshape, back
    def paired(a):
        t = np.transpose(a, d.trt.transpose1).reshape(normalized(dst).dims)
        return np.transpose(t, d.trt.transpose2)
    confirm(src, dst, d.counterexample, paired)


# --- modules --------------------------------------------------------------------------

def test_tpu_style_module_findings():
    r = check_module(parse_hlo((DATA / "tpu_style.hlo").read_text()))
    rules = {(f.instruction, f.rule) for f in r.findings}
    assert ("good.1", "bitcast-proved") in rules
    assert ("bad.2", "bitcast-refuted") in rules
    assert ("t.3", "bitcast-proved") in rules               # as a reshape ...
    assert ("t.3", "meant-transpose-not-bitcast") in rules  # ... but a transpose was meant
    assert ("copy.5", "could-be-bitcast") in rules
    assert ("copy.6", "moves-data") in rules
    assert r.status == "refuted"
    worst = r.worst(1)[0]
    assert (worst.instruction, worst.bytes, worst.waste) == ("bad.2", 16384, 16384 - 4096)
    largest = r.largest(1)[0]                              # bf16[1024,1024]: 2 MiB
    assert (largest.instruction, largest.bytes) == ("Arg_0.1", 2 * 1024 * 1024)
    arg1 = next(b for b in r.buffers if b.instruction == "Arg_1.2")
    assert (arg1.bytes, arg1.waste) == (4096, 4096 - 60)
    # every refuted bitcast's counterexample confirmed independently
    for f in r.findings:
        if f.rule == "bitcast-refuted":
            d = f.data["decomposition"]
            src, dst = shape(d["src"]), shape(d["dst"])
            confirm(src, dst, d["counterexample"], lambda a, dst=dst: a.reshape(dst.dims))


def test_meant_transpose_legal_only_as_trt_is_a_finding():
    # the swapped-operand bug: a bitcast recorded as a transpose that keeps
    # bytes only as some other reading
    m = module('  %p = f32[4,8]{1,0} parameter(0)\n'
               '  %b = f32[8,4]{1,0} bitcast(%p), metadata={op_name="jit(f)/transpose"}')
    r = check_module(m)
    f = next(f for f in r.findings if f.rule == "meant-transpose-not-bitcast")
    # op_name is a hint, not the program's claim: a warning, the module proved
    assert f.level == "warning" and "legal only as a reshape" in f.message
    assert r.status == "proved"
    # the user's own statement is a claim: an error
    r = check_module(m, meant={"b": (1, 0)})
    f = next(f for f in r.findings if f.rule == "meant-transpose-not-bitcast")
    assert f.level == "error" and r.status == "refuted"
    # the same bitcast with a layout that makes the transpose a no-op is fine
    m = module('  %p = f32[4,8]{1,0} parameter(0)\n'
               '  %b = f32[8,4]{0,1} bitcast(%p), metadata={op_name="jit(f)/transpose"}')
    assert check_module(m).status == "proved"


def test_meant_transpose_is_tried_when_the_bitcast_is_a_reshape():
    # [1,8] -> [8,1]: proved as a reshape first, and the transpose 1,0 keeps
    # the bytes too: no finding
    m = module('  %p = f32[1,8]{1,0} parameter(0)\n'
               '  %b = f32[8,1]{1,0} bitcast(%p), metadata={op_name="jit(f)/transpose"}')
    r = check_module(m)
    assert r.status == "proved", [f.message for f in r.findings]
    # op_name cannot mean a transpose between dims that are no permutation of
    # each other: no finding; the user stating it is an error
    m = module('  %p = f32[2,8]{1,0} parameter(0)\n'
               '  %b = f32[16]{0} bitcast(%p), metadata={op_name="transpose[permutation=(1,0)]"}')
    r = check_module(m)
    assert not [f for f in r.findings if f.rule == "meant-transpose-not-bitcast"]
    r = check_module(m, meant={"b": (1, 0)})
    (f,) = [f for f in r.findings if f.rule == "meant-transpose-not-bitcast"]
    assert f.level == "error" and "has dims [8,2], not [16]" in f.message


def test_meant_permutation_from_the_user(capsys, tmp_path):
    # [4,4]: the identity and the swap both line up; the user names which
    text = ("HloModule m\nENTRY %e (p: f32[4,4]) -> f32[4,4] {\n"
            "  %p = f32[4,4]{1,0} parameter(0)\n"
            "  ROOT %b = f32[4,4]{0,1} bitcast(%p)\n}\n")
    path = tmp_path / "m.hlo"
    path.write_text(text)
    assert run(capsys, "check-hlo", str(path))[0] == 0
    assert run(capsys, "check-hlo", str(path), "--meant", "b=1,0")[0] == 0
    code, out, _ = run(capsys, "check-hlo", str(path), "--meant", "b=0,1")
    assert code == 1 and "meant-transpose-not-bitcast" in out
    code, _, err = run(capsys, "check-hlo", str(path), "--meant", "p=1,0")
    assert code == 2 and err.count("\n") == 1
    code, _, err = run(capsys, "check-hlo", str(path), "--meant", "b")
    assert code == 2 and "NAME=P" in err


def test_meant_op_reads_op_names():
    p = parse_instruction
    assert meant_op(p('%b = f32[2]{0} bitcast(%a), metadata={op_name="jit(f)/jit(g)/reshape"}')) \
        == ("reshape", None)
    assert meant_op(p('%b = f32[2]{0} bitcast(%a), metadata={op_name="transpose[permutation=(0,)]"}')) \
        == ("transpose", (0,))
    assert meant_op(p('%b = f32[2]{0} bitcast(%a)')) == (None, None)


def test_verdicts_are_reused_per_pair_of_shapes():
    lines = ["  %p = f32[8,128]{1,0} parameter(0)"]
    lines += [f"  %b{i} = f32[2,4,128]{{2,1,0}} bitcast(%p)" for i in range(5)]
    r = check_module(module("\n".join(lines)))
    assert r.counts["bitcasts"] == 5
    assert (r.counts["proofs"], r.counts["reused"]) == (1, 4)


# --- the command line --------------------------------------------------------------------

def test_cli_exit_statuses_and_stdin(capsys, monkeypatch, tmp_path):
    good = (DATA / "jax_tuple_dot.hlo").read_text()
    code, out, _ = run(capsys, "check-hlo", "-", stdin=good, monkeypatch=monkeypatch)
    assert code == 0 and out.startswith("module jit_g: proved")
    code, out, _ = run(capsys, "check-hlo", str(DATA / "tpu_style.hlo"), "--json")
    module = json.loads(out)["results"][0]          # the envelope: the module first
    assert code == 1 and module["status"] == "refuted"
    assert module["data"]["worst_padding"][0]["instruction"] == "bad.2"
    code, _, err = run(capsys, "check-hlo", str(tmp_path / "nope.hlo"))
    assert code == 2 and err.startswith("tilespec: error: cannot read")
    code, _, err = run(capsys, "check-hlo", "-", stdin="not hlo", monkeypatch=monkeypatch)
    assert code == 2 and err.count("\n") == 1
    from tilespec.prover.core import solve
    monkeypatch.setattr(solve, "search", lambda *a, **k: ("unknown", "solver gave up: test"))
    # and no enumeration decides it either: the question stays open
    monkeypatch.setattr("tilespec.prover.bitcast.reading.exact_in_int64", lambda q: False)
    m = "HloModule m\nENTRY %e () -> f32[6] {\n  %p = f32[2,3]{1,0} parameter(0)\n" \
        "  ROOT %b = f32[6]{0} bitcast(%p)\n}\n"
    code, out, _ = run(capsys, "check-hlo", "-", stdin=m, monkeypatch=monkeypatch)
    assert code == 3 and "bitcast-unknown" in out


def test_sarif_has_the_required_structure(capsys):
    code, out, _ = run(capsys, "check-hlo", str(DATA / "tpu_style.hlo"), "--format", "sarif")
    log = json.loads(out)
    assert code == 1
    assert log["version"] == "2.1.0" and log["$schema"].endswith("sarif-2.1.0.json")
    (run_,) = log["runs"]
    driver = run_["tool"]["driver"]
    assert driver["name"] == "tilespec"
    ids = [r["id"] for r in driver["rules"]]
    assert ids == list(RULES)
    lines = (DATA / "tpu_style.hlo").read_text().splitlines()
    assert run_["results"]
    for res in run_["results"]:
        assert res["level"] in ("error", "warning", "note")
        assert ids[res["ruleIndex"]] == res["ruleId"]
        assert res["message"]["text"]
        (loc,) = res["locations"]
        region = loc["physicalLocation"]["region"]
        assert loc["physicalLocation"]["artifactLocation"]["uri"].endswith("tpu_style.hlo")
        # the region is the instruction's line in the dump
        name = res.get("properties", {}).get("instruction")
        if name:
            assert f"{name} =" in lines[region["startLine"] - 1]
    errors = {r["ruleId"] for r in run_["results"] if r["level"] == "error"}
    # what op_name suggests is a warning; the bitcast that moves bytes an error
    assert errors == {"bitcast-refuted"}
    warnings = {r["ruleId"] for r in run_["results"] if r["level"] == "warning"}
    assert {"meant-reshape-not-bitcast", "meant-transpose-not-bitcast"} <= warnings


def test_sarif_validates_against_a_schema_of_its_required_parts(capsys):
    jsonschema = pytest.importorskip("jsonschema")
    region = {"type": "object", "required": ["startLine"],
              "properties": {"startLine": {"type": "integer", "minimum": 1}}}
    location = {"type": "object", "properties": {"physicalLocation": {
        "type": "object", "required": ["artifactLocation", "region"],
        "properties": {"region": region}}}}
    result = {"type": "object", "required": ["message", "ruleId", "locations"],
              "properties": {
                  "message": {"type": "object", "required": ["text"]},
                  "level": {"enum": ["none", "note", "warning", "error"]},
                  "locations": {"type": "array", "items": location}}}
    tool = {"type": "object", "required": ["driver"], "properties": {
        "driver": {"type": "object", "required": ["name"]}}}
    schema = {"type": "object", "required": ["version", "runs"], "properties": {
        "version": {"const": "2.1.0"},
        "runs": {"type": "array", "minItems": 1, "items": {
            "type": "object", "required": ["tool", "results"],
            "properties": {"tool": tool, "results": {"type": "array", "items": result}}}}}}
    for name in ("jax_reshape_transpose.hlo", "tpu_style.hlo"):
        _, out, _ = run(capsys, "check-hlo", str(DATA / name), "--format", "sarif")
        jsonschema.validate(json.loads(out), schema)


def test_bitcast_command_without_option_decomposes(capsys):
    code, out, _ = run(capsys, "bitcast", "f32[2,3,4]{2,1,0}", "f32[4,6]{0,1}")
    assert code == 0 and out.startswith("bitcast: proved as a trt")
    code, out, _ = run(capsys, "bitcast", "f32[8,128]{1,0:T(8,128)}",
                       "f32[2,512]{1,0:T(8,128)}", "--json")
    data = json.loads(out)["results"][0]
    assert code == 1 and data["status"] == "refuted"
    (source,) = [s for s in data["counterexample"]["sides"] if s["name"] == "source"]
    assert source["byte_offset"] == 512
    code, out, _ = run(capsys, "bitcast", "f32[8,4]{1,0}", "f32[4,8]{0,1}", "--reshape")
    assert code == 1 and out.startswith("not a bitcast")


# --- real XLA output ----------------------------------------------------------------------

@pytest.mark.parametrize("name", ["jax_reshape_transpose", "jax_tuple_dot",
                                  "jax_transpose_copy", "jax_tiled_good",
                                  "jax_tiled_transpose"])
def test_stored_jax_dumps(name):
    r = check_module(parse_hlo((DATA / f"{name}.hlo").read_text()))
    assert r.status == "proved" and r.counts["bitcasts"] >= 1
    assert not [f for f in r.findings if f.rule == "skipped"]


def test_stored_jax_dump_findings():
    r = check_module(parse_hlo((DATA / "jax_reshape_transpose.hlo").read_text()))
    rules = {(f.instruction, f.rule) for f in r.findings}
    # XLA's transpose into a layout that keeps the bytes, then the copy that
    # moves them: a note, nothing to act on
    assert ("transpose.9", "layout-change") in rules
    assert ("copy.1", "moves-data") in rules


def test_xla_cpu_bitcast_that_tiles_make_a_copy():
    # Real XLA (CPU) emitted this bitcast for x.reshape(16, 2, 128) with
    # T(8,128) layouts chosen by Format: under the tiles, dim 1 (2) pads
    # to 8, so the bytes do not line up.
    r = check_module(parse_hlo((DATA / "jax_tiled_bad.hlo").read_text()))
    assert r.status == "refuted"
    (f,) = [f for f in r.findings if f.rule == "bitcast-refuted"]
    d = f.data["decomposition"]
    assert (d["src"], d["dst"]) == ("f32[16,256]{1,0:T(8,128)}", "f32[16,2,128]{2,1,0:T(8,128)}")
    src, dst = shape(d["src"]), shape(d["dst"])
    confirm(src, dst, d["counterexample"], lambda a, dst=dst: a.reshape(dst.dims))


def test_live_jax_tiled_dump():
    jax = pytest.importorskip("jax")
    try:
        from jax.experimental.layout import Format, Layout
    except ImportError:
        pytest.skip("this jax has no Format")
    s = jax.sharding.SingleDeviceSharding(jax.devices()[0])
    fin = Format(Layout((0, 1), tiling=((8, 128),)), s)
    fout = Format(Layout((0, 1, 2), tiling=((8, 128),)), s)
    x = jax.numpy.ones((16, 256), jax.numpy.float32)
    text = jax.jit(lambda x: x.reshape(16, 2, 128), in_shardings=fin,
                   out_shardings=fout).lower(x).compile().as_text()
    r = check_module(parse_hlo(text))
    # whatever XLA emits must be read, and any bitcast between these tiled
    # layouts judged; if XLA keeps the bitcast it is refuted
    assert not [f for f in r.findings if f.rule == "skipped"]
    if r.counts["bitcasts"]:
        assert r.status == "refuted"


def test_live_jax_dump():
    jax = pytest.importorskip("jax")
    jnp = jax.numpy

    def f(x):
        return jnp.transpose(x.reshape(2, 4, 8), (1, 0, 2)).reshape(8, 8) + 1

    text = jax.jit(f).lower(jnp.ones((8, 8), jnp.float32)).compile().as_text()
    r = check_module(parse_hlo(text))
    assert r.status == "proved"
    assert not [f for f in r.findings if f.rule == "skipped"]
    assert r.counts["instructions"] >= 3


def test_a_report_without_buffers_has_the_same_findings(capsys):
    # text and SARIF read no buffer without --tables: the checker leaves
    # them out there, and nothing else of the report changes
    def said(report):             # the data holds each decision's time
        return [(f.rule, f.level, f.line, f.instruction, f.message, f.counterexample)
                for f in report.findings]
    for name in ("jax_tiled_bad.hlo", "jax_tuple_dot.hlo"):
        module = parse_hlo((DATA / name).read_text())
        whole, lean = check_module(module), check_module(module, buffers=False)
        assert whole.buffers and lean.buffers == ()
        assert said(lean) == said(whole) and lean.counts == whole.counts
        assert lean.status == whole.status
    path = DATA / "jax_tiled_bad.hlo"
    seen = {}
    for argv in ([], ["--tables"], ["--format", "sarif"], ["--json"]):
        main(["check-hlo", str(path), *argv])
        seen[tuple(argv)] = capsys.readouterr().out
    assert "largest values" in seen[("--tables",)]
    assert '"buffers": [{' in seen[("--json",)]
