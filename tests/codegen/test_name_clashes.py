"""One naming scheme: a user's dim name is never one of tilespec's own names.

Dims named like the index (e0, e1), like generated dims (d1), like locate's
parameters (o, e), like a fresh integer of the simplified form (k1), like a
keyword (int, return, None) or like a name <stdint.h> defines (INT64_MAX,
int64_t) give formulas that mean what the spec computes, Python that runs
and C that gcc compiles, all agreeing with the spec at every element; and
``--prove`` compiles the C it proves.
"""

from __future__ import annotations

import ctypes
import itertools
import re
import shutil
import subprocess

import pytest
from hypothesis import given, settings, strategies as st

from tilespec.codegen.symbolic import c_source, python_functions, simplified
from tilespec.spec.index import offset
from tilespec.spec.layout import Shape
from tilespec.spec.naming import names, reserved
from tilespec.spec.text import parse_array_shape as shape
from tilespec.teach.latex import symbol_latex

CLASHES = ["INT64_MAX", "e0", "e1", "d1", "int", "return", "o", "e", "int64_t",
           "linux", "_X", "None", "offset", "k0", "i0", "off", "out"]

# (text, sizes of its named dims in order)
SHAPES = [
    ("f32[e1,int,o,INT64_MAX,d1,return]{5,4,3,2,1,0:T(2,2)}", (2, 1, 2, 1, 3, 3)),
    ("f32[e,linux,_X,e0]{0,1,2,3:T(2,2)}", (3, 2, 1, 3)),
    ("bf16[None,offset,int64_t,i0]{3,2,1,0:T(2,2)(2,1)}", (1, 2, 3, 5)),
]


def _concrete(text, sizes):
    s = shape(text)
    at = dict(zip(s.names, sizes))
    return s, Shape(s.element_type, tuple(at.get(d, d) for d in s.dims), s.layout)


def _elements(c):
    return list(itertools.product(*map(range, c.dims)))


@pytest.mark.parametrize("text, sizes", SHAPES)
def test_generated_python_runs_and_agrees(text, sizes):
    s, c = _concrete(text, sizes)
    g = python_functions(s)
    for e in _elements(c):
        assert g.offset(*e, *sizes) == offset(c, e)
        assert g.locate(offset(c, e), *sizes) == e


@pytest.mark.parametrize("text, sizes", SHAPES)
def test_generated_c_compiles_and_agrees(tmp_path, text, sizes):
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        pytest.skip("no C compiler")
    s, c = _concrete(text, sizes)
    src, lib = tmp_path / "g.c", tmp_path / "g.so"
    src.write_text(c_source(s))
    # default GNU mode, where gcc also defines 'linux' and 'unix'
    subprocess.run([cc, "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", "-o",
                    str(lib), str(src)], check=True, capture_output=True, text=True)
    so = ctypes.CDLL(str(lib))
    i64 = ctypes.c_int64
    so.offset.restype, so.offset.argtypes = i64, [i64] * (s.rank + len(sizes))
    so.locate.restype = ctypes.c_int
    so.locate.argtypes = [i64] * (1 + len(sizes)) + [ctypes.POINTER(i64)]
    out = (i64 * s.rank)()
    for e in _elements(c):
        o = offset(c, e)
        assert so.offset(*e, *sizes) == o
        assert so.locate(o, *sizes, out) == 1 and tuple(out) == e


@settings(max_examples=200)
@given(st.lists(st.sampled_from(CLASHES + ["m", "n", "k1", "k1_2", "q0", "int_", "e_1",
                                           "x0", "n1", "pos", "idx", "e_0"]),
                min_size=1, max_size=4), st.booleans(), st.integers(0, 2),
       st.sampled_from(["sympy", "python", "c"]))
def test_no_generated_name_is_a_users(dims, with_number, extra, language):
    dims = dims + [3] * extra + ([5] if with_number else [])
    s = Shape("f32", tuple(dims))
    n = names(s, language, symbolic=True)
    users = set(s.names)
    written = [w for _, w in n.spelling]
    generated = [*n.indices, *(d for d, x in zip(n.dims, s.dims) if not isinstance(x, str)),
                 n.offset, n.out, *(f"{n.fresh}{i}" for i in range(s.rank))]
    everything = written + generated
    assert len(set(everything)) == len(everything)          # no two share a name
    assert not users & set(generated)                       # never a user's name
    for u, w in n.spelling:                                 # only respelled if reserved
        assert w == u or reserved(u, language)
        assert not reserved(w, language)
    assert all(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", x) for x in everything)


def test_latex_spells_names_one_to_one():
    pool = CLASHES + ["m", "e_1", "e_0", "k1_2", "k_1", "alpha", "x", "e01"]
    spelled = [symbol_latex(x) for x in pool]
    assert len(set(spelled)) == len(pool)
    # a dim named e_1 beside the index e1: sympy would write both e_{1}
    from tilespec.teach.latex import latex
    text = latex(shape("f32[m,e_1]{1,0:T(8,128)}"))
    assert r"\mathit{e\_1}" in text and "e_{1}" in text


def test_simplified_fresh_names_avoid_the_users():
    s = simplified(shape("f32[k0,k1]{1,0:T(8,128)}"))
    fresh = {str(v.free_symbols.pop()) for _, v in s.substitutions}
    assert fresh and not fresh & {"k0", "k1"}
    assert all(not a.startswith(f"{d} = {d}") for d in ("k0", "k1") for a in s.assumptions())


def test_prove_compiles_the_c_it_proves(monkeypatch):
    """C that Z3 finds right but the compiler rejects is never 'proved'."""
    if shutil.which("gcc") is None and shutil.which("cc") is None:
        pytest.skip("no C compiler")
    from tilespec.prover.codegen import generated
    from tilespec.prover.result import ProverBug
    real = generated.c_source

    def broken(s, symbolic=False):
        # a redeclared type name: the expressions Z3 reads are unchanged
        return real(s, symbolic).replace("#include <stdint.h>",
                                         "#include <stdint.h>\nint int64_t;")
    monkeypatch.setattr(generated, "c_source", broken)
    with pytest.raises(ProverBug, match="rejects the generated C"):
        generated.prove_generated(shape("f32[3,5]{1,0:T(2,2)}"), "c")


def test_prove_names_the_compile_step():
    from tilespec.prover.codegen.generated import prove_generated
    for r in prove_generated(shape("f32[m,INT64_MAX]{1,0:T(8,128)}"), "c"):
        assert r.status == "proved"
        assert "compiles" in r.steps[0] or "no C compiler" in r.steps[0]
    py = prove_generated(shape("f32[m,return]{1,0:T(8,128)}"), "python")
    assert [r.status for r in py] == ["proved", "proved"]


@pytest.mark.parametrize("dim", ["and", "or", "not", "xor", "lambda", "is", "None", "pass"])
def test_generated_c_whose_dim_is_a_python_or_iso646_word_is_proved(dim):
    # the proof reads the C's expressions with Python's parser: a dim named
    # `and` was an internal SyntaxError
    from tilespec.prover.codegen import prove_generated
    rs = prove_generated(shape(f"s64[{dim},99,8]{{0,1,2:E(16)}}"), "c", timeout=120)
    assert [r.status for r in rs] == ["proved", "proved"]
    assert reserved(dim, "c")
