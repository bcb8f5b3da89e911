"""Triton's operations, each checked by computing every input of seeded
random layouts, and against answers recorded from the real Triton (3.9.0,
``triton._C.libtriton.linear_layout``) where its choice is a rule of its own."""

import random

import pytest
from triton_layouts import every_input, random_layout

from tilespec.triton import (
    LinearLayout,
    TritonLayoutError,
    compose,
    divide_left,
    divide_right,
    get_free_variable_masks,
    get_num_consecutive_in_out,
    invert,
    invert_and_compose,
    product,
    pseudoinvert,
    reshape_ins,
    reshape_outs,
    supremum,
    transpose_ins,
    transpose_outs,
)

L = LinearLayout.from_bases


def layouts(seed, count=25, **kw):
    rng = random.Random(seed)
    out = [random_layout(rng, **kw) for _ in range(count)]
    return [x for x in out if x is not None]


def test_compose_applies_the_outer_layout_after():
    rng = random.Random("compose")
    for a in layouts("compose a"):
        o = random_layout(rng, ins=("x", "y"), outs=("p",), max_bits=4)
        o = LinearLayout([(d, list(vs) + [[0]] * 4) for d, vs in o.bases], o.out_dims)
        if any(a.out_dim_size(d) > o.in_dim_size(d) for d in a.out_dim_names):
            with pytest.raises(TritonLayoutError, match="size"):
                compose(a, o)
            continue
        r = compose(a, o)
        for x in every_input(a):
            assert r.apply(x) == o.apply(a.apply(x))


def test_pseudoinvert_is_a_right_inverse_and_invert_a_two_sided_one():
    for a in layouts("inverse", surjective=True):
        p = pseudoinvert(a)
        for y in every_input(p):
            assert a.apply(p.apply(y)) == y
        if a.is_invertible():
            inv = invert(a)
            for x in every_input(a):
                assert inv.apply(a.apply(x)) == x
        else:
            with pytest.raises(TritonLayoutError, match="not invertible"):
                invert(a)


def test_pseudoinvert_refuses_a_layout_that_is_not_surjective():
    with pytest.raises(TritonLayoutError, match="not surjective"):
        pseudoinvert(LinearLayout.zeros_1d(4, "i", "o", 4))


def test_invert_and_compose_solves_outer_of_c_equals_the_layout():
    rng = random.Random("iac")
    for a in layouts("iac a"):
        sizes = {o: s << rng.randint(0, 1) for o, s in a.out_dims}
        outer = random_layout(rng, ins=("r", "s"), outs=("y", "x"), sizes=sizes,
                              surjective=True)
        if outer is None:
            continue
        c = invert_and_compose(a, outer)
        for x in every_input(a):
            assert outer.apply(c.apply(x)) == a.apply(x)


@pytest.mark.parametrize("this, outer, answer", [
    # recorded from triton 3.9.0: r is the same in both, but t and s touch its
    # output bit: no identity for r (lstsq sends r=2 to 0)
    ((("r", [[1], [0]]), ("t", [[1]])), (("r", [[1], [0]]), ("s", [[1]])),
     [("r", [[1, 0], [0, 0]]), ("t", [[1, 0]])]),
    # ... and where nothing else touches it, r maps by the identity
    ((("r", [[1], [0]]), ("t", [[2]])), (("r", [[1], [0]]), ("s", [[2]])),
     [("r", [[1, 0], [2, 0]]), ("t", [[0, 1]])]),
    # bits touch though the spans meet only in 0: still no identity
    ((("r", [[1], [0]]), ("t", [[3]])), (("r", [[1], [0]]), ("s", [[3]])),
     [("r", [[1, 0], [0, 0]]), ("t", [[0, 1]])]),
    # two dims alike that touch each other: neither is the identity
    ((("r", [[1], [0]]), ("w", [[1]])), (("r", [[1], [0]]), ("w", [[1]])),
     [("r", [[1, 0], [0, 0]]), ("w", [[1, 0]])]),
])
def test_invert_and_compose_picks_triton_3_9s_answer(this, outer, answer):
    c = invert_and_compose(L(list(this), ["x"]), L(list(outer), ["x"]))
    assert [(d, [list(b) for b in vs]) for d, vs in c.bases] == answer


def test_invert_and_compose_takes_a_larger_outer_layout():
    # recorded from triton 3.9.0: [('r', [[2], [4]])] [('s', 8)]
    c = invert_and_compose(L([("r", [[1], [2]])], ["x"]), L([("s", [[4], [1], [2]])], ["x"]))
    assert c.bases == (("r", ((2,), (4,))),) and c.out_dims == (("s", 8),)


def test_product_is_triton_operator_star():
    # recorded from triton 3.9.0: dims in the supremum order, outer bits above
    a = L([("x", [[1, 0]]), ("y", [[0, 1]])], ["p", "q"])
    b = L([("z", [[1, 0]]), ("y", [[0, 1]])], ["r", "q"])
    c = product(a, b)
    assert [(d, [list(v) for v in vs]) for d, vs in c.bases] == \
        [("x", [[1, 0, 0]]), ("z", [[0, 1, 0]]), ("y", [[0, 0, 1], [0, 0, 2]])]
    assert c.out_dims == (("p", 2), ("r", 2), ("q", 4))
    with pytest.raises(TritonLayoutError, match="dim order"):
        supremum(["a", "b"], ["b", "a"])


def test_divide_undoes_the_product():
    rng = random.Random("divide")
    for a in layouts("divide a"):
        b = random_layout(rng, ins=("r", "u"), outs=("x", "z"))
        left = divide_left(product(a, b), a)
        assert product(a, left) == product(a, b)
        right = divide_right(product(b, a), a)
        assert product(right, a) == product(b, a)


def test_divide_refuses_what_is_no_product():
    a = L([("i", [[2], [1]])], ["o"])
    with pytest.raises(TritonLayoutError, match="not divisible"):
        divide_left(a, LinearLayout.identity_1d(2, "i", "o"))


def test_reshapes_and_transposes_keep_the_function():
    for a in layouts("reshape", count=10):
        n_in, n_out = 1 << a.total_in_bits, 1 << a.total_out_bits
        flat_in = reshape_ins(a, [("f", n_in)])
        flat_out = reshape_outs(a, [("g", n_out)])
        shifts = a.out_shifts()
        for k, x in enumerate(every_input(a)):
            stacked = sum(v << s for v, s in zip(a.apply(x).values(), shifts))
            assert flat_in.apply({"f": k}) == a.apply(x)
            assert flat_out.apply(x) == {"g": stacked}
        t = transpose_outs(transpose_ins(a, a.in_dim_names[::-1]), a.out_dim_names[::-1])
        for x in every_input(a):
            assert t.apply(x) == a.apply(x)


def test_free_variable_masks_leave_a_basis_of_the_image():
    # with the free bits 0 every output is reached, each by one input
    for a in layouts("free"):
        masks = get_free_variable_masks(a)
        xs = list(every_input(a))
        image = {tuple(a.apply(x).values()) for x in xs}
        basic = [x for x in xs if all(x[d] & masks[d] == 0 for d in x)]
        assert {tuple(a.apply(x).values()) for x in basic} == image
        assert len(basic) == len(image)


def test_a_free_bit_may_change_the_output_alone():
    # Triton's getFreeVariableMasks: the non-pivot columns, here bit 1 of r
    a = L([("r", [[1], [1]])], ["x"])
    assert get_free_variable_masks(a) == {"r": 2}
    assert a.apply({"r": 2}) != a.apply({"r": 0})


def runs_of(a, n):
    """Do ``n`` consecutive inputs of the first in-dim go to ``n`` consecutive
    outputs of the first out-dim (the rest unchanged), everywhere?"""
    first, o0 = a.in_dim_names[0], a.out_dim_names[0]
    for x in every_input(a):
        low = x[first] % n
        base = a.apply(dict(x, **{first: x[first] - low}))
        got = a.apply(x)
        if got[o0] != base[o0] + low or any(got[o] != base[o] for o in a.out_dim_names[1:]):
            return False
    return True


def test_num_consecutive_in_out_is_the_largest_run():
    for a in layouts("consecutive", outs=("x", "y")):
        if not a.bases or not a.bases[0][1]:
            continue
        v = get_num_consecutive_in_out(a)
        assert runs_of(a, v)
        if 2 * v <= a.in_dims[0][1]:
            assert not runs_of(a, 2 * v)
