"""Each class of past text differences (tests/xla/text_classes.py), drawn
afresh and asked of the XLA binary: parse and print equal tilespec's outside
documented parser slack, so that a new difference of a known kind is found
by this test."""

from __future__ import annotations

import pytest
from text_cases import verdicts
from text_classes import CLASSES, draw

from tilespec.xla import real

pytestmark = [
    pytest.mark.integration,  # asks real XLA (jaxlib) in a subprocess
    pytest.mark.skipif(not real.available(),
                       reason="real XLA is not installed (pip install -e '.[xla]')"),
]

COUNT = 150


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_each_class_reads_as_the_binary_reads_it(name):
    texts = draw(name, 3100, COUNT)
    out, _ = verdicts(texts, {})
    wrong = [f"{t!r}: {v}" for t, v in out.items() if v not in ("agree", "allowed")]
    assert not wrong, f"{len(wrong)} of {len(texts)} differ:\n" + "\n".join(wrong[:30])
