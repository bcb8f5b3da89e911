"""spec.symbolic: the formula, its simplified form, and generated Python and C.

The generated functions are run (Python by exec, C compiled with the system
C compiler and called through ctypes) and must agree with spec.index.offset
and locate on every element and every offset of each layout.
"""

from __future__ import annotations

import ctypes
import itertools
import shutil
import subprocess

import numpy as np
import pytest
import sympy
from hypothesis import given, settings, strategies as st

from tilespec.cli import main
from tilespec.codegen.convert import closed_form, numpy_source
from tilespec.codegen.expressions import Code, CodeArithmetic, CodegenError
from tilespec.codegen.symbolic import (
    c_source,
    formula,
    python_functions,
    python_source,
    readable,
    simplified,
)
from tilespec.spec.arith import index_mod
from tilespec.spec.errors import TilespecError
from tilespec.spec.index import (
    index_symbols,
    locate,
    locate_many,
    offset,
    offset_expr,
    offsets,
    padded_elements,
)
from tilespec.spec.naming import names
from tilespec.spec.text import parse_array_shape
from tilespec.teach.latex import latex
from tilespec.testing import elements, layouts

try:
    from tilespec.testing import shapes_with_layout
except ImportError:         # written alongside; the fixed layouts still run
    shapes_with_layout = None

# (layout text, sizes for its named dims)
LAYOUTS = [
    ("f32[3,5]{1,0:T(2,2)}", {}),
    ("bf16[4,8]{1,0:T(2,4)(2,1)}", {}),
    ("bf16[9,130]{1,0:T(8,128)(2,1)}", {}),
    ("f32[5,6]{0,1:T(2,4)(2,1)}", {}),
    ("f32[6,10]{1,0:T(2,4)(3,2,4)}", {}),
    ("f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}", {}),
    ("f32[4,3,5]{0,2,1:T(2,2)}", {}),
    ("f32[3]{0:T(2,2)}", {}),
    ("s32[]{:T(128)}", {}),
    ("s32[]", {}),
    ("f32[3,5]", {}),
    ("f32[m,n]{1,0:T(8,128)}", {"m": 9, "n": 130}),
    ("f32[m,n]{0,1:T(2,4)(3,2,4)}", {"m": 7, "n": 5}),
    ("f32[a,b,c]{2,1,0:T(*,2,3)}", {"a": 3, "b": 2, "c": 5}),
]


def shape(text):
    return parse_array_shape(text)


def concrete(text, sizes):
    s = shape(text)
    return s.replace(dims=tuple(sizes.get(d, d) for d in s.dims),
                     dynamic=None)


def every_element(s):
    return list(itertools.product(*(range(d) for d in s.dims)))


def dim_args(text, sizes):
    return tuple(sizes[n] for n in shape(text).names)


# --- the formula ----------------------------------------------------------------------

def test_formula_is_the_spec_offset_expr_folded_for_reading():
    s = shape("bf16[m,n]{1,0:T(8,128)(2,1)}")
    assert formula(s) == readable(offset_expr(s))
    text = str(formula(s))
    assert "Mod(Mod(" not in text and "floor((Mod(" not in text
    assert "Mod(e0, 2)" in text and "Mod(floor(e0/2), 4)" in text
    assert formula(shape("f32[3,5]{1,0:T(2,2)}"), symbolic=True) == \
        offset_expr(shape("f32[3,5]{1,0:T(2,2)}"), symbolic=True)


def _nested(expr) -> bool:
    """Is a floor of a floor, or a mod of a mod it divides, left to fold?"""
    folds = (sympy.floor, sympy.Mod, index_mod())
    return any(isinstance(t, folds) and _foldable(t) for t in sympy.preorder_traversal(expr))


def _foldable(t) -> bool:
    # floor(floor(x/a)/b) and Mod(Mod(x, a*b), b): the two the reader should never see
    inner = t.args[0]
    if isinstance(t, sympy.floor):
        x, _ = sympy.fraction(sympy.together(inner))
        return isinstance(x, sympy.floor)
    b = t.args[1]
    return isinstance(inner, (sympy.Mod, index_mod())) and inner.args[1].is_Integer \
        and b.is_Integer and int(inner.args[1]) % int(b) == 0


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_readable_formula_is_the_spec_offset_at_random_elements(data):
    s = data.draw(shapes_with_layout(max_rank=3, max_dim=9, min_tiles=1, max_tiles=3,
                                     allow_zero=False, max_elements=1024))
    f = formula(s)
    assert not _nested(f), f
    e = index_symbols(s.rank, names(s).indices)
    for _ in range(3):
        element = data.draw(elements(s))
        assert int(f.subs(dict(zip(e, element)))) == offset(s, element)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_readable_copy_formula_is_locate_then_offset_at_random_offsets(data):
    a = data.draw(shapes_with_layout(min_rank=1, max_rank=3, max_dim=9, max_tiles=2,
                                     allow_zero=False, max_elements=1024))
    b = a.replace(layout=data.draw(layouts(rank=a.rank, max_tiles=2, fields=())))
    expr, holds = closed_form(a, b)
    assert not _nested(expr) and "0 * o" not in numpy_source(a, b)
    o = sympy.Symbol("o", integer=True, nonnegative=True)
    for _ in range(3):
        at = data.draw(st.integers(0, padded_elements(a) - 1))
        element = locate(a, at)
        assert bool(holds.subs(o, at)) == (element is not None)
        if element is not None:
            assert int(expr.subs(o, at)) == offset(b, element)


def test_formula_at_the_documents_example():
    e0, e1 = index_symbols(2)
    f = formula(shape("f32[3,5]{1,0:T(2,2)}"))
    assert f.subs({e0: 2, e1: 3}) == 17


def test_latex_is_the_sympy_latex():
    text = latex(shape("f32[m,n]{1,0:T(8,128)}"))
    assert r"\bmod" in text and r"\lfloor" in text and r"\lceil" in text
    assert text == sympy.latex(offset_expr(shape("f32[m,n]{1,0:T(8,128)}")))
    assert r"\lceil" not in latex(shape("f32[m,n]{1,0:T(8,128)}"), simplify=True)


@pytest.mark.parametrize("text, assumptions", [
    ("f32[m,n]{1,0:T(8,128)}", ["m = 8*k0", "n = 128*k1"]),
    ("bf16[m,n]{1,0:T(8,128)(2,1)}", ["m = 8*k0", "n = 128*k1"]),
    ("f32[m,n]{0,1:T(2,4)(3,2,4)}", ["m = 12*k0_2", "n = 2*k1"]),
    ("f32[a,b,c]{2,1,0:T(*,2,3)}", ["b = 2*k1", "c = 3*k2"]),
    ("f32[m,6]{1,0:T(4,4)}", ["m = 4*k0"]),
])
def test_simplified_holds_where_its_assumptions_do(text, assumptions):
    s = shape(text)
    result = simplified(s)
    assert result.assumptions() == assumptions
    assert not result.expr.has(sympy.ceiling)
    fresh = sorted({x for _, v in result.substitutions for x in v.free_symbols}, key=str)
    for values in itertools.product((1, 2), repeat=len(fresh)):
        at = dict(zip(fresh, values))
        sizes = {str(d): int(v.subs(at)) for d, v in result.substitutions}
        for name in s.names:                # a dim the assumptions leave free
            sizes.setdefault(name, 3)
            at[sympy.Symbol(name, integer=True, positive=True)] = sizes[name]
        c = concrete(text, sizes)
        expr = result.expr.subs(at)
        elements = every_element(c)
        want = offsets(c, elements)
        got = [int(expr.subs(dict(zip(index_symbols(c.rank), e))))
               for e in elements[::7]]
        assert got == want[::7].tolist()


def test_simplified_notes_padding_it_cannot_assume_away():
    s = simplified(shape("f32[3,5]{1,0:T(2,2)}"))
    assert s.substitutions == ()
    assert any("dim 5" in n for n in s.notes)
    assert simplified(shape("f32[4,6]{1,0:T(2,2)}")).notes == ()


# --- generated code ---------------------------------------------------------------------

@pytest.mark.parametrize("text, sizes", LAYOUTS)
def test_generated_python_agrees_with_the_spec(text, sizes):
    g = python_functions(shape(text))
    c = concrete(text, sizes)
    extra = dim_args(text, sizes)
    elements = every_element(c)
    want = offsets(c, elements).tolist() if elements else []
    assert [g.offset(*e, *extra) for e in elements] == want
    idx, ok = locate_many(c, np.arange(padded_elements(c)))
    for o, (i, k) in enumerate(zip(idx.tolist(), ok.tolist())):
        assert g.locate(o, *extra) == (tuple(i) if k else None)


def test_generated_python_with_every_dim_a_parameter():
    text = "bf16[9,130]{1,0:T(8,128)(2,1)}"
    g = python_functions(shape(text), symbolic=True)
    c = shape(text)
    for e in [(0, 0), (8, 129), (1, 0), (0, 1), (5, 77)]:
        assert g.offset(*e, 9, 130) == offsets(c, [e])[0]
    assert "def offset(e0, e1, d0, d1):" in g.source


def test_generated_python_is_plain_source():
    src = python_source(shape("f32[3,5]{1,0:T(2,2)}"))
    assert "return ((e0 // 2 * 3 + e1 // 2) * 2 + e0 % 2) * 2 + e1 % 2" in src
    compile(src, "<test>", "exec")


@pytest.fixture(scope="module")
def cc():
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler")
    return compiler


def _compile(cc, source, tmp_path):
    c_file, lib = tmp_path / "layout.c", tmp_path / "layout.so"
    c_file.write_text(source)
    subprocess.run([cc, "-std=c99", "-Wall", "-Wextra", "-Werror", "-O1",
                    "-shared", "-fPIC", "-o", str(lib), str(c_file)],
                   check=True, capture_output=True, text=True)
    return ctypes.CDLL(str(lib))


@pytest.mark.parametrize("text, sizes", LAYOUTS)
def test_generated_c_agrees_with_the_spec(cc, tmp_path, text, sizes):
    s = shape(text)
    c = concrete(text, sizes)
    lib = _compile(cc, c_source(s), tmp_path)
    i64 = ctypes.c_int64
    extra = dim_args(text, sizes)
    lib.offset.restype = i64
    lib.offset.argtypes = [i64] * (s.rank + len(extra))
    lib.locate.restype = ctypes.c_int
    lib.locate.argtypes = [i64] * (1 + len(extra)) + [ctypes.POINTER(i64)]
    elements = every_element(c)
    want = offsets(c, elements).tolist() if elements else []
    assert [lib.offset(*e, *extra) for e in elements] == want
    out = (i64 * max(s.rank, 1))()
    idx, ok = locate_many(c, np.arange(padded_elements(c)))
    for o, (i, k) in enumerate(zip(idx.tolist(), ok.tolist())):
        assert lib.locate(o, *extra, out) == int(k)
        if k:
            assert tuple(out[:s.rank]) == tuple(i)


@pytest.mark.skipif(shapes_with_layout is None, reason="no tilespec.testing")
@settings(max_examples=60)
@given(shapes_with_layout(max_rank=3, max_elements=256) if shapes_with_layout
       else st.nothing())
def test_generated_python_agrees_on_any_small_layout(s):
    g = python_functions(s)
    elements = every_element(s)
    if elements:
        assert [g.offset(*e) for e in elements] == offsets(s, elements).tolist()
    idx, ok = locate_many(s, np.arange(padded_elements(s)))
    for o, (i, k) in enumerate(zip(idx.tolist(), ok.tolist())):
        assert g.locate(o) == (tuple(i) if k else None)


def test_code_arithmetic_parenthesises_by_precedence():
    py, c = CodeArithmetic("python"), CodeArithmetic("c")
    x, y = Code("x"), Code("y")
    assert str(py.mul(py.add(x, y), 3)) == "(x + y) * 3"
    assert str(py.mul(3, py.floordiv(x, 2))) == "3 * (x // 2)"
    assert str(py.floordiv(py.mul(x, 3), 2)) == "x * 3 // 2"
    assert str(c.both(c.lt(x, 3), c.lt(y, 4))) == "x < 3 && y < 4"
    assert str(py.lt(py.add(x, 1), py.mul(y, 2))) == "x + 1 < y * 2"
    assert eval(str(py.mul(3, py.floordiv(x, 2))), {"x": 7}) == 9
    with pytest.raises(CodegenError):
        CodeArithmetic("rust")


@pytest.mark.parametrize("text", ["f32[e0,3]", "f32[int,3]", "f32[lambda,3]", "f32[o,2]"])
def test_clashing_dim_names_give_working_code(text):
    # The code's own names avoid the dims' names and a
    # keyword is respelled (spec/naming.py), so the code runs and is right.
    g = python_functions(shape(text))
    size = 4
    s = shape(text.replace(text[4:text.index(",")], str(size)))
    for e in every_element(s):
        assert g.offset(*e, size) == offset(s, e)
        assert g.locate(offset(s, e), size) == e
    assert issubclass(CodegenError, TilespecError)


# --- the command line ---------------------------------------------------------------

def test_cli_formula(capsys):
    assert main(["formula", "f32[3,5]{1,0:T(2,2)}"]) == 0
    assert capsys.readouterr().out == (
        "offset(e0, e1) = 2*(Mod(e0, 2)) + Mod(e1, 2) + 12*floor(e0/2) + 4*floor(e1/2)\n")


def test_cli_formula_latex_and_simplify(capsys):
    assert main(["formula", "f32[m,n]{1,0:T(8,128)}", "--latex", "--simplify"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "% assuming m = 8*k0, n = 128*k1:"
    assert out[1].startswith(r"\operatorname{offset}(e_{0}, e_{1}) = ")
    assert r"\lceil" not in out[1]


def test_cli_formula_python_runs(capsys):
    assert main(["formula", "f32[3,5]{1,0:T(2,2)}", "--python"]) == 0
    namespace: dict = {}
    exec(capsys.readouterr().out, namespace)
    assert namespace["offset"](2, 3) == 17 and namespace["locate"](9) is None


def test_cli_formula_c_and_json(capsys):
    assert main(["formula", "f32[m,n]{1,0:T(8,128)}", "--c", "--json"]) == 0
    import json
    data = json.loads(capsys.readouterr().out)["results"][0]["data"]
    assert "int64_t offset(int64_t e0, int64_t e1, int64_t m, int64_t n)" in data["c"]


@pytest.mark.parametrize("args", [
    ["f32[3,5]", "--python", "--c"],
    ["f32[3,5]", "--python", "--simplify"],
    ["f32[?,5]", "--c"],                # a dim that is not a name
    ["f32[3,5", "--latex"],
])
def test_cli_formula_bad_input_is_one_line_exit_2(capsys, args):
    assert main(["formula", *args]) == 2
    assert capsys.readouterr().err.count("\n") == 1


@pytest.mark.parametrize("text", ["f32[2,0,3]{1,0,2:T(*,1)}", "f32[3,0]{1,0:T(*,2)}",
                                  "f32[0,0]{1,0:T(*,2)}"])
def test_code_for_a_zero_dim_combined_by_star_is_written(text):
    # the combined box is empty: the code never runs, but writing it must not
    # divide by the 0 dim
    from tilespec.codegen.symbolic import c_source, python_source
    assert "def locate" in python_source(shape(text), False)
    assert "int locate" in c_source(shape(text), False)


def test_cli_formula_prefix_names_the_c_functions_or_is_refused_in_one_line(capsys):
    assert main(["formula", "f32[m]{0:T(8)}", "--c", "--prefix", "f8"]) == 0
    out = capsys.readouterr().out
    assert "int64_t f8_offset(int64_t e0, int64_t m) {" in out
    assert "int f8_locate(int64_t o, int64_t m, int64_t *e) {" in out
    assert " offset(" not in out and " locate(" not in out
    for argv, message in [(["--python", "--prefix", "f8"], "--prefix names C functions"),
                          (["--c", "--prefix", "8f"], "prefix '8f' is not a C identifier")]:
        assert main(["formula", "f32[m]{0:T(8)}", *argv]) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1
    assert main(["formula", "f32[a_offset]{0}", "--c", "--prefix", "a"]) == 2
    assert "makes a_offset, a name the code uses" in capsys.readouterr().err


@pytest.mark.integration
def test_the_formula_c_of_two_layouts_links_into_one_program_with_distinct_prefixes(
        cc, tmp_path, capsys):
    """Each layout's ``formula --c`` compiled on its own (cc -c), both
    linked into one program that prints every element's offset through
    each: without prefixes the link fails on the two ``offset``s."""
    layouts = {"a": "f32[3,5]{1,0:T(2,2)}", "b": "bf16[m,n]{1,0:T(8,128)(2,1)}"}
    sizes = {"a": (3, 5, ""), "b": (9, 130, ", 9, 130")}

    def objects(prefixed):
        out = []
        for p, text in layouts.items():
            argv = ["formula", text, "--c", *(["--prefix", p] if prefixed else [])]
            assert main(argv) == 0
            c_file = tmp_path / f"{p}{int(prefixed)}.c"
            c_file.write_text(capsys.readouterr().out)
            out.append(str(c_file.with_suffix(".o")))
            subprocess.run([cc, "-std=c99", "-Wall", "-Wextra", "-Werror", "-O1", "-c",
                            str(c_file), "-o", out[-1]], check=True, capture_output=True)
        return out

    program = ["#include <stdint.h>", "#include <stdio.h>",
               "int64_t a_offset(int64_t, int64_t);",
               "int64_t b_offset(int64_t, int64_t, int64_t, int64_t);",
               "int a_locate(int64_t, int64_t *);",
               "int b_locate(int64_t, int64_t, int64_t, int64_t *);",
               "int main(void) {", "    int64_t e[2];"]
    for p, (rows, cols, dims) in sizes.items():
        program += [f"    for (int64_t i = 0; i < {rows}; i++)",
                    f"        for (int64_t j = 0; j < {cols}; j++) {{",
                    f"            int64_t o = {p}_offset(i, j{dims});",
                    f"            int ok = {p}_locate(o{dims}, e);",
                    '            printf("%lld %d %lld %lld\\n", (long long)o, ok, '
                    "(long long)e[0], (long long)e[1]);",
                    "        }"]
    (tmp_path / "main.c").write_text("\n".join(program + ["    return 0;", "}", ""]))
    exe = tmp_path / "both"
    link = [cc, "-std=c99", str(tmp_path / "main.c"), "-o", str(exe)]
    clash = subprocess.run(link + objects(False), capture_output=True, text=True)
    assert clash.returncode != 0 and "offset" in clash.stderr
    subprocess.run(link + objects(True), check=True, capture_output=True)
    printed = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout
    want = []
    for p, (rows, cols, _) in sizes.items():
        s = shape(layouts[p].replace("m,n", f"{rows},{cols}"))
        want += [f"{offset(s, (i, j))} 1 {i} {j}" for i in range(rows) for j in range(cols)]
    assert printed.splitlines() == want
