"""The laws proved by Z3: tilespec's answers are proved, a wrong answer is
refuted at inputs that replay, and prove_from_xla agrees with from_xla's
check of every element."""

import random

import pytest
from triton_layouts import random_layout

from tilespec.triton import (
    LinearLayout,
    Refutation,
    TritonLayoutError,
    linear_or_refutation,
    product,
)
from tilespec.triton.proofs import OPERATIONS, prove_from_xla, prove_law

L = LinearLayout.from_bases
A = L([("r", [[1, 0], [0, 1], [2, 0]]), ("t", [[0, 0], [3, 1]])], ["x", "y"])
B = L([("r", [[1], [2]]), ("u", [[4]])], ["z"])
OUTER = L([("x", [[1], [4], [0]]), ("y", [[2], [8]])], ["p"], [16], False)

#: Each operation's inputs, and a wrong answer of the right dims.
CASES = {
    "compose": ((A, OUTER), L([("r", [[1], [2], [4]]), ("t", [[0], [1]])], ["p"], [16], False)),
    "compose_associative": ((A, OUTER, LinearLayout.identity_1d(16, "p", "q")), None),
    "product": ((A, B), L([("r", [[1, 0, 0]] * 5), ("t", [[0, 0, 0]] * 2), ("u", [[0, 0, 0]])],
                          ["x", "y", "z"], [4, 2, 8], False)),
    "divide_left": ((product(A, B), A), L([("r", [[2]] * 2), ("t", []), ("u", [[4]])],
                                          ["x", "y", "z"][2:], [8], False)),
    "divide_right": ((product(B, A), A), L([("r", [[2]] * 2), ("u", [[4]]), ("t", [])],
                                           ["z"], [8], False)),
    "invert": ((L([("r", [[1], [3], [4]])], ["x"]),), L([("x", [[1], [2], [4]])], ["r"])),
    "pseudoinvert": ((A,), L([("x", [[1, 0], [0, 0]]), ("y", [[2, 0]])], ["r", "t"],
                             [8, 4], False)),
    "invert_and_compose": ((A, A), L([("r", [[0, 0]] * 3), ("t", [[0, 0]] * 2)], ["r", "t"],
                                     [8, 4], False)),
    "reshape_ins": ((A, [("a", 4), ("b", 8)]), L([("a", [[1, 0], [0, 1]]),
                                                   ("b", [[3, 1], [2, 0], [0, 0]])], ["x", "y"])),
    "reshape_outs": ((A, [("w", 8)]), L([("r", [[1], [2], [2]]), ("t", [[0], [7]])], ["w"])),
    "transpose_ins": ((A, ["t", "r"]), L([("t", [[0, 0], [3, 1]]), ("r", [[1, 0], [0, 1],
                                                                          [3, 0]])], ["x", "y"])),
    "transpose_outs": ((A, ["y", "x"]), L([("r", [[1, 0], [0, 1], [0, 2]]),
                                           ("t", [[0, 0], [1, 3]])], ["y", "x"])),
    "get_free_variable_masks": ((A,), {"r": 2, "t": 2}),
    "get_num_consecutive_in_out": ((A,), 4),
}


def test_every_operation_has_a_case():
    assert set(CASES) == set(OPERATIONS)


@pytest.mark.parametrize("operation", OPERATIONS)
def test_tilespecs_answer_is_proved(operation):
    r = prove_law(operation, *CASES[operation][0])
    assert r.status == "proved", r


@pytest.mark.parametrize("operation", [o for o in OPERATIONS if CASES[o][1] is not None])
def test_a_wrong_answer_is_refuted_at_inputs_that_replay(operation):
    inputs, wrong = CASES[operation]
    r = prove_law(operation, *inputs, result=wrong)
    assert r.status == "refuted"
    ce = r.counterexample
    assert ce.what.endswith("fails") and ce.sides[0].value != ce.sides[1].value


def test_seeded_layouts_keep_every_law():
    rng = random.Random("laws")
    for _ in range(2):
        a = random_layout(rng, surjective=True)
        if a is None:
            continue
        for op in ("pseudoinvert", "get_free_variable_masks", "get_num_consecutive_in_out"):
            assert prove_law(op, a).status == "proved"
        assert prove_law("invert_and_compose", a, a).status == "proved"


def test_an_unknown_operation_is_refused():
    with pytest.raises(TritonLayoutError, match="unknown operation"):
        prove_law("transpose", A)


@pytest.mark.parametrize("text", ["f32[24,256]{1,0:T(8,128)}", "f32[3,5]{1,0:T(2,2)}",
                                  "bf16[16,32]{1,0:T(8,16)(2,1)}", "f32[24,64]{0,1:T(1,8)}",
                                  "f32[5,8]{0,1:T(4,4)}"])
def test_prove_from_xla_agrees_with_the_check_of_every_element(text):
    r = prove_from_xla(text)
    assert r.status == ("proved" if isinstance(linear_or_refutation(text), LinearLayout)
                        else "refuted")


def test_prove_from_xla_proves_shapes_too_large_to_check_one_by_one():
    r = prove_from_xla("bf16[8192,8192]{1,0:T(8,128)(2,1)}")
    assert r.status == "proved" and r.scope == "concrete dims, every element"


@pytest.mark.parametrize("text, status", [("f32[m,n]{0,1:T(*,8)}", "proved"),
                                          ("f32[m,6]{1,0:T(2,2)}", "refuted")])
def test_prove_from_xla_for_every_power_of_two_size(text, status):
    r = prove_from_xla(text, exponents=(0, 5))
    assert r.status == status and r.scope.startswith("all sizes m = 2**a")
    if status == "refuted":
        ce = r.counterexample
        concrete = linear_or_refutation(text, ce.dim_values)
        assert isinstance(concrete, Refutation)     # those sizes are not linear
        assert ce.side("linear").offset != ce.side("spec").offset
