"""An adversarial audit: inputs a hostile but realistic user can give that
lead tilespec to a false "proved", a wrong answer or a traceback.

Each test states the truth by brute force on the concrete evaluator (plain
Python ints) and asks tilespec the same question.  The tests that expose an
open defect are marked ``xfail(strict=True)``: they fail today, and the mark
turns red the day the defect is fixed, so that whoever fixes it removes the
mark.  The reason names the finding of the audit report (ADV-n).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import pytest

from tilespec.prover.properties import prove
from tilespec.spec.errors import TilespecError
from tilespec.spec.index import concrete_dims, evaluate, shape_pipeline
from tilespec.spec.text import parse_array_shape as shape

LONG = 60


def _offsets(s, stages):
    """Every element's offset through ``stages``, on plain ints."""
    dims = concrete_dims(s)
    return [evaluate(stages, e, dims) for e in itertools.product(*map(range, dims))]


def _not_proved_or_refused(call):
    """The verdict, or 'bad input' when tilespec refuses the question."""
    try:
        return call().status
    except TilespecError:
        return "bad input"


# --- ADV-1: a judged stage that divides by a negative number ---------------------

@dataclass(frozen=True)
class NegativeMod:
    """x -> x mod -100 on every entry: Python's remainder takes the divisor's
    sign (so it is x - 100 for 0 < x < 100), the solvers' mod is Euclidean
    (x itself)."""

    level: int = 0
    name: str = "negative mod"

    def dims(self, d, ar):
        return tuple(d)

    def forward(self, e, d, ar):
        return tuple(ar.mod(x, -100) for x in e)

    def backward(self, e, d, ar):
        return tuple(e), ar.true()


@pytest.mark.xfail(strict=True, reason="ADV-1: ar.mod/ar.floordiv by a negative value "
                   "means Euclidean mod to the solver but Python's % on ints: "
                   "in_bounds is 'proved' for offsets that are negative")
def test_negative_divisor_in_a_stage_is_not_proved_in_bounds():
    s = shape("f32[3,5]{1,0:T(2,2)}")
    stages = (NegativeMod(),) + shape_pipeline(s)
    offs = _offsets(s, stages)
    assert min(offs) < 0                      # the truth: not in bounds
    assert _not_proved_or_refused(
        lambda: prove(s, "in_bounds", stages=stages, timeout=LONG)) != "proved"


# --- ADV-2: a judged stage that branches on its (symbolic) index ------------------

@dataclass(frozen=True)
class Diagonal:
    """Sends every diagonal element to (0, 0).  On ints ``e[0] == e[1]`` is a
    comparison of values; on the prover's SMT-LIB text it compares two
    different variable names, which is always False."""

    level: int = 0
    name: str = "diagonal"

    def dims(self, d, ar):
        return tuple(d)

    def forward(self, e, d, ar):
        return (0, 0) if e[0] == e[1] else tuple(e)

    def backward(self, e, d, ar):
        return tuple(e), ar.true()


@pytest.mark.xfail(strict=True, reason="ADV-2: stage methods run on SMT-LIB strings; "
                   "a Python comparison of two index strings is False, so a stage "
                   "that merges the diagonal is 'proved' injective/bijective/inverse")
@pytest.mark.parametrize("prop", ["injective", "bijective", "inverse"])
def test_stage_branching_on_its_index_is_not_proved(prop):
    s = shape("f32[3,3]{1,0}")
    stages = (Diagonal(),) + shape_pipeline(s)
    offs = _offsets(s, stages)
    assert len(set(offs)) < len(offs)         # the truth: (0,0), (1,1), (2,2) collide
    assert _not_proved_or_refused(
        lambda: prove(s, prop, stages=stages, timeout=LONG)) != "proved"


# --- ADV-3: `formula --python --prove` on a layout without tiles ----------------------

def _generated_python(text):
    from tilespec.prover.generated import python_source
    scope_ = {}
    exec(python_source(shape(text), shape(text).is_symbolic), scope_)
    return scope_["offset"], scope_["locate"]


@pytest.mark.xfail(strict=True, reason="ADV-3: the generated locate() of a layout with "
                   "no tiles has no 'if'; _python_parts raises StopIteration, a "
                   "traceback from the command line")
@pytest.mark.parametrize("text", ["f32[3,5]{1,0}", "f32[m,n]{1,0}", "f32[2,3,4]{0,2,1}"])
def test_formula_python_prove_without_padding(capsys, text):
    from tilespec.cli import main
    if not shape(text).is_symbolic:
        # the truth: the generated functions are the spec's, by enumeration
        from tilespec.spec.index import locate, offset
        off, loc = _generated_python(text)
        s = shape(text)
        for e in itertools.product(*map(range, s.dims)):
            assert off(*e) == offset(s, e) and tuple(loc(off(*e))) == e
    assert main(["formula", "--python", "--prove", text]) == 0
