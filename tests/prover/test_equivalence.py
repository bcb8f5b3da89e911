"""``prover.equivalence``: layouts that are the same mapping, and normal
forms proved equivalent to the input."""

import json

import pytest

from tilespec.cli import main
from tilespec.prover.equivalence import equivalent, normalize
from tilespec.spec.errors import TilespecError
from tilespec.spec.index import all_offsets
from tilespec.spec.printer import format_shape
from tilespec.spec.size import aligned_elements
from tilespec.spec.text import parse_array_shape as shape


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def same_mapping(a, b):
    return (aligned_elements(a) == aligned_elements(b)
            and (all_offsets(a) == all_offsets(b)).all())


def at(s, **values):
    return s.replace(dims=tuple(values.get(d, d) if isinstance(d, str) else d for d in s.dims))


@pytest.mark.parametrize("a,b", [
    ("f32[m,n]{1,0:T(1,1)}", "f32[m,n]{1,0}"),
    ("f32[1,n]{1,0:T(1,128)}", "f32[1,n]{1,0:T(128)}"),
    ("f32[m,n]{1,0:T(8,128)(1,1)}", "f32[m,n]{1,0:T(8,128)}"),
    ("f32[m,n]{1,0:T(8,128)L(1024)}", "f32[m,n]{1,0:T(8,128)}"),
    ("f32[16,128]{1,0:T(8,128)}", "f32[16,128]{1,0}"),
    ("f32[3,5]{1,0:T(3,5)}", "f32[3,5]{1,0}"),
    ("f32[m,n]{1,0:S(1)}", "f32[m,n]{1,0}"),
])
def test_equivalent(a, b):
    r = equivalent(shape(a), shape(b))
    assert r.status == "proved", r.reason
    if shape(a).is_symbolic:
        for m, n in ((1, 1), (9, 130)):
            assert same_mapping(at(shape(a), m=m, n=n), at(shape(b), m=m, n=n))


def test_memory_space_noted():
    r = equivalent(shape("f32[m,n]{1,0:S(1)}"), shape("f32[m,n]{1,0}"))
    assert any("memory_space" in s for s in r.steps)


@pytest.mark.parametrize("a,b", [
    ("f32[1,n]{1,0:T(8,128)}", "f32[1,n]{1,0:T(1,128)}"),
    ("bf16[m,n]{1,0:T(8,128)(2,1)}", "bf16[m,n]{1,0:T(8,128)}"),
    ("f32[m,n]{1,0:T(2,1)}", "f32[m,n]{1,0}"),
    ("f32[3,5]{1,0:T(2,2)}", "f32[3,5]{0,1:T(2,2)}"),
])
def test_not_equivalent(a, b):
    r = equivalent(shape(a), shape(b))
    assert r.status == "refuted"
    ce = r.counterexample
    assert [side.name for side in ce.sides] == ["a", "b"]
    first, second = ce.side("a"), ce.side("b")
    sa, sb = ((shape(first.shape), shape(second.shape)) if first.shape is not None
              else (shape(a), shape(b)))
    assert not same_mapping(sa, sb)


def test_dims_must_match():
    with pytest.raises(TilespecError, match="dims differ"):
        equivalent(shape("f32[3,5]"), shape("f32[5,3]"))


@pytest.mark.parametrize("text,want", [
    ("f32[m,n]{1,0:T(8,128)(1,1)}", "f32[m,n]{1,0:T(8,128)}"),
    ("f32[1,n]{1,0:T(1,128)}", "f32[1,n]{1,0:T(128)}"),
    ("f32[16,128]{1,0:T(8,128)}", "f32[16,128]{1,0}"),
    ("f32[m,n]{1,0:T(1,1)}", "f32[m,n]{1,0}"),
    ("f32[m,n]{1,0:T(8,128)L(1024)}", "f32[m,n]{1,0:T(8,128)}"),
    ("f32[m,n]{1,0:T(8,128)(1,128)}", "f32[m,n]{1,0:T(8,128)}"),
    ("bf16[m,n]{1,0:T(8,128)(2,1)}", "bf16[m,n]{1,0:T(8,128)(2,1)}"),
    ("f32[m,n]{1,0:T(8,128)L(2048)}", "f32[m,n]{1,0:T(8,128)L(2048)}"),
    ("f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)(1,1)}", "f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}"),
])
def test_normalize(text, want):
    s, proof = normalize(shape(text))
    assert format_shape(s) == want
    assert proof.status == "proved"
    if not s.is_symbolic:
        assert same_mapping(shape(text), s)
    else:
        for m, n in ((3, 200), (16, 256)):
            assert same_mapping(at(shape(text), m=m, n=n), at(s, m=m, n=n))


def test_cli(capsys):
    code, out, _ = run(capsys, "normalize", "f32[1,n]{1,0:T(1,128)}")
    assert code == 0 and out.splitlines()[0] == "f32[1,n]{1,0:T(128)}"
    code, out, _ = run(capsys, "normalize", "f32[16,128]{1,0:T(8,128)}", "--json")
    assert code == 0 and json.loads(out)["results"][0]["data"]["normalized"] == "f32[16,128]{1,0}"
    code, out, _ = run(capsys, "equivalent", "bf16[m,n]{1,0:T(8,128)(2,1)}", "bf16[m,n]{1,0:T(8,128)}")
    assert code == 1 and "offset" in out
    code, out, _ = run(capsys, "equivalent", "f32[m,n]{1,0:T(1,1)}", "f32[m,n]{1,0}")
    assert code == 0 and out.startswith("equivalent: proved")
    code, _, err = run(capsys, "equivalent", "f32[3,5]", "f32[5,3]")
    assert code == 2


@pytest.mark.parametrize("a, b", [("f32[1,n]{1,0:T(8,128)}", "f32[1,n]{1,0:T(1,128)}"),
                                  ("f32[3,5]{1,0:T(2,2)}", "f32[3,5]{1,0}")])
def test_a_counterexample_names_each_layout_one_way(a, b):
    # the sides are a and b: so are the details given by side (the sizes)
    ce = equivalent(shape(a), shape(b)).counterexample
    names = {side.name for side in ce.sides}
    assert names == {"a", "b"}
    by_side = {k: v for k, v in ce.details.items() if isinstance(v, dict)}
    assert by_side and all(set(v) == names for v in by_side.values())
    assert "source" not in str(ce.to_json()) and "target" not in str(ce.to_json())


def test_a_proof_between_element_types_says_they_differ():
    # f32 and s32 take the same bits: the layouts are equivalent, and the
    # result says the types differ rather than calling the arrays the same
    r = equivalent(shape("f32[4,8]{1,0}"), shape("s32[4,8]{1,0}"))
    assert r.status == "proved"
    assert any("element types differ (f32 and s32)" in s for s in r.steps)
    same = equivalent(shape("f32[4,8]{1,0}"), shape("f32[4,8]{1,0}"))
    assert not any("element types" in s for s in same.steps)


def test_dynamic_marks_that_differ_are_named_not_passed_over_in_silence():
    r = equivalent(shape("f32[<=4,8]{1,0}"), shape("f32[4,8]{1,0}"))
    assert r.status == "proved" and any("dynamic marks differ" in s for s in r.steps)
    r = equivalent(shape("f32[4,8]{1,0}"), shape("f32[4,8]{1,0}"))
    assert not any("dynamic" in s for s in r.steps)
