"""The advice against real XLA: every alternative it proposes parses, prints
as written, passes XLA's layout validator, and has XLA's ArraySize.

The public reports' shapes are scaled down (the leading dim) so that the CPU
client can allocate them; the padding is the same.
"""

from __future__ import annotations

import pytest

from tilespec.prover.padding.advice import advise
from tilespec.xla import real

pytestmark = [
    pytest.mark.integration,  # asks real XLA (jaxlib) in a subprocess
    pytest.mark.skipif(not real.available(),
                       reason="real XLA is not installed (pip install -e '.[xla]')"),
]

SCALED = [
    "s32[16,1,16,128,4]{4,3,2,0,1:T(8,128)}",     # jax-ml/jax#7502
    "s32[1024,8,4]{2,1,0:T(8,128)}",               # flowpm#27
    "u32[1536,1]{1,0:T(8,128)}",                   # pytorch/xla#1965
    "bf16[16,1,16,128]{0,1,3,2:T(4,128)(2,1)}",    # pytorch/xla#6674
    "f32[250,1280]{1,0:T(8,128)}",                 # salesforce/ctrl#38
    "pred[4,16,2048]{2,1,0:T(8,128)E(32)}",        # google/trax#525
    "s8[3,5,7]{2,1,0:T(8,128)(4,1)}",
]


def test_every_alternative_is_valid_and_sized_as_xla_sizes_it():
    advices = [advise(s, decide=False) for s in SCALED]
    texts = [s for a in advices for s in [a.shape] + [alt.shape for alt in a.alternatives]]
    expected = {a.shape: a.xla_bytes for a in advices}
    expected.update({alt.shape: alt.xla_bytes for a in advices for alt in a.alternatives})
    answers = real.ask(texts)
    measured = 0
    for text, answer in zip(texts, answers):
        assert answer.parsed and answer.printed == text, answer
        assert answer.valid, answer
        if answer.array_size is not None and answer.device_layout in text:
            assert answer.array_size == expected[text], answer
            measured += 1
    assert measured >= len(SCALED)
