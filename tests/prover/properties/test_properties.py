"""The prover: proofs for concrete and all shapes, refuted mutants with
replayed counterexamples, honest unknowns, and the ``prove`` command."""

import json

import pytest
from mutants import mutate

import tilespec.prover.properties.proof as properties
from tilespec.cli import main
from tilespec.prover.properties.catalogue import CATALOGUE
from tilespec.prover.properties.proof import PROPERTIES, prove
from tilespec.prover.result import ProverBug
from tilespec.spec.index import evaluate
from tilespec.spec.text import parse_array_shape as shape

#: Time limit for proofs these tests expect to go through: generous, so a
#: loaded machine does not turn a proof into a failure (the verdicts do not
#: depend on speed; a slow solver only makes the test slower).
LONG = 60


@pytest.mark.parametrize("text", [s for s, _ in CATALOGUE])
def test_catalogue_is_proved(text):
    for prop in PROPERTIES:
        r = prove(shape(text), prop, timeout=LONG)
        assert r.status == "proved", (text, prop, r.reason, r.counterexample)
        assert r.scope == ("concrete" if not shape(text).is_symbolic else r.scope)


def test_all_shapes_scope_names_every_dim_and_bound():
    r = prove(shape("bf16[m,n]{1,0:T(8,128)(2,1)}"), "injective", bounds={"n": 4096}, timeout=LONG)
    assert r.status == "proved"
    assert r.scope == "all shapes: m >= 1, 1 <= n <= 4096"


def test_proof_does_not_grow_with_size():
    # The same facts, whatever the sizes: no fact mentions the array's size
    # except as a bound.  (The facts gathered are compared, not timings:
    # timing is measured in benchmarks/.)
    def facts(text):
        p = properties._Proof(shape(text), None, LONG, None)
        PROPERTIES["injective"](p)
        return p.steps()
    assert facts("f32[3,5]{1,0:T(8,128)}") == facts("f32[65536,65536]{1,0:T(8,128)}")
    assert prove(shape("f32[65536,65536]{1,0:T(8,128)}"), "injective", timeout=LONG).proved


# --- mutants: a broken formula must be refuted -------------------------------

@pytest.mark.parametrize("kind, prop, text", [
    ("off_by_one", "injective", "f32[3,5]{1,0:T(2,2)}"),
    ("off_by_one", "formula_equals_prt", "f32[3,5]{1,0:T(2,2)}"),
    ("off_by_one", "inverse", "f32[65536,65536]{1,0:T(8,128)}"),
    ("floor", "in_bounds", "f32[3,5]{1,0:T(2,2)}"),
    ("floor", "bijective", "f32[3,5]{1,0:T(2,2)}"),
    ("swap", "in_bounds", "f32[3,5]{1,0:T(2,2)}"),
    ("swap", "formula_equals_prt", "f32[65536,65536]{1,0:T(8,128)}"),
    ("floor", "in_bounds", "bf16[m,n]{1,0:T(8,128)(2,1)}"),
    ("swap", "formula_equals_prt", "bf16[m,n]{1,0:T(8,128)(2,1)}"),
    ("off_by_one", "packing", "bf16[m,n]{1,0:T(8,128)(2,1)}"),
])
def test_mutant_is_refuted_with_replayed_counterexample(kind, prop, text):
    s = shape(text)
    stages = mutate(s, kind)
    r = prove(s, prop, stages=stages, timeout=LONG)
    assert r.status == "refuted", r
    ce = r.counterexample
    assert ce.details["failed_facts"]
    dims = tuple(ce.details["dims"])
    concrete = s.replace(dims=dims)
    # replay here as well: the offsets reported are the broken pipeline's
    names = [side.name for side in ce.sides]
    if names == ["first", "second"]:
        a, b = ce.side("first"), ce.side("second")
        assert a.element != b.element
        assert evaluate(stages, a.element, dims) == evaluate(stages, b.element, dims) == a.offset
    if names == ["shape"]:
        assert evaluate(stages, ce.side("shape").element, dims) == ce.side("shape").offset
    if prop == "in_bounds":
        assert not 0 <= ce.side("shape").offset < ce.details["padded_size"]
    if prop == "formula_equals_prt" and ce.side("formula").offset is not None:
        from tilespec.spec.prt import prt_offset
        theirs = ce.side("pad_reshape_transpose")
        assert theirs.offset == prt_offset(concrete, theirs.element)
        assert ce.side("formula").offset != theirs.offset
    if s.is_symbolic:
        assert set(ce.dim_values) == set(s.names)


def _solver_gives_up(monkeypatch):
    import tilespec.prover.core.solve as solve
    import tilespec.prover.properties.witness as witness
    monkeypatch.setattr(properties, "all_unsat", lambda *a, **k: False)
    for module in (solve, witness):
        monkeypatch.setattr(module, "search",
                            lambda *a, **k: ("unknown", "solver gave up: timeout after 5 s"))


def test_unknown_is_never_a_pass(monkeypatch):
    # too large to enumerate: the solver's unknown is the answer
    _solver_gives_up(monkeypatch)
    r = prove(shape("f32[65536,65536]{1,0:T(8,128)}"), "injective")
    assert r.status == "unknown" and "timeout" in r.reason


def test_counterexample_that_does_not_replay_is_a_bug(monkeypatch):
    import tilespec.prover.properties.witness as witness
    s = shape("f32[3,5]{1,0:T(2,2)}")
    stages = mutate(s, "floor")
    monkeypatch.setattr(witness, "replay_offset", lambda *a: 0)
    with pytest.raises(ProverBug):
        prove(s, "in_bounds", stages=stages)


def test_each_proof_has_its_own_context():
    a = properties._Proof(shape("f32[3,5]"), None, 1.0, None)
    b = properties._Proof(shape("f32[3,5]"), None, 1.0, None)
    assert a.ctx is not b.ctx


def test_unknown_property_is_bad_input():
    with pytest.raises(ValueError, match="unknown property"):
        prove(shape("f32[3,5]"), "surjective")


# --- the command ------------------------------------------------------------------

def test_prove_command_json(capsys):
    status = main(["prove", "--quiet", "--json", "--timeout", str(LONG), "--property", "bijective",
                   "--property", "inverse", "f32[m,n]{1,0:T(8,128)}", "f32[3,5]{1,0:T(2,2)}"])
    out = json.loads(capsys.readouterr().out)["results"]
    assert status == 0
    assert [(o["subject"]["shape"], o["check"], o["status"]) for o in out] == [
        ("f32[m,n]{1,0:T(8,128)}", "bijective", "proved"),
        ("f32[m,n]{1,0:T(8,128)}", "inverse", "proved"),
        ("f32[3,5]{1,0:T(2,2)}", "bijective", "proved"),
        ("f32[3,5]{1,0:T(2,2)}", "inverse", "proved")]
    assert all(set(o) >= {"subject", "check", "status", "seconds", "counterexample",
                          "reason", "scope"} for o in out)


def test_prove_command_progress_and_table(capsys):
    assert main(["prove", "--timeout", str(LONG), "--property", "in_bounds",
                 "f32[3,5]{1,0:T(2,2)}"]) == 0
    captured = capsys.readouterr()
    assert "[1/1] proved" in captured.err
    assert "1 checks: 1 proved, 0 refuted, 0 unknown" in captured.out


@pytest.mark.parametrize("status, code", [("refuted", 1), ("unknown", 3)])
def test_prove_command_exit_status(monkeypatch, capsys, status, code):
    from tilespec.prover.result import Counterexample, Result, Side
    # the command asks the package's door, where the question is exported
    monkeypatch.setattr("tilespec.prover.properties.prove", lambda s, p, **k: Result(
        "f32[3,5]{1,0}", p, status, 0.0, reason="r" if status == "unknown" else None,
        counterexample=Counterexample({}, (Side("shape", offset=1),))
        if status == "refuted" else None))
    assert main(["prove", "--quiet", "f32[3,5]"]) == code


@pytest.mark.parametrize("argv", [
    ["prove", "f32[3,5"], ["prove", "--property", "nope", "f32[3,5]"],
    ["prove", "--bound", "m", "f32[m]"], ["prove", "--timeout", "x", "f32[3]"]])
def test_prove_command_bad_input(capsys, argv):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Traceback" not in err[0]


def test_broken_pipeline_dividing_by_a_zero_dim_is_searched_not_crashed():
    # Regression: a floor-for-ceil mutant makes a dim 0; the witness search
    # divided plain ints by it and raised ZeroDivisionError.
    s = shape("f32[]{:T(1,2)(1)(1)}")
    r = prove(s, "inverse", stages=mutate(s, "floor"), timeout=LONG)
    assert r.status in ("refuted", "proved")


def test_inverse_fails_when_an_offset_leaves_the_padded_range():
    # Found by the differential test: with P = 0 an element's offset 0 has
    # no locate, so inverse must be refuted, in agreement with enumeration.
    s = shape("f32[1]{0:T(1,2)}")
    r = prove(s, "inverse", stages=mutate(s, "floor"), timeout=LONG)
    assert r.status == "refuted"
    assert r.counterexample.details["located_is_padding"]
    assert r.counterexample.side("located").element is None


def test_hard_whole_layout_search_is_settled_by_enumeration(monkeypatch):
    # Found by the differential test: Z3's whole-layout search for this
    # broken pipeline timed out (unknown); enumerating its 32 elements
    # decides it, and the witness is replayed like any other.  Z3's search
    # is disabled here, so the verdict cannot depend on the solver's speed.
    import tilespec.prover.properties.witness as witness

    def no_z3(*a, **k):
        raise AssertionError("the whole-layout Z3 search ran")
    monkeypatch.setattr(witness, "z3_witness", no_z3)
    s = shape("f32[1,8,2,2]{3,1,2,0:T(1,2,8,7)(5,*,5)(3,*,3)}")
    r = prove(s, "inverse", stages=mutate(s, "swap"), timeout=10)
    assert r.status == "refuted"
