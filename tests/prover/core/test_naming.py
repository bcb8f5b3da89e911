"""User names and the prover's own names never meet.

A dim may be called anything the parser accepts, including the names the
prover gives its own variables (element indices ``e1_0``, fresh DST indices
``r2_0``, ``anchor_product``, offsets ``o``).  Were the two in one
namespace, each test below would be a false "proved".
"""

import pytest
from hypothesis import given, settings, strategies as st
from mutants import mutate

from tilespec.cli.main import main
from tilespec.prover.bitcast import prove_reading
from tilespec.prover.core import encode
from tilespec.prover.equivalence import equivalent
from tilespec.prover.properties.proof import prove
from tilespec.prover.userfn import check_offset_function
from tilespec.spec.text import parse_array_shape as shape

#: Names the prover used (or uses) for its own variables.
INTERNAL_LOOKALIKES = ["e1_0", "e1_1", "f2_0", "g1_0", "r2_0", "r3_0", "o", "o1_0",
                       "x1_0", "anchor_product", "d_m", "i_e1_0", "u_m"]


@pytest.mark.parametrize("name", ["e1_0", "e1_1", "r2_0"])
def test_bitcast_cli_with_a_dim_named_like_an_index_is_refuted(name, capsys):
    # [N,4]{1,0} -> [N,4]{0,1} moves element (0,1) for every N >= 2
    code = main(["bitcast", f"f32[{name},4]{{1,0}}", f"f32[{name},4]{{0,1}}", "--reshape"])
    out = capsys.readouterr().out
    assert code == 1, out
    assert "refuted" in out


def test_equivalent_cli_with_a_dim_named_like_an_index_is_refuted(capsys):
    code = main(["equivalent", "f32[e1_0,4]{1,0}", "f32[e1_0,4]{0,1}"])
    assert code == 1, capsys.readouterr().out


def test_mixed_reshape_with_a_dim_named_like_a_fresh_index():
    # the DST index of a group mixing names is a fresh r..._.. variable
    for name in ("r2_0", "r2_1", "r3_0"):
        r = prove_reading(shape(f"f32[2,{name}]{{1,0}}"), shape(f"f32[{name},2]{{0,1}}"))
        assert r.status == "refuted", (name, r)


def test_user_function_with_a_dim_named_like_an_index_is_refuted():
    def wrong(i, j):
        return i * 5 + j + 1
    r = check_offset_function(wrong, shape("f32[e1_0,5]{1,0}"))
    assert r.status == "refuted", r


@pytest.mark.parametrize("name, kind, prop", [("e2_0", "floor", "in_bounds"),
                                             ("e4_0", "floor", "injective"),
                                             ("e1_0", "swap", "in_bounds")])
def test_prove_of_a_broken_pipeline_with_a_dim_named_like_an_index(name, kind, prop):
    plain = shape("f32[k,m]{1,0:T(8,128)}")
    assert prove(plain, prop, stages=mutate(plain, kind)).status == "refuted"
    s = shape(f"f32[{name},m]{{1,0:T(8,128)}}")
    r = prove(s, prop, stages=mutate(s, kind))
    assert r.status == "refuted", r


def test_generated_code_with_a_dim_named_like_an_index(monkeypatch):
    from tilespec.prover.codegen import generated
    real = generated.python_source

    def wrong(shape_, symbolic):
        # one more than the spec's offset: a wrong simplification
        return real(shape_, symbolic).replace("return ((", "return 1 + ((", 1)
    monkeypatch.setattr(generated, "python_source", wrong)
    s = shape("f32[e1_0,n]{0,1:T(8,128)}")
    off, _ = generated.prove_generated(s, "python")
    assert off.status == "refuted", off


@pytest.mark.parametrize("name", INTERNAL_LOOKALIKES)
def test_user_symbols_are_never_internal_symbols(name):
    assert encode.user_symbol(name) != encode.internal_symbol(name)
    assert encode.user_symbol(name).startswith(encode.USER_PREFIX)
    assert encode.internal_symbol(name).startswith(encode.INTERNAL_PREFIX)


@settings(max_examples=200, deadline=None)
@given(st.text(min_size=1, max_size=12), st.text(min_size=1, max_size=12))
def test_the_naming_scheme_is_injective_and_disjoint(a, b):
    ua, ub = encode.user_symbol(a), encode.user_symbol(b)
    assert (ua == ub) == (a == b)
    # every internal symbol starts with INTERNAL_PREFIX, no user symbol does
    assert not ua.startswith(encode.INTERNAL_PREFIX)
    assert encode.readable(ua) == a
    # a valid SMT-LIB simple symbol: both solvers read it unquoted
    assert all(c.isascii() and (c.isalnum() or c in "~!@$%^&*_-+=<>.?/") for c in ua)


def test_a_dim_named_like_an_internal_symbol_is_still_a_user_dim():
    internal = encode.internal_symbol("e1_0")
    # the parser only accepts identifiers, but Shape objects can be built
    # directly; the mapping keeps the two apart even then
    assert encode.user_symbol(internal) != internal


#: Dim names as the parser accepts them, biased towards the prover's own
#: patterns (a letter or two, digits, an underscore).
NAMES = st.one_of(st.from_regex(r"[a-z]{1,2}[0-9]{1,2}_[0-9]", fullmatch=True),
                  st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True),
                  st.sampled_from(INTERNAL_LOOKALIKES))


@settings(max_examples=15, deadline=None, database=None)
@given(name=NAMES)
def test_any_dim_name_gives_the_verdicts_of_m(name):
    """Whatever a dim is called, the verdicts are those for the name m."""
    moved = prove_reading(shape(f"f32[{name},4]{{1,0}}"), shape(f"f32[{name},4]{{0,1}}"))
    assert moved.status == "refuted", (name, moved)
    same = equivalent(shape(f"f32[{name},5]{{1,0:T(1,1)}}"), shape(f"f32[{name},5]{{1,0}}"))
    assert same.status == "proved", (name, same)

    def wrong(i, j):
        return i * 5 + j + 1
    assert check_offset_function(wrong, shape(f"f32[{name},5]{{1,0}}")).status == "refuted"


def _constants(term, seen):
    """Names of the uninterpreted constants, functions and sorts in ``term``."""
    import z3
    todo = [term]
    while todo:
        t = todo.pop()
        if z3.is_app(t):
            d = t.decl()
            if d.kind() == z3.Z3_OP_UNINTERPRETED:
                seen.add(d.name())
                if t.sort().kind() == z3.Z3_UNINTERPRETED_SORT:
                    seen.add(t.sort().name())
            todo.extend(t.children())
        elif z3.is_quantifier(t):
            todo.append(t.body())
    return seen


def test_lemma_and_theorems_name_every_variable_through_the_scheme(monkeypatch):
    # the lemma and the stage theorems are proved in their own contexts, but
    # their variables are still the prover's own: internal symbols only
    from tilespec.prover.core import lemma, solve, theorems
    from tilespec.spec.index import Pad, Permute, Split
    names = set()
    real = solve.search

    def recording(formula, ctx, timeout=solve.DEFAULT_TIMEOUT):
        _constants(formula, names)
        return real(formula, ctx, timeout)
    monkeypatch.setattr(solve, "search", recording)
    monkeypatch.setattr(lemma, "search", recording)
    monkeypatch.setenv("TILESPEC_CACHE", "off")
    for fn in (lemma.base_case, lemma.induction_step, lemma.unfolding, lemma.step_lemma):
        monkeypatch.setattr(lemma, fn.__name__, fn.__wrapped__)
    assert lemma.mixed_radix.__wrapped__(3).proved
    assert lemma.step_lemma().proved
    for stage, n in ((Pad((8, 128)), 2), (Split((8, 128)), 2), (Permute((1, 0)), 2)):
        assert theorems.stage_theorem(stage, n)["status"] == "proved"
    assert names and all(n.startswith(encode.INTERNAL_PREFIX) for n in names), \
        sorted(n for n in names if not n.startswith(encode.INTERNAL_PREFIX))


#: The names the mixed-radix lemma and the stage theorems give their variables.
LEMMA_LOOKALIKES = ["A", "B", "o", "x", "y", "h", "k", "D0", "D1", "e0", "f0", "T0",
                    "g0", "inbox", "lin", "delin", "Index", "i_A", "i_D0"]


@pytest.mark.parametrize("name", LEMMA_LOOKALIKES)
def test_a_dim_named_like_a_lemma_variable_gets_the_verdicts_of_m(name):
    s = shape(f"bf16[{name},n]{{1,0:T(8,128)(2,1)}}")
    assert prove(s, "bijective").status == "proved"
    assert prove(s, "in_bounds", stages=mutate(s, "floor")).status == "refuted"
    ok = prove_reading(shape(f"f32[{name},n]{{1,0:T(8,128)}}"),
                shape(f"f32[1,{name},n]{{2,1,0:T(8,128)}}"))
    bad = prove_reading(shape(f"f32[{name},n]{{1,0:T(8,128)}}"),
                 shape(f"f32[{name},n,1]{{2,1,0:T(8,128)}}"))
    assert (ok.status, bad.status) == ("proved", "refuted")
