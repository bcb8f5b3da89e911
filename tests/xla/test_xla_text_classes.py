"""Each class of past text differences (tests/xla/text_classes.py), drawn
afresh and asked of the XLA binary: parse and print equal tilespec's outside
documented parser slack, so that a new difference of a known kind is found
by this test."""

from __future__ import annotations

import functools

import pytest
from text_cases import asked, verdicts
from text_classes import CLASSES, draw

from tilespec.xla import real

pytestmark = [
    pytest.mark.integration,  # asks real XLA (jaxlib) in a subprocess
    pytest.mark.skipif(not real.available(),
                       reason="real XLA is not installed (pip install -e '.[xla]')"),
]

#: Texts per class of the default run; 150 per class under -m slow.
COUNT = 60
CAMPAIGN = 150


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_each_class_reads_as_the_binary_reads_it(name):
    each_class_reads_as_the_binary_reads_it(name, COUNT)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CLASSES))
def test_more_of_each_class_read_as_the_binary_reads_them(name):
    each_class_reads_as_the_binary_reads_it(name, CAMPAIGN)


def each_class_reads_as_the_binary_reads_it(name: str, count: int) -> None:
    texts = draw(name, 3100, count)
    out, _ = verdicts(texts, {}, answered=binary_answers(count))
    wrong = [f"{t!r}: {v}" for t, v in out.items() if v not in ("agree", "allowed")]
    assert not wrong, f"{len(wrong)} of {len(texts)} differ:\n" + "\n".join(wrong[:30])


@functools.cache
def binary_answers(count: int) -> dict[str, real.Answer]:
    """The binary's answer to every text of every class (and the arrays
    standing in for them), asked in one batch: one worker, not one per
    class (an answer is the same in any batch: tests/xla/test_xla_batches.py)."""
    texts = sorted({t for name in CLASSES for t in draw(name, 3100, count)})
    every = asked(texts, {})
    return dict(zip(every, real.ask(every, measure=False)))
