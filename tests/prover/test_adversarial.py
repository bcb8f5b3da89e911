"""An adversarial audit: inputs a hostile but realistic user can give that
lead tilespec to a false "proved", a wrong answer or a traceback.

Each test states the truth by brute force on the concrete evaluator (plain
Python ints) and asks tilespec the same question: the answer is the truth,
``unknown``, or bad input, never a false "proved" or a traceback.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import pytest

from tilespec.prover.properties.proof import prove
from tilespec.prover.properties.stages_check import StageError
from tilespec.spec.errors import TilespecError
from tilespec.spec.index import Pad, Permute, Split, concrete_dims, evaluate, shape_pipeline
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


# --- a judged stage that divides by a negative number ---------------------

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


def test_negative_divisor_in_a_stage_is_not_proved_in_bounds():
    s = shape("f32[3,5]{1,0:T(2,2)}")
    stages = (NegativeMod(),) + shape_pipeline(s)
    offs = _offsets(s, stages)
    assert min(offs) < 0                      # the truth: not in bounds
    assert _not_proved_or_refused(
        lambda: prove(s, "in_bounds", stages=stages, timeout=LONG)) != "proved"


# --- a judged stage that branches on its (symbolic) index ------------------

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


@pytest.mark.parametrize("prop", ["injective", "bijective", "inverse"])
def test_stage_branching_on_its_index_is_not_proved(prop):
    s = shape("f32[3,3]{1,0}")
    stages = (Diagonal(),) + shape_pipeline(s)
    offs = _offsets(s, stages)
    assert len(set(offs)) < len(offs)         # the truth: (0,0), (1,1), (2,2) collide
    assert _not_proved_or_refused(
        lambda: prove(s, prop, stages=stages, timeout=LONG)) != "proved"


# --- `formula --python --prove` on a layout without tiles ----------------------

def _generated_python(text):
    from tilespec.prover.codegen.generated import python_source
    scope_ = {}
    exec(python_source(shape(text), shape(text).is_symbolic), scope_)
    return scope_["offset"], scope_["locate"]


@pytest.mark.parametrize("text", ["f32[3,5]{1,0}", "f32[m,n]{1,0}", "f32[2,3,4]{0,2,1}"])
def test_formula_python_prove_without_padding(capsys, text):
    from tilespec.cli import main
    if not shape(text).is_symbolic:
        # the truth: the generated functions are the spec's, by enumeration
        from tilespec.spec.index import offset
        off, loc = _generated_python(text)
        s = shape(text)
        for e in itertools.product(*map(range, s.dims)):
            assert off(*e) == offset(s, e) and tuple(loc(off(*e))) == e
    assert main(["formula", "--python", "--prove", text]) == 0


# --- generated C "proved" where its int64 arithmetic overflows ----------------

INT64_MAX = (1 << 63) - 1


# Shapes whose bytes overflow int64 are bad input at parse time (XLA rejects
# them); a shape that parses and whose offsets still overflow int64 is not
# proved.
@pytest.mark.parametrize("text", ["f32[2305843009213693952,4]{1,0:T(8,128)}",
                                  "s8[144115188075855872,1]{1,0:T(1,128)}"])
def test_generated_c_not_proved_where_int64_overflows(text):
    from tilespec.prover.codegen.generated import prove_generated
    from tilespec.spec.errors import ShapeError
    from tilespec.spec.index import offset
    if text.startswith("f32[2305843009213693952,"):
        with pytest.raises(ShapeError, match="overflows int64"):
            shape(text)
        return
    s = shape(text)
    last = (s.dims[0] - 1, s.dims[1] - 1)
    assert offset(s, last) > INT64_MAX        # the truth: C's int64_t cannot hold it
    try:
        statuses = [r.status for r in prove_generated(s, "c", timeout=LONG)]
    except TilespecError:
        return                                # refusing the shape is fine too
    assert "proved" not in statuses


def test_generated_c_scope_states_the_int64_limit():
    from tilespec.prover.codegen.generated import prove_generated
    from tilespec.spec.errors import ShapeError
    from tilespec.spec.index import offset
    with pytest.raises(ShapeError, match="overflows int64"):
        shape(f"f32[1,{INT64_MAX}]{{1,0:T(8,128)}}")
    # the truth, at a size XLA accepts: the spec's offset exceeds int64
    n = (1 << 61) - 1
    assert offset(shape(f"f32[1,{n}]{{1,0:T(8,128)}}"), (0, n - 1)) > INT64_MAX
    for r in prove_generated(shape("f32[m,n]{1,0:T(8,128)}"), "c", timeout=LONG):
        assert r.status != "proved" or r.scope != "all shapes: m >= 1, n >= 1"


# --- dims beyond int64 are accepted --------------------------------------------

@pytest.mark.parametrize("text", ["f32[9223372036854775808]{0}",
                                  "f32[<=9223372036854775808]{0}",
                                  "f32[99999999999999999999999,2]{1,0}"])
def test_dims_beyond_int64_are_bad_input(capsys, text):
    from tilespec.cli import main
    with pytest.raises(TilespecError):
        shape(text)
    assert main(["explain", text]) == 2


# --- a dim named like a macro of <stdint.h> --------------------------------------

# The C spells the dim INT64_MAX_ (spec/naming.py): "proved" rests on the C
# the tool prints compiling and never declaring the macro's name.
def test_c_dim_named_like_a_stdint_macro():
    import shutil
    import subprocess

    from tilespec.codegen.symbolic import c_source
    from tilespec.prover.codegen.generated import prove_generated
    # the truth: 'int64_t INT64_MAX' expands to 'int64_t 0x7fff...L': no C compiler
    # accepts it (gcc: "expected ')' before numeric constant")
    s = shape("f32[m,INT64_MAX]{1,0:T(8,128)}")
    try:
        statuses = [r.status for r in prove_generated(s, "c", timeout=LONG)]
    except TilespecError:
        return
    if "proved" in statuses:
        source = c_source(s)
        assert "int64_t INT64_MAX," not in source and "int64_t INT64_MAX)" not in source
        cc = shutil.which("gcc") or shutil.which("cc")
        if cc is None:
            pytest.skip("no C compiler to check the proved C compiles")
        assert subprocess.run([cc, "-std=c99", "-fsyntax-only", "-x", "c", "-"],
                              input=source, capture_output=True,
                              text=True).returncode == 0


# --- user functions with abs, divmod, shifts ------------------------------------

@pytest.mark.parametrize("fn", [
    lambda i, j, m, n: abs(i * n + j),
    lambda i, j, m, n: sum(divmod(i * n + j, 1)),
    lambda i, j, m, n: (i << 0) * n + j,
], ids=["abs", "divmod", "shift"])
def test_user_function_with_unsupported_operations(fn):
    from tilespec.prover.userfn import check_offset_function
    s = shape("f32[m,n]{1,0}")
    assert fn(2, 3, 4, 5) == 13               # a correct offset on ints
    try:
        check_offset_function(fn, s, timeout=LONG)
    except TilespecError:
        pass


# --- regress writes wrong (even negative) byte offsets --------------------------

# Every case regress writes, the size case (no element) included, holds the
# exact byte offset (the size case: byte_size).
def test_regress_byte_offsets_are_exact(capsys):
    import json

    from tilespec.cli import main
    from tilespec.spec.index import offset
    from tilespec.spec.size import byte_size
    text = "f32[288230376151711744,4]{1,0}"     # 2^58 x 4 floats: 2^62 bytes
    s = shape(text)
    assert byte_size(s) < 1 << 63                # a size XLA's int64 holds
    assert main(["regress", "--count", "3", "--seed", "1", text]) == 0
    wrong = []
    for line in capsys.readouterr().out.splitlines():
        case = json.loads(line)
        if "element" not in case:
            if case["byte_size"] != byte_size(s):
                wrong.append(case)
            continue
        if case["element"] is None:
            continue
        want = offset(s, tuple(case["element"]))   # elements: f32 is 4 bytes each
        if (case["offset"], case["byte_offset"]) != (want, 4 * want):
            wrong.append(case)
    assert not wrong


# --- locate refuses offsets in the L(n) tail padding ------------------------------

def test_locate_in_tail_padding_is_padding(capsys):
    from tilespec.cli import main
    from tilespec.spec.index import locate
    from tilespec.spec.size import aligned_elements, byte_size
    s = shape("f32[3]{0:T(2)L(8)}")
    # the truth: the buffer holds 8 elements (32 bytes); 3 of them are elements
    assert aligned_elements(s) == 8 and byte_size(s) == 32
    assert locate(s, 6) is None
    assert main(["locate", "f32[3]{0:T(2)L(8)}", "6"]) == 0


# --- a stage written with Python operators ----------------------------------------

@dataclass(frozen=True)
class PlainPython:
    """The identity, written as a user would without the ``ar`` object:
    ``x + 0`` is right on ints, a TypeError on the prover's SMT-LIB text."""

    level: int = 0
    name: str = "plain python"

    def dims(self, d, ar):
        return tuple(d)

    def forward(self, e, d, ar):
        return tuple(x + 0 for x in e)

    def backward(self, e, d, ar):
        return tuple(e), ar.true()


def test_stage_with_python_operators_is_a_verdict_or_bad_input():
    s = shape("f32[3,5]{1,0:T(2,2)}")
    stages = (PlainPython(),) + shape_pipeline(s)
    assert _offsets(s, stages) == _offsets(s, shape_pipeline(s))   # it is the identity
    _not_proved_or_refused(lambda: prove(s, "injective", stages=stages, timeout=LONG))


# --- check-rule array_size --------------------------------------------

@pytest.mark.parametrize("text", ["f32[]{:T(1)(3)L(8)}", "f32[1]{0:T(1)(3)L(8)}"])
def test_check_rule_array_size_when_alignment_absorbs_later_padding(capsys, text):
    from tilespec.cli import main
    from tilespec.prover.models.rules import xla_array_bytes
    from tilespec.spec.size import byte_size
    # the truth: XLA's ArraySize (first tile: 1 element, L(8): 8) is 32 bytes,
    # and so is the spec's (T(1)(3): 3 elements, L(8): 8)
    assert xla_array_bytes(shape(text)) == byte_size(shape(text)) == 32
    assert main(["check-rule", "array_size", text]) == 0


def test_check_rule_array_size_compares_bytes(capsys):
    from tilespec.cli import main
    from tilespec.prover.models.rules import xla_array_bytes
    from tilespec.spec.size import byte_size
    text = "s4[5,7]{0,1:L(4)E(4)}"
    # untiled: ByteSizeOfElements = ceil(35 * 4 / 8) = 18; the spec: 36 * 4 / 8 = 18
    assert xla_array_bytes(shape(text)) == byte_size(shape(text)) == 18
    assert main(["check-rule", "array_size", text]) == 0


# --- --symbolic names a dim like a dim the user named ----------------------------

def test_symbolic_dim_names_never_collide_with_user_names(capsys):
    from tilespec.cli import main
    from tilespec.spec.index import dim_symbols
    s = shape("f32[d1,3]{1,0:T(2,2)}")
    assert len(set(dim_symbols(s, symbolic=True))) == 2
    assert main(["formula", "--symbolic", "f32[d1,3]{1,0:T(2,2)}"]) == 0
    out = capsys.readouterr().out
    # the row of tiles is ceil(dim 1 / 2) long: dim 1 must not be printed as d1,
    # the user's name for dim 0
    assert "ceiling(d1/2)" not in out


# --- a dim named like an index symbol in `formula` ---------------------------------

# The index is named so as never to be a dim's name (here i0, i1): the test
# reads the index names from the printed "offset(...)" head, as a reader
# would, and evaluates the formula exactly as written.
def test_formula_dim_named_like_an_index(capsys):
    import re

    import sympy

    from tilespec.cli import main
    from tilespec.spec.index import offset
    code = main(["formula", "f32[m,e1]{1,0:T(8,128)}"])
    if code == 2:
        return                                   # refused: fine
    assert code == 0
    head, text = capsys.readouterr().out.strip().split(" = ", 1)
    index = re.fullmatch(r"offset\((.*)\)", head).group(1).split(", ")
    assert len(index) == 2 and not {"m", "e1"} & set(index)
    i0, i1, e1, m = sympy.symbols([*index, "e1", "m"])
    expr = sympy.sympify(text, locals={index[0]: i0, index[1]: i1, "e1": e1, "m": m,
                                       "Mod": sympy.Mod})
    # read as written, at element (8, 200) of f32[16,300]: the truth is the spec's
    want = offset(shape("f32[16,300]{1,0:T(8,128)}"), (8, 200))
    assert int(expr.subs({i0: 8, i1: 200, e1: 300, m: 16})) == want


# --- combine_equals_reshape when the merge is not the spec's Combine class ------------

@dataclass(frozen=True)
class ColumnMajorMerge:
    """Merges each run of entries column-major: a '*' combination that is not
    the row-major reshape.  Named 'combine', but not a Combine."""

    groups: tuple
    level: int = 1
    name: str = "combine"

    def _runs(self, v):
        start = 0
        for g in self.groups:
            yield tuple(v[start:start + g])
            start += g

    def dims(self, d, ar):
        out = []
        for run in self._runs(d):
            p = 1
            for x in run:
                p = ar.mul(p, x)
            out.append(p)
        return tuple(out)

    def forward(self, e, d, ar):
        from tilespec.spec.index import linear_index
        return tuple(linear_index(ei[::-1], di[::-1], ar)
                     for ei, di in zip(self._runs(e), self._runs(d)))

    def backward(self, e, d, ar):
        from tilespec.spec.index import delinearise
        out = []
        for ei, di in zip(e, self._runs(d)):
            out.extend(delinearise(ei, di[::-1], ar)[::-1])
        return tuple(out), ar.true()


def test_combine_equals_reshape_sees_every_merge():
    from tilespec.spec.index import Combine
    s = shape("f32[2,3]{1,0:T(*,4)}")                    # the layout does combine
    stages = tuple(ColumnMajorMerge(x.groups, x.level) if isinstance(x, Combine) else x
                   for x in shape_pipeline(s))
    # the truth: element (0, 1) lands at 2, where the row-major reshape puts (0, 2)
    assert _offsets(s, stages) == [0, 2, 4, 1, 3, 5]
    assert _offsets(s, shape_pipeline(s)) == [0, 1, 2, 3, 4, 5]
    assert _not_proved_or_refused(lambda: prove(
        s, "combine_equals_reshape", stages=stages, timeout=LONG)) != "proved"


# --- packed bitcasts judged on element counts, not bytes ---------------------------

@pytest.mark.parametrize("src, dst, perm", [
    ("s4[3,1]{0,1:E(4)}", "s4[1,3]{1,0:L(2)E(4)}", (1, 0)),
    ("s4[1]{0:T(2)E(4)}", "s4[1]{0:E(4)}", None),
])
def test_packed_bitcast_with_equal_bytes(src, dst, perm):
    from tilespec.prover.bitcast import prove_reading
    from tilespec.spec.index import offset
    from tilespec.spec.size import byte_size
    a, b = shape(src), shape(dst)
    # the truth: same bits per element, same bytes, every element at the same offset
    assert a.element_bits == b.element_bits and byte_size(a) == byte_size(b)
    for e in itertools.product(*map(range, a.dims)):
        f = tuple(e[p] for p in perm) if perm else e
        assert offset(a, e) == offset(b, f)
    assert prove_reading(a, b, transpose=perm, timeout=LONG).status == "proved"


@pytest.mark.parametrize("stages", [
    (Permute([1, 0]),),
    (Permute((1, 0)), Pad([2]), Split((2,))),
    (Permute((1, 0)), Pad((2,)), Split([2])),
])
def test_a_spec_stage_with_a_list_parameter_is_bad_input_not_a_traceback(stages):
    # the citation cache keys on the stages: a list inside one is unhashable
    with pytest.raises(StageError, match="tuple"):
        prove(shape("f32[2,3]{1,0}"), "injective", stages=stages)
