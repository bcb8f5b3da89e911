"""The real-XLA worker ties every answer to its input: a text's answer is
the same whether it is asked alone or shuffled among hundreds of others.

Many texts share one compilation in the worker (xla/worker.py), and a
failing compilation is blamed on the text whose shape XLA's message names;
a text that jax hands to XLA as another shape (``s1`` and ``u1`` become
``pred``) once took the blame for a ``pred`` array asked beside it.
"""

from __future__ import annotations

import random

import pytest

from tilespec.xla import real

pytestmark = [
    pytest.mark.integration,  # asks real XLA (jaxlib) in a subprocess
    pytest.mark.skipif(not real.available(),
                       reason="real XLA is not installed (pip install -e '.[xla]')"),
]

TYPES = ["pred", "s1", "u1", "s2", "s4", "u4", "s8", "u8", "s32", "u32", "bf16",
         "f16", "f32", "f64", "c64", "f8e4m3fn", "f4e2m1fn", "s64"]
FIELDS = ["", "T(2)", "T(4)", "L(2)", "#(u8)", "*(u16)", "E(4)", "S(1)",
          "T(2)L(4)", "T(8,128)", "M(8)", "T(0)", "T(2,*)", "SC(0:1)", "E(-1)"]


def texts(seed: int, count: int) -> list[str]:
    """Shape texts, valid and invalid for XLA's validator, with many shapes
    alike but for their element type (which is what XLA's messages name)."""
    rng = random.Random(seed)
    out = {"pred[]{:L(2)}", "s1[]{:#(u8)}", "u1[]{:*(u8)}", "pred[]{:#(u8)}"}
    while len(out) < count:
        rank = rng.randrange(0, 3)
        dims = ",".join(str(rng.randrange(1, 9)) for _ in range(rank))
        m2m = ",".join(map(str, range(rank - 1, -1, -1)))
        out.add(f"{rng.choice(TYPES)}[{dims}]{{{m2m}:{rng.choice(FIELDS)}}}")
    order = sorted(out)
    rng.shuffle(order)
    return order


def facts(a: real.Answer) -> tuple:
    return (a.parsed, a.printed, a.valid, a.reason, a.aborted, a.note)


def test_an_answer_is_the_same_alone_and_in_shuffled_batches():
    same_alone_and_in_shuffled_batches(alone_from_batch=1)


@pytest.mark.slow
def test_more_answers_are_the_same_alone_and_in_shuffled_batches():
    same_alone_and_in_shuffled_batches(alone_from_batch=4)


def same_alone_and_in_shuffled_batches(alone_from_batch: int) -> None:
    batch = texts(18, 250)
    answers = {t: facts(a) for t, a in zip(batch, real.validate(batch))}
    shuffled = batch[:]
    random.Random(1).shuffle(shuffled)
    real.forget()
    again = {t: facts(a) for t, a in zip(shuffled, real.validate(shuffled))}
    alone = {}
    # each text alone is a worker of its own (a jax start): a few suffice
    for t in batch[:alone_from_batch] + ["pred[]{:L(2)}", "s1[]{:#(u8)}", "u1[]{:*(u8)}"]:
        real.forget()
        alone[t] = facts(real.validate([t])[0])
    assert answers == again
    assert {t: answers[t] for t in alone} == alone


def test_a_valid_pred_layout_beside_an_invalid_s1_layout_stays_valid():
    # jax hands XLA the s1 array as pred, and XLA's message names pred[].
    real.forget()
    s1, pred = real.validate(["s1[]{:#(u8)}", "pred[]{:L(2)}"])
    assert pred.valid is True, pred
    assert s1.valid is None and "pred" in (s1.note or ""), s1
