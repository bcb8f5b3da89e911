"""tilespec padding says what it knows and where it is unsure: a report whose
printed sizes are not its shape's is warned of, the report's operator and
source line are kept, a dump directory is read as check-hlo reads it, the
alternatives are those a JAX user can request unless ``--any-tiles``, and
every alternative whose spec size and XLA's ArraySize differ says so."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from tilespec.cli.main import main
from tilespec.cli.padding import format_advice
from tilespec.prover.padding import JAX, advise, read_report
from tilespec.prover.padding.report import disagreements
from tilespec.spec.text import parse_array_shape

DATA = Path(__file__).parent.parent / "data" / "padding"


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_printed_sizes_that_are_not_the_shape_s_are_warned_of_2x_and_64x(capsys):
    code, out, _ = run(capsys, "padding", "--report", DATA / "oom_report_disagrees.txt",
                       "--limit", 0)
    assert code == 0
    assert "warning        the report prints Size: 32.00G, the shape computes 16.00G: 2x" in out
    assert "the report prints 64x expansion, the shape computes 32x: 2x" in out
    assert ("the report prints Unpadded size: 375.0K, the shape computes 5.8K: 64x") in out


def test_a_report_that_agrees_with_its_shapes_gets_no_warning(capsys):
    code, out, _ = run(capsys, "padding", "--report", DATA / "oom_report.txt", "--limit", 0)
    assert code == 0 and "warning" not in out
    (entry,) = read_report((DATA / "oom_report.txt").read_text())
    a = advise(entry.shape, 0)
    assert disagreements(entry, a.xla_bytes, a.unpadded_bytes) == ()


def test_the_report_s_operator_and_source_line_are_kept(capsys):
    code, out, _ = run(capsys, "padding", "--report", DATA / "oom_report_disagrees.txt",
                       "--limit", 0)
    assert 'operator       op_name="jit(step)/jit(main)/reshape"' in out
    assert "source         /w/model.py:42" in out and "source         /w/layers.py:7" in out
    code, out, _ = run(capsys, "padding", "--report", DATA / "oom_report_disagrees.txt",
                       "--limit", 0, "--json")
    first, second = json.loads(out)["results"]
    assert first["data"]["report"]["source"] == "/w/model.py:42"
    assert first["data"]["report"]["operator"].startswith('op_name="jit(step)')
    assert first["data"]["warnings"][0].endswith(": 2x")
    assert second["data"]["warnings"] == [
        "the report prints Unpadded size: 375.0K, the shape computes 5.8K: 64x"]


def test_a_dump_directory_is_read_as_check_hlo_reads_it(tmp_path, capsys):
    d = tmp_path / "dump"
    d.mkdir()
    for n, shape in ((1, "u32[1536,1]{1,0:T(8,128)}"), (2, "f32[8,128]{1,0:T(8,128)}")):
        (d / f"module_000{n}.jit_f.tpu_after_optimizations.txt").write_text(
            f"HloModule m\nENTRY e {{\n  ROOT p = {shape} parameter(0)\n}}\n")
    (d / "module_0001.jit_f.tpu_after_optimizations-buffer-assignment.txt").write_text("junk")
    code, out, err = run(capsys, "padding", "--hlo", d, "--top", 2, "--json", "--limit", 0)
    assert (code, err) == (0, "")
    assert [r["subject"]["shape"] for r in json.loads(out)["results"]] == [
        "u32[1536,1]{1,0:T(8,128)}", "f32[8,128]{1,0:T(8,128)}"]


def test_the_issue_s_recommendation_is_hidden_by_default_and_marked_with_any_tiles(capsys):
    # bf16[3000]{0:T(1,128)(2,1)}: ArraySize 6144 bytes, the spec 12288 (the
    # (2,1) level pads the 1 of T(1,128)); and XLA picked T(8,128), not T(1,128)
    shape = "bf16[3,1000]{1,0:T(8,128)(2,1)}"
    _, out, _ = run(capsys, "padding", shape)
    assert "bf16[3000]{0:T(1,128)(2,1)}" not in out
    assert ("no smaller layout a JAX user can request; 1 smaller with other tiles or E(n): "
            "--any-tiles shows it") in out
    _, out, _ = run(capsys, "padding", shape, "--any-tiles")
    lines = out.splitlines()
    i = lines.index(next(x for x in lines if x.startswith("  bf16[3000]{0:T(1,128)(2,1)}")))
    assert "not requestable in JAX" in lines[i + 1]
    assert lines[i + 2] == ("      warning: spec and XLA's ArraySize differ 2x here (spec 12288 "
                            "bytes, ArraySize 6144: ArraySize pads by the first tile only)")


def test_a_requestable_layout_says_how_jax_asks_for_it(capsys):
    _, out, _ = run(capsys, "padding", "s32[8388608,8,4]{2,1,0:T(8,128)}", "--limit", 1)
    assert "  s32[8388608,8,4]{0,1,2:T(8,128)}  1073741824 bytes" in out
    assert "      JAX: Format(Layout(major_to_minor=(2, 1, 0)), sharding)" in out


SHAPES = st.builds(
    lambda t, dims, tile, order: f"{t}[{','.join(map(str, dims))}]"
    f"{{{','.join(map(str, order(len(dims))))}:T{tile}}}",
    st.sampled_from(["f32", "bf16", "s8"]),
    st.lists(st.integers(1, 300), min_size=1, max_size=3),
    st.sampled_from(["(8,128)", "(4,128)(2,1)", "(8,128)(2,1)", "(8,128)(4,1)"]),
    st.sampled_from([lambda r: range(r - 1, -1, -1), lambda r: range(r)]))


@settings(max_examples=12, deadline=None)
@given(SHAPES, st.booleans())
def test_no_alternative_is_printed_without_saying_where_the_sizes_differ(text, any_tiles):
    a = advise(text, decide=False, any_tiles=any_tiles)
    out = format_advice(a, any_tiles=any_tiles)
    if a.spec_bytes != a.xla_bytes:
        assert "warning        spec and XLA's ArraySize differ" in out
    for alt in a.alternatives:
        lines = out.splitlines()
        i = next(n for n, x in enumerate(lines) if x.startswith(f"  {alt.shape}  "))
        block = "\n".join([lines[i]] + list(itertools.takewhile(
            lambda x: x.startswith("      "), lines[i + 1:])))
        assert ("spec and XLA's ArraySize differ" in block) == (alt.spec_bytes != alt.xla_bytes)
        assert ("not requestable in JAX" in block) == (not alt.requestable)
        if not any_tiles:
            assert alt.requestable
            assert JAX.requestable(text, alt.shape)
            assert parse_array_shape(alt.shape).layout.tiles == parse_array_shape(
                text).layout.tiles


@pytest.mark.parametrize("there,asked", [
    ("f32[8,128]{0,1:T(8,128)}", "Format(Layout(major_to_minor=(1, 0)), sharding)"),
    ("f32[2,8,128]{2,0,1:T(8,128)}", "Format(Layout(major_to_minor=(1, 0, 2)), sharding)"),
])
def test_jax_asks_for_the_order_major_to_minor(there, asked):
    # jax/_src/layout.py: Layout._to_xla_layout passes major_to_minor[::-1]
    # as XLA's minor_to_major
    assert JAX.request(there) == asked
