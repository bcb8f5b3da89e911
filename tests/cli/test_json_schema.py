"""Every command's ``--json`` output is one envelope that the shipped JSON
Schema accepts (docs/json.md), errors included, a result per line."""

import importlib.util
import json

import jsonschema
import pytest
from locations import DATA

from tilespec.cli import main
from tilespec.cli.envelope import FORMAT_VERSION, schema
from tilespec.cli.main import build_parser
from tilespec.triton import real as triton_real

VALIDATOR = jsonschema.Draft202012Validator(schema())

#: One or more runs of each command: (argv, expected exit status).
HLO = DATA / "hlo"

RUNS = {
    "explain": [(["explain", "f32[3,5]{1,0:T(2,2)}"], 0),
                (["explain", "f32[m,n]{1,0:T(2,2)}", "--dims", "m=3,n=5"], 0),
                (["explain", "f32[2]{0:T(2)L(4611686018427387904)}"], 0)],  # ArraySize wraps
    "offset": [(["offset", "f32[3,5]{1,0:T(2,2)}", "2,3"], 0)],
    "locate": [(["locate", "f32[3,5]{1,0:T(2,2)}", "9"], 0)],
    "prove": [(["prove", "--quiet", "--property", "injective", "f32[m,n]{1,0:T(8,128)}"], 0),
              (["prove", "--quiet", "--property", "packing", "s4[3]{0:E(4)}"], None)],
    "bitcast": [(["bitcast", "f32[16,256]{1,0:T(8,128)}", "f32[4096]{0}"], 1),
                (["bitcast", "f32[8,256]{1,0}", "f32[256,8]{0,1}", "--transpose", "1,0"], 0),
                (["bitcast", "f32[8,4]{1,0}", "f32[8,4]{0,1}", "--as", "pjrt-buffer"], 1),
                (["bitcast", "f32[1,8]{1,0}", "f32[8,1]{0,1}", "--as", "get-bitcast-map"], 0)],
    "check-rule": [(["check-rule", "--list"], 0),
                   (["check-rule", "linear_index", "bf16[16,256]{1,0:T(8,128)(2,1)}"], 1),
                   (["check-rule", "array_size", "f32[3]{0:L(4)}"], 1),
                   (["check-rule", "reshape_is_bitcast", "f32[16,256]{1,0:T(8,128)}",
                     "f32[4096]{0}"], 1),
                   (["check-rule", "linear_index_nested", "f32[200]{0:T(8,128)}", "--xla",
                     "2026-05-22"], 1)],
    "xla-versions": [(["xla-versions"], 0)],
    "normalize": [(["normalize", "f32[m,n]{1,0:T(8,128)(1,1)}"], 0)],
    "equivalent": [(["equivalent", "f32[3,5]{1,0}", "f32[3,5]{0,1}"], 1)],
    "regress": [(["regress", "f32[3,5]{1,0:T(2,2)}", "--count", "2"], 0)],
    "draw": [(["draw", "f32[3,5]{1,0:T(2,2)}", "--html"], 0),    # the page, in the envelope
             (["draw", "f32[3,5]{1,0:T(2,2)}", "-o", "{tmp}/f.svg"], 0)],
    "formula": [(["formula", "f32[3,5]{1,0:T(2,2)}"], 0),
                (["formula", "f32[m,n]{1,0:T(2,2)}", "--python", "--prove"], 0)],
    "codegen": [(["codegen", "f32[3,5]{1,0:T(2,2)}", "--c"], 0),
                (["codegen", "s4[m,5]{1,0:T(2,2)E(4)}", "--python", "--prove"], 0)],
    "check-hlo": [(["check-hlo", str(HLO / "jax_tiled_bad.hlo")], 1),
                  (["check-hlo", str(HLO / "tpu_style.hlo")], 1)],
    "convert": [(["convert", "f32[3,5]{1,0:T(2,2)}", "f32[3,5]{0,1}"], 0)],
    "padding": [(["padding", "f32[8,8]{1,0:T(8,128)}"], 0)],
    "pallas": [(["pallas", "s8[32,512]@16,128", "--chip", "v6e"], 1),
               (["pallas", "f32[16,3072]@16,3072", "--error", str(DATA / "pallas" / "8732.txt")],
                1)],
    "pallas-order": [(["pallas-order", "s8[1000]{0:T(256)(128)(4,1)}"], 1),   # refuted
                     (["pallas-order", "f32[1000]{0:T(128)}"], 0)],
    "cute": [(["cute", "f32[24,256]{1,0:T(8,128)}"], 0),
             (["cute", "--compare", "f32[24,256]{1,0}", "((8,3),(128,2)):((128,2048),(1,1024))"], 1),
             (["cute", "--from", "((8,3),(128,2)):((128,2048),(1,1024))", "f32[24,256]"], 0)],
    "triton": [(["triton", "--from", str(DATA / "triton" / "t24.json")], 0),
               (["triton", "f32[3,5]{1,0:T(2,2)}"], 1),
               (["triton", "--cute", "f32[8,256]{1,0:T(8,128)}"], 0),
               # without the triton extra --compare is bad input (exit 2)
               pytest.param(["triton", "--compare", "f32[8,16]{1,0:T(2,4)}"],
                            0 if triton_real.available() else 2,
                            marks=pytest.mark.integration),  # asks the real Triton
               (["triton", "f32[8,16]{1,0:T(2,4)}"], 0)],
    "stablehlo-tiling": [(["stablehlo-tiling", "result_layouts = [dense<[1, 0]> : "
                           "tensor<2xindex>], result_tilings = [[dense<[8, 128]> : "
                           "tensor<2xindex>]] -> tensor<8x128xf32>"], 0),
                          (["stablehlo-tiling", "--shape", "f32[8,128]{1,0:T(8,128)}"], 0)],
    "tile": [(["tile", str(DATA / "bytes" / "s4_3x5.npy"), "s4[3,5]{1,0:T(2,2)E(4)}",
               "-o", "{tmp}/a.bin", "--pad", "-1"], 0)],
    "untile": [(["untile", str(DATA / "bytes" / "s4_3x5_T22E4.bin"), "s4[3,5]{1,0:T(2,2)E(4)}",
                 "-o", "{tmp}/a.npy"], 0)],
    # without the xla extra the command is bad input (exit 2), in JSON too
    "xla": [pytest.param(["xla", "f32[3]{0:L(4)}"], 0 if importlib.util.find_spec("jax") else 2,
                         marks=pytest.mark.integration)],  # asks real XLA
    # without the tpu extra (libtpu) the command is bad input (exit 2)
    "tpu-layout": [pytest.param(["tpu-layout", "bf16[129,257]"],
                                0 if importlib.util.find_spec("libtpu") else 2,
                                marks=pytest.mark.integration)],  # asks the TPU compiler
}


def commands():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    return sorted(sub.choices)


def run_json(argv, capsys):
    """The exit status and the document, whose results are one per line
    (docs/json.md: line tools see every result whole)."""
    status = main(argv + ["--json"])
    out = capsys.readouterr().out
    doc = json.loads(out)
    lines = [json.loads(x.removesuffix(",")) for x in out.splitlines() if x.startswith("    {")]
    assert lines == doc["results"]
    return status, doc


def test_every_command_is_covered():
    # A command added without a run here would escape the schema check.
    assert sorted(RUNS) == commands()


@pytest.mark.parametrize("argv,expected",
                         [run for runs in RUNS.values() for run in runs],
                         ids=lambda v: " ".join(v) if isinstance(v, list) else None)
def test_output_matches_the_schema(argv, expected, capsys, tmp_path):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    status, doc = run_json(argv, capsys)
    VALIDATOR.validate(doc)
    assert doc["command"] == argv[0] and doc["exit_status"] == status
    assert doc["format_version"] == FORMAT_VERSION
    if expected is not None:
        assert status == expected
    if expected == 2:   # bad input is an envelope too: its error, no results
        assert doc["error"]["kind"] == "bad input" and doc["results"] == []
        return
    assert doc["error"] is None
    assert doc["results"]
    for r in doc["results"]:
        for value in r["subject"].values():
            # shapes are in named fields, never "A -> B" or "A vs B"
            assert " -> " not in str(value) and " vs " not in str(value)
        if r["status"] == "refuted":
            ce = r["counterexample"]
            assert ce["offsets"] or ce["details"]


def test_a_refuted_bitcast_names_both_sides(capsys):
    _, doc = run_json(["bitcast", "f32[16,256]{1,0:T(8,128)}", "f32[4096]{0}"], capsys)
    (r,) = doc["results"]
    assert r["subject"] == {"source": "f32[16,256]{1,0:T(8,128)}", "target": "f32[4096]{0}"}
    assert r["counterexample"]["elements"] == {"source": [0, 128], "target": [128]}
    assert r["counterexample"]["offsets"] == {"source": 1024, "target": 128}


# `tilespec xla` takes bad text as its subject: what XLA and tilespec say of
# it is the answer, not an error (tests/test_xla_cli.py).
@pytest.mark.parametrize("command", sorted(set(RUNS) - {"xla", "tpu-layout", "check-hlo",
                                                      "xla-versions"}))
def test_bad_input_is_json_too(command, capsys, tmp_path):
    argv, _ = RUNS[command][-1] if command != "check-rule" else RUNS[command][1]
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    bad = [a if not a.startswith(("f32", "bf16", "s4")) else "f32[3,5" for a in argv]
    status, doc = run_json(bad, capsys)
    VALIDATOR.validate(doc)
    assert status == 2 == doc["exit_status"]
    assert doc["results"] == [] and "column" in doc["error"]["message"]


def test_a_missing_hlo_file_is_json_too(capsys, tmp_path):
    status, doc = run_json(["check-hlo", str(tmp_path / "missing.hlo")], capsys)
    VALIDATOR.validate(doc)
    assert status == 2 == doc["exit_status"] and doc["results"] == []


def test_a_usage_error_is_json(capsys):
    status, doc = run_json(["offset", "f32[3]{0}"], capsys)   # no element
    VALIDATOR.validate(doc)
    assert status == 2 and doc["error"]["kind"] == "usage"


def test_the_schema_rejects_what_it_should():
    # The schema is not vacuous: a result without a status, or a refutation
    # without a counterexample, is rejected.
    good = {"format": "tilespec", "format_version": FORMAT_VERSION, "tool": "tilespec",
            "version": "0.1.0", "command": "offset", "exit_status": 0, "error": None,
            "results": [{"subject": {"shape": "f32[3]{0}"}, "check": "offset",
                         "status": "ok", "scope": "concrete", "seconds": 0.0,
                         "counterexample": None, "reason": None, "steps": [], "data": {}}]}
    VALIDATOR.validate(good)
    for change in ({"status": "maybe"}, {"status": "refuted"}, {"subject": {"shape": 3}}):
        bad = json.loads(json.dumps(good))
        bad["results"][0].update(change)
        assert not VALIDATOR.is_valid(bad), change


#: A refuting run of each command that can refute, and the sides its
#: counterexample names.
REFUTING = [
    (["prove", "--quiet", "--property", "injective", "f32[3,5]{1,0:T(2,2)}"], None),
    (["prove", "--quiet", "--property", "packing", "s4[3]{0:E(4)}"], None),
    (["bitcast", "f32[16,256]{1,0:T(8,128)}", "f32[4096]{0}"], ["source", "target"]),
    (["equivalent", "f32[3,5]{1,0}", "f32[3,5]{0,1}"], ["a", "b"]),
    (["check-rule", "linear_index", "bf16[16,256]{1,0:T(8,128)(2,1)}"], ["xla", "spec"]),
    (["check-rule", "array_size", "f32[3]{0:L(4)}"], ["xla", "spec"]),
    (["check-hlo", str(HLO / "jax_tiled_bad.hlo")], None),
]


def _refuted(doc):
    return [r for r in doc["results"] if r["status"] == "refuted"]


@pytest.mark.parametrize("argv,names", REFUTING, ids=lambda v: " ".join(v)
                         if isinstance(v, list) and v and "/" not in v[-1] else None)
def test_every_counterexample_has_the_typed_form(argv, names, capsys):
    status, doc = run_json(argv, capsys)
    VALIDATOR.validate(doc)
    refuted = _refuted(doc)
    if status != 1:
        assert not refuted
        return
    assert refuted
    for r in refuted:
        ce = r["counterexample"]
        assert ce["sides"] and all(side["name"] for side in ce["sides"])
        # elements and offsets are the sides' own, by name
        assert ce["elements"] == {s["name"]: s["element"] for s in ce["sides"]
                                  if s["element"] is not None}
        assert ce["offsets"] == {s["name"]: s["offset"] for s in ce["sides"]
                                 if s["offset"] is not None or s["element"] is not None}
        if names is not None:
            assert [s["name"] for s in ce["sides"]] == names
    # a side with an element or offset is there: a counterexample says where
    assert any(s["element"] is not None or s["offset"] is not None or s["value"] is not None
               for r in refuted for s in r["counterexample"]["sides"])


@pytest.mark.parametrize("argv", [a for a, _ in REFUTING if a[0] != "check-hlo"],
                         ids=lambda v: " ".join(v))
def test_text_and_json_show_the_same_counterexample(argv, capsys):
    from tilespec.prover.result import Counterexample, Side
    status, doc = run_json(argv, capsys)
    assert main(argv) == status
    text = capsys.readouterr().out
    for r in _refuted(doc):
        ce = r["counterexample"]
        typed = Counterexample(
            ce["dim_values"], tuple(Side(**{**s, "element": s["element"]}) for s in ce["sides"]),
            reading=ce["reading"], what=ce["what"])
        for line in typed.lines():
            assert line in text, (line, text)


def test_a_counterexample_renders_from_its_sides():
    from tilespec.prover.result import Counterexample, Side
    ce = Counterexample({"m": 9}, (Side("first", element=(0, 1), offset=5),
                                   Side("second", element=(1, 0), offset=5)),
                        what="two elements at one offset", details={"dims": [9, 2]})
    out = ce.to_json()
    assert out["elements"] == {"first": [0, 1], "second": [1, 0]}
    assert out["offsets"] == {"first": 5, "second": 5}
    assert out["details"] == {"dims": [9, 2]} and out["dim_values"] == {"m": 9}
    assert json.loads(json.dumps(out)) == out
