"""Bounded dynamic dims (``<=N``): a bitcast is decided for every runtime size
from 0 up to the bound, never at the bound alone.

XLA keeps a dynamic array at the bound's strides, the elements past a runtime
size being padding (ROCm/xla 183fa00cb5d82384463a1a7aed1ab06bc9026974,
``xla/service/dynamic_padder.cc``, ``RewriteDynamicReshapeCombineInput``:
``[2, <=3]`` at size 2 is ``[a,b,P,c,d,P]``), while a reshape pairs elements
by their position among the runtime dims.  The cases below are the reshapes
of ``xla/service/dynamic_padder_test.cc``: those ``dynamic_padder.cc``
rewrites (a plain reshape there moves data: not a bitcast) and those it
leaves (a bitcast at every runtime size).
"""

from __future__ import annotations

import itertools
import math

import pytest

import tilespec
from tilespec.cli.main import main
from tilespec.prover.bitcast.dynamic import MAX_RUNTIME_SIZES, prove_dynamic_reshape
from tilespec.spec.text import parse_array_shape

#: (SRC, DST, the verdict, the test of dynamic_padder_test.cc it comes from)
PADDER_CASES = [
    # rewritten by RewriteDynamicReshape: a minor dynamic dim merged or split
    ("s32[1,2,<=5,1]", "s32[<=10]", "refuted", "InputMinorDimensionReshape"),
    ("s32[<=12]", "s32[2,<=3,2]", "refuted", "OutputMinorDimensionReshape"),
    ("s32[2,<=6]", "s32[2,2,<=3]", "refuted", "OutputMinorDimensionReshapeWithUnchangedDimMajor"),
    ("s32[<=6,2]", "s32[2,<=3,2]", "refuted", "OutputMinorDimensionReshapeWithUnchangedDimMinor"),
    ("s32[<=4,2,<=2]", "s32[2,<=2,<=4]", "refuted", "ReshapeSplitCombineSameTime"),
    ("s32[2,<=4,4]", "s32[<=16,2]", "refuted", "ReshapeComplicated"),
    ("s32[2,<=3,<=3]", "s32[<=18]", "refuted", "DynamicReshapeDoubleDynamicDimensions"),
    ("s32[<=3,<=4,<=4]", "s32[<=6,<=8]", "refuted", "DynamicReshapeComplicated"),
    # left as they are: the dynamic dim is the most major of its group
    ("f32[<=4,511,432]", "f32[<=2044,432]", "proved", "HandleReshapeCheckPastReshape"),
    ("f32[<=2044,337]", "f32[<=4,511,337]", "proved", "HandleReshapeCheckPastReshape"),
    ("s32[1,2,<=5,1]", "s32[2,<=5]", "proved", "DynamicDimensionReshapeUnchanged"),
    ("s32[<=1,2,5,1]", "s32[<=10]", "proved", "DegeneratedDimension"),
]

#: The pair of the issue and its major-dim twin.
ISSUE_PAIR = ("f32[4,<=4]{1,0}", "f32[<=16]{0}")
MAJOR_PAIR = ("f32[<=4,4]{1,0}", "f32[<=16]{0}")


def check_hlo_says(src: str, dst: str) -> str:
    report = tilespec.check_hlo(f"""HloModule m
ENTRY e {{
  p = {src} parameter(0)
  ROOT b = {dst} bitcast(p)
}}""")
    rules = {f.rule for f in report.findings}
    if "bitcast-proved" in rules:
        return "proved"
    return "refuted" if "bitcast-refuted" in rules else "unknown"


def cli_says(capsys, src: str, dst: str) -> str:
    code = main(["bitcast", src, dst])
    out = capsys.readouterr().out
    return {0: "proved", 1: "refuted"}.get(code, "unknown") if "unknown" not in out.split()[0] \
        else "unknown"


@pytest.mark.parametrize("src,dst,verdict,xla_test", PADDER_CASES)
def test_the_reshapes_dynamic_padder_rewrites_are_refuted_and_the_others_proved(
        capsys, src, dst, verdict, xla_test):
    api = tilespec.bitcast(src, dst)
    assert api.status == verdict, (xla_test, api.reason)
    assert cli_says(capsys, src, dst) == verdict, xla_test
    assert check_hlo_says(src, dst) == verdict, xla_test
    assert "every runtime size" in api.scope


def test_a_minor_dynamic_dim_merged_is_refuted_at_a_runtime_size_below_the_bound(capsys):
    r = tilespec.bitcast(*ISSUE_PAIR)
    assert r.status == "refuted"
    ce = r.counterexample
    runtime = ce.details["runtime_dims"]
    k = runtime["source"][1]
    assert k < 4 and runtime["target"] == [4 * k]
    # the source element sits at the bound's strides, the target at the runtime's
    e, f = ce.side("source").element, ce.side("target").element
    assert ce.side("source").byte_offset == 4 * (e[0] * 4 + e[1])
    assert f == (e[0] * k + e[1],)
    assert main(["bitcast", *ISSUE_PAIR]) == 1
    out = capsys.readouterr().out
    assert "runtime_dims" in out and "SRC dim 1 <= 4" in out
    assert check_hlo_says(*ISSUE_PAIR) == "refuted"


def test_a_major_dynamic_dim_merged_is_proved_for_every_runtime_size(capsys):
    r = tilespec.bitcast(*MAJOR_PAIR)
    assert r.status == "proved"
    assert r.scope.startswith("every runtime size") and "SRC dim 0 <= 4" in r.scope
    assert main(["bitcast", *MAJOR_PAIR]) == 0
    assert "every runtime size" in capsys.readouterr().out
    assert check_hlo_says(*MAJOR_PAIR) == "proved"


def _oracle(src: str, dst: str) -> str | None:
    """Row-major untiled shapes: every runtime size enumerated with plain
    Python (offset = row-major position at the bound dims); 'refuted' if an
    element moves at a size where the groups' element counts can be kept
    (with every DST size that keeps them); SRC sizes with no such DST sizes
    are sizes the reshape cannot have."""
    s, d = parse_array_shape(src), parse_array_shape(dst)
    # XLA's common factors: where the prefix products at the bound agree, a
    # runtime size keeps them agreeing (each group keeps its count)
    cuts = [(i, j) for i in range(s.rank + 1) for j in range(d.rank + 1)
            if math.prod(s.dims[:i]) == math.prod(d.dims[:j])]
    verdict = "proved"
    for rs in itertools.product(*(range(1, n + 1) if f else (n,)
                                  for n, f in zip(s.dims, s.dynamic))):
        count = math.prod(rs)
        options = [rd for rd in itertools.product(*(range(1, n + 1) if f else (n,)
                                                    for n, f in zip(d.dims, d.dynamic)))
                   if math.prod(rd) == count
                   and all(math.prod(rs[:i]) == math.prod(rd[:j]) for i, j in cuts)]
        if not options:
            continue        # not a size the reshape can have
        moved = []
        for rd in options:
            bad = False
            for e in itertools.product(*map(range, rs)):
                lin = 0
                for x, n in zip(e, rs):
                    lin = lin * n + x
                f = []
                for n in reversed(rd):
                    f.append(lin % n)
                    lin //= n
                f.reverse()
                a = b = 0
                for x, n in zip(e, s.dims):
                    a = a * n + x
                for x, n in zip(f, d.dims):
                    b = b * n + x
                bad = bad or a != b
            moved.append(bad)
        if all(moved):
            verdict = "refuted"
    return verdict


SMALL = ["f32[<=2,3]", "f32[3,<=2]", "f32[<=6]", "f32[2,<=3]", "f32[<=3,2]", "f32[6]",
         "f32[<=2,<=3]", "f32[1,<=6]", "f32[<=6,1]", "f32[2,3]", "f32[3,2]"]


@pytest.mark.parametrize("src,dst", [(a, b) for a in SMALL for b in SMALL])
def test_no_reshape_is_proved_where_an_element_moves_at_some_runtime_size(src, dst):
    truth = _oracle(src, dst)
    got = tilespec.bitcast(src, dst, "reshape").status
    if got == "proved":
        assert truth == "proved", (src, dst)
    if got == "refuted":
        assert truth == "refuted", (src, dst)
    if truth == "refuted":
        # the flagship direction: a reshape that moves data is never proved
        assert got in ("refuted", "unknown")


def test_a_runtime_size_the_reshape_cannot_have_is_named_as_not_covered():
    # HandleReshapeCheckPastReshape: 1 row of 337 fills no [?,511,337]
    for reading in ("reshape", None):
        r = tilespec.bitcast("f32[<=2044,337]", "f32[<=4,511,337]", reading)
        assert r.status == "proved"
        assert "not covered: sizes no reshape can have, first SRC runtime dims [1, 337]" \
            in r.scope


def test_a_dynamic_dim_into_static_dims_is_not_proved():
    # below the bound no static f32[16] holds the 4k elements
    r = tilespec.bitcast("f32[<=4,4]{1,0}", "f32[16]{0}", "reshape")
    assert r.status == "unknown" and "static" in r.reason
    r = tilespec.bitcast("f32[4,<=4]{1,0}", "f32[16]{0}")
    assert r.status == "unknown"
    # refuted at the bound: refuted
    r = tilespec.bitcast("f32[<=4,4]{0,1}", "f32[16]{0}", "reshape")
    assert r.status == "refuted"
    assert r.counterexample.details["runtime_dims"] == {"source": [4, 4], "target": [16]}


def test_a_transpose_keeps_its_verdict_when_the_dynamic_dims_move_with_it():
    assert tilespec.bitcast("f32[<=4,4]{0,1}", "f32[4,<=4]{1,0}").status == "proved"
    r = tilespec.bitcast("f32[<=4,4]{0,1}", "f32[4,4]{1,0}", (1, 0))
    assert r.status == "unknown" and "dynamic on one side" in r.reason
    # refuted at the bound: refuted
    r = tilespec.bitcast("f32[<=4,4]{1,0}", "f32[4,4]{1,0}", (1, 0))
    assert r.status == "refuted"


def test_a_dynamic_dim_beside_named_dims_is_decided_for_both():
    r = tilespec.bitcast("f32[m,<=4]{1,0}", "f32[m,<=4]{1,0}")
    assert r.status == "proved" and "m" in r.scope and "runtime" in r.scope
    r = prove_dynamic_reshape(parse_array_shape("f32[m,<=4]{1,0}"),
                              parse_array_shape("f32[<=4,m]{1,0}"))
    assert r.status != "proved"


def test_too_many_runtime_sizes_end_unknown_not_proved():
    n = MAX_RUNTIME_SIZES + 8
    r = tilespec.bitcast(f"f32[2,<={n}]{{1,0}}", f"f32[2,<={n}]{{1,0}}", "reshape")
    assert r.status == "proved"       # the same shape: every dim its own group
    r = prove_dynamic_reshape(parse_array_shape(f"f32[<={n},2]{{1,0}}"),
                              parse_array_shape(f"f32[2,<={n}]{{1,0}}"))
    assert r.status in ("refuted", "unknown")


@pytest.mark.parametrize("src,dst", [("f32[<=4,0]", "f32[0,<=4]"), ("f32[0,<=4]", "f32[0]")])
def test_an_empty_shape_with_a_dynamic_dim_has_a_verdict(src, dst):
    # no elements at any runtime size: decided at the bound, without an error
    assert tilespec.bitcast(src, dst).status == "proved"


def test_several_dynamic_dims_of_one_group_take_every_split_of_the_count():
    # [<=3,<=4,<=4] -> [<=6,<=8] (DynamicReshapeComplicated): at SRC [3,4,3] the
    # 36 elements are DST [6,6] only; an element moves there
    r = tilespec.bitcast("s32[<=3,<=4,<=4]", "s32[<=6,<=8]", "reshape")
    assert r.status == "refuted"
    assert r.counterexample.details["runtime_dims"]["target"][0] * \
        r.counterexample.details["runtime_dims"]["target"][1] == math.prod(
            r.counterexample.details["runtime_dims"]["source"])


def _tiled_oracle(s, d) -> str:
    """Any layout: the spec's offsets at the bound, the buffers' bytes at the
    bound, elements paired among the runtime dims of every size (the groups'
    counts kept, as in :func:`_oracle`)."""
    from tilespec.spec import byte_size
    from tilespec.spec.index import offset
    if byte_size(s) != byte_size(d):
        return "refuted"
    cuts = [(i, j) for i in range(s.rank + 1) for j in range(d.rank + 1)
            if math.prod(s.dims[:i]) == math.prod(d.dims[:j])]
    for rs in itertools.product(*(range(1, n + 1) if f else (n,)
                                  for n, f in zip(s.dims, s.dynamic))):
        options = [rd for rd in itertools.product(*(range(1, n + 1) if f else (n,)
                                                    for n, f in zip(d.dims, d.dynamic)))
                   if math.prod(rd) == math.prod(rs)
                   and all(math.prod(rs[:i]) == math.prod(rd[:j]) for i, j in cuts)]
        moved = 0
        for rd in options:
            for e in itertools.product(*map(range, rs)):
                lin = 0
                for x, n in zip(e, rs):
                    lin = lin * n + x
                f = []
                for n in reversed(rd):
                    f.append(lin % n)
                    lin //= n
                if offset(s, e) != offset(d, tuple(reversed(f))):
                    moved += 1
                    break
        if options and moved == len(options):
            return "refuted"
    return "proved"


def _random_pairs(count: int, seed: int):
    import random

    from tilespec.spec.layout import Layout, Shape, Tile
    from tilespec.spec.printer import format_shape
    rng = random.Random(seed)

    def factors(n):
        out = []
        while n > 1:
            x = rng.choice([k for k in range(2, n + 1) if n % k == 0])
            out.append(x)
            n //= x
        if rng.random() < 0.2:
            out.insert(rng.randrange(len(out) + 1), 1)
        return out

    def shape(dims):
        order = list(range(len(dims)))[::-1]
        if rng.random() < 0.3:
            rng.shuffle(order)
        tiles = ()
        if rng.random() < 0.3:
            tiles = (Tile((rng.choice([2, 4]),) if len(dims) < 2 or rng.random() < 0.5
                          else (2, rng.choice([2, 4]))),)
        return Shape("f32", dims, Layout(tuple(order), tiles=tiles),
                     [rng.random() < 0.4 for _ in dims])

    for _ in range(count):
        n = rng.choice([4, 6, 8, 12])
        yield format_shape(shape(factors(n))), format_shape(shape(factors(n)))


@pytest.mark.parametrize("src,dst", list(_random_pairs(60, 11)))
def test_no_tiled_reshape_with_dynamic_dims_gets_a_verdict_an_enumeration_contradicts(src, dst):
    got = tilespec.bitcast(src, dst, "reshape").status
    if got != "unknown":
        assert got == _tiled_oracle(parse_array_shape(src), parse_array_shape(dst)), (src, dst)
