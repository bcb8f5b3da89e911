"""check-hlo knows a module's backend: the CPU backend stores arrays by
minor_to_major whatever the tiles say (xla/service/llvm_ir/ir_array.cc reads
no tile, ROCm/xla 183fa00cb5d8), so a tiled bitcast that moves bytes only by
its tiles is a warning there (an error with --strict-tiles), and an error on
TPU, GPU or an unknown backend."""

from __future__ import annotations

import pytest
from locations import DATA

from tilespec.cli.main import main
from tilespec.prover.hlo.backend import backend_of
from tilespec.prover.hlo.check import check_module
from tilespec.prover.hlo.module import parse_hlo

#: What XLA's CPU backend emits for a reshape with T(8,128) layouts forced
#: through jax.experimental.layout.Format.
TILED = (DATA / "hlo" / "jax_tiled_bad.hlo").read_text()

#: The issue's pair: untiled f32[16,256] into a tiled f32[4,4,256].
ISSUE = """HloModule m
ENTRY e {
  p = f32[16,256]{1,0} parameter(0)
  ROOT b = f32[4,4,256]{2,1,0:T(8,128)} bitcast(p)
}"""


@pytest.mark.parametrize("name,backend", [
    ("module_0001.jit_f.cpu_after_optimizations.txt", "cpu"),
    ("dump/module_0007.jit_step.tpu_after_optimizations.txt", "tpu"),
    ("module_0002.jit_g.gpu_after_optimizations.txt", "gpu"),
    ("module.hlo", None),
])
def test_the_backend_is_read_from_the_dump_file_name(name, backend):
    assert backend_of(name) == backend


@pytest.mark.parametrize("text", [TILED, ISSUE])
def test_a_bitcast_wrong_only_by_tiles_is_a_warning_on_cpu_and_an_error_elsewhere(text):
    def levels(**options):
        r = check_module(parse_hlo(text), **options)
        return r.status, {(f.rule, f.level) for f in r.findings if f.level != "note"}

    status, found = levels(backend="cpu")
    assert status == "proved" and found == {("bitcast-tiles-ignored", "warning")}
    assert levels(backend="cpu", strict_tiles=True) == (
        "refuted", {("bitcast-tiles-ignored", "error")})
    for backend in ("tpu", "gpu", None):
        assert levels(backend=backend)[0] == "refuted"
        assert "bitcast-tiles-ignored" not in {r for r, _ in levels(backend=backend)[1]}


def test_a_bitcast_that_moves_bytes_untiled_is_an_error_on_cpu_too():
    r = check_module(parse_hlo("""HloModule m
ENTRY e {
  p = f32[2,4]{0,1:T(2,4)} parameter(0)
  ROOT b = f32[6]{0:T(8)} bitcast(p)
}"""), backend="cpu")
    [f] = [f for f in r.findings if f.level != "note"]
    assert r.status == "refuted" and f.level == "error" and f.rule != "bitcast-tiles-ignored"


def test_check_hlo_reads_the_backend_from_the_file_name_or_the_option(tmp_path, capsys):
    cpu = tmp_path / "module_0001.jit_f.cpu_after_optimizations.txt"
    cpu.write_text(TILED)
    assert main(["check-hlo", str(cpu)]) == 0
    assert "the cpu backend stores arrays by minor_to_major" in capsys.readouterr().out
    assert main(["check-hlo", str(cpu), "--strict-tiles"]) == 1
    assert main(["check-hlo", str(cpu), "--backend", "tpu"]) == 1
    plain = tmp_path / "m.hlo"
    plain.write_text(TILED)
    assert main(["check-hlo", str(plain)]) == 1
    assert main(["check-hlo", str(plain), "--backend", "cpu"]) == 0
    capsys.readouterr()
