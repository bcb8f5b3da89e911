"""``check-hlo`` on what a compiler really emits: the optimised HLO of the
programs of :mod:`tilespec.xla.dumps` (an MLP, attention, a convnet, scan and
while loops, int8/int4 and quantized matmuls, tiled and column-major
``Format`` layouts, a transformer and its training step, sharded programs),
compiled by real XLA (jaxlib, CPU) once per test session.

The truth about each bitcast comes from two places that share nothing with
the prover:

* a brute force on numpy: every element of both shapes numbered, laid out
  by :func:`tilespec.spec.physical.to_physical` (the pad-reshape-transpose
  definition of a layout), and the two memory images compared byte by byte
  under each reading XLA may mean (reshape, every transpose that lines the
  dims up, the TRT);
* for untiled layouts, the device's memory: jax places the numbered operand
  with the operand's layout and each reading's result with the result's
  layout, and the raw bytes of the two buffers are compared
  (:func:`tilespec.xla.dumps.memory_agrees`).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

import numpy as np
import pytest
from enumeration import byte_image

from tilespec.cli.main import main
from tilespec.prover.hlo.check import check_module
from tilespec.prover.hlo.findings import Report
from tilespec.prover.hlo.module import Module, parse_hlo
from tilespec.spec.index import concrete_dims
from tilespec.spec.layout import Shape
from tilespec.spec.printer import format_shape
from tilespec.xla import compiled, dumps

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(not compiled.available(), reason="real XLA (jax, jaxlib) is not "
                       "installed: pip install -e '.[xla]'"),
]

def by_program():
    return sorted(dumps.PROGRAMS)


# --- the dumps, read once per session ---------------------------------------------------

@dataclass(frozen=True)
class Bitcast:
    program: str
    name: str
    line: int
    src: Shape
    dst: Shape


@pytest.fixture(scope="session")
def hlo() -> dict[str, str]:
    return dumps.generate()


@pytest.fixture(scope="session")
def modules(hlo) -> dict[str, Module]:
    return {name: parse_hlo(text) for name, text in hlo.items()}


@pytest.fixture(scope="session")
def reports(modules) -> dict[str, Report]:
    return {name: check_module(m) for name, m in modules.items()}


@pytest.fixture(scope="session")
def bitcasts(modules) -> list[Bitcast]:
    out = []
    for program, m in modules.items():
        for inst in m.instructions:
            if inst.opcode == "bitcast":
                (src,) = m.operand_shapes(inst)
                assert isinstance(src, Shape) and isinstance(inst.shape, Shape), inst
                out.append(Bitcast(program, inst.name, inst.line, src, inst.shape))
    return out


# --- the brute force ----------------------------------------------------------------------

def readings(src: Shape, dst: Shape) -> list[str]:
    """XLA's readings of a bitcast in its order: reshape, every transpose
    that lines the dims up, the TRT."""
    perms = [p for p in itertools.permutations(range(src.rank))
             if src.rank == dst.rank and all(dst.dims[i] == src.dims[j]
                                             for i, j in enumerate(p))]
    return ["reshape"] + ["transpose " + ",".join(map(str, p)) for p in perms] + ["trt"]


def major_to_minor(shape: Shape) -> tuple[int, ...]:
    return tuple(reversed(shape.layout.minor_to_major))


def brute_force(src: Shape, dst: Shape) -> dict[str, bool]:
    """For each reading: does every byte keep its place?"""
    sdims, ddims = concrete_dims(src), concrete_dims(dst)
    if src.element_bits != dst.element_bits or np.prod(sdims) != np.prod(ddims):
        return {r: False for r in readings(src, dst)}
    labels = np.arange(int(np.prod(sdims)), dtype=np.int64).reshape(sdims)
    image = byte_image(src, labels)
    out = {}
    for r in readings(src, dst):
        result = dumps.reading_of(labels, r, ddims, major_to_minor(src),
                                  major_to_minor(dst))
        other = byte_image(dst, np.ascontiguousarray(result))
        out[r] = image.shape == other.shape and bool((image == other).all())
    return out


@pytest.fixture(scope="session")
def truth(bitcasts) -> dict[tuple[str, str], dict[str, bool]]:
    """(src, dst) text -> the brute force's answer for each reading."""
    out = {}
    for b in bitcasts:
        key = (format_shape(b.src), format_shape(b.dst))
        if key not in out:
            out[key] = brute_force(b.src, b.dst)
    return out


def key(b: Bitcast) -> tuple[str, str]:
    return format_shape(b.src), format_shape(b.dst)


def keeps_bytes(truth, b: Bitcast) -> bool:
    return any(truth[key(b)].values())


def untiled(s: Shape) -> bool:
    return not s.layout.tiles and s.element_bits in (8, 16, 32, 64)


# --- tests --------------------------------------------------------------------------------

def test_programs_are_varied_and_every_line_is_read(hlo, modules, bitcasts):
    assert len(hlo) == len(dumps.PROGRAMS) >= 15
    for name, text in hlo.items():
        m = modules[name]
        assert not m.skipped, (name, m.skipped[:3])
        printed = len(re.findall(r"^\s*(?:ROOT\s+)?%?\S+ = \S.* bitcast\(", text, re.M))
        assert printed == sum(i.opcode == "bitcast" for i in m.instructions), name
    assert len(bitcasts) >= 200
    assert len({b.program for b in bitcasts}) >= 15


def test_brute_force_sees_the_layouts():
    # The brute force can fail: tiles reorder bytes, a reshape across a tile
    # boundary moves them, a transpose of a column-major layout keeps them.
    from tilespec.spec.text import parse_array_shape as shape
    assert brute_force(shape("f32[16,256]{1,0}"), shape("f32[4096]{0}"))["reshape"]
    assert not any(brute_force(shape("f32[16,256]{1,0:T(8,128)}"),
                               shape("f32[4096]{0}")).values())
    assert brute_force(shape("f32[4,8]{0,1}"), shape("f32[8,4]{1,0}"))["transpose 1,0"]
    assert not brute_force(shape("f32[4,8]{0,1}"), shape("f32[8,4]{1,0}"))["reshape"]
    assert not any(brute_force(shape("f32[8,16]{1,0}"), shape("f16[8,32]{1,0}")).values())
    assert brute_force(shape("s4[8,16]{1,0:E(4)}"), shape("s4[128]{0:E(4)}"))["reshape"]


def test_every_bitcast_verdict_agrees_with_the_brute_force(bitcasts, reports, truth):
    verdicts = {}
    for b in bitcasts:
        (finding,) = [f for f in reports[b.program].findings
                      if f.line == b.line and "decomposition" in f.data]
        d = finding.data["decomposition"]
        answer = truth[key(b)]
        want = "proved" if any(answer.values()) else "refuted"
        assert d["status"] == want, (b, d)
        if want == "proved":
            first = next(r for r, ok in answer.items() if ok)
            kind = first.split()[0]
            assert d["kind"] == kind, (b, d["kind"], answer)
            if kind == "transpose":
                assert {"transpose " + ",".join(map(str, p)) for p in d["permutations"]} == {
                    r for r, ok in answer.items() if ok and r.startswith("transpose")}, b
        verdicts[b.program, b.name] = want
    assert "refuted" in verdicts.values() and "proved" in verdicts.values()


def test_brute_force_agrees_with_the_device_memory(truth):
    pairs = [(s, d) for (s, d) in truth
             if all(untiled(x) for x in (parse(s), parse(d)))]
    assert len(pairs) >= 30
    device = dumps.memory_agrees([(s, d, list(truth[s, d])) for s, d in pairs])
    for (s, d), answer in zip(pairs, device):
        assert answer == truth[s, d], (s, d)
    # readings that move bytes are among those compared (transposes that do
    # not line the layouts up, reshapes of a transposed layout)
    assert {ok for s, d in pairs for ok in truth[s, d].values()} == {True, False}


def parse(text: str) -> Shape:
    from tilespec.spec.text import parse_array_shape
    return parse_array_shape(text)


def test_every_bitcast_that_moves_data_is_an_error(bitcasts, reports, truth):
    moving = [b for b in bitcasts if not keeps_bytes(truth, b)]
    assert moving                    # the tiled Format programs: the CPU ignores tiles
    for b in moving:
        assert any(f.level == "error" and f.line == b.line
                   for f in reports[b.program].findings), b
        assert reports[b.program].status == "refuted", b


@pytest.mark.parametrize("program", by_program())
def test_no_error_on_a_bitcast_that_moves_no_data(program, bitcasts, reports, truth):
    # Every error in a real dump is on a bitcast that moves data: a copy, a
    # transpose or the metadata of a bitcast that keeps its bytes is no error.
    moving = {b.line for b in bitcasts if b.program == program and not keeps_bytes(truth, b)}
    errors = [f for f in reports[program].findings if f.level == "error"]
    assert [f for f in errors if f.line not in moving] == []


@pytest.mark.parametrize("program", by_program())
def test_correct_module_exits_0(program, hlo, bitcasts, truth, tmp_path, capsys):
    path = tmp_path / f"{program}.txt"
    path.write_text(hlo[program])
    correct = all(keeps_bytes(truth, b) for b in bitcasts if b.program == program)
    code = main(["check-hlo", str(path)])
    out = capsys.readouterr().out
    assert code == (0 if correct else 1), out[-2000:]


def test_copies_between_identical_layouts_are_notes(modules, reports):
    # XLA copies a buffer onto the same layout for ownership (donation,
    # loop state): nothing anyone can act on, so no warning.
    seen = 0
    for program, m in modules.items():
        same = {i.line for i in m.instructions if i.opcode == "copy"
                and m.operand_shapes(i) == (i.shape,)}
        seen += len(same)
        loud = [f for f in reports[program].findings
                if f.line in same and f.level != "note"]
        assert loud == [], (program, loud[:3])
    assert seen


def test_transposes_realised_by_a_following_copy_are_notes(modules, reports):
    # A fusion transposes by relabelling the dims (a transpose whose result
    # is physically its operand) and moves the data in the copy after it:
    # the transpose is how XLA writes a copy, not a missed bitcast.
    seen = 0
    for program, m in modules.items():
        copied = {o for i in m.instructions if i.opcode == "copy" for o in i.operands}
        lines = {i.line for i in m.instructions if i.opcode == "transpose" and i.name in copied}
        seen += len(lines)
        loud = [f for f in reports[program].findings
                if f.line in lines and f.level != "note"]
        assert loud == [], (program, loud[:3])
    assert seen
