"""Custom stages are never trusted symbolically through Python: they only see
traced values (prover/properties/traced.py), a divisor that is not a positive int is
Python's floor division or a fact to prove, and combine_equals_reshape finds
the merges from the shape."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import pytest

from tilespec.prover.core.encode import SmtArithmetic
from tilespec.prover.properties.proof import prove
from tilespec.prover.properties.traced import NotSymbolic, Traced, is_spec_stage
from tilespec.spec.index import Combine, Split, evaluate, shape_pipeline
from tilespec.spec.text import parse_array_shape as shape

LONG = 60


@dataclass(frozen=True)
class SortedEntries:
    """Sorts the index entries: on ints a collision ((0,1) and (1,0)); on
    text, sorted() compares variable names and is a fixed permutation."""
    level: int = 0
    name: str = "sorted"

    def dims(self, d, ar):
        return tuple(d)

    def forward(self, e, d, ar):
        return tuple(sorted(e))

    def backward(self, e, d, ar):
        return tuple(e), ar.true()


@dataclass(frozen=True)
class Diagonal:
    level: int = 0
    name: str = "diagonal"

    def dims(self, d, ar):
        return tuple(d)

    def forward(self, e, d, ar):
        return (0, 0) if e[0] == e[1] else tuple(e)

    def backward(self, e, d, ar):
        return tuple(e), ar.true()


@dataclass(frozen=True)
class ModByMinusDim:
    """e0 -> e0 mod -d0: Euclidean mod keeps e0 (in the box), Python's
    gives e0 - d0 < 0 for e0 > 0."""
    level: int = 0
    name: str = "mod by minus the dim"

    def dims(self, d, ar):
        return tuple(d)

    def forward(self, e, d, ar):
        return (ar.mod(e[0], ar.mul(-1, d[0])),) + tuple(e[1:])

    def backward(self, e, d, ar):
        return tuple(e), ar.true()


def _collide(s, stages):
    dims = s.dims
    offs = [evaluate(stages, e, dims) for e in itertools.product(*map(range, dims))]
    return len(set(offs)) < len(offs)


@pytest.mark.parametrize("stage", [SortedEntries(), Diagonal()])
def test_a_branching_stage_is_refuted_on_ints_not_proved_on_terms(stage):
    s = shape("f32[3,4]{1,0:T(2,2)}")
    stages = (stage,) + shape_pipeline(s)
    assert _collide(s, stages)
    r = prove(s, "injective", stages=stages, timeout=LONG)
    assert r.status == "refuted", r
    a, b = (r.counterexample.side(n).element for n in ("first", "second"))
    assert evaluate(stages, a, s.dims) == evaluate(stages, b, s.dims)


@pytest.mark.parametrize("stage", [SortedEntries(), Diagonal()])
def test_a_branching_stage_for_all_shapes_is_not_proved(stage):
    s = shape("f32[m,n]{1,0}")
    assert prove(s, "injective", stages=(stage,) + shape_pipeline(s),
                 timeout=LONG).status != "proved"


def test_too_large_to_enumerate_a_branching_stage_is_unknown():
    # 2^22 elements: not enumerated; Z3's bool() of x == y is structural
    # equality, so the whole-layout search must not run the stage on Z3 terms
    s = shape("f32[2048,2048]{1,0}")
    r = prove(s, "injective", stages=(Diagonal(),) + shape_pipeline(s), timeout=LONG)
    assert r.status == "unknown" and "symbolic" in r.reason, r


@pytest.mark.parametrize("text", ["f32[3,5]{1,0:T(2,2)}", "f32[m,n]{1,0:T(2,2)}"])
def test_dividing_by_a_negative_value_is_python_floor_division(text):
    s = shape(text)
    stages = (ModByMinusDim(),) + shape_pipeline(s)
    assert evaluate(stages, (1, 0), (3, 5)) < 0          # the truth, on ints
    r = prove(s, "in_bounds", stages=stages, timeout=LONG)
    assert r.status == "refuted", r
    ce = r.counterexample
    side = ce.side("shape")
    assert evaluate(stages, side.element, ce.details["dims"]) == side.offset < 0


def test_negative_literal_divisors_are_floor_division_in_smt():
    ar = SmtArithmetic()
    assert ar.floordiv(5, -100) == 5 // -100 and ar.mod(5, -100) == 5 % -100
    assert ar.floordiv("x", -100) == "(div (* (- 1) x) 100)"
    assert ar.divisors == []
    ar.mod("x", "n")
    assert ar.divisors == ["n"]


def test_traced_values_refuse_python_decisions():
    x, y = Traced("i.x", SmtArithmetic()), Traced("i.y", SmtArithmetic())
    for decide in (lambda: bool(x == y), lambda: sorted([x, y]), lambda: {x: 1},
                   lambda: max(x, y), lambda: x / 2, lambda: range(x)):
        with pytest.raises(NotSymbolic):
            decide()


def test_a_subclass_of_a_spec_stage_is_custom():
    @dataclass(frozen=True)
    class MySplit(Split):
        pass
    assert is_spec_stage(Split((2,))) and not is_spec_stage(MySplit((2,)))


@dataclass(frozen=True)
class Merge(Combine):
    """A Combine in all but name."""
    name: str = "merge"


@dataclass(frozen=True)
class Flatten:
    """Combine's map, by another class and name."""
    groups: tuple
    level: int = 0
    name: str = "flatten"

    def dims(self, d, ar):
        return Combine(self.groups).dims(d, ar)

    def forward(self, e, d, ar):
        return Combine(self.groups).forward(e, d, ar)

    def backward(self, e, d, ar):
        return Combine(self.groups).backward(e, d, ar)


def test_combine_equals_reshape_is_judged_against_the_shape():
    s = shape("f32[2,3]{1,0:T(*,4)}")
    assert prove(s, "combine_equals_reshape", timeout=LONG).proved
    assert prove(shape("f32[2,3]{1,0:T(2,4)}"), "combine_equals_reshape",
                 timeout=LONG).proved                  # no '*': nothing to show
    # the merge under another name and class: the shape says dims are
    # combined at level 1, no stage there is known to be the combine
    hidden = tuple(Flatten(x.groups, x.level) if type(x) is Combine else x
                   for x in shape_pipeline(s))
    r = prove(s, "combine_equals_reshape", stages=hidden, timeout=LONG)
    assert r.status == "unknown" and "no stage there is a combine" in r.reason, r
    # a subclass of Combine under another name is still the merge (and right)
    renamed = tuple(Merge(x.groups, x.level) if type(x) is Combine else x
                    for x in shape_pipeline(s))
    assert prove(s, "combine_equals_reshape", stages=renamed, timeout=LONG).proved


@dataclass(frozen=True)
class Halve:
    """x / 2: a float on ints, no index."""
    level: int = 0
    name: str = "halve"

    def dims(self, d, ar):
        return tuple(d)

    def forward(self, e, d, ar):
        return tuple(x / 2 for x in e)

    def backward(self, e, d, ar):
        return tuple(e), ar.true()


def test_a_stage_giving_floats_is_bad_input():
    from tilespec.spec.errors import TilespecError
    s = shape("f32[3,5]{1,0}")
    with pytest.raises(TilespecError, match="not an integer"):
        prove(s, "injective", stages=(Halve(),) + shape_pipeline(s))


@dataclass(frozen=True)
class Same:
    """The spec's stage, by another class: traced, and still proved."""
    inner: object

    @property
    def level(self):
        return self.inner.level

    @property
    def name(self):
        return self.inner.name

    def dims(self, d, ar):
        return self.inner.dims(d, ar)

    def forward(self, e, d, ar):
        return self.inner.forward(e, d, ar)

    def backward(self, e, d, ar):
        return self.inner.backward(e, d, ar)


@pytest.mark.parametrize("text", ["bf16[m,n]{1,0:T(8,128)(2,1)}", "f32[2,3,4]{2,1,0:T(*,2,4)}"])
@pytest.mark.parametrize("prop", ["injective", "inverse", "formula_equals_prt",
                                  "combine_equals_reshape"])
def test_tracing_a_correct_stage_still_proves(text, prop):
    s = shape(text)
    stages = tuple(Same(x) for x in shape_pipeline(s))
    assert not any(is_spec_stage(x) for x in stages)
    r = prove(s, prop, stages=stages, timeout=LONG)
    assert r.status == "proved", r
