"""The linear layout value: one normalising constructor that refuses what
Triton asserts, apply as the XOR of the bases, Triton's constructors and
properties."""

import itertools
import random

import pytest
from triton_layouts import every_input, random_layout

from tilespec.triton import LinearLayout, TritonLayoutError
from tilespec.triton.f2 import matrix_rank, rref, transpose


def test_the_constructor_normalises_lists_and_mappings_to_one_value():
    a = LinearLayout([("i", [[1], [2]])], [("o", 4)])
    assert a == LinearLayout({"i": ((1,), (2,))}, (("o", 4),))
    assert hash(a) == hash(LinearLayout({"i": [[1], [2]]}, [("o", 4)]))


@pytest.mark.parametrize("bases, outs, reason", [
    ([("i", [[1]])], [("o", 3)], "non-power-of-two"),
    ([("i", [[1]])], [("o", 0)], "non-power-of-two"),
    ([("i", [[4]])], [("o", 4)], "basis out of range"),
    ([("i", [[-1]])], [("o", 4)], "basis out of range"),
    ([("i", [[1, 0]])], [("o", 4)], "basis length"),
    ([("i", [[1]]), ("i", [[2]])], [("o", 4)], "repeated dim"),
    ([("i", [[1]])], [("o", 2), ("o", 2)], "repeated dim"),
    ([("i", [[1]])], [("o", 1 << 31)], "too large"),
])
def test_bad_input_is_refused_with_the_rule_it_breaks(bases, outs, reason):
    with pytest.raises(TritonLayoutError) as e:
        LinearLayout(bases, outs)
    assert e.value.reason == reason and "\n" not in str(e.value)
    assert isinstance(e.value, ValueError)


def test_from_bases_infers_sizes_and_requires_surjectivity_as_triton_does():
    # Triton's header: sizes from the largest basis (LLVM's NextPowerOf2)
    assert LinearLayout.from_bases([("i", [[1], [2], [4]])], ["o"]).out_dims == (("o", 8),)
    with pytest.raises(TritonLayoutError, match="not surjective"):
        LinearLayout.from_bases([("i", [[1], [4]])], ["o"])
    loose = LinearLayout.from_bases([("i", [[1], [4]])], ["o"], [8], False)
    assert not loose.is_surjective() and loose.is_injective()


def test_apply_is_the_xor_of_the_bases_of_the_set_bits():
    rng = random.Random("apply")
    for _ in range(20):
        a = random_layout(rng)
        for x in every_input(a):
            want = {o: 0 for o in a.out_dim_names}
            for d, vs in a.bases:
                for i, b in enumerate(vs):
                    if x[d] >> i & 1:
                        for o, v in zip(a.out_dim_names, b):
                            want[o] ^= v
            assert a.apply(x) == want
            assert a.apply(list(x.items())) == want     # HEAD's list of pairs


def test_apply_is_linear():
    rng = random.Random("linear")
    a = random_layout(rng, max_bits=2)
    xs = list(every_input(a))
    for x, y in itertools.product(xs, xs):
        xy = {d: x[d] ^ y[d] for d in x}
        assert a.apply(xy) == {o: a.apply(x)[o] ^ a.apply(y)[o] for o in a.out_dim_names}


def test_surjective_injective_invertible_count_the_image():
    rng = random.Random("properties")
    for _ in range(30):
        a = random_layout(rng, max_bits=2)
        image = {tuple(a.apply(x).values()) for x in every_input(a)}
        outs = 1 << a.total_out_bits
        assert a.is_surjective() == (len(image) == outs)
        assert a.is_injective() == (len(image) == 1 << a.total_in_bits)
        assert a.is_invertible() == (a.is_surjective() and a.is_injective())


def test_rref_is_reduced_and_keeps_the_row_space():
    rng = random.Random("rref")
    for _ in range(50):
        rows = [rng.randrange(64) for _ in range(rng.randint(1, 6))]
        reduced = rref(rows, 6)
        nonzero = [r for r in reduced if r]
        pivots = [(r & -r).bit_length() - 1 for r in nonzero]
        assert pivots == sorted(set(pivots)) and reduced[len(nonzero):] == \
            [0] * (len(rows) - len(nonzero))
        for p in pivots:
            assert sum(r >> p & 1 for r in nonzero) == 1
        assert matrix_rank(nonzero) == matrix_rank(rows) == len(nonzero)
        assert matrix_rank(transpose(rows, 6)) == len(nonzero)


def test_constructors_are_tritons():
    assert LinearLayout.identity_1d(8, "i", "o").bases == (("i", ((1,), (2,), (4,))),)
    assert LinearLayout.strided_1d(4, 2, "i", "o").out_dims == (("o", 8),)
    assert LinearLayout.zeros_1d(4, "i", "o").out_dims == (("o", 1),)
    with pytest.raises(TritonLayoutError, match="non-power-of-two"):
        LinearLayout.strided_1d(4, 3, "i", "o")     # Triton: out-dim size 12


def test_to_python_builds_the_same_layout():
    a = LinearLayout.from_bases([("r", [[1, 0], [0, 1]]), ("t", [[2, 0]])], ["x", "y"])
    namespace = {"LinearLayout": LinearLayout}
    assert eval(a.to_python(), namespace) == a


def test_import_triton_in_the_repository_root_is_the_real_triton(tmp_path):
    # Started in the root, Python finds tilespec's triton/ folder first; it
    # hands the name to the Triton further down sys.path (here a stand-in).
    import os
    import subprocess
    import sys

    from locations import ROOT
    real = tmp_path / "site" / "triton"
    real.mkdir(parents=True)
    (real / "__init__.py").write_text("WHO = 'the real one'\n")
    code = "import triton; print(triton.WHO, triton.__file__)"
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "site"))
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"the real one {real / '__init__.py'}\n"
    done = subprocess.run([sys.executable, "-S", "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert "the real Triton is not installed" in done.stderr
