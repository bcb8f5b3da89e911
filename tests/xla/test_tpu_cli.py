"""``tilespec tpu-layout``: the TPU compiler's layout for a parameter, with
tilespec's padded size beside the compiler's; without libtpu, one line and
exit 2."""

from __future__ import annotations

import pytest

from tilespec.cli.main import main
from tilespec.xla import tpu


def test_tpu_layout_without_libtpu_is_a_one_line_refusal(monkeypatch, capsys):
    monkeypatch.setattr(tpu, "available", lambda: False)
    assert main(["tpu-layout", "bf16[129,257]"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "pip install -e '.[tpu]'" in err, err


def test_tpu_layout_refuses_an_element_type_jax_cannot_place(monkeypatch, capsys):
    monkeypatch.setattr(tpu, "available", lambda: True)
    assert main(["tpu-layout", "c64[4]"]) == 2
    assert "not asked about c64" in capsys.readouterr().err


def test_tpu_layout_is_unknown_when_the_compiler_gives_no_answer(monkeypatch, capsys):
    # An abort, a hang or an exception of the compiler decides nothing.
    from tilespec.xla.protocol import Hung

    def hung(*args, **kwargs):
        raise tpu.TpuNoAnswer("parameter", "v5e", Hung(0.001))
    monkeypatch.setattr(tpu, "parameter_module", hung)
    assert main(["tpu-layout", "bf16[129,257]", "--timeout", "0.001"]) == 3
    err = capsys.readouterr().err.strip()
    assert err.startswith("tilespec: tpu-layout: unknown: the TPU compiler gave no answer")
    assert len(err.splitlines()) == 1


@pytest.mark.tpu
@pytest.mark.integration
@pytest.mark.skipif(not tpu.available(), reason=tpu.INSTALL_HINT)
@pytest.mark.parametrize("shape, chip, picked", [
    ("bf16[129,257]", "v5e", "bf16[129,257]{1,0:T(8,128)(2,1)}"),
    ("pred[24,130]", "v6e", "pred[24,130]{1,0:T(8,128)(4,1)}"),
    ("s4[256,128]{0,1}", "v4", "s4[256,128]{1,0:T(64,128)(8,1)E(4)}"),
])
def test_tpu_layout_reads_the_compilers_layout_and_sizes_agree(shape, chip, picked, capsys):
    assert main(["tpu-layout", shape, "--chip", chip]) == 0
    out = capsys.readouterr().out
    assert f"layout           {picked}\n" in out, out
