"""``prover.regress.cases`` and ``tilespec regress``: boundary witnesses that
replay, random cases, deterministic output, and generated test files that
run (pytest) or compile (gtest)."""

import io
import json
import shutil
import subprocess
import sys

import pytest

from tilespec.cli import main
from tilespec.prover.regress.cases import boundary, from_counterexamples, generate
from tilespec.prover.regress.formats import gtest_source, pytest_module, write
from tilespec.spec.errors import TilespecError
from tilespec.spec.index import locate, offset
from tilespec.spec.size import aligned_elements, byte_size
from tilespec.spec.text import parse_array_shape as shape

SHAPES = ["bf16[20,300]{1,0:T(8,128)(2,1)}", "f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}",
          "f32[5]{0:T(8,128)}", "f32[16,256]{1,0:T(8,128)}", "s32[]{:T(128)}"]


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def jsonl(suite):
    out = io.StringIO()
    write(suite, "jsonl", out)
    return out.getvalue()


@pytest.mark.parametrize("text", SHAPES)
def test_boundary_witnesses_replay(text):
    s = shape(text)
    outcomes = boundary(s)
    assert {o.status for o in outcomes} <= {"witness", "empty"}
    for o in outcomes:
        if o.case is None:
            continue
        c = o.case
        if c.element is None:
            assert locate(s, c.offset) is None
        else:
            assert offset(s, c.element) == c.offset
            assert locate(s, c.offset) == tuple(c.element)
        assert c.byte_offset == c.offset * s.element_bits // 8


def test_classes_cover_every_level_edge_and_padding():
    names = {o.name: o for o in boundary(shape("bf16[20,300]{1,0:T(8,128)(2,1)}"))}
    for want in ("level 1 dim 0 (tile 8): first index in a tile",
                 "level 1 dim 0 (tile 8): last index in a tile",
                 "level 1 dim 1 (tile 128): in the last tile",
                 "level 2 entry 0 of the level's tiled entries (tile 2): last index in a tile",
                 "level 1 padding of dim 0 (tile 8)", "level 1 padding of dim 1 (tile 128)"):
        assert names[want].status == "witness", want
    # (2,1) divides the 8 rows of a tile: that padding class is empty
    assert names["level 2 padding of entry 0 of the level's tiled entries (tile 2)"].status == "empty"
    carry = {o.name: o for o in boundary(shape("f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}"))}
    after = carry["level 1 '*' group 1: first index after a carry"].case.element
    assert after[4] == 0 and after[3] > 0
    # no padding at all
    empties = [o for o in boundary(shape("f32[16,256]{1,0:T(8,128)}")) if o.status == "empty"]
    assert {o.name for o in empties} == {"level 1 padding of dim 0 (tile 8)",
                                        "level 1 padding of dim 1 (tile 128)"}


def test_deterministic_for_a_seed():
    shapes = [shape(t) for t in SHAPES[:2]]
    a = jsonl(generate(shapes, count=300, seed=11))
    b = jsonl(generate(shapes, count=300, seed=11))
    c = jsonl(generate(shapes, count=300, seed=12))
    assert a == b and a != c
    lines = [json.loads(x) for x in a.splitlines()]
    assert sum(x["class"] == "random" for x in lines) == 600
    assert any(x["class"] == "random" and x["element"] is None for x in lines)
    assert any(x.get("empty") for x in lines)


def test_random_cases_are_right():
    s = shape("bf16[20,300]{1,0:T(8,128)(2,1)}")
    r = generate([s], count=2000, seed=3).random[0]
    for e, ok, o in list(zip(r.elements.tolist(), r.is_element.tolist(), r.offsets.tolist()))[::97]:
        if ok:
            assert offset(s, e) == o
        else:
            assert locate(s, o) is None


def test_symbolic_shapes_need_sizes():
    with pytest.raises(TilespecError, match="named dims"):
        generate([shape("f32[m,n]{1,0:T(8,128)}")])


def test_from_counterexamples():
    cases = from_counterexamples()
    kinds = {c.klass.split(":")[1].split()[0] for c in cases}
    assert {"XLA's", "reshape_is_bitcast", "transpose_is_bitcast"} <= kinds
    for c in cases:
        s = shape(c.shape)
        if c.kind == "size":
            assert c.extra == {"aligned_elements": aligned_elements(s), "byte_size": byte_size(s)}
        else:
            assert offset(s, c.element) == c.offset
    mine = from_counterexamples([shape("bf16[m,n]{1,0:T(8,128)(2,1)}")])
    assert any("LinearIndex" in c.klass for c in mine)


def _wrong_module() -> str:
    suite = generate([shape("f32[3,5]{1,0:T(2,2)}")], count=10, seed=0)
    text = pytest_module(suite).replace("(2, 3), 17,", "(2, 3), 18,")
    rows = [l for l in text.splitlines() if "(2, 3), 18," in l]
    if not rows:   # element (2,3) was not drawn: break the first element's row
        text = text.replace("'first element', (0, 0), 0, 0)", "'first element', (0, 0), 1, 0)")
    return text


@pytest.fixture(scope="module")
def generated_runs(tmp_path_factory):
    """The generated pytest modules of the tests below, run by one pytest
    process (a start of pytest costs more than the cases): per module, the
    outcome of each of its tests ("passed", "failed", "skipped", "error")."""
    import xml.etree.ElementTree as ET
    folder = tmp_path_factory.mktemp("generated")
    modules = {
        "passes": pytest_module(generate([shape(t) for t in SHAPES], count=500, seed=2,
                                         extra=from_counterexamples())),
        # Regression: a shape with no size cases made the module report
        # "1 skipped", which reads like a problem to whoever runs it.
        "skips_nothing": pytest_module(generate([shape("bf16[20,300]{1,0:T(8,128)(2,1)}")],
                                                count=20, seed=3)),
        "wrong": _wrong_module(),
    }
    for name, text in modules.items():
        (folder / f"test_{name}.py").write_text(text)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "--junitxml", str(folder / "report.xml"),
                           *[f"test_{name}.py" for name in modules]],
                          cwd=folder, capture_output=True, text=True, timeout=300)
    assert done.returncode in (0, 1), done.stdout + done.stderr   # 1: test_wrong fails
    outcomes: dict = {name: [] for name in modules}
    for case in ET.parse(folder / "report.xml").iter("testcase"):
        kinds = [c.tag for c in case if c.tag in ("failure", "skipped", "error")]
        outcomes[case.get("classname").removeprefix("test_")].append(
            {"failure": "failed"}.get(kinds[0], kinds[0]) if kinds else "passed")
    return outcomes, done.stdout + done.stderr


@pytest.mark.integration  # runs pytest (or g++) in a subprocess
def test_generated_pytest_module_passes(generated_runs):
    outcomes, log = generated_runs
    assert outcomes["passes"] and set(outcomes["passes"]) == {"passed"}, log


@pytest.mark.integration  # runs pytest (or g++) in a subprocess
def test_generated_pytest_module_skips_nothing(generated_runs):
    outcomes, log = generated_runs
    assert outcomes["skips_nothing"] and set(outcomes["skips_nothing"]) == {"passed"}, log


@pytest.mark.integration  # runs pytest (or g++) in a subprocess
def test_generated_pytest_module_catches_a_wrong_case(generated_runs):
    outcomes, log = generated_runs
    assert "failed" in outcomes["wrong"] and "error" not in outcomes["wrong"], log


STUB_GTEST = """\
#pragma once
// A stand-in for GoogleTest with just what the generated file uses.
struct StubSink {
  template <class T> StubSink& operator<<(const T&) { return *this; }
};
#define TEST(suite, name) void suite##_##name##_Test()
#define EXPECT_EQ(a, b) if ((a) == (b)) {} else StubSink()
#define EXPECT_TRUE(a) if (a) {} else StubSink()
"""


@pytest.mark.integration  # runs pytest (or g++) in a subprocess
@pytest.mark.skipif(shutil.which("g++") is None, reason="no g++")
def test_generated_gtest_compiles(tmp_path):
    suite = generate([shape(t) for t in SHAPES[:3]], count=50, seed=1,
                     extra=from_counterexamples())
    (tmp_path / "gtest").mkdir()
    (tmp_path / "gtest" / "gtest.h").write_text(STUB_GTEST)
    src = tmp_path / "regress_test.cc"
    src.write_text(gtest_source(suite))
    for defines in ([], ["-DTILESPEC_HAVE_IS_PADDING", "-DTILESPEC_HAVE_BYTE_SIZE"]):
        done = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", "-Wall",
                               f"-I{tmp_path}", *defines, str(src)],
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
    text = src.read_text()
    assert "int64_t LinearIndex(const std::string& shape" in text
    assert '{"f32[5]{0:T(8,128)}", "last element", {4}, 4},' in text


def test_cli(capsys, tmp_path):
    out_file = tmp_path / "cases.jsonl"
    code, out, _ = run(capsys, "regress", "f32[3,5]{1,0:T(2,2)}", "--count", "40",
                       "--seed", "5", "-o", str(out_file), "--json")
    assert code == 0
    summary = json.loads(out)["results"][0]["data"]
    lines = out_file.read_text().splitlines()
    assert summary["cases"] == len([l for l in lines if '"empty"' not in l])
    code, out, _ = run(capsys, "regress", "f32[3,5]{1,0:T(2,2)}", "--count", "3")
    assert code == 0 and len(out.splitlines()) == 12 + 1 + 3      # a size case
    code, _, err = run(capsys, "regress", "f32[m,5]{1,0:T(2,2)}")
    assert code == 2 and "named dims" in err
    code, out, _ = run(capsys, "regress", "--from-counterexamples", "--format", "pytest")
    assert code == 0 and "counterexample: XLA's LinearIndex" in out


# --- a pytest module that tests the user's code (--target) ------------------------------

USER_CODE = '''\
from tilespec.spec.index import locate, offset as spec_offset
from tilespec.spec.size import byte_size as spec_byte_size
from tilespec.spec.text import parse_array_shape


def offset(shape, index):
    s = parse_array_shape(shape)
    o = spec_offset(s, index)
    return o + 1 if BUGGY and o == 12 else o


def is_padding(shape, o):
    return locate(parse_array_shape(shape), o) is None


def byte_size(shape):
    return spec_byte_size(parse_array_shape(shape))
'''


@pytest.mark.integration  # runs pytest (or g++) in a subprocess
def test_targeted_pytest_module_tests_the_users_code(tmp_path, capsys):
    out = tmp_path / "test_layout_regress.py"
    code, _, _ = run(capsys, "regress", "f32[3,5]{1,0:T(2,2)}", "--count", "24",
                     "--seed", "1", "--format", "pytest", "--target", "userlayout:offset",
                     "-o", str(out))
    assert code == 0
    # one run, with a bug at offset 12 only: every other case passes
    (tmp_path / "userlayout.py").write_text("BUGGY = True\n" + USER_CODE)
    done = subprocess.run([sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider",
                           str(out)], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 1, done.stdout + done.stderr
    failed = [l for l in done.stdout.splitlines() if l.endswith("FAILED") or " FAILED " in l]
    assert failed and all("in the last tile" in l or "random" in l for l in failed), failed
    # the failing test's id names the case: its number, shape and class
    assert "test_offset[offset " in failed[0] and "f32[3,5]" in failed[0]
    assert "test_padding[padding 0: " in done.stdout and "test_size[size 0: " in done.stdout
    assert "skipped" not in done.stdout


def test_target_is_bad_input_unless_module_colon_function(capsys):
    code, _, err = run(capsys, "regress", "f32[3]", "--format", "pytest", "--target", "x.y")
    assert code == 2 and "MODULE:FUNCTION" in err
    code, _, err = run(capsys, "regress", "f32[3]", "--format", "jsonl", "--target", "x:y")
    assert code == 2 and "--target" in err
