"""``prover.bitcast.prove_reading`` and ``tilespec bitcast``: reshapes and transposes that
keep every byte where it is, proved or refuted with a replayed witness."""

import itertools
import json

import numpy as np
import pytest

from tilespec.cli import main
from tilespec.prover.bitcast import prove_reading, reading
from tilespec.prover.bitcast.reshape_groups import reshape_groups
from tilespec.prover.result import ProverBug
from tilespec.spec.errors import TilespecError
from tilespec.spec.index import delinearise, linear_index, offset
from tilespec.spec.layout import Layout, Shape
from tilespec.spec.size import aligned_elements
from tilespec.spec.text import parse_array_shape as shape


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def instantiate(text, values):
    s = shape(text)
    return s.replace(dims=tuple(values.get(d, d) if isinstance(d, str) else d
                                for d in s.dims))


def brute_force(src, dst, transpose=None):
    """Every element, one at a time, with the scalar evaluator."""
    if aligned_elements(src) != aligned_elements(dst):
        return False
    for e in itertools.product(*[range(d) for d in src.dims]):
        if transpose is None:
            f = delinearise(linear_index(e, src.dims), dst.dims)
        else:
            f = tuple(e[p] for p in transpose)
        if offset(src, e) != offset(dst, f):
            return False
    return True


def check_replays(r):
    """A refutation's counterexample, recomputed here from the texts."""
    ce = r.counterexample
    source, target = ce.side("source"), ce.side("target")
    if ce.dim_values:
        src, dst = shape(source.shape), shape(target.shape)
        assert not (src.is_symbolic or dst.is_symbolic)
    else:
        a, b = r.shape.split(" -> ")
        src, dst = shape(a), shape(b)
    if source.element is not None:
        assert offset(src, source.element) == source.offset
        assert offset(dst, target.element) == target.offset
        assert source.offset != target.offset
        assert ce.what in ("the offsets differ", "the offsets and the sizes differ")
    if "sizes" in ce.details:
        sizes = ce.details["sizes"]
        assert aligned_elements(src) == sizes["source"]["aligned_elements"]
        assert aligned_elements(dst) == sizes["target"]["aligned_elements"]
        assert aligned_elements(src) != aligned_elements(dst)
    assert source.element is not None or "sizes" in ce.details or \
        ce.what == "the element widths differ"


# --- all shapes ----------------------------------------------------------------

PROVED_ALL = [
    ("f32[m,n]{1,0:T(8,128)}", "f32[1,m,n]{2,1,0:T(8,128)}", None),
    ("bf16[m,n]{1,0:T(8,128)(2,1)}", "bf16[1,m,n]{2,1,0:T(8,128)(2,1)}", None),
    ("f32[m,n]{1,0}", "f32[m,n,1]{2,1,0}", None),
    ("f32[m,4,32]{2,1,0}", "f32[m,128]{1,0}", None),
    ("f32[m,16,128]{2,1,0:T(8,128)}", "f32[m,2,8,128]{3,2,1,0:T(8,128)}", None),
    ("f32[6,m,n]{2,1,0:T(8,128)}", "f32[2,3,m,n]{3,2,1,0:T(8,128)}", None),
    ("f32[2,m]{1,0}", "f32[m,2]{1,0}", None),
    ("f32[m,n]{1,0}", "f32[n,m]{1,0}", None),
    ("f32[m,n]{1,0:T(8,128)L(1024)}", "f32[1,m,n]{2,1,0:T(8,128)}", None),
    ("f32[m,n]{1,0:T(8,128)}", "f32[n,m]{0,1:T(8,128)}", (1, 0)),
    ("f32[a,m,n]{2,1,0:T(8,128)}", "f32[m,a,n]{2,0,1:T(8,128)}", (1, 0, 2)),
]

REFUTED_ALL = [
    ("f32[m,n]{1,0:T(8,128)}", "f32[m,n,1]{2,1,0:T(8,128)}", None),
    ("f32[m,16,128]{2,1,0:T(8,128)}", "f32[m,2048]{1,0:T(8,128)}", None),
    ("f32[m,n]{1,0:T(8,128)L(2048)}", "f32[1,m,n]{2,1,0:T(8,128)}", None),
    ("f32[m,n]{1,0}", "f32[n,m]{1,0}", (1, 0)),
    ("f32[m,n]{1,0:T(8,128)}", "f32[n,m]{0,1:T(2,128)}", (1, 0)),
]


@pytest.mark.parametrize("src,dst,t", PROVED_ALL)
def test_proved_for_all_shapes(src, dst, t):
    r = prove_reading(shape(src), shape(dst), t)
    assert r.status == "proved", r.reason
    assert r.scope.startswith("all shapes")
    assert any("mixed-radix" in s for s in r.steps)
    # the claim, checked element by element at a few sizes
    for values in ({"m": 3, "n": 5, "a": 2}, {"m": 9, "n": 130, "a": 1}):
        assert brute_force(instantiate(src, values), instantiate(dst, values), t)


@pytest.mark.parametrize("src,dst,t", REFUTED_ALL)
def test_refuted_for_all_shapes(src, dst, t):
    r = prove_reading(shape(src), shape(dst), t)
    assert r.status == "refuted"
    assert r.scope.startswith("all shapes")
    assert r.counterexample.dim_values
    check_replays(r)


# --- concrete ------------------------------------------------------------------

def test_concrete_large_proved():
    r = prove_reading(shape("bf16[1024,1024]{1,0:T(8,128)(2,1)}"),
               shape("bf16[8,128,1024]{2,1,0:T(8,128)(2,1)}"))
    assert (r.status, r.scope) == ("proved", "concrete")


def test_concrete_refuted_element():
    r = prove_reading(shape("f32[16,256]{1,0:T(8,128)}"), shape("f32[4096]{0}"))
    assert r.status == "refuted"
    assert r.counterexample.side("source").element == (0, 128)
    check_replays(r)


def test_concrete_refuted_sizes_only():
    # every element keeps its offset, but the tiled buffer is padded
    r = prove_reading(shape("f32[3,128]{1,0:T(8,128)}"), shape("f32[384]{0}"))
    assert r.status == "refuted"
    assert r.counterexample.side("source").element is None
    assert r.counterexample.what == "the sizes differ"
    check_replays(r)


def test_element_bits_differ():
    r = prove_reading(shape("f32[4]{0}"), shape("bf16[4]{0}"))
    assert r.status == "refuted"
    ce = r.counterexample
    assert (ce.side("source").value, ce.side("target").value) == (32, 16)
    assert ce.what == "the element widths differ"


def test_zero_elements():
    assert prove_reading(shape("f32[0,5]{1,0}"), shape("f32[5,0]{1,0}")).status == "proved"


def test_agrees_with_brute_force_on_small_shapes():
    rng = np.random.default_rng(5)
    tiles = [(), ((2, 2),), ((1, 2),), ((2,),), ((3, 1),), ((2, 2), (2, 1))]
    dims = [(2, 6), (3, 4), (12,), (2, 2, 3), (4, 3), (6, 2)]
    seen = 0
    for _ in range(40):
        a, b = rng.choice(len(dims), 2)
        da, db = dims[a], dims[b]
        la = Layout(tuple(rng.permutation(len(da))), tiles=tiles[rng.integers(len(tiles))])
        lb = Layout(tuple(range(len(db) - 1, -1, -1)), tiles=tiles[rng.integers(len(tiles))])
        src, dst = Shape("f32", da, la), Shape("f32", db, lb)
        r = prove_reading(src, dst)
        assert r.status in ("proved", "refuted")
        assert (r.status == "proved") == brute_force(src, dst)
        if r.status == "refuted":
            check_replays(r)
        seen += r.status == "proved"
    assert seen > 0


# --- the pieces ------------------------------------------------------------------

def test_reshape_groups():
    g = reshape_groups(("m", 1, 6), (1, "m", 2, 3))
    assert [(x.src, x.dst, x.kind) for x in g] == [((0, 2), (0, 2), "same"),
                                                   ((2, 3), (2, 4), "constant")]
    assert reshape_groups((1, 1), (1,))[0].kind == "units"
    assert reshape_groups((4, 6), (8, 3))[0].kind == "constant"
    assert reshape_groups(("m", "n"), ("n", "m"))[0].kind == "mixed"


def test_bad_input():
    with pytest.raises(TilespecError, match="element count"):
        prove_reading(shape("f32[3,5]"), shape("f32[4,4]"))
    with pytest.raises(TilespecError, match="element count"):
        prove_reading(shape("f32[m,n]"), shape("f32[m,m]"))
    with pytest.raises(TilespecError, match="not a permutation"):
        prove_reading(shape("f32[3,5]"), shape("f32[5,3]"), (1, 1))
    with pytest.raises(TilespecError, match="has dims"):
        prove_reading(shape("f32[3,5]"), shape("f32[3,5]"), (1, 0))


def test_unknown_is_reported(monkeypatch):
    # A solver that always gives up: the answer is unknown, never proved.
    from tilespec.prover.core import solve

    monkeypatch.setattr(solve, "search", lambda *a, **k: ("unknown", "solver gave up: test"))
    # and no enumeration decides it either: the question stays open
    monkeypatch.setattr("tilespec.prover.bitcast.reading.exact_in_int64", lambda q: False)
    r = prove_reading(shape("f32[m,n]{1,0:T(8,128)}"), shape("f32[1,m,n]{2,1,0:T(8,128)}"))
    assert r.status == "unknown"
    assert "no counterexample" in r.reason


def test_witness_that_does_not_replay_is_a_bug():
    q = reading.question(shape("f32[4]{0}"), shape("f32[2,2]{1,0}"))
    with pytest.raises(ProverBug):
        reading.replay(q, (1,))


# --- the command line --------------------------------------------------------------

def test_cli_exit_statuses(capsys, monkeypatch):
    code, out, _ = run(capsys, "bitcast", "f32[m,n]{1,0:T(8,128)}", "f32[1,m,n]{2,1,0:T(8,128)}",
                       "--reshape")
    assert code == 0 and out.startswith("bitcast: proved (all shapes")
    code, out, _ = run(capsys, "bitcast", "f32[m,n]{1,0:T(8,128)}", "f32[m,n,1]{2,1,0:T(8,128)}",
                       "--reshape")
    assert code == 1 and "what: the offsets" in out and "source: f32[" in out
    # other byte sizes: XLA's rule, a verdict (refuted), as check-hlo says
    code, out, err = run(capsys, "bitcast", "f32[3,5]", "f32[4,4]")
    assert code == 1 and "the byte sizes differ" in out and "HandleBitcast" in out
    code, out, err = run(capsys, "bitcast", "f32[m]{0}", "f32[n]{0}")
    assert code == 2 and err.startswith("tilespec: error:") and err.count("\n") == 1
    code, out, _ = run(capsys, "bitcast", "f32[8,256]{1,0}", "f32[256,8]{0,1}",
                       "--transpose", "1,0", "--json")
    assert code == 0 and json.loads(out)["results"][0]["status"] == "proved"
    from tilespec.prover.core import solve
    monkeypatch.setattr(solve, "search", lambda *a, **k: ("unknown", "solver gave up: test"))
    # and no enumeration decides it either: the question stays open
    monkeypatch.setattr("tilespec.prover.bitcast.reading.exact_in_int64", lambda q: False)
    code, out, _ = run(capsys, "bitcast", "f32[m,n]{1,0:T(8,128)}", "f32[1,m,n]{2,1,0:T(8,128)}",
                       "--reshape")
    assert code == 3 and out.startswith("unknown")


def test_a_small_concrete_bitcast_is_proved_by_enumeration_without_the_solver(monkeypatch):
    from tilespec.prover.core import solve

    def no_solver(*a, **k):
        raise AssertionError("the solver was asked")

    monkeypatch.setattr(solve, "search", no_solver)
    monkeypatch.setattr(solve, "check_facts", no_solver)
    r = prove_reading(shape("f32[16,256]{1,0:T(8,128)}"), shape("f32[2,8,256]{2,1,0:T(8,128)}"))
    assert r.status == "proved" and "exhaustive" in r.steps[0]


def test_enumeration_is_no_proof_where_int64_could_wrap():
    huge = shape("f32[2,2]{1,0:T(1,2305843009213693952)}")
    assert not reading.exact_in_int64(reading.question(huge, huge))
    r = prove_reading(huge, huge, (0, 1))
    assert r.status == "proved" and not any("enumeration" in s for s in r.steps)
